// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file labels_file.hpp
/// @brief Vertex labels kept beside a Matrix Market file (`g.mtx.labels`, line k = the label of
/// vertex k), written by `convert` when an edge list's labels are not 1..n, and read back by
/// every command that reads the matrix.
///
/// The matrix names its labels file in a comment, with the label count and an FNV-1a hash of the
/// file's bytes:
///   `% vertex labels: g.mtx.labels (line k = the label of vertex k; 3 labels, fnv1a64 5e2b...)`
/// so a labels file is used only by the matrix it was written with: one that was replaced or
/// edited since (or a new matrix whose labels file was not written) is an error, never a silent
/// relabelling, and a matrix written without labels ignores (and its writer removes) a stale
/// one.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spindle/loaders/matrix_market.hpp"

namespace spindle::cli {

/// The bytes of a labels file and their hash.
struct LabelsFile {
  std::string content;
  std::uint64_t hash = 0;
  std::size_t count = 0;
};

/// One label per line. @throws InvalidArgument for a label holding a line break.
LabelsFile make_labels_file(const std::vector<std::string>& labels);

/// The comment (without the leading `%`) that declares `file` (its name only: it lies beside the
/// matrix) as the matrix's labels.
std::string labels_comment(const std::string& file_name, const LabelsFile& labels);

/// The labels a matrix read from `path` declares in its header comments, read from beside it;
/// nullopt when it declares none (or was read from a stream, which has no "beside": warned).
/// A declared file that is missing is a warning (vertices keep their 1-based numbers); one whose
/// count or hash does not match, or whose count is not `rows`, is an Error.
std::optional<std::vector<std::string>> read_declared_labels(const std::string& path,
                                                             const MatrixMarketHeader& header,
                                                             std::int64_t rows,
                                                             std::string* labels_path);

}  // namespace spindle::cli
