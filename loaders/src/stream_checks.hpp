// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: what each reader accepts at the start of a stream (mapped_file.hpp's StreamCheck), so
// that /dev/zero, /dev/urandom or `yes` are refused after their first bytes instead of being
// read until memory runs out.

#include <cstddef>
#include <cstdint>
#include <string>

namespace spindle {
namespace detail {

/// A Matrix Market stream: the banner (unless headerless) and, once it has arrived, the size
/// line must be valid. @throws ParseError naming path:line.
void check_mm_prefix(const char* data, std::size_t size, bool eof, const std::string& path,
                     bool headerless);

/// An edge-list stream: its first line that is not blank or a comment must hold at least two
/// fields. @throws ParseError naming path:line.
void check_edge_list_prefix(const char* data, std::size_t size, bool eof, const std::string& path);

/// A `.npy` stream: the magic and the header must be valid. Returns the total bytes the header
/// implies. @throws ParseError naming the path.
std::uint64_t check_npy_prefix(const char* data, std::size_t size, bool eof,
                               const std::string& path);

/// A `.spg` stream: the magic and the header must be valid. Returns the total bytes the header
/// declares. @throws ParseError naming the path.
std::uint64_t check_spg_prefix(const char* data, std::size_t size, const std::string& path);

}  // namespace detail
}  // namespace spindle
