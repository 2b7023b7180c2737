// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file families.hpp
/// @brief The explicit instantiations of the mxv kernel families, one macro per family, so that
/// each family is compiled in translation units of its own (ops/cuda/CMakeLists.txt generates one
/// per family x value type x index type) and the entries (mxv_entry.cuh) only declare them
/// (P = extern). Each macro takes (P, S, T, I, VV): P empty or extern, the semiring, its value
/// type, the index type and the matrix values the kernels read (T or Pattern).
///
/// Which variants exist is decided here and by the planner's rules (ops/core/planner_cuda.cpp):
/// the general path (masks, accumulators, absent inputs) runs on sliced_coo, subwarp_per_row
/// and row_block only; the other families serve plain calls.

#include <cstdint>

// clang-format off
#define SPINDLE_MXV_FAMILY_ROW_PER_THREAD(P, S, T, I, VV)                                         \
  P template void launch_row_per_thread<S, false, T, I, VV>(const MxvArgs<T, I, VV>&, int,       \
                                                            cudaStream_t);

#define SPINDLE_MXV_FAMILY_SUBWARP(P, S, T, I, VV)                                                \
  P template void launch_subwarp_per_row<S, false, T, I, VV>(const MxvArgs<T, I, VV>&, int, int, \
                                                             cudaStream_t);                      \
  P template void launch_subwarp_per_row<S, true, T, I, VV>(const MxvArgs<T, I, VV>&, int, int,  \
                                                            cudaStream_t);

#define SPINDLE_MXV_FAMILY_NNZ_SPLIT(P, S, T, I, VV)                                              \
  P template void launch_nnz_split<S, false, T, I, VV>(const MxvArgs<T, I, VV>&, std::int64_t,   \
                                                       std::int64_t, const std::int64_t*, void*, \
                                                       cudaStream_t);

#define SPINDLE_MXV_FAMILY_MERGE_PATH(P, S, T, I, VV)                                             \
  P template void launch_merge_path<S, false, T, I, VV>(const MxvArgs<T, I, VV>&, int,            \
                                                        std::int64_t, const std::int64_t*,       \
                                                        const std::int64_t*, void*, cudaStream_t);

#define SPINDLE_MXV_FAMILY_ROW_BLOCK(P, S, T, I, VV)                                              \
  P template void launch_row_block<S, false, T, I, VV>(                                           \
      const MxvArgs<T, I, VV>&, int, std::int64_t, const RowBlockDesc*, std::int64_t,             \
      const RowBlockLong*, std::int64_t, void*, std::int64_t, RowBlockForm, cudaStream_t);        \
  P template void launch_row_block<S, true, T, I, VV>(                                            \
      const MxvArgs<T, I, VV>&, int, std::int64_t, const RowBlockDesc*, std::int64_t,             \
      const RowBlockLong*, std::int64_t, void*, std::int64_t, RowBlockForm, cudaStream_t);

/// The warp form: the runs kernel for 4-byte values and indices, the lane-group kernel otherwise
/// (kRowBlockWarpRuns), plain calls only.
#define SPINDLE_MXV_FAMILY_ROW_BLOCK_WARP(P, S, T, I, VV)                                         \
  P template void launch_row_block_warp_dispatch<S, T, I, VV>(                                    \
      const MxvArgs<T, I, VV>&, std::int64_t, const RowBlockDesc*, std::int64_t,                  \
      const RowBlockLong*, std::int64_t, void*, std::int64_t, int, std::int64_t, cudaStream_t);

#define SPINDLE_MXV_FAMILY_SLICED_COO(P, S, T, I, VV)                                             \
  P template void launch_sliced_coo<S, false, T, I, VV>(const MxvArgs<T, I, VV>&,                 \
                                                        const SlicedCoo<I, VV>&, std::int64_t,   \
                                                        cudaStream_t);                           \
  P template void launch_sliced_coo<S, true, T, I, VV>(const MxvArgs<T, I, VV>&,                  \
                                                       const SlicedCoo<I, VV>&, std::int64_t,    \
                                                       cudaStream_t);

#define SPINDLE_MXV_FAMILY_COLUMN_SEGMENTED(P, S, T, I, VV)                                       \
  P template void launch_column_segmented<S, T, I, VV>(const MxvArgs<T, I, VV>&,                  \
                                                       const ColumnSegments<I, VV>&, cudaStream_t);

/// Every family, as the entries declare them.
#define SPINDLE_MXV_FAMILIES(P, S, T, I, VV)   \
  SPINDLE_MXV_FAMILY_ROW_PER_THREAD(P, S, T, I, VV) \
  SPINDLE_MXV_FAMILY_SUBWARP(P, S, T, I, VV)        \
  SPINDLE_MXV_FAMILY_NNZ_SPLIT(P, S, T, I, VV)      \
  SPINDLE_MXV_FAMILY_MERGE_PATH(P, S, T, I, VV)     \
  SPINDLE_MXV_FAMILY_ROW_BLOCK(P, S, T, I, VV)      \
  SPINDLE_MXV_FAMILY_ROW_BLOCK_WARP(P, S, T, I, VV) \
  SPINDLE_MXV_FAMILY_SLICED_COO(P, S, T, I, VV)     \
  SPINDLE_MXV_FAMILY_COLUMN_SEGMENTED(P, S, T, I, VV)
// clang-format on
