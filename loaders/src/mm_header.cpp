// SPDX-License-Identifier: Apache-2.0
// Matrix Market banner and size line: the only part of the format read sequentially.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mapped_file.hpp"
#include "mm_common.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "stream_checks.hpp"
#include "text_scan.hpp"

namespace spindle {

const char* to_string(MmObject v) { return v == MmObject::Matrix ? "matrix" : "vector"; }
const char* to_string(MmFormat v) { return v == MmFormat::Coordinate ? "coordinate" : "array"; }
const char* to_string(MmField v) {
  switch (v) {
    case MmField::Real:
      return "real";
    case MmField::Integer:
      return "integer";
    case MmField::Pattern:
      return "pattern";
    case MmField::Complex:
      return "complex";
  }
  return "?";
}
const char* to_string(MmSymmetry v) {
  switch (v) {
    case MmSymmetry::General:
      return "general";
    case MmSymmetry::Symmetric:
      return "symmetric";
    case MmSymmetry::SkewSymmetric:
      return "skew-symmetric";
    case MmSymmetry::Hermitian:
      return "hermitian";
  }
  return "?";
}

namespace detail {

namespace {

constexpr const char* kBannerForm = "'%%MatrixMarket matrix <format> <field> <symmetry>'";
constexpr std::size_t kMaxComments = 100;

std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !is_blank(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

std::string quoted(std::string_view s) {
  std::string t(s.substr(0, 40));
  for (char& c : t) {
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  }
  return "'" + t + "'";
}

void parse_banner(std::string_view line, const std::string& path, MatrixMarketHeader& h) {
  const auto words = split_blanks(line);
  if (words.size() != 5) {
    throw ParseError(
        path, 1, "banner has " + std::to_string(words.size()) + " words, expected " + kBannerForm);
  }
  if (!iequals(words[0], "%%MatrixMarket")) {
    throw ParseError(path, 1,
                     "banner starts with " + quoted(words[0]) + ", expected " + kBannerForm);
  }
  if (iequals(words[1], "matrix")) {
    h.object = MmObject::Matrix;
  } else if (iequals(words[1], "vector")) {
    h.object = MmObject::Vector;
  } else {
    throw ParseError(path, 1, "unknown object " + quoted(words[1]) + ", expected 'matrix'");
  }
  if (iequals(words[2], "coordinate")) {
    h.format = MmFormat::Coordinate;
  } else if (iequals(words[2], "array")) {
    h.format = MmFormat::Array;
  } else {
    throw ParseError(path, 1,
                     "unknown format " + quoted(words[2]) + ", expected 'coordinate' or 'array'");
  }
  if (iequals(words[3], "real") || iequals(words[3], "double")) {
    h.field = MmField::Real;
  } else if (iequals(words[3], "integer")) {
    h.field = MmField::Integer;
  } else if (iequals(words[3], "pattern")) {
    h.field = MmField::Pattern;
  } else if (iequals(words[3], "complex")) {
    h.field = MmField::Complex;
  } else {
    throw ParseError(path, 1,
                     "unknown field " + quoted(words[3]) +
                         ", expected 'real', 'integer', 'pattern' or 'complex'");
  }
  if (iequals(words[4], "general")) {
    h.symmetry = MmSymmetry::General;
  } else if (iequals(words[4], "symmetric")) {
    h.symmetry = MmSymmetry::Symmetric;
  } else if (iequals(words[4], "skew-symmetric")) {
    h.symmetry = MmSymmetry::SkewSymmetric;
  } else if (iequals(words[4], "hermitian")) {
    h.symmetry = MmSymmetry::Hermitian;
  } else {
    throw ParseError(path, 1,
                     "unknown symmetry " + quoted(words[4]) +
                         ", expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian'");
  }
  if (h.format == MmFormat::Array && h.field == MmField::Pattern) {
    throw ParseError(path, 1,
                     "'array pattern' is not a valid combination (an array stores every value; "
                     "write the matrix as 'coordinate pattern')");
  }
  if (h.symmetry == MmSymmetry::Hermitian && h.field != MmField::Complex) {
    throw ParseError(
        path, 1,
        std::string("'hermitian' needs the 'complex' field, found '") + to_string(h.field) + "'");
  }
  if (h.symmetry == MmSymmetry::SkewSymmetric && h.field == MmField::Pattern) {
    throw ParseError(path, 1, "'skew-symmetric pattern' is not a valid combination");
  }
}

std::int64_t parse_size_field(std::string_view tok, const std::string& path, std::int64_t line,
                              const char* name) {
  const char* p = tok.data();
  const char* end = p + tok.size();
  std::uint64_t v = 0;
  const NumStatus st = parse_count(p, end, v);
  if (st == NumStatus::Negative) {
    throw ParseError(path, line,
                     std::string("negative ") + name + " " + quoted(tok) +
                         " on the size line, expected a non-negative integer");
  }
  if (st == NumStatus::Overflow) {
    throw ParseError(path, line,
                     std::string(name) + " " + quoted(tok) +
                         " on the size line is too large (the limit is 2^63-1)");
  }
  if (st != NumStatus::Ok || p != end) {
    throw ParseError(path, line,
                     std::string("expected the ") + name +
                         " (a non-negative integer) on the size line, found " + quoted(tok));
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

MatrixMarketHeader parse_mm_header(const char* data, std::size_t size, const std::string& path,
                                   bool headerless) {
  MatrixMarketHeader h;
  const char* p = data;
  const char* end = data + size;
  if (size >= 3 && std::string_view(p, 3) == "\xEF\xBB\xBF") p += 3;  // UTF-8 BOM
  std::int64_t line = 1;
  {
    const char* eol = find_eol(p, end);
    const std::string_view first = line_view(p, eol);
    if (first.size() >= 2 && first[0] == '%' && first[1] == '%' && split_blanks(first).size() > 0 &&
        iequals(split_blanks(first)[0].substr(0, 14), "%%MatrixMarket")) {
      parse_banner(first, path, h);
      p = eol < end ? eol + 1 : end;
      line = 2;
    } else if (!headerless) {
      if (p == end)
        throw ParseError(path, 1, std::string("empty file, expected the banner ") + kBannerForm);
      throw ParseError(path, 1,
                       std::string("missing the Matrix Market banner: expected ") + kBannerForm +
                           " on the first line (a headerless triplet file is read only with the "
                           "headerless option, --headerless on the command line)");
    } else {
      h.headerless = true;
    }
  }
  // Comments and blank lines, then the size line.
  for (;;) {
    if (p >= end) {
      throw ParseError(path, line,
                       h.format == MmFormat::Coordinate
                           ? "end of file before the size line, expected 'rows cols entries'"
                           : "end of file before the size line, expected 'rows cols'");
    }
    const char* eol = find_eol(p, end);
    const std::string_view text = line_view(p, eol);
    const char* next = eol < end ? eol + 1 : end;
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      p = next;
      ++line;
      continue;
    }
    if (text[first] == '%') {
      if (h.comments.size() < kMaxComments) h.comments.emplace_back(text.substr(first + 1));
      p = next;
      ++line;
      continue;
    }
    const auto words = split_blanks(text);
    const std::size_t want = h.format == MmFormat::Coordinate ? 3 : 2;
    if (words.size() != want) {
      throw ParseError(path, line,
                       "size line has " + std::to_string(words.size()) + " fields, expected " +
                           (want == 3 ? "3 for a coordinate file: 'rows cols entries'"
                                      : "2 for an array file: 'rows cols'"));
    }
    h.rows = parse_size_field(words[0], path, line, "number of rows");
    h.cols = parse_size_field(words[1], path, line, "number of columns");
    if (want == 3) h.entries = parse_size_field(words[2], path, line, "number of entries");
    h.size_line = line;
    h.data_offset = static_cast<std::int64_t>(next - data);
    break;
  }
  const std::int64_t size_line = h.size_line;
  if (h.symmetry != MmSymmetry::General && h.rows != h.cols) {
    throw ParseError(path, size_line,
                     std::string("a ") + to_string(h.symmetry) + " matrix must be square, got " +
                         std::to_string(h.rows) + " x " + std::to_string(h.cols));
  }
  const auto r = static_cast<std::uint64_t>(h.rows), c = static_cast<std::uint64_t>(h.cols);
  if (h.format == MmFormat::Coordinate) {
    // More entries than cells cannot be a valid matrix; refusing here means a wild count (e.g.
    // LAGraph#403) never sizes anything.
    const bool cells_overflow = r != 0 && c > UINT64_MAX / r;
    if (!cells_overflow && static_cast<std::uint64_t>(h.entries) > r * c) {
      throw ParseError(path, size_line,
                       "declares " + std::to_string(h.entries) + " entries but a " +
                           std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                           " matrix has only " + std::to_string(r * c) + " cells");
    }
  } else {
    std::uint64_t n = 0;
    bool overflow = r != 0 && c > UINT64_MAX / r;
    if (h.symmetry == MmSymmetry::General) {
      n = overflow ? 0 : r * c;
    } else {
      // lower triangle of an n x n matrix, with (symmetric) or without (skew) the diagonal
      const std::uint64_t a = r,
                          b = h.symmetry == MmSymmetry::SkewSymmetric ? (r ? r - 1 : 0) : r + 1;
      overflow = a != 0 && b > UINT64_MAX / a;
      n = overflow ? 0 : a * b / 2;
    }
    if (overflow || n > static_cast<std::uint64_t>(INT64_MAX)) {
      throw ParseError(path, size_line,
                       "array of " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                           " values is too large (the count overflows 64 bits)");
    }
    h.entries = static_cast<std::int64_t>(n);
  }
  if (h.headerless) {
    // Field from the first data line: two fields -> pattern.
    const char* q = data + h.data_offset;
    while (q < end) {
      const char* eol = find_eol(q, end);
      const std::string_view text = line_view(q, eol);
      const std::size_t first = text.find_first_not_of(" \t");
      if (first != std::string_view::npos && text[first] != '%') {
        if (split_blanks(text).size() == 2) h.field = MmField::Pattern;
        break;
      }
      q = eol < end ? eol + 1 : end;
    }
  }
  return h;
}

void check_mm_prefix(const char* data, std::size_t size, bool eof, const std::string& path,
                     bool headerless) {
  if (eof) {
    (void)parse_mm_header(data, size, path, headerless);
    return;
  }
  // Only complete lines: the last one may continue beyond the bytes seen.
  const char* last_nl = static_cast<const char*>(::memrchr(data, '\n', size));
  if (!last_nl) {
    throw ParseError(path, 1,
                     "no line break in the first " + std::to_string(size) +
                         " bytes: expected the banner " + kBannerForm + " on a line of its own");
  }
  const char* end = last_nl + 1;
  // Is the size line among them? (the first line that is not blank or a comment, after the
  // banner)
  const char* p = data;
  if (end - p >= 2 && p[0] == '%' && p[1] == '%') p = find_eol(p, end) + 1;
  bool size_line = false;
  while (p < end && !size_line) {
    const char* eol = find_eol(p, end);
    const std::string_view text = line_view(p, eol);
    const std::size_t first = text.find_first_not_of(" \t");
    size_line = first != std::string_view::npos && text[first] != '%';
    p = eol + 1;
  }
  if (size_line) {
    (void)parse_mm_header(data, static_cast<std::size_t>(end - data), path, headerless);
    return;
  }
  // Comments go on: the banner at least must be right.
  const char* b = data;
  if (size >= 3 && std::string_view(b, 3) == "\xEF\xBB\xBF") b += 3;
  const std::string_view first = line_view(b, find_eol(b, end));
  if (first.size() >= 2 && first[0] == '%' && first[1] == '%') {
    MatrixMarketHeader h;
    parse_banner(first, path, h);
  } else if (!headerless) {
    (void)parse_mm_header(data, static_cast<std::size_t>(end - data), path, headerless);
  }
}

}  // namespace detail

MatrixMarketHeader read_matrix_market_header(const std::string& path, bool headerless) {
  detail::MappedFile file(path, detail::Content::Text,
                          [&](const char* d, std::size_t n, bool eof) -> std::uint64_t {
                            detail::check_mm_prefix(d, n, eof, path, headerless);
                            return 0;
                          });
  return detail::with_input_checks(file, path, [&] {
    return detail::parse_mm_header(file.data(), file.size(), path, headerless);
  });
}

}  // namespace spindle
