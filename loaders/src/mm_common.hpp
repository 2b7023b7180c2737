// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: pieces of the Matrix Market reader shared between its source files.

#include <cstddef>
#include <string>

#include "spindle/loaders/matrix_market.hpp"

namespace spindle {
namespace detail {

/// Parses and validates the banner, comments and size line from a file's bytes (see
/// matrix_market.hpp for the accepted syntax). Throws ParseError naming path:line.
MatrixMarketHeader parse_mm_header(const char* data, std::size_t size, const std::string& path,
                                   bool headerless);

}  // namespace detail
}  // namespace spindle
