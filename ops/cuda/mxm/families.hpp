// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file families.hpp
/// @brief The explicit instantiations of the SpMM kernel families, one macro per family (the mxv
/// twin: ops/cuda/mxv/families.hpp): ops/CMakeLists.txt compiles each family per value type x
/// index type in a file of its own, and the entries (mxm_entry.cuh) declare them extern. Each
/// macro takes (P, S, T, I, VV): P empty or extern, the semiring, its value type, the index type
/// and the matrix values the kernels read (T or Pattern).

#include <cstdint>

// clang-format off
#define SPINDLE_MXM_FAMILY_PARALLEL_REDUCE(P, S, T, I, VV)                                        \
  P template void launch_spmm_parallel_reduce_vec<S, I, VV, T>(const SpmmArgs<I, VV, T>&, int,   \
                                                               cudaStream_t);

#define SPINDLE_MXM_FAMILY_ROW_CACHE_SEQ(P, S, T, I, VV)                                          \
  P template void launch_spmm_row_cache_seq<S, I, VV, T>(const SpmmArgs<I, VV, T>&, std::int64_t,\
                                                         int, cudaStream_t,                      \
                                                         const RowSplitArgs<T>&);

/// nnz_balanced_seq: the dispatch, the warp form and the fix-up; its group form is two families
/// of its own (16- and 8-byte fragments), the heaviest kernels of the build.
#define SPINDLE_MXM_FAMILY_NNZ_BALANCED(P, S, T, I, VV)                                           \
  SPINDLE_MXM_FAMILY_BALANCED_GROUP_WIDE(extern, S, T, I, VV)                                     \
  SPINDLE_MXM_FAMILY_BALANCED_GROUP_NARROW(extern, S, T, I, VV)                                   \
  P template void launch_spmm_nnz_balanced_seq<S, I, VV, T>(const SpmmArgs<I, VV, T>&,           \
                                                            const BalancedArgs<I, T>&,           \
                                                            std::int64_t, BalancedForm,          \
                                                            cudaStream_t);

#define SPINDLE_MXM_FAMILY_BALANCED_GROUP_WIDE(P, S, T, I, VV)                                    \
  P template void launch_balanced_group_vec<S, I, VV, T, static_cast<int>(16 / sizeof(T))>(       \
      const SpmmArgs<I, VV, T>&, const BalancedArgs<I, T>&, std::int64_t, cudaStream_t);

#define SPINDLE_MXM_FAMILY_BALANCED_GROUP_NARROW(P, S, T, I, VV)                                  \
  P template void launch_balanced_group_vec<S, I, VV, T, static_cast<int>(8 / sizeof(T))>(        \
      const SpmmArgs<I, VV, T>&, const BalancedArgs<I, T>&, std::int64_t, cudaStream_t);

#define SPINDLE_MXM_FAMILY_ROW_BLOCK(P, S, T, I, VV)                                              \
  P template void launch_spmm_row_block<S, I, VV, T>(const SpmmArgs<I, VV, T>&,                  \
                                                     const RowBlockPartition&, T*, cudaStream_t);

#define SPINDLE_MXM_FAMILY_ASPT(P, S, T, I, VV)                                                   \
  P template void launch_spmm_aspt_panels<S, I, VV, T, static_cast<int>(16 / sizeof(T))>(         \
      const SpmmArgs<I, VV, T>&, const AsptArgs<I, VV>&, std::int64_t, int, cudaStream_t);        \
  P template void launch_spmm_aspt_panels<S, I, VV, T, 1>(                                        \
      const SpmmArgs<I, VV, T>&, const AsptArgs<I, VV>&, std::int64_t, int, cudaStream_t);

/// Every family, as the entries declare them.
#define SPINDLE_MXM_FAMILIES(P, S, T, I, VV)          \
  SPINDLE_MXM_FAMILY_PARALLEL_REDUCE(P, S, T, I, VV) \
  SPINDLE_MXM_FAMILY_ROW_CACHE_SEQ(P, S, T, I, VV)   \
  SPINDLE_MXM_FAMILY_NNZ_BALANCED(P, S, T, I, VV)    \
  SPINDLE_MXM_FAMILY_ROW_BLOCK(P, S, T, I, VV)       \
  SPINDLE_MXM_FAMILY_ASPT(P, S, T, I, VV)
// clang-format on
