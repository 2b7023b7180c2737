// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the .spg reader (header fields, section layout, checksum, offsets, columns,
// labels). Mutated files rarely keep a valid checksum, so each input is also read with the
// checksum off, which lets the structure checks behind it see the damage. On success: the
// graph's counts equal the header's, reads of every type agree, and write -> read gives the
// same graph back.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_common.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/spg.hpp"

namespace {

template <class I, class V>
bool same_graph(const spindle::Graph<I, V>& a, const spindle::Graph<I, V>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.row_ptr() != b.row_ptr() ||
      a.col_idx() != b.col_idx()) {
    return false;
  }
  if constexpr (!spindle::is_pattern_v<V>) {
    return a.values().empty() ||
           std::memcmp(a.values().data(), b.values().data(), a.values().size() * sizeof(V)) == 0;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace spindle;
  static fuzz::TempFile file("in.spg");
  static fuzz::TempFile out("out.spg");
  const std::string& path = file.write(data, size);

  SpgHeader h;
  const bool header_ok = fuzz::expect_clean("read_spg_header", [&] { h = read_spg_header(path); });
  SpgReadOptions checked;
  checked.allow_nonfinite = true;
  SpgResult<std::int64_t, double> full;
  const bool full_ok =
      fuzz::expect_clean("read_spg", [&] { full = read_spg<std::int64_t, double>(path, checked); });
  fuzz::require(!full_ok || header_ok, "graph accepted although the header was refused");
  if (full_ok) {
    fuzz::require(
        full.graph.rows() == h.rows && full.graph.cols() == h.cols && full.graph.nnz() == h.nnz,
        "graph counts equal the header's");
    fuzz::require(full.labels.size() == (h.has_labels ? static_cast<std::size_t>(h.rows) : 0),
                  "one label per vertex");
  }
  SpgReadOptions fast = checked;
  fast.verify_checksum = false;
  SpgResult<std::int32_t, float> r32;
  const bool fast_ok = fuzz::expect_clean("read_spg unverified",
                                          [&] { r32 = read_spg<std::int32_t, float>(path, fast); });
  SpgResult<std::int64_t, Pattern> pat;
  const bool pat_ok = fuzz::expect_clean(
      "read_spg pattern", [&] { pat = read_spg<std::int64_t, Pattern>(path, fast); });
  fuzz::require(!full_ok || pat_ok, "a verified file reads without verification too");
  if (pat_ok && pat.graph.nnz() <= 100000) {
    fuzz::require(
        fuzz::expect_clean("write_spg", [&] { write_spg(out.path(), pat.graph, pat.labels); }),
        "a read graph can be written");
    SpgResult<std::int64_t, Pattern> back;
    fuzz::require(fuzz::expect_clean("read back",
                                     [&] { back = read_spg<std::int64_t, Pattern>(out.path()); }),
                  "a written graph can be read back");
    fuzz::require(same_graph(pat.graph, back.graph) && back.labels == pat.labels,
                  "round trip keeps the graph and its labels");
  }
  (void)fast_ok;
  if (header_ok) {
    fuzz::expect_clean("load_graph", [&] { (void)load_graph<std::int32_t, Pattern>(path); });
  }
  return 0;
}
