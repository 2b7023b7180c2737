// SPDX-License-Identifier: Apache-2.0
// Matrix Market writers (coordinate and array), parallel formatting, atomic output.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "batched_writer.hpp"
#include "mapped_file.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "text_scan.hpp"

namespace spindle {
namespace {

// About this many entries per formatted block: large enough to amortize scheduling, small
// enough that a batch of blocks stays a few tens of MB.
constexpr std::int64_t kEntriesPerBlock = std::int64_t{1} << 18;

std::string banner(const char* format, const char* field, MmSymmetry sym,
                   const std::vector<std::string>& comments) {
  std::string s =
      std::string("%%MatrixMarket matrix ") + format + " " + field + " " + to_string(sym) + "\n";
  for (const std::string& c : comments) {
    std::string line = c;
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::replace(line.begin(), line.end(), '\r', ' ');
    s += "%" + (line.empty() || line[0] == ' ' ? line : " " + line) + "\n";
  }
  return s;
}

template <class I, class V>
bool is_symmetric(const Graph<I, V>& g) {
  if (!g.is_square()) return false;
  const Graph<I, V>& t = g.transpose();
  if (t.row_ptr() != g.row_ptr() || t.col_idx() != g.col_idx()) return false;
  if constexpr (!is_pattern_v<V>) {
    // Bitwise-equal values (NaN != NaN would otherwise refuse a symmetric file of NaNs).
    const auto& a = g.values();
    const auto& b = t.values();
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (!(a[k] == b[k]) && !(a[k] != a[k] && b[k] != b[k])) return false;
    }
  }
  return true;
}

}  // namespace

template <class I, class V>
void write_matrix_market(const std::string& path, const Graph<I, V>& graph,
                         const MatrixMarketWriteOptions& options) {
  AtomicFileWriter file(path);
  write_matrix_market(file, graph, options);
  file.commit();
}

template <class I, class V>
void write_matrix_market(AtomicFileWriter& file, const Graph<I, V>& graph,
                         const MatrixMarketWriteOptions& options) {
  const std::string& path = file.path();
  const bool lower = options.symmetry == MmSymmetry::Symmetric;
  if (options.symmetry != MmSymmetry::General && !lower) {
    throw InvalidArgument(std::string("write_matrix_market: symmetry '") +
                          to_string(options.symmetry) +
                          "' cannot be written; use 'general' or 'symmetric'");
  }
  if (lower && !is_symmetric(graph)) {
    throw InvalidArgument(path + ": cannot write as 'symmetric': the " +
                          std::to_string(graph.rows()) + " x " + std::to_string(graph.cols()) +
                          " matrix is not symmetric");
  }
  const int threads = detail::resolve_threads(options.threads);
  const auto& rp = graph.row_ptr();
  const auto& ci = graph.col_idx();
  const V* vals = graph.value_ptr();
  std::int64_t written = graph.nnz();
  if (lower) {
    written = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : written) if (graph.nnz() > 65536)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(graph.rows()); ++i) {
      for (I k = rp[i]; k < rp[i + 1]; ++k) written += ci[k] <= i ? 1 : 0;
    }
  }
  std::string head = banner("coordinate", is_pattern_v<V> ? "pattern" : "real", options.symmetry,
                            options.comments);
  head += std::to_string(graph.rows()) + " " + std::to_string(graph.cols()) + " " +
          std::to_string(written) + "\n";
  file.write(head);
  const auto blocks = detail::balanced_blocks(graph.rows(), kEntriesPerBlock,
                                              [&](std::int64_t u) { return std::int64_t{rp[u]}; });
  detail::write_blocks(file, blocks, threads,
                       [&](std::int64_t r0, std::int64_t r1, std::string& out) {
                         out.reserve(static_cast<std::size_t>(rp[r1] - rp[r0]) * 24);
                         for (std::int64_t i = r0; i < r1; ++i) {
                           for (I k = rp[i]; k < rp[i + 1]; ++k) {
                             if (lower && ci[k] > i) continue;
                             detail::append_number(out, i + 1);
                             out.push_back(' ');
                             detail::append_number(out, static_cast<std::int64_t>(ci[k]) + 1);
                             if constexpr (!is_pattern_v<V>) {
                               out.push_back(' ');
                               detail::append_number(out, vals[k]);
                             }
                             out.push_back('\n');
                           }
                         }
                       });
}

template <class T>
void write_matrix_market_dense(const std::string& path, const DenseMatrix<T>& matrix,
                               const MatrixMarketWriteOptions& options) {
  if (options.symmetry != MmSymmetry::General) {
    throw InvalidArgument("write_matrix_market_dense: only 'general' arrays are written");
  }
  const int threads = detail::resolve_threads(options.threads);
  AtomicFileWriter file(path);
  std::string head = banner("array", "real", MmSymmetry::General, options.comments);
  head += std::to_string(matrix.rows()) + " " + std::to_string(matrix.cols()) + "\n";
  file.write(head);
  const std::int64_t rows = matrix.rows();
  const std::int64_t per =
      std::max<std::int64_t>(1, kEntriesPerBlock / std::max<std::int64_t>(1, rows));
  std::vector<std::int64_t> blocks{0};
  for (std::int64_t j = 0; j < matrix.cols(); j = std::min(matrix.cols(), j + per)) {
    blocks.push_back(std::min(matrix.cols(), j + per));
  }
  if (blocks.size() == 1) blocks.push_back(0);
  detail::write_blocks(file, blocks, threads,
                       [&](std::int64_t c0, std::int64_t c1, std::string& out) {
                         for (std::int64_t j = c0; j < c1; ++j) {
                           for (std::int64_t i = 0; i < rows; ++i) {
                             detail::append_number(out, matrix(i, j));
                             out.push_back('\n');
                           }
                         }
                       });
  file.commit();
}

#define SPINDLE_INSTANTIATE_MM_WRITE(I, V)                                        \
  template void write_matrix_market<I, V>(const std::string&, const Graph<I, V>&, \
                                          const MatrixMarketWriteOptions&);       \
  template void write_matrix_market<I, V>(AtomicFileWriter&, const Graph<I, V>&,  \
                                          const MatrixMarketWriteOptions&);
SPINDLE_INSTANTIATE_MM_WRITE(std::int32_t, float)
SPINDLE_INSTANTIATE_MM_WRITE(std::int32_t, double)
SPINDLE_INSTANTIATE_MM_WRITE(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_MM_WRITE(std::int64_t, float)
SPINDLE_INSTANTIATE_MM_WRITE(std::int64_t, double)
SPINDLE_INSTANTIATE_MM_WRITE(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_MM_WRITE
template void write_matrix_market_dense<float>(const std::string&, const DenseMatrix<float>&,
                                               const MatrixMarketWriteOptions&);
template void write_matrix_market_dense<double>(const std::string&, const DenseMatrix<double>&,
                                                const MatrixMarketWriteOptions&);

}  // namespace spindle
