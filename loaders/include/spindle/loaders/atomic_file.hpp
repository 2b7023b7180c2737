// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file atomic_file.hpp
/// @brief Output file that appears complete or not at all (write to a temporary, then rename).
///
/// Every Spindle writer goes through this class so that no reader ever sees a half-written file:
/// bytes go to `path + ".tmp.<pid>"` in the same directory, commit() flushes, closes and renames
/// it onto `path`; if commit() is never reached (exception, early return) the destructor removes
/// the temporary and `path` keeps its old content (or stays absent).

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace spindle {

class AtomicFileWriter {
 public:
  /// Opens the temporary file. @throws Error naming the path when it cannot be created.
  explicit AtomicFileWriter(std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Appends bytes. @throws Error naming the path on a write failure (e.g. disk full).
  void write(const char* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }

  /// Flushes, closes and renames the temporary onto the final path.
  /// @throws Error naming the path when any step fails (the temporary is then removed).
  void commit();

  const std::string& path() const noexcept { return path_; }
  const std::string& temp_path() const noexcept { return temp_; }

 private:
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace spindle
