// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file persisting_limit.hpp
/// @brief Test hook: the device's persisting L2 set-aside (cudaLimitPersistingL2CacheSize), which
/// the group form's hot copy raises for its call and must put back (hot_columns.hpp). Free of
/// CUDA headers so that the tests compile in every build.
#include <cstdint>

namespace spindle::detail::cuda {

/// The current limit in bytes, or -1 where there is no CUDA device (CPU builds: always -1).
std::int64_t debug_persisting_l2_limit() noexcept;

}  // namespace spindle::detail::cuda
