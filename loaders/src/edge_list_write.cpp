// SPDX-License-Identifier: Apache-2.0
// Edge-list writer: label-aware, parallel formatting, atomic output.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "batched_writer.hpp"
#include "mapped_file.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "text_scan.hpp"

namespace spindle {

template <class I, class V>
void write_edge_list(const std::string& path, const Graph<I, V>& graph,
                     const std::vector<std::string>& labels, const EdgeListWriteOptions& options) {
  const char sep = options.separator;
  if (sep != ' ' && sep != '\t' && sep != ',') {
    throw InvalidArgument("write_edge_list: separator must be ' ', '\\t' or ',', got '" +
                          std::string(1, sep) + "'");
  }
  const std::int64_t need = std::max<std::int64_t>(graph.rows(), graph.cols());
  if (!labels.empty() && static_cast<std::int64_t>(labels.size()) < need) {
    throw InvalidArgument("write_edge_list: " + std::to_string(labels.size()) +
                          " labels given for a graph with " + std::to_string(need) + " vertices");
  }
  // A label the reader would split or skip cannot round-trip: refuse it here, not silently.
  for (std::size_t v = 0; v < labels.size(); ++v) {
    const std::string& l = labels[v];
    bool bad = l.empty() || l[0] == '#' || l[0] == '%' ||
               l.find_first_of(",\n\r") != std::string::npos ||
               l.find('\0') != std::string::npos ||  // the reader refuses binary data
               l.rfind("\xEF\xBB\xBF", 0) == 0 ||    // a UTF-8 BOM: skipped at file start
               l.rfind("\x1f\x8b", 0) == 0;          // gzip's magic: read as compressed data
    if (sep != ',') bad = bad || l.find_first_of(" \t") != std::string::npos;
    if (sep == ',' && !bad)
      bad = l.front() == ' ' || l.front() == '\t' || l.back() == ' ' || l.back() == '\t';
    if (bad) {
      throw InvalidArgument(
          "write_edge_list: label " + std::to_string(v) + " ('" + l +
          "') cannot be written: labels must be non-empty, hold no comma, "
          "line break or NUL, not start with '#', '%', a UTF-8 BOM or gzip's magic bytes, and "
          "hold blanks only inside when the separator is ','");
    }
  }
  const bool weights = options.weights && !is_pattern_v<V>;
  const bool upper = options.upper_triangle_only;
  const int threads = detail::resolve_threads(options.threads);
  const auto& rp = graph.row_ptr();
  const auto& ci = graph.col_idx();
  const V* vals = graph.value_ptr();

  AtomicFileWriter file(path);
  std::string head;
  for (const std::string& c : options.comments) {
    std::size_t b = 0;
    for (;;) {
      const std::size_t e = c.find('\n', b);
      std::string piece = c.substr(b, e == std::string::npos ? std::string::npos : e - b);
      if (!piece.empty() && piece.back() == '\r') piece.pop_back();
      head += "# " + piece + "\n";
      if (e == std::string::npos) break;
      b = e + 1;
    }
  }
  file.write(head);
  auto put_vertex = [&](std::string& out, std::int64_t v) {
    if (labels.empty()) {
      detail::append_number(out, v);
    } else {
      out += labels[static_cast<std::size_t>(v)];
    }
  };
  const auto blocks = detail::balanced_blocks(graph.rows(), std::int64_t{1} << 18,
                                              [&](std::int64_t u) { return std::int64_t{rp[u]}; });
  detail::write_blocks(file, blocks, threads,
                       [&](std::int64_t r0, std::int64_t r1, std::string& out) {
                         for (std::int64_t i = r0; i < r1; ++i) {
                           for (I k = rp[i]; k < rp[i + 1]; ++k) {
                             if (upper && ci[k] < i) continue;
                             put_vertex(out, i);
                             out.push_back(sep);
                             put_vertex(out, ci[k]);
                             if constexpr (!is_pattern_v<V>) {
                               if (weights) {
                                 out.push_back(sep);
                                 detail::append_number(out, vals[k]);
                               }
                             }
                             out.push_back('\n');
                           }
                         }
                       });
  file.commit();
}

#define SPINDLE_INSTANTIATE_EL_WRITE(I, V)                                    \
  template void write_edge_list<I, V>(const std::string&, const Graph<I, V>&, \
                                      const std::vector<std::string>&,        \
                                      const EdgeListWriteOptions&);
SPINDLE_INSTANTIATE_EL_WRITE(std::int32_t, float)
SPINDLE_INSTANTIATE_EL_WRITE(std::int32_t, double)
SPINDLE_INSTANTIATE_EL_WRITE(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_EL_WRITE(std::int64_t, float)
SPINDLE_INSTANTIATE_EL_WRITE(std::int64_t, double)
SPINDLE_INSTANTIATE_EL_WRITE(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_EL_WRITE

}  // namespace spindle
