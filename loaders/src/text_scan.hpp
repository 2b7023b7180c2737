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
  if (p >= end) return end;  // an empty file maps to nullptr, and memchr(nullptr, ...) is UB
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

/// Clinger's fast path: a decimal with at most 19 significant digits whose integer mantissa is
/// below 2^53 and whose power of ten is within +-22 converts exactly with one IEEE multiply or
/// divide (both operands are exact, so the result is correctly rounded). Returns false, leaving
/// p, for everything else (the caller then uses from_chars).
inline bool parse_double_fast(const char*& p, const char* end, double& out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* q = p;
  bool neg = false;
  if (q < end && *q == '-') {
    neg = true;
    ++q;
  }
  std::uint64_t m = 0;
  int digits = 0, exp10 = 0;
  const char* int_begin = q;
  while (q < end && static_cast<unsigned>(*q - '0') < 10u) {
    if (digits < 19) {
      m = m * 10 + static_cast<std::uint64_t>(*q - '0');
      if (m) ++digits;
    } else {
      return false;
    }
    ++q;
  }
  bool any = q > int_begin;
  if (q < end && *q == '.') {
    ++q;
    const char* frac_begin = q;
    while (q < end && static_cast<unsigned>(*q - '0') < 10u) {
      if (digits >= 19) return false;
      m = m * 10 + static_cast<std::uint64_t>(*q - '0');
      if (m) ++digits;
      --exp10;
      ++q;
    }
    any = any || q > frac_begin;
  }
  if (!any) return false;
  if (q < end && (*q == 'e' || *q == 'E')) {
    ++q;
    bool eneg = false;
    if (q < end && (*q == '-' || *q == '+')) eneg = *q++ == '-';
    const char* eb = q;
    int ev = 0;
    while (q < end && static_cast<unsigned>(*q - '0') < 10u && ev < 10000) {
      ev = ev * 10 + (*q - '0');
      ++q;
    }
    if (q == eb || ev >= 10000) return false;
    exp10 += eneg ? -ev : ev;
  }
  if (m > (std::uint64_t{1} << 53) || exp10 < -22 || exp10 > 22) return false;
  double v = static_cast<double>(m);
  v = exp10 < 0 ? v / kPow10[-exp10] : v * kPow10[exp10];
  out = neg ? -v : v;
  p = q;
  return true;
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
  if (parse_double_fast(q, end, out)) {
    p = q;
    return true;
  }
  auto r = std::from_chars(q, end, out, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars refuses values outside the double range; strtod gives what a reader expects
    // (inf or a denormal / zero). Copied to get a terminator; a long token ("1" and 400 zeros)
    // is as much an overflow as 1e400.
    const std::size_t len = static_cast<std::size_t>(r.ptr - q);
    char buf[128];
    if (len < sizeof(buf)) {
      std::memcpy(buf, q, len);
      buf[len] = '\0';
      out = std::strtod(buf, nullptr);
    } else {
      out = std::strtod(std::string(q, len).c_str(), nullptr);
    }
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
