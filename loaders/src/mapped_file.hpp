// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: a read-only view of a whole input file, and the rules every input goes through.
//  - A regular file is mapped. A file that shrinks or changes while it is read cannot kill the
//    process: a SIGBUS on a mapped page beyond the new end is answered by mapping zero pages
//    there, and with_input_checks() then reports the change as an Error.
//  - Anything else (a pipe, /dev/stdin, a process substitution, /dev/zero) is read as a stream,
//    incrementally and within limits: at most stream_limit_bytes() in all; for text, no NUL
//    byte and no line longer than kMaxStreamLineBytes; a StreamCheck sees the first bytes and
//    can refuse them (no banner, no edge) before more is read.
//  - gzip data (magic 1f 8b) is decompressed on the fly under the same limits when zlib is
//    built in.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "spindle/error.hpp"

namespace spindle {
namespace detail {

/// What a reader expects: text is refused at the first NUL byte and at a line longer than
/// kMaxStreamLineBytes when it comes from a stream or a decompressor. TextOrSpg (a graph of any
/// format: InputStreamCapture) is text unless its first 8 bytes are the `.spg` magic, which holds
/// no NUL byte nor a long line, so the text checks it passed before the decision cost nothing.
enum class Content : std::uint8_t { Text, Binary, TextOrSpg };

/// Longest line accepted from a stream (a Matrix Market or edge-list line is tens of bytes).
constexpr std::size_t kMaxStreamLineBytes = std::size_t{1} << 20;
/// Bytes a StreamCheck sees first (fewer when the stream ends before).
constexpr std::size_t kStreamProbeBytes = std::size_t{64} << 10;

/// A reader's look at the first bytes of a stream: throws (ParseError naming the path) to refuse
/// them; returns the total size the stream must have when the bytes fix it (a .npy header), else
/// 0. Called once, with kStreamProbeBytes bytes or all of a shorter stream (eof true).
using StreamCheck = std::function<std::uint64_t(const char* data, std::size_t size, bool eof)>;

/// Most bytes one stream (or decompressed file) may hold in memory: half the memory available
/// when the read starts, at least 64 MiB; SPINDLE_STREAM_LIMIT (bytes) overrides it.
std::uint64_t stream_limit_bytes();

class MappedFile {
 public:
  /// Maps or reads `path`. @throws Error naming the path and the system's reason when it cannot
  /// be read; ParseError when a stream breaks the limits above or `check` refuses it.
  explicit MappedFile(const std::string& path, Content content = Content::Text,
                      const StreamCheck& check = {});
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  const char* begin() const noexcept { return data_; }
  const char* end() const noexcept { return data_ + size_; }
  /// True when the bytes came from gzip data.
  bool decompressed() const noexcept { return decompressed_; }

  /// Throws Error when a mapped file changed size or modification time since it was mapped, or a
  /// page of it vanished while it was read (the bytes read are then not the file's).
  void check_unchanged(const std::string& path) const;

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;       // mmap base (nullptr when buffer_ holds the bytes)
  std::size_t map_size_ = 0;  // bytes mapped
  int fd_ = -1;               // kept open while mapped, to notice a change
  int guard_ = -1;            // slot of the mapping in the SIGBUS guard
  std::int64_t mapped_bytes_ = 0;
  std::int64_t mtime_sec_ = 0, mtime_nsec_ = 0;
  bool decompressed_ = false;
  std::vector<char> buffer_;                           // a stream's or a decompressor's bytes
  std::shared_ptr<const std::vector<char>> captured_;  // an InputStreamCapture's bytes
};

/// The bytes an InputStreamCapture (load_graph.hpp) holds for `path`, or nullptr.
std::shared_ptr<const std::vector<char>> captured_stream(const std::string& path);
/// Registers / drops captured bytes (used by InputStreamCapture).
void register_captured_stream(const std::string& path,
                              std::shared_ptr<const std::vector<char>> bytes);
void drop_captured_stream(const std::string& path);
/// Reads what is left of an open descriptor into memory under the stream limits (text checks
/// when `content` is Text; gzip decompressed). @throws Error / ParseError naming path.
std::vector<char> read_stream(int fd, const std::string& path, Content content,
                              const StreamCheck& check, bool* decompressed = nullptr);

/// The compressor whose magic bytes `data` starts with ("gzip", "bzip2", "xz", "zstd"), or
/// nullptr.
const char* compression_of(const char* data, std::size_t size) noexcept;
/// Throws the ParseError that says `path` holds `format`-compressed data and how to read it.
[[noreturn]] void throw_compressed(const char* format, const std::string& path);

/// Runs parse() over a file's bytes and applies the rules every reader shares: a file that
/// changed while it was read is an Error whatever parse() made of it; a ParseError on data that
/// starts like compressed data (a format Spindle does not decompress) says so and what to do.
/// Only on failure: an edge list whose first label happens to be such bytes (a file Spindle
/// itself may have written) still reads.
template <class F>
decltype(auto) with_input_checks(const MappedFile& f, const std::string& path, F&& parse) {
  try {
    if constexpr (std::is_void_v<decltype(parse())>) {
      parse();
      f.check_unchanged(path);
    } else {
      decltype(auto) r = parse();
      f.check_unchanged(path);
      return r;
    }
  } catch (const ParseError&) {
    f.check_unchanged(path);
    if (!f.decompressed()) {
      if (const char* format = compression_of(f.data(), f.size())) throw_compressed(format, path);
    }
    throw;
  } catch (const Error&) {
    f.check_unchanged(path);
    throw;
  }
}

/// Splits [begin, end) into pieces that start at line beginnings: returns k+1 offsets
/// (relative to begin) with offsets[0] = 0 and offsets[k] = end - begin. Aims for `pieces`
/// pieces of at least `min_bytes` each.
std::vector<std::size_t> split_at_lines(const char* begin, const char* end, std::size_t pieces,
                                        std::size_t min_bytes);

/// Bytes of memory the system can still give (MemAvailable), or 0 when unknown.
std::uint64_t available_memory_bytes();

/// Throws OutOfMemory naming `path` when `needed` bytes exceed what the system can give, so a
/// size read from a file fails with numbers instead of an allocation failure or the OOM killer.
void check_memory(const std::string& path, std::uint64_t needed, const char* what);

/// a * b + c saturating at 2^64 - 1 (size estimates from untrusted headers).
std::uint64_t saturating_mul_add(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept;

/// Threads to use: `requested` when > 0, else omp_get_max_threads().
int resolve_threads(int requested);

}  // namespace detail
}  // namespace spindle
