// SPDX-License-Identifier: Apache-2.0
#include "json.hpp"

#include <cmath>
#include <cstdio>

#include "common.hpp"

namespace spindle::cli {

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, at
// most U+10FFFF), or 0 when the byte there does not start one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const std::size_t left = s.size() - i;
  const auto cont = [&](std::size_t k) { return (b(k) & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3 || !cont(i + 1) || !cont(i + 2)) return 0;
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(i + 1) > 0x9F) return 0;  // a surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4 || !cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && b(i + 1) > 0x8F) return 0;  // beyond U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const std::size_t len = utf8_length(text, i);
    if (len == 0) {
      // Not UTF-8: the byte as a lone low surrogate, Python's surrogateescape
      // (json.loads(s) then .encode("utf-8", "surrogateescape") gives the bytes back). The file
      // stays valid UTF-8 and two different labels stay two different keys.
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\udc%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (len > 1) {
      out.append(text, i, len);
      i += len;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out + "\"";
}

void JsonWriter::newline() {
  if (indent_ > 0 && inline_depth_ >= 0) {
    out_ += ' ';
    return;
  }
  if (indent_ > 0) out_ += '\n' + std::string(static_cast<std::size_t>(depth_ * indent_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ > 0) {
    if (!first_) out_ += ',';
    newline();
  }
  first_ = false;
}

void JsonWriter::begin_object(bool one_line) {
  before_value();
  out_ += '{';
  ++depth_;
  first_ = true;
  if (one_line && inline_depth_ < 0) inline_depth_ = depth_;
}

void JsonWriter::end_object() {
  --depth_;
  if (!first_) newline();
  out_ += '}';
  if (inline_depth_ == depth_ + 1) inline_depth_ = -1;
  first_ = false;
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  ++depth_;
  first_ = true;
}

void JsonWriter::end_array() {
  --depth_;
  if (!first_) newline();
  out_ += ']';
  first_ = false;
}

void JsonWriter::key(const std::string& k) {
  before_value();
  out_ += json_string(k) + (indent_ > 0 ? ": " : ":");
  after_key_ = true;
}

void JsonWriter::value(const std::string& v) {
  before_value();
  out_ += json_string(v);
}

void JsonWriter::value(std::int64_t v) {
  before_value();
  out_ += std::to_string(v);
}

void JsonWriter::value(double v) {
  before_value();
  out_ += std::isfinite(v) ? format_number(v) : "null";
}

void JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

}  // namespace spindle::cli
