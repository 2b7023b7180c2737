// SPDX-License-Identifier: Apache-2.0
// Format-agnostic load / save used by the CLI.
#include "spindle/loaders/load_graph.hpp"

#include "spindle/loaders/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#if SPINDLE_HAS_ZLIB
#include <zlib.h>
#endif

#include "mapped_file.hpp"
#include "stream_checks.hpp"
#include "text_scan.hpp"

namespace spindle {

const char* to_string(GraphFileFormat f) {
  switch (f) {
    case GraphFileFormat::MatrixMarket:
      return "matrix-market";
    case GraphFileFormat::Spg:
      return "spg";
    default:
      return "edge-list";
  }
}

namespace {
bool ends_with_ci(const std::string& s, const char* suffix) {
  const std::string_view suf(suffix);
  return s.size() >= suf.size() &&
         detail::iequals(std::string_view(s).substr(s.size() - suf.size()), suf);
}
}  // namespace

namespace {
// The start of a graph stream of any format: the .spg magic starts a .spg file (held to the
// size its header declares), a banner a Matrix Market file, anything else is an edge list (or a
// headerless .mtx file, whose size line has three fields).
std::uint64_t check_graph_prefix(const char* data, std::size_t size, bool eof,
                                 const std::string& path) {
  if (is_spg_magic(data, size)) return detail::check_spg_prefix(data, size, path);
  std::string_view head(data, std::min<std::size_t>(size, 20));
  if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  if (head.size() >= 14 && detail::iequals(head.substr(0, 14), "%%MatrixMarket")) {
    detail::check_mm_prefix(data, size, eof, path, false);
  } else {
    detail::check_edge_list_prefix(data, size, eof, path);
  }
  return 0;
}
}  // namespace

namespace {
// A regular file that starts with gzip's magic (and can be inflated here).
bool is_gzip_file(const std::string& path) {
#if SPINDLE_HAS_ZLIB
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char magic[2] = {0, 0};
  const bool gz = ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  ::close(fd);
  return gz;
#else
  (void)path;
  return false;
#endif
}
}  // namespace

InputStreamCapture::InputStreamCapture(const std::string& path) : path_(path) {
  struct stat st {};
  // stat, not open: opening a FIFO blocks until a writer comes. Regular files need nothing,
  // unless they are gzip data: inflated once here, not once per reader.
  if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return;
  if (S_ISREG(st.st_mode) && !is_gzip_file(path)) return;
  if (detail::captured_stream(path)) return;  // an outer capture holds it already
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // the reader reports it
  std::vector<char> bytes;
  try {
    bytes = detail::read_stream(fd, path, detail::Content::TextOrSpg,
                                [&](const char* d, std::size_t n, bool eof) {
                                  return check_graph_prefix(d, n, eof, path);
                                });
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
  char buf[17] = {};
  std::size_t got = 0;
  if (auto held = detail::captured_stream(path)) {
    got = std::min<std::size_t>(held->size(), sizeof(buf));
    std::copy(held->begin(), held->begin() + static_cast<std::ptrdiff_t>(got), buf);
  } else if (struct stat st{}; ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    // A stream nobody captured: opening it would block or eat its first bytes; the name decides.
  } else if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    got = std::fread(buf, 1, 17, f);
    std::fclose(f);
#if SPINDLE_HAS_ZLIB
    if (got >= 2 && static_cast<unsigned char>(buf[0]) == 0x1f &&
        static_cast<unsigned char>(buf[1]) == 0x8b) {
      // A gzip file: the banner is inside (g.mtx.gz, or any name).
      got = 0;
      if (gzFile g = gzopen(path.c_str(), "rb")) {
        const int n = gzread(g, buf, sizeof(buf));
        got = n > 0 ? static_cast<std::size_t>(n) : 0;
        gzclose(g);
      }
    }
#endif
  }
  // The binary format is told by its magic first: a .spg file keeps its format whatever its name.
  if (is_spg_magic(buf, got) || ends_with_ci(path, ".spg")) {
    return GraphFileFormat::Spg;
  }
  if (ends_with_ci(path, ".mtx") || ends_with_ci(path, ".mm") || ends_with_ci(path, ".mtx.gz") ||
      ends_with_ci(path, ".mm.gz")) {
    return GraphFileFormat::MatrixMarket;
  }
  std::string_view head(buf, got);
  if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  if (head.size() >= 14 && detail::iequals(head.substr(0, 14), "%%MatrixMarket")) {
    return GraphFileFormat::MatrixMarket;
  }
  return GraphFileFormat::EdgeList;
}

std::string read_text_file(const std::string& path) {
  detail::MappedFile f(path, detail::Content::Text);
  return detail::with_input_checks(f, path, [&] {
    if (const void* nul = std::memchr(f.data(), '\0', f.size())) {
      const auto at = static_cast<std::size_t>(static_cast<const char*>(nul) - f.data());
      const auto line = 1 + std::count(f.data(), f.data() + at, '\n');
      throw ParseError(path, line, "NUL byte: binary data, expected a text file");
    }
    return std::string(f.data(), f.size());
  });
}

template <class I, class V>
LoadedGraph<I, V> load_graph(const std::string& path, const LoadGraphOptions& options) {
  const InputStreamCapture capture(path);
  LoadedGraph<I, V> out;
  out.format = guess_graph_format(path);
  if (out.format == GraphFileFormat::Spg) {
    SpgResult<I, V> r = read_spg<I, V>(path, options.spg);
    out.graph = std::move(r.graph);
    out.labels = std::move(r.labels);
    out.labels_are_integers = r.header.labels_are_integers || out.labels.empty();
    out.header.rows = r.header.rows;
    out.header.cols = r.header.cols;
    out.header.entries = r.header.nnz;
    out.header.field = r.header.values == ValueKind::Pattern ? MmField::Pattern : MmField::Real;
    out.header.symmetry = r.header.symmetric ? MmSymmetry::Symmetric : MmSymmetry::General;
  } else if (out.format == GraphFileFormat::MatrixMarket) {
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
  } else if (format == GraphFileFormat::Spg) {
    write_spg(path, graph, labels);
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
