// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file families.hpp
/// @brief The explicit instantiations of the SDDMM kernel families (the mxv twin:
/// ops/cuda/mxv/families.hpp), each compiled per value type x index type in a generated file of
/// its own and declared extern by the entries (sddmm_entry.cuh).

// clang-format off
#define SPINDLE_SDDMM_FAMILY_VCT(P, S, T, I, VV) \
  P template void launch_sddmm_vct<S, I, VV, T>(const SddmmArgs<I, VV, T>&, cudaStream_t);
#define SPINDLE_SDDMM_FAMILY_IIR(P, S, T, I, VV) \
  P template void launch_sddmm_iir<S, I, VV, T>(const SddmmArgs<I, VV, T>&, cudaStream_t);
#define SPINDLE_SDDMM_FAMILY_WMT(P, S, T, I, VV) \
  P template void launch_sddmm_wmt<S, I, VV, T>(const SddmmArgs<I, VV, T>&, cudaStream_t);

#define SPINDLE_SDDMM_FAMILIES(P, S, T, I, VV) \
  SPINDLE_SDDMM_FAMILY_VCT(P, S, T, I, VV)     \
  SPINDLE_SDDMM_FAMILY_IIR(P, S, T, I, VV)     \
  SPINDLE_SDDMM_FAMILY_WMT(P, S, T, I, VV)
// clang-format on
