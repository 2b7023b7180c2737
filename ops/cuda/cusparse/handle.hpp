// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file handle.hpp
/// @brief The process's one cuSPARSE handle (the SpMV, SpMM and SDDMM baselines share it).

#include <cusparse.h>

namespace spindle::detail::cuda {

/// The cuSPARSE handle, bound to context().stream: created on first use, destroyed by
/// release_device_resources() (never at static destruction, which would race the CUDA runtime)
/// and created again by the next call. Callers hold context().mutex while they use it.
cusparseHandle_t cusparse_handle();

}  // namespace spindle::detail::cuda
