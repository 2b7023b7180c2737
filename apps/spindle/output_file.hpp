// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file output_file.hpp
/// @brief Output files that appear whole or not at all: data goes to `OUT.tmp.<pid>` and is
/// renamed onto OUT only after everything was written and flushed. A failure (exception,
/// Ctrl-C, SIGTERM) removes the temporary, so a user never finds a truncated result that looks
/// complete.

#include <cstdio>
#include <string>

namespace spindle::cli {

class AtomicOutput {
 public:
  /// Creates the temporary next to `path` (same folder, so the rename is atomic).
  /// @throws spindle::Error when the folder is missing or not writable, naming the path.
  explicit AtomicOutput(std::string path);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  /// Removes the temporary unless commit() succeeded.
  ~AtomicOutput();

  /// The final path the user asked for.
  const std::string& path() const { return path_; }
  /// The temporary path, for writers that take a file name. Close nothing yourself.
  const std::string& temp_path() const { return temp_; }
  /// The temporary opened for binary writing (opened on first use).
  std::FILE* file();
  /// Flushes, checks for write errors (disk full), closes and renames onto path().
  /// @throws spindle::Error on any failure; the temporary is removed.
  void commit();

 private:
  void discard() noexcept;
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

/// Lower-cased extension of a path's last component including the dot (".mtx"), or "".
std::string extension_of(const std::string& path);

}  // namespace spindle::cli
