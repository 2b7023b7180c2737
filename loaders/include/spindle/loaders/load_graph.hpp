// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file load_graph.hpp
/// @brief One entry point for "read a graph from this file, whatever its format" (CLI, tools).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle {

/// Graph file formats Spindle reads and writes.
enum class GraphFileFormat : std::uint8_t {
  MatrixMarket,
  EdgeList,
  Spg,  ///< Spindle's binary CSR file (spg.hpp)
};

const char* to_string(GraphFileFormat f);

/// Guesses the format of a file: a file whose first bytes are the `.spg` magic is a `.spg` file
/// whatever its name; names ending in `.spg` are `.spg` files, `.mtx` or `.mm` Matrix Market;
/// any other name is Matrix Market when its first bytes are `%%MatrixMarket`
/// (case-insensitive), else an edge list. A file that cannot be opened, and a stream that no
/// InputStreamCapture holds, are guessed from their name alone (so output paths can be
/// classified too).
GraphFileFormat guess_graph_format(const std::string& path);

/// Makes a graph path that is not a regular file (a pipe, `/dev/stdin`, a process substitution
/// such as `<(zcat g.mtx.gz)`) readable more than once: while an InputStreamCapture of the path
/// is alive, its whole content is held in memory, read once, and every reader of this process
/// that opens the same path (format sniffing, the Matrix Market header, the body) sees those
/// bytes instead of opening the drained stream again. A gzip file is held the same way, inflated
/// once. Other regular files, directories and paths that do not exist are left alone (the
/// readers report them as before). Streams are read under the limits of every reader (no NUL
/// byte, lines of at most 1 MiB, the stream limit, a valid banner or first edge line).
/// load_graph() makes its own. @throws Error / ParseError when the stream cannot be read.
class InputStreamCapture {
 public:
  explicit InputStreamCapture(const std::string& path);
  ~InputStreamCapture();
  InputStreamCapture(const InputStreamCapture&) = delete;
  InputStreamCapture& operator=(const InputStreamCapture&) = delete;
  /// True when the path was a stream and its bytes are held.
  bool active() const noexcept { return active_; }
  /// Bytes held (0 when not active).
  std::int64_t bytes() const noexcept { return bytes_; }

 private:
  std::string path_;
  bool active_ = false;
  std::int64_t bytes_ = 0;
};

/// Options for load_graph(): one set per format; the shared ones (threads, progress,
/// allow_nonfinite, build policies) must be set in the struct of the format being read.
struct LoadGraphOptions {
  MatrixMarketOptions matrix_market{};
  EdgeListOptions edge_list{};
  SpgReadOptions spg{};
};

/// A graph with where it came from.
template <class I, class V>
struct LoadedGraph {
  Graph<I, V> graph;
  GraphFileFormat format = GraphFileFormat::MatrixMarket;
  /// Matrix Market header (default-constructed for edge lists; for .spg files rows, cols,
  /// entries, field (pattern or real) and symmetry (from its symmetric flag) only).
  MatrixMarketHeader header{};
  /// Original vertex labels (edge lists, .spg files that keep them); empty for Matrix Market
  /// (ids are 1-based indices).
  std::vector<std::string> labels;
  bool labels_are_integers = true;
};

/// Reads a graph from a Matrix Market file, an edge list or a `.spg` file (see
/// guess_graph_format()). @throws whatever read_matrix_market() / read_edge_list() / read_spg()
/// throw.
template <class I, class V>
LoadedGraph<I, V> load_graph(const std::string& path, const LoadGraphOptions& options = {});

/// Writes a graph in the given format (labels are used by edge lists and .spg files; may be
/// empty).
/// Atomic like the underlying writers.
template <class I, class V>
void save_graph(const std::string& path, const Graph<I, V>& graph, GraphFileFormat format,
                const std::vector<std::string>& labels = {});

}  // namespace spindle
