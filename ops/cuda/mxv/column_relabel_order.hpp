// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file column_relabel_order.hpp
/// @brief How column_relabel (partition.hpp) orders the columns: the constant its tests and the
/// relabelling share.

#include <cstdint>

namespace spindle::detail::cuda {

/// Columns that keep their in-degree order at the front of the relabelling: the largest hot copy
/// of u any kernel takes (the runs kernel's with fp32, row_block_warp_hot_entries<float>();
/// partition.cu checks that they agree). The columns past them are gathered from L2 one 32-byte
/// sector per value; numbered in the order of their first entry, the gathers of one warp task
/// share more sectors (R-MAT 22: 4.5% fewer distinct sectors per task;
/// H200; docs/design/mxv.md).
inline constexpr std::int64_t kColumnRelabelHot = 40960;

}  // namespace spindle::detail::cuda
