// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file column_segments.hpp
/// @brief column_segmented's ranges (ops/cuda/mxv/column_segmented.cuh), in plain host code for
/// the planner (ops/core/planner_cuda.cpp) and the kernel's entry.

#include <cstdint>

namespace spindle::detail::cuda {

/// More ranges than this are refused (the planner's picks stay far below: 3-6 on an H100).
inline constexpr std::int64_t kMaxColumnSegments = 4096;

/// The number of ranges of `width` columns that cover `cols` columns (at least 1).
inline std::int64_t column_segment_count(std::int64_t cols, std::int64_t width) {
  return cols <= 0 || width <= 0 ? 1 : (cols + width - 1) / width;
}

/// Device bytes the layout holds for `segments` ranges (the range offsets, a copy of the column
/// ids and of the values read), and the build's transient counts beside them.
inline std::int64_t column_segments_bytes(std::int64_t rows, std::int64_t nnz,
                                          std::int64_t segments, int index_bytes, int value_bytes) {
  return 2 * (segments * rows + 1) * index_bytes + nnz * (index_bytes + value_bytes);
}

}  // namespace spindle::detail::cuda
