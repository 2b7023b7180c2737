// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file bench_args.hpp
/// @brief Command-line helpers the benchmark programs share (benchmark only).

#include <string>
#include <vector>

namespace spindle_bench {

/// The non-empty parts of a comma-separated list ("a,,b," -> {"a", "b"}).
inline std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> parts;
  std::size_t b = 0;
  while (b <= list.size()) {
    const std::size_t e = list.find(',', b);
    std::string part = list.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (!part.empty()) parts.push_back(std::move(part));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return parts;
}

}  // namespace spindle_bench
