// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spg.hpp
/// @brief `.spg`: Spindle's binary CSR graph file (versioned, checksummed, memory-mapped).
///
/// Layout (docs/design/spg_format.md has the byte table): a 128-byte little-endian header
/// (magic, version, byte-order check, index and value types, rows, cols, nnz, flags, the
/// file's size, offset and size of each section, a 64-bit checksum), then four sections, each
/// starting on a 64-byte boundary: row offsets (rows + 1 indices), column indices (nnz),
/// values (nnz floats or doubles; absent for pattern graphs) and vertex labels (absent when
/// the vertices have none). Loading maps the file and copies the sections into the graph in
/// parallel blocks while the checksum is computed over the same bytes.
///
/// Reading never trusts the file: every size in the header is checked (overflow-checked
/// arithmetic) against the file's actual size before anything is allocated, then the checksum,
/// the offsets (start at 0, never decrease, end at nnz) and the columns (in range, strictly
/// increasing in each row) are checked. Anything wrong is a ParseError naming the file and what
/// is wrong; the file is never read out of bounds.

#include <cstdint>
#include <string>
#include <vector>

#include "spindle/coo_builder.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/types.hpp"

namespace spindle {

/// The format version this build writes and the only one it reads.
inline constexpr std::uint32_t kSpgVersion = 1;

/// What the header of a `.spg` file says (validated against the file's size).
struct SpgHeader {
  std::uint32_t version = kSpgVersion;
  IndexKind index = IndexKind::Int32;
  ValueKind values = ValueKind::Pattern;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  /// The writer declared the graph symmetric (SpgWriteOptions::symmetric).
  bool symmetric = false;
  /// The file holds vertex labels (one per row; square graphs only).
  bool has_labels = false;
  /// Every label is a decimal integer (as EdgeListResult::labels_are_integers).
  bool labels_are_integers = true;
  /// Total bytes of the file.
  std::uint64_t file_bytes = 0;
  /// The checksum stored in the header.
  std::uint64_t checksum = 0;
};

/// How to read a `.spg` file.
struct SpgReadOptions {
  /// Verify the checksum (one pass over the bytes, fused with the copy). Turning it off saves
  /// that work on trusted files; the structure is checked either way.
  bool verify_checksum = true;
  /// Take the header's column count however large next to the file (rows are bounded by the
  /// row offsets the file holds; columns only by a header field). By default, columns beyond
  /// matrix_market_dimension_budget() of the file's size are refused, like a .mtx size line.
  bool trust_dimensions = false;
  /// Keep NaN / Inf values. Default: refused (ParseError naming the entry), like the text
  /// readers.
  bool allow_nonfinite = false;
  /// OpenMP threads; 0 = omp_get_max_threads().
  int threads = 0;
  /// Applied to the graph as stored when `build.symmetrize` is set (an undirected reading: the
  /// reverse of every edge added, an edge stored both ways merged by `build.duplicates`, counted
  /// in `build.report`), as the text readers' BuildOptions. Otherwise the stored graph is taken
  /// as it is: a .spg file holds a built graph.
  BuildOptions build{};
};

/// Seconds spent in each part of a read_spg() call (for measurements; all 0 when not asked).
struct SpgReadTimes {
  double header = 0;    ///< open, map, header checks
  double allocate = 0;  ///< the graph's arrays
  double copy = 0;      ///< copying the sections (with the checksum when verified)
  double validate = 0;  ///< offsets and columns
  double labels = 0;    ///< vertex labels
  double convert = 0;   ///< index / value conversion when the file's types differ
};

/// A graph read from a `.spg` file with its labels.
template <class I, class V>
struct SpgResult {
  Graph<I, V> graph;
  SpgHeader header;
  /// labels[v]: the original name of vertex v (empty when the file has none).
  std::vector<std::string> labels;
};

/// True when `data` starts with the `.spg` magic (`\x89SPG\r\n\x1a\n`).
bool is_spg_magic(const char* data, std::size_t size) noexcept;

/// Reads and validates the header only (sizes against the file; not the checksum).
/// @throws ParseError naming the file and the problem; Error when it cannot be read.
SpgHeader read_spg_header(const std::string& path);

/// Reads a `.spg` file. When the file's index or value type differs from I / V the graph is
/// converted (float <-> double, values dropped for Pattern, 1 for a pattern file read with
/// values; int32 <-> int64, InvalidArgument when the graph does not fit int32).
/// @param times when not null, receives the time of each step.
/// @throws ParseError bad magic, unsupported version or byte order, unknown type or flag, a
///         size that does not match the file, checksum mismatch, offsets not monotone, column
///         out of range or unsorted, bad labels (each names the file).
/// @throws OutOfMemory when the graph cannot fit in the memory available; Error when the file
///         cannot be read or changes while it is read.
template <class I, class V>
SpgResult<I, V> read_spg(const std::string& path, const SpgReadOptions& options = {},
                         SpgReadTimes* times = nullptr);

/// How to write a `.spg` file.
struct SpgWriteOptions {
  /// Recorded in the header's flags (the writer does not check it).
  bool symmetric = false;
  /// OpenMP threads for the checksum; 0 = omp_get_max_threads().
  int threads = 0;
};

/// Writes `graph` (and `labels`, one per row, when not empty: the graph must then be square)
/// through AtomicFileWriter: the file appears complete or not at all.
/// @throws InvalidArgument labels whose count is not rows (or a rectangular graph with labels);
///         Error when writing fails.
template <class I, class V>
void write_spg(const std::string& path, const Graph<I, V>& graph,
               const std::vector<std::string>& labels = {}, const SpgWriteOptions& options = {});

/// Writes into an open output without committing it (the caller commits).
template <class I, class V>
void write_spg(AtomicFileWriter& out, const Graph<I, V>& graph,
               const std::vector<std::string>& labels = {}, const SpgWriteOptions& options = {});

/// The checksum of a whole `.spg` image: header bytes 0..119 (all but the checksum field), then
/// the bytes after the 128-byte header in 256 KiB blocks; the value its header must hold.
/// Returns 0 when `size` is below 128.
std::uint64_t spg_checksum(const char* data, std::size_t size, int threads = 0);

}  // namespace spindle
