// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mix.hpp
/// @brief splitmix64 (Steele, Lea, Flood 2014), the one random mixer of the engine, the
/// generators and the GPU tuning operands.
///
/// Counter-based use, `mix64(seed + (i + 1) * kGolden)`, gives draw i without the draws before
/// it: any thread (or GPU thread) makes its own, and results do not depend on the thread count.

#include <cstdint>

#include "spindle/types.hpp"

namespace spindle::detail {

/// splitmix64's increment: 2^64 divided by the golden ratio, odd.
inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// splitmix64's finalizer: a bijective 64-bit mixer whose output bits each depend on every input
/// bit.
SPINDLE_HD inline constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The top 53 bits of a 64-bit draw as a double in [0, 1).
SPINDLE_HD inline constexpr double unit_interval(std::uint64_t r) {
  return static_cast<double>(r >> 11) * 0x1.0p-53;
}

}  // namespace spindle::detail
