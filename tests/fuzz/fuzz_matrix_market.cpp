// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the Matrix Market reader (banner, size line, data section, symmetry
// expansion, dense arrays). Each input is read several ways; on success the result must satisfy
// the reader's documented invariants, be independent of the thread count, and survive a
// write -> read round trip unchanged.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace {

using namespace spindle;

// Graph building allocates rows + 1 offsets: a 40-byte file may legitimately declare an empty
// 10^9 x 10^9 matrix. Such shapes are exercised through the header and COO readers, which must
// not allocate from the header; the CSR builds are limited to shapes the fuzzer's RSS limit
// allows.
constexpr std::int64_t kMaxBuildDim = std::int64_t{1} << 22;

template <class I>
bool same_coo(const Coo<I>& a, const Coo<I>& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.row != b.row || a.col != b.col) return false;
  if (a.val.size() != b.val.size()) return false;
  for (std::size_t k = 0; k < a.val.size(); ++k) {
    if (!fuzz::same_value(a.val[k], b.val[k])) return false;
  }
  return true;
}

void check_graph(const MatrixMarketHeader& h, const Graph<std::int32_t, double>& g, bool expanded) {
  fuzz::require(g.rows() == h.rows && g.cols() == h.cols, "graph shape equals the header's");
  if (!expanded || h.symmetry == MmSymmetry::General) {
    fuzz::require(g.nnz() <= h.entries, "general: nnz after dedup <= declared entries");
  } else {
    fuzz::require(g.nnz() <= 2 * h.entries, "symmetric: nnz <= 2 * declared entries");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::TempFile file("in.mtx");
  static fuzz::TempFile out("out.mtx");
  const std::string& path = file.write(data, size);

  MatrixMarketHeader h;
  const bool header_ok =
      fuzz::expect_clean("read_matrix_market_header", [&] { h = read_matrix_market_header(path); });
  if (header_ok) {
    fuzz::require(h.rows >= 0 && h.cols >= 0 && h.entries >= 0, "header sizes non-negative");
    fuzz::require(h.data_offset >= 0 && static_cast<std::size_t>(h.data_offset) <= size,
                  "data offset inside the file");
  }
  const bool small = header_ok && h.rows <= kMaxBuildDim && h.cols <= kMaxBuildDim;

  // Raw entries, one thread vs several: identical results or both refuse.
  MatrixMarketOptions one;
  one.threads = 1;
  one.progress = false;
  MatrixMarketOptions many = one;
  many.threads = 2;
  MatrixMarketCoo<std::int64_t> c1, c3;
  const bool ok1 = fuzz::expect_clean(
      "read_matrix_market_coo/1", [&] { c1 = read_matrix_market_coo<std::int64_t>(path, one); });
  const bool ok3 = fuzz::expect_clean(
      "read_matrix_market_coo/2", [&] { c3 = read_matrix_market_coo<std::int64_t>(path, many); });
  fuzz::require(ok1 == ok3, "thread count changes whether the file is accepted");
  if (ok1) {
    fuzz::require(same_coo(c1.coo, c3.coo), "thread count changes the entries read");
    fuzz::require(header_ok, "COO accepted a file whose header was refused");
    for (std::size_t k = 0; k < c1.coo.row.size(); ++k) {
      fuzz::require(c1.coo.row[k] >= 0 && c1.coo.row[k] < c1.coo.rows && c1.coo.col[k] >= 0 &&
                        c1.coo.col[k] < c1.coo.cols,
                    "COO entry inside the shape");
    }
  }

  if (small) {
    Graph<std::int32_t, double> g;
    if (fuzz::expect_clean("read_matrix_market<int32,double>",
                           [&] { g = read_matrix_market<std::int32_t, double>(path, one); })) {
      check_graph(h, g, true);
      if (g.nnz() <= 4096) {
        // Round trip: the writer's output reads back to the same graph, bit for bit.
        fuzz::require(
            fuzz::expect_clean("write_matrix_market", [&] { write_matrix_market(out.path(), g); }),
            "a read graph can be written");
        MatrixMarketOptions back = one;
        back.allow_nonfinite = true;  // duplicates may have summed to inf
        // The shape was accepted from the input; the written file may be much smaller (no
        // comments, merged duplicates), so its own dimension budget is not the question here.
        back.trust_dimensions = true;
        Graph<std::int32_t, double> g2;
        const bool back_ok = fuzz::expect_clean(
            "read back", [&] { g2 = read_matrix_market<std::int32_t, double>(out.path(), back); });
        fuzz::require(back_ok, "a written graph can be read back");
        fuzz::require(g2.rows() == g.rows() && g2.cols() == g.cols() &&
                          g2.row_ptr() == g.row_ptr() && g2.col_idx() == g.col_idx(),
                      "round trip keeps the structure");
        for (std::int32_t k = 0; k < g.nnz(); ++k) {
          fuzz::require(fuzz::same_value(g.values()[k], g2.values()[k]),
                        "round trip keeps the values");
        }
      }
    }
    MatrixMarketOptions odd = many;
    odd.expand_symmetry = false;
    odd.allow_nonfinite = true;
    odd.build.duplicates = DuplicatePolicy::Error;
    odd.build.self_loops = SelfLoopPolicy::Drop;
    fuzz::expect_clean("read_matrix_market<int64,Pattern>",
                       [&] { (void)read_matrix_market<std::int64_t, Pattern>(path, odd); });
    fuzz::expect_clean("read_matrix_market_dense<float>",
                       [&] { (void)read_matrix_market_dense<float>(path, one); });
  }
  // Headerless mode must also refuse cleanly whatever the bytes are.
  MatrixMarketOptions headerless = one;
  headerless.headerless = true;
  fuzz::expect_clean("read_matrix_market_coo/headerless",
                     [&] { (void)read_matrix_market_coo<std::int32_t>(path, headerless); });
  return 0;
}
