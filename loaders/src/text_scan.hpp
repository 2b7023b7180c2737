// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: the small, hot text-scanning primitives shared by the Matrix Market and edge-list
// readers. Everything works on [p, end) ranges of a memory-mapped file (no NUL terminator).

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace spindle {
namespace detail {

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline const char* skip_blanks(const char* p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  return p;
}

/// End of the current line (the '\n' or end), not consuming it.
inline const char* find_eol(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

/// The visible part of a line: drops a trailing '\r' (CRLF files).
inline std::string_view line_view(const char* b, const char* eol) {
  if (eol > b && eol[-1] == '\r') --eol;
  return std::string_view(b, static_cast<std::size_t>(eol - b));
}

/// The token starting at p (up to a blank, comma or line end), for error messages.
inline std::string token_at(const char* p, const char* end) {
  const char* q = p;
  while (q < end && !is_blank(*q) && *q != '\n' && *q != '\r' && *q != ',' && q - p < 40) ++q;
  if (q == p) return p >= end || *p == '\n' || *p == '\r' ? "end of line" : std::string(1, *p);
  std::string s(p, q);
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  }
  return "'" + s + "'";
}

enum class NumStatus : std::uint8_t { Ok, NoDigits, Negative, Overflow };

/// Parses a non-negative decimal integer (no sign) that fits in 63 bits. On success advances p.
/// A leading '-' gives Negative (p unchanged), too many digits Overflow.
inline NumStatus parse_count(const char*& p, const char* end, std::uint64_t& out) {
  const char* q = p;
  if (q < end && *q == '+') ++q;
  if (q < end && *q == '-') return NumStatus::Negative;
  std::uint64_t v = 0;
  const char* digits = q;
  while (q < end && static_cast<unsigned>(*q - '0') < 10u) {
    const std::uint64_t d = static_cast<std::uint64_t>(*q - '0');
    if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / 10) {
      while (q < end && static_cast<unsigned>(*q - '0') < 10u) ++q;
      return NumStatus::Overflow;
    }
    v = v * 10 + d;
    ++q;
  }
  if (q == digits) return NumStatus::NoDigits;
  out = v;
  p = q;
  return NumStatus::Ok;
}

/// Parses a signed decimal 64-bit integer ('+' allowed). On success advances p.
inline NumStatus parse_int64(const char*& p, const char* end, std::int64_t& out) {
  const char* q = p;
  if (q < end && *q == '+') ++q;
  auto r = std::from_chars(q, end, out);
  if (r.ec == std::errc::result_out_of_range) return NumStatus::Overflow;
  if (r.ec != std::errc()) return NumStatus::NoDigits;
  p = r.ptr;
  return NumStatus::Ok;
}

/// Parses a decimal floating-point number ('+' allowed; nan / inf / infinity accepted, the
/// caller decides whether to keep them). Overflow gives +-inf and underflow the nearest
/// subnormal or zero, as strtod does. On success advances p and returns true.
inline bool parse_double(const char*& p, const char* end, double& out) {
  const char* q = p;
  if (q < end && *q == '+') {
    ++q;
    if (q < end && (*q == '-' || *q == '+')) return false;
  }
  auto r = std::from_chars(q, end, out, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars refuses values outside the double range; strtod gives what a reader expects
    // (inf or a denormal / zero). The token is short: copy it to get a terminator.
    char buf[128];
    const std::size_t len = static_cast<std::size_t>(r.ptr - q);
    if (len >= sizeof(buf)) return false;
    std::memcpy(buf, q, len);
    buf[len] = '\0';
    out = std::strtod(buf, nullptr);
  } else if (r.ec != std::errc()) {
    return false;
  }
  p = r.ptr;
  return true;
}

/// After the last field of a line: skips blanks and an optional '\r'; true when p then sits at
/// '\n' or end (p is left there), false when something else follows (p at the garbage).
inline bool at_line_end(const char*& p, const char* end) {
  p = skip_blanks(p, end);
  if (p < end && *p == '\r') {
    if (p + 1 == end || p[1] == '\n') {
      ++p;
      return true;
    }
    return false;
  }
  return p == end || *p == '\n';
}

/// Case-insensitive ASCII equality.
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

/// Appends the shortest decimal form that reads back to the same value (round trip).
template <class T>
inline void append_number(std::string& out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

}  // namespace detail
}  // namespace spindle
