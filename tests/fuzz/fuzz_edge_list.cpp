// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the edge-list reader (separators, comments, CRLF, weights, label
// remapping). On success: labels are distinct and index every vertex, entries lie inside the
// shape, the thread count does not change the result, and a written graph reads back to the
// same labelled edges.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "fuzz_common.hpp"
#include "spindle/loaders/edge_list.hpp"

namespace {

using namespace spindle;

bool plain_label(const std::string& s) {
  if (s.empty() || s[0] == '#' || s[0] == '%' || s.rfind("\xEF\xBB\xBF", 0) == 0 ||
      s.rfind("\x1f\x8b", 0) == 0) {  // gzip's magic would read back as compressed data
    return false;
  }
  for (char ch : s) {
    if (ch == ' ' || ch == '\t' || ch == ',' || ch == '\r' || ch == '\n') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::TempFile file("in.txt");
  static fuzz::TempFile out("out.txt");
  const std::string& path = file.write(data, size);

  EdgeListOptions one;
  one.threads = 1;
  one.progress = false;
  EdgeListOptions many = one;
  many.threads = 2;
  EdgeListCoo<std::int64_t> a, b;
  const bool ok1 = fuzz::expect_clean("read_edge_list_coo/1",
                                      [&] { a = read_edge_list_coo<std::int64_t>(path, one); });
  const bool ok3 = fuzz::expect_clean("read_edge_list_coo/2",
                                      [&] { b = read_edge_list_coo<std::int64_t>(path, many); });
  fuzz::require(ok1 == ok3, "thread count changes whether the file is accepted");
  if (ok1) {
    fuzz::require(a.labels == b.labels && a.coo.row == b.coo.row && a.coo.col == b.coo.col &&
                      a.coo.val.size() == b.coo.val.size(),
                  "thread count changes the result");
    for (std::size_t k = 0; k < a.coo.val.size(); ++k) {
      fuzz::require(fuzz::same_value(a.coo.val[k], b.coo.val[k]), "thread count changes a weight");
    }
    const std::int64_t n = static_cast<std::int64_t>(a.labels.size());
    fuzz::require(a.coo.rows == n && a.coo.cols == n, "shape is labels x labels");
    fuzz::require(std::set<std::string>(a.labels.begin(), a.labels.end()).size() == a.labels.size(),
                  "labels are distinct");
    fuzz::require(a.weighted == !a.coo.val.empty() || a.coo.row.empty(), "weighted flag");
    for (std::size_t k = 0; k < a.coo.row.size(); ++k) {
      fuzz::require(a.coo.row[k] >= 0 && a.coo.row[k] < n && a.coo.col[k] >= 0 && a.coo.col[k] < n,
                    "entry inside the shape");
    }
  }

  EdgeListResult<std::int32_t, float> g;
  const bool built = fuzz::expect_clean(
      "read_edge_list<int32,float>", [&] { g = read_edge_list<std::int32_t, float>(path, one); });
  if (built && g.graph.nnz() <= 4096) {
    bool plain = true;
    for (const auto& l : g.labels) plain = plain && plain_label(l);
    // Whatever the writer accepts must read back to the same labelled edges; labels it cannot
    // write (blanks, separators, comment or BOM prefixes) must be refused, and plain ones never.
    const bool written = fuzz::expect_clean(
        "write_edge_list", [&] { write_edge_list(out.path(), g.graph, g.labels); });
    fuzz::require(written || !plain, "write_edge_list refused plain labels");
    if (written) {
      EdgeListOptions back = one;
      back.allow_nonfinite = true;
      back.header = EdgeListHeader::Absent;  // the writer writes no header row
      EdgeListResult<std::int32_t, float> g2;
      const bool back_ok = fuzz::expect_clean(
          "read back", [&] { g2 = read_edge_list<std::int32_t, float>(out.path(), back); });
      fuzz::require(back_ok, "a written edge list can be read back");
      auto edges = [](const EdgeListResult<std::int32_t, float>& r) {
        std::map<std::pair<std::string, std::string>, float> m;
        const auto& G = r.graph;
        for (std::int32_t i = 0; i < G.rows(); ++i) {
          for (std::int32_t k = G.row_ptr()[i]; k < G.row_ptr()[i + 1]; ++k) {
            m[{r.labels[i], r.labels[G.col_idx()[k]]}] = G.values()[k];
          }
        }
        return m;
      };
      const auto e1 = edges(g), e2 = edges(g2);
      fuzz::require(e1.size() == e2.size(), "round trip keeps the edge count");
      for (const auto& [k, v] : e1) {
        auto it = e2.find(k);
        fuzz::require(it != e2.end() && fuzz::same_value(v, it->second),
                      "round trip keeps every labelled edge and weight");
      }
    }
  }

  EdgeListOptions odd = many;
  odd.undirected = true;
  odd.ignore_extra_columns = true;
  odd.allow_nonfinite = true;
  odd.build.self_loops = SelfLoopPolicy::Drop;
  fuzz::expect_clean("read_edge_list<int64,Pattern>",
                     [&] { (void)read_edge_list<std::int64_t, Pattern>(path, odd); });
  return 0;
}
