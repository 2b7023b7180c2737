// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file json.hpp
/// @brief A minimal JSON writer for the CLI's machine-readable output (one object, no
/// dependencies). Keys keep insertion order so the output reads in a stable order.

#include <cstdint>
#include <string>

namespace spindle::cli {

/// `"text"` with JSON escapes.
std::string json_string(const std::string& text);

/// Builds one JSON object or array incrementally: `JsonWriter w; w.begin_object(); w.key("n");
/// w.value(3); w.end_object(); w.str()`. Commas are inserted automatically.
class JsonWriter {
 public:
  /// indent > 0 pretty-prints with that many spaces per level; 0 writes one line.
  explicit JsonWriter(int indent = 2) : indent_(indent) {}
  /// `one_line`: keep this object (and everything inside) on one line, e.g. small records in a
  /// long array.
  void begin_object(bool one_line = false);
  void end_object();
  void begin_array();
  void end_array();
  void key(const std::string& k);
  void value(const std::string& v);
  void value(const char* v) { value(std::string(v)); }
  void value(std::int64_t v);
  void value(int v) { value(static_cast<std::int64_t>(v)); }
  void value(double v);  ///< shortest round-trip form; non-finite as null
  void value(bool v);
  void null();
  /// Shorthand for key(k); value(v).
  template <class T>
  void field(const std::string& k, const T& v) {
    key(k);
    value(v);
  }
  const std::string& str() const { return out_; }

 private:
  void before_value();
  void newline();
  std::string out_;
  int indent_;
  int depth_ = 0;
  bool first_ = true;       // no element yet at this depth
  bool after_key_ = false;  // a key was just written
  int inline_depth_ = -1;   // depth of the outermost one-line object, -1 when none
};

}  // namespace spindle::cli
