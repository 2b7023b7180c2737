// SPDX-License-Identifier: Apache-2.0
// Format-agnostic load / save used by the CLI.
#include "spindle/loaders/load_graph.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "mapped_file.hpp"
#include "text_scan.hpp"

namespace spindle {

const char* to_string(GraphFileFormat f) {
  return f == GraphFileFormat::MatrixMarket ? "matrix-market" : "edge-list";
}

namespace {
bool ends_with_ci(const std::string& s, const char* suffix) {
  const std::string_view suf(suffix);
  return s.size() >= suf.size() &&
         detail::iequals(std::string_view(s).substr(s.size() - suf.size()), suf);
}
}  // namespace

InputStreamCapture::InputStreamCapture(const std::string& path) : path_(path) {
  struct stat st {};
  // stat, not open: opening a FIFO blocks until a writer comes, and regular files need nothing.
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return;
  if (detail::captured_stream(path)) return;  // an outer capture holds it already
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // the reader reports it
  std::vector<char> bytes;
  try {
    bytes = detail::read_all(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  bytes_ = static_cast<std::int64_t>(bytes.size());
  detail::register_captured_stream(path,
                                   std::make_shared<const std::vector<char>>(std::move(bytes)));
  active_ = true;
}

InputStreamCapture::~InputStreamCapture() {
  if (active_) detail::drop_captured_stream(path_);
}

GraphFileFormat guess_graph_format(const std::string& path) {
  if (ends_with_ci(path, ".mtx") || ends_with_ci(path, ".mm")) return GraphFileFormat::MatrixMarket;
  char buf[17] = {};
  std::size_t got = 0;
  if (auto held = detail::captured_stream(path)) {
    got = std::min<std::size_t>(held->size(), sizeof(buf));
    std::copy(held->begin(), held->begin() + static_cast<std::ptrdiff_t>(got), buf);
  } else if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    got = std::fread(buf, 1, 17, f);
    std::fclose(f);
  }
  std::string_view head(buf, got);
  if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  if (head.size() >= 14 && detail::iequals(head.substr(0, 14), "%%MatrixMarket")) {
    return GraphFileFormat::MatrixMarket;
  }
  return GraphFileFormat::EdgeList;
}

template <class I, class V>
LoadedGraph<I, V> load_graph(const std::string& path, const LoadGraphOptions& options) {
  const InputStreamCapture capture(path);
  LoadedGraph<I, V> out;
  out.format = guess_graph_format(path);
  if (out.format == GraphFileFormat::MatrixMarket) {
    out.header = read_matrix_market_header(path, options.matrix_market.headerless);
    out.graph = read_matrix_market<I, V>(path, options.matrix_market);
  } else {
    EdgeListResult<I, V> r = read_edge_list<I, V>(path, options.edge_list);
    out.graph = std::move(r.graph);
    out.labels = std::move(r.labels);
    out.labels_are_integers = r.labels_are_integers;
  }
  return out;
}

template <class I, class V>
void save_graph(const std::string& path, const Graph<I, V>& graph, GraphFileFormat format,
                const std::vector<std::string>& labels) {
  if (format == GraphFileFormat::MatrixMarket) {
    write_matrix_market(path, graph);
  } else {
    write_edge_list(path, graph, labels);
  }
}

#define SPINDLE_INSTANTIATE_LOAD(I, V)                                                      \
  template LoadedGraph<I, V> load_graph<I, V>(const std::string&, const LoadGraphOptions&); \
  template void save_graph<I, V>(const std::string&, const Graph<I, V>&, GraphFileFormat,   \
                                 const std::vector<std::string>&);
SPINDLE_INSTANTIATE_LOAD(std::int32_t, float)
SPINDLE_INSTANTIATE_LOAD(std::int32_t, double)
SPINDLE_INSTANTIATE_LOAD(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_LOAD(std::int64_t, float)
SPINDLE_INSTANTIATE_LOAD(std::int64_t, double)
SPINDLE_INSTANTIATE_LOAD(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_LOAD

}  // namespace spindle
