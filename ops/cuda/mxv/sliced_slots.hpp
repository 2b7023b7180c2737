// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sliced_slots.hpp
/// @brief sliced_coo's slot sizes and the rule that picks one (plain host code): the kernel's
/// dispatch (sliced_coo.cuh), the planner (ops/core/planner_cuda.cpp), tuning mode and the
/// benchmark all choose slots with these, so they agree on which graphs it can hold.

#include <cstdint>

namespace spindle::detail::cuda {

/// Slot sizes: warp slots (4 entries per lane), and the two block forms (128 and 512 threads).
inline constexpr std::int64_t kSlicedWarpSlot = 128;
inline constexpr std::int64_t kSlicedSmallBlockSlot = 512;
inline constexpr std::int64_t kSlicedLargeBlockSlot = 2048;
inline constexpr std::int64_t kSlicedSlots[] = {kSlicedWarpSlot, kSlicedSmallBlockSlot,
                                                kSlicedLargeBlockSlot};
/// Threads of a block running warp slots (four slots per block).
inline constexpr int kSlicedWarpBlockThreads = 128;

/// The smallest slot that holds a row of `max_row` entries (an empty row takes one), 0 if none.
inline std::int64_t sliced_slot_for(std::int64_t max_row) {
  const std::int64_t need = max_row > 0 ? max_row : 1;
  for (std::int64_t s : kSlicedSlots) {
    if (need <= s) return s;
  }
  return 0;
}
/// Threads per block for a slot size (the warp form for kSlicedWarpSlot).
inline int sliced_block_threads(std::int64_t slot) {
  return slot == kSlicedWarpSlot ? kSlicedWarpBlockThreads : static_cast<int>(slot / 4);
}

}  // namespace spindle::detail::cuda
