// SPDX-License-Identifier: Apache-2.0
#include "json.hpp"

#include <cmath>
#include <cstdio>

#include "common.hpp"

namespace spindle::cli {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
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
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
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
