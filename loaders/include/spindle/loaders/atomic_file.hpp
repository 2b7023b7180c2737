// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file atomic_file.hpp
/// @brief Output files that appear complete or not at all, and the one mechanism that removes
/// their temporaries when the process is killed.
///
/// Every Spindle writer (Matrix Market, edge lists, `.npy`, the CLI's result files) goes through
/// AtomicFileWriter, so no reader ever sees a half-written file:
///  - a regular file (or a path that does not exist yet) is written to a hidden temporary in
///    the same folder (`.NAME.<pid>.<n>.tmp`, shortened so that it fits the file-name limit
///    whatever the length of NAME) and renamed onto the path by commit(); if commit() is never
///    reached (exception, early return) the destructor removes the temporary and the path keeps
///    its old content (or stays absent). A replaced file keeps its permission bits;
///  - a symbolic link is followed: its target is replaced, the link stays a link;
///  - a FIFO or a character device (`/dev/null`, a terminal) is written directly: it cannot be
///    replaced atomically, and replacing it with a regular file would destroy it;
///  - `-` is standard output, written directly;
///  - a directory, a block device or a socket is refused before anything is written.
///
/// Temporaries alive in the process are listed where an async-signal-safe handler can find them:
/// install_signal_cleanup() makes SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2,
/// SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ (and crashes) remove them before the process
/// dies of the signal. The library never installs handlers by itself: an application calls it
/// once, first thing in main (the `spindle` CLI does).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spindle {

class AtomicFileWriter {
 public:
  /// Opens the output (see the file comment for what each kind of path does).
  /// @throws Error naming the path when it cannot be created, is a directory, a block device or
  ///         a socket, or a symbolic-link chain is too long.
  explicit AtomicFileWriter(std::string path);
  /// Removes the temporary unless commit() (or publish()) succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Appends bytes. @throws Error naming the path on a write failure (e.g. disk full).
  void write(const char* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }

  /// finish() then publish().
  /// @throws Error naming the path when any step fails (the temporary is then removed).
  void commit();
  /// Flushes and closes the temporary and checks for write errors; nothing is visible at the path
  /// yet. Lets a caller finish several files before publishing any (a matrix and its labels).
  /// @throws Error naming the path (the temporary is then removed).
  void finish();
  /// Renames the finished temporary onto the target (nothing to do for streams).
  /// @throws Error naming the path when the rename fails (the temporary is then removed).
  void publish();

  /// The path as given.
  const std::string& path() const noexcept { return path_; }
  /// The file that is replaced (symbolic links followed); the path itself for streams.
  const std::string& target() const noexcept { return target_; }
  /// The temporary ("" when writing directly to a stream).
  const std::string& temp_path() const noexcept { return temp_; }
  /// True when the output is written directly (standard output, a FIFO, a character device).
  bool is_stream() const noexcept { return temp_.empty(); }

 private:
  void flush_buffer();
  void discard() noexcept;
  std::string path_;
  std::string target_;
  std::string temp_;
  int fd_ = -1;
  bool own_fd_ = false;
  bool finished_ = false;
  bool committed_ = false;
  int slot_ = -1;  // in the list of live temporaries
  std::string buffer_;
};

/// What an output path names once symbolic links are followed.
enum class OutputKind : std::uint8_t {
  Stdout,   ///< `-`
  NewFile,  ///< nothing there yet (its folder exists and is writable)
  File,     ///< a regular file, replaced atomically
  Stream,   ///< a FIFO or character device, written directly
};

/// Checks, without creating anything, that `path` can be written as AtomicFileWriter would:
/// follows symbolic links, refuses directories, block devices and sockets, and checks that the
/// folder of a file to create or replace exists and is writable (or that a stream is writable).
/// Commands call it before a long computation so that a bad output path fails at once.
/// @throws Error naming the path and the reason.
OutputKind check_output_path(const std::string& path);

/// The file a path names once every symbolic link in its last component is followed (relative
/// targets resolved against the link's folder); the path itself when it is not a link or does not
/// exist. @throws Error after 40 links (a loop).
std::string follow_symlinks(const std::string& path);

/// Installs the handlers that remove this process's live temporaries (see the file comment) for
/// every listed signal whose disposition is still the default; signals that are ignored (nohup)
/// or already handled by the application are left alone. The handler removes the temporaries,
/// restores the default disposition and lets the signal take its course (exit status, core).
/// Idempotent and thread-safe; call it before any output is opened.
void install_signal_cleanup();

/// Removes every live temporary now (async-signal-safe: only unlink). For an application's own
/// signal handler when it does not use install_signal_cleanup().
void remove_live_temporaries() noexcept;

}  // namespace spindle
