// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file plan_format.hpp
/// @brief Number formatting for the planners' reasons (planner_cuda.cpp, planner_cuda_mxm.cpp).
/// The CUDA planner runs on every call, and formatting its shape figures with snprintf was most
/// of its time (12% of a launch-bound mxv call's host time, H200);
/// std::to_chars gives the same text ("%.3g" in the C locale) without the locale machinery.

#include <charconv>
#include <string>

namespace spindle::detail {

/// v with three significant digits, as printf's "%.3g".
inline std::string format_g3(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 3);
  return std::string(buf, r.ptr);
}

}  // namespace spindle::detail
