// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file descriptor.hpp
/// @brief Per-call modifiers, as in GraphBLAS's GrB_Descriptor.

#include <optional>

#include "spindle/plan.hpp"

namespace spindle {

struct Descriptor {
  /// Use A^T instead of A (mxv, mxm, sddmm's S is never transposed).
  bool transpose_a = false;
  /// Use B^T / Y^T where the operation has a second matrix operand.
  bool transpose_b = false;
  /// Replace: output entries the mask does not select are removed (else kept as they were).
  bool replace = false;
  /// Where to run (Auto: CUDA when available).
  Device device = Device::Auto;
  /// Forced kernels (the planner's choice is skipped; a kernel that cannot run the call falls
  /// back to the planner and the fallback is logged).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  MxmKernel mxm_kernel = MxmKernel::Auto;
  SddmmKernel sddmm_kernel = SddmmKernel::Auto;
  /// Sparse x sparse mxm (mxm_sparse.hpp).
  SpgemmKernel spgemm_kernel = SpgemmKernel::Auto;

  Descriptor& with_transpose_a(bool v = true) {
    transpose_a = v;
    return *this;
  }
  Descriptor& with_replace(bool v = true) {
    replace = v;
    return *this;
  }
  Descriptor& on(Device d) {
    device = d;
    return *this;
  }
  Descriptor& force(MxvKernel k) {
    mxv_kernel = k;
    return *this;
  }
  Descriptor& force(MxmKernel k) {
    mxm_kernel = k;
    return *this;
  }
  Descriptor& force(SddmmKernel k) {
    sddmm_kernel = k;
    return *this;
  }
  Descriptor& force(SpgemmKernel k) {
    spgemm_kernel = k;
    return *this;
  }
  Descriptor& with_transpose_b(bool v = true) {
    transpose_b = v;
    return *this;
  }
};

}  // namespace spindle
