// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file carry_fixup_debug.hpp
/// @brief Benchmark hooks: skip the carry fix-up launch of the load-balanced mxv kernels, so the
/// benchmark can measure what determinism costs (results are wrong while it is on).

namespace spindle::detail::cuda {

void debug_skip_carry_fixup(bool on) noexcept;
bool carry_fixup_skipped() noexcept;

}  // namespace spindle::detail::cuda
