// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmm_args.cuh
/// @brief Builds SpmmArgs (spmm_common.cuh) from a device CSR: the library's entries, the
/// tuner and the benchmarks fill the raw argument block through this one function.

#include <cstdint>

#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/mxm/semiring_identity.hpp"
#include "ops/cuda/mxm/spmm_common.cuh"

namespace spindle::detail::cuda {

/// The raw arguments of C = epi(A ⊕.⊗ B) on the device CSR `d` (values as T, or none for a
/// pattern): B is d.cols x n with row stride ldb, C is d.rows x n with row stride ldc. The one
/// place SpmmArgs is filled (mxm_entry.cuh, the tuner, the benchmarks).
template <class S, class I, class VV>
SpmmArgs<I, VV, typename S::value_type> make_spmm_args(
    const DeviceCsr<I, VV>& d, std::int64_t n, const typename S::value_type* b, std::int64_t ldb,
    typename S::value_type* c, std::int64_t ldc,
    const DenseEpilogue<typename S::value_type>& epi = {}) {
  SpmmArgs<I, VV, typename S::value_type> a;
  a.rows = d.rows;
  a.n = n;
  a.row_ptr = d.row_ptr;
  a.col_idx = d.col_idx;
  a.vals = d.values;
  a.b = b;
  a.ldb = ldb;
  a.c = c;
  a.ldc = ldc;
  a.epi = epi;
  a.identity = identity_of<S>();
  return a;
}

}  // namespace spindle::detail::cuda
