// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file matrix_market.hpp
/// @brief Matrix Market (.mtx) reader and writer: coordinate (sparse) and array (dense).
///
/// Reading maps the file into memory, parses the header sequentially and the data section in
/// parallel chunks split at newline boundaries (OpenMP, `std::from_chars`); chunks are joined in
/// file order, so the result never depends on the thread count. When several lines are bad, the
/// error reported is the one on the smallest line number.
///
/// Accepted syntax (everything else is a ParseError naming the file, the 1-based line and what
/// was expected):
///  - banner `%%MatrixMarket matrix <format> <field> <symmetry>`, words case-insensitive,
///    separated by any run of spaces/tabs; a UTF-8 byte-order mark is skipped;
///  - format `coordinate` | `array`; field `real` (or its synonym `double`) | `integer` |
///    `pattern` | `complex`; symmetry `general` | `symmetric` | `skew-symmetric` | `hermitian`;
///  - `%` comment lines and blank lines anywhere before the size line, and anywhere between
///    data lines (they never count as entries); LF or CRLF line ends; a missing final newline;
///  - size line `rows cols entries` (coordinate) or `rows cols` (array) of non-negative decimal
///    integers that fit in 63 bits;
///  - coordinate entries `i j [value]` with 1 <= i <= rows, 1 <= j <= cols; values are decimal
///    floating point (`real`, leading `+` allowed, `nan`/`inf` only with allow_nonfinite) or
///    decimal integers (`integer`); pattern entries have no value; array entries are one value
///    per line, column by column.
///
/// Refused combinations (ParseError on the banner line): `array pattern`, `hermitian` without
/// `complex`, `skew-symmetric pattern`, `symmetric`/`skew-symmetric`/`hermitian` with
/// rows != cols. Complex (any symmetry) is valid but throws Unsupported from the data readers.
///
/// Size safety: every size read from the file goes through checked arithmetic, is compared to
/// the number of bytes the file actually holds, and bounds no allocation by itself (LAGraph#403:
/// `2 2 18446744073709551615` is refused at once).

#include <cstdint>
#include <string>
#include <vector>

#include "spindle/coo_builder.hpp"
#include "spindle/dense.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/atomic_file.hpp"

namespace spindle {

/// The object word of the banner. Only `matrix` is supported (`vector` throws Unsupported).
enum class MmObject : std::uint8_t { Matrix, Vector };
/// `coordinate`: sparse triplets; `array`: dense, column-major.
enum class MmFormat : std::uint8_t { Coordinate, Array };
/// Value field of the entries.
enum class MmField : std::uint8_t { Real, Integer, Pattern, Complex };
/// Which part of the matrix is stored.
enum class MmSymmetry : std::uint8_t { General, Symmetric, SkewSymmetric, Hermitian };

const char* to_string(MmObject v);
const char* to_string(MmFormat v);
const char* to_string(MmField v);
const char* to_string(MmSymmetry v);

/// What the banner and the size line of a Matrix Market file say.
struct MatrixMarketHeader {
  MmObject object = MmObject::Matrix;
  MmFormat format = MmFormat::Coordinate;
  MmField field = MmField::Real;
  MmSymmetry symmetry = MmSymmetry::General;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  /// Entries the file declares: the third size-line number for coordinate files; for array
  /// files the values stored (rows*cols for general, the lower triangle with its diagonal for
  /// symmetric, the strict lower triangle for skew-symmetric).
  std::int64_t entries = 0;
  /// 1-based line number of the size line.
  std::int64_t size_line = 0;
  /// Byte offset just past the size line (where data begins).
  std::int64_t data_offset = 0;
  /// True when the file had no banner and was read with MatrixMarketOptions::headerless.
  bool headerless = false;
  /// The `%` lines between banner and size line, without the leading `%` (at most 100 kept).
  std::vector<std::string> comments;
};

/// How to read a Matrix Market file.
struct MatrixMarketOptions {
  /// Duplicate policy, self-loop policy and `symmetrize`, passed to build_graph(). Its
  /// `allow_nonfinite` is ignored: the field below decides, and is checked while parsing so the
  /// error names the line.
  BuildOptions build{};
  /// Keep NaN / Inf values. Default: refuse them with a ParseError naming file:line.
  bool allow_nonfinite = false;
  /// Mirror the stored triangle of symmetric (a_ji = a_ij) and skew-symmetric (a_ji = -a_ij)
  /// files; diagonal entries are never mirrored. False keeps entries exactly as stored.
  bool expand_symmetry = true;
  /// Accept a file without the `%%MatrixMarket` banner: it is read as `matrix coordinate real
  /// general` with a size line `rows cols entries`, or as `pattern` when the first data line has
  /// two fields. Default false: such files are refused with a ParseError saying so.
  bool headerless = false;
  /// Take the size line's rows and columns however large they are next to the file. By default
  /// read_matrix_market() refuses (ParseError on the size line) dimensions beyond
  /// matrix_market_dimension_budget() of the file's size: a 40-byte file declaring 10^8 x 10^8
  /// would otherwise make every vertex-sized array of the graph and its algorithms (gigabytes).
  bool trust_dimensions = false;
  /// OpenMP threads for parsing; 0 = omp_get_max_threads().
  int threads = 0;
  /// Print progress on stderr for loads that take over ~1 s, only when stderr is a terminal.
  bool progress = true;
};

/// Rows and columns read_matrix_market() accepts from a file of `file_bytes` bytes (after
/// decompression) without MatrixMarketOptions::trust_dimensions: 8 per byte, at least 2^20, and
/// at most the available memory / 64 bytes (the vertex-sized arrays of a graph and an algorithm).
std::int64_t matrix_market_dimension_budget(std::uint64_t file_bytes);

/// Raw entries of a coordinate file plus its header.
template <class I>
struct MatrixMarketCoo {
  MatrixMarketHeader header;
  /// 0-based entries in file order (when symmetry is expanded, each mirror directly follows its
  /// stored entry); `val` is empty for pattern files. rows/cols are the header's.
  Coo<I> coo;
};

/// Reads the banner, comments and size line only (no data), and validates them.
/// @param path file to read.
/// @param headerless see MatrixMarketOptions::headerless.
/// @throws ParseError malformed banner / size line or refused combination (names file:line).
/// @throws Error when the file cannot be opened.
/// Complex and hermitian headers are returned, not refused: the data readers refuse them.
MatrixMarketHeader read_matrix_market_header(const std::string& path, bool headerless = false);

/// Reads a coordinate file into raw 0-based entries, without building a graph.
/// @throws ParseError any syntax, range or count problem (file:line and what was expected).
/// @throws Unsupported complex field or `vector` object.
/// @throws InvalidArgument the array format (use read_matrix_market_dense), or a dimension that
///         does not fit I.
template <class I>
MatrixMarketCoo<I> read_matrix_market_coo(const std::string& path,
                                          const MatrixMarketOptions& options = {});

/// Reads a coordinate file into a Graph through build_graph().
///
/// Rows or columns beyond matrix_market_dimension_budget() of the file's size are refused
/// (ParseError on the size line) unless options.trust_dimensions.
///
/// general: entries as stored; symmetric: off-diagonal entries mirrored; skew-symmetric:
/// mirrored negated (a nonzero diagonal entry is a ParseError); pattern: every value 1. For
/// V = Pattern, values are parsed and checked but dropped. Duplicates and self-loops follow
/// options.build (default: sum for weighted V, collapse for Pattern; self-loops kept).
/// @tparam I int32_t or int64_t. @tparam V float, double or Pattern.
/// @throws ParseError, Unsupported, InvalidArgument as read_matrix_market_coo(), plus whatever
///         build_graph() throws for the policies (e.g. InvalidArgument for DuplicatePolicy::Error).
template <class I, class V>
Graph<I, V> read_matrix_market(const std::string& path, const MatrixMarketOptions& options = {});

/// Reads an `array` file (column-major in the file) into a row-major DenseMatrix. Symmetric and
/// skew-symmetric arrays (lower triangle stored) are expanded. Integer fields are accepted.
/// @tparam T float or double.
/// @throws ParseError syntax / count problems; Unsupported complex; InvalidArgument a
///         coordinate file.
template <class T>
DenseMatrix<T> read_matrix_market_dense(const std::string& path,
                                        const MatrixMarketOptions& options = {});

/// How to write a Matrix Market file.
struct MatrixMarketWriteOptions {
  /// General: every stored entry. Symmetric: only the lower triangle (i >= j); the graph must be
  /// square and symmetric in structure and values or InvalidArgument is thrown. Others refused.
  MmSymmetry symmetry = MmSymmetry::General;
  /// Written after the banner, one `%` line each (newlines inside are replaced by spaces).
  std::vector<std::string> comments;
  /// OpenMP threads for formatting; 0 = omp_get_max_threads().
  int threads = 0;
};

/// Writes a graph as `matrix coordinate <field> <symmetry>`: field `pattern` for Pattern graphs,
/// `real` otherwise, values in shortest round-trip form (reading the file back gives the same
/// float/double bits). Entries are written row by row, 1-based.
/// The file appears atomically: data goes to `path.tmp.<pid>` which is renamed onto path only
/// when complete; on any error the temporary is removed and path is untouched.
/// @throws Error when the file cannot be written; InvalidArgument for a bad symmetry request.
template <class I, class V>
void write_matrix_market(const std::string& path, const Graph<I, V>& graph,
                         const MatrixMarketWriteOptions& options = {});

/// Writes the same content into an open output without committing it: the caller commits (or
/// finish()es and publish()es it together with a companion file, such as vertex labels).
/// @throws Error when writing fails; InvalidArgument for a bad symmetry request.
template <class I, class V>
void write_matrix_market(AtomicFileWriter& out, const Graph<I, V>& graph,
                         const MatrixMarketWriteOptions& options = {});

/// Writes a dense matrix as `matrix array real general` (column-major, one value per line, round
/// trip precision), atomically like write_matrix_market(). `options.symmetry` must be General.
template <class T>
void write_matrix_market_dense(const std::string& path, const DenseMatrix<T>& matrix,
                               const MatrixMarketWriteOptions& options = {});

}  // namespace spindle
