// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file grid.hpp
/// @brief Grid size of the grid-stride kernels (one item per thread per step).

#include <algorithm>
#include <cstdint>

namespace spindle::detail::cuda {

/// Blocks for a grid-stride loop over n items in blocks of `block` threads: one thread per item
/// up to 2^20 blocks (the loop covers the rest), and at least one block.
inline unsigned grid_stride_blocks(std::int64_t n, int block = 256) {
  const std::int64_t blocks = (n + block - 1) / block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, std::int64_t{1} << 20));
}

}  // namespace spindle::detail::cuda
