// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: a read-only view of a whole file (mmap, falling back to read() for files that cannot
// be mapped such as pipes), plus the chunking used by the parallel parsers.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spindle/error.hpp"

namespace spindle {
namespace detail {

class MappedFile {
 public:
  /// Maps `path`. @throws Error naming the path and the system's reason when it cannot be read.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  const char* begin() const noexcept { return data_; }
  const char* end() const noexcept { return data_ + size_; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;       // mmap base (nullptr when buffer_ holds the bytes)
  std::vector<char> buffer_;  // fallback copy
  std::shared_ptr<const std::vector<char>> captured_;  // an InputStreamCapture's bytes
};

/// The bytes an InputStreamCapture (load_graph.hpp) holds for `path`, or nullptr.
std::shared_ptr<const std::vector<char>> captured_stream(const std::string& path);
/// Registers / drops captured bytes (used by InputStreamCapture).
void register_captured_stream(const std::string& path,
                              std::shared_ptr<const std::vector<char>> bytes);
void drop_captured_stream(const std::string& path);
/// Reads what is left of an open descriptor into memory. @throws Error naming path.
std::vector<char> read_all(int fd, const std::string& path);

/// The compressor whose magic bytes `data` starts with ("gzip", "bzip2", "xz", "zstd"), or
/// nullptr.
const char* compression_of(const char* data, std::size_t size) noexcept;
/// Throws the ParseError that says `path` holds `format`-compressed data and how to read it.
[[noreturn]] void throw_compressed(const char* format, const std::string& path);

/// Runs parse(); when it throws a ParseError and the file starts like compressed data, throws
/// instead a ParseError saying so and what to do. Only on failure: an edge list whose first
/// label happens to be such bytes (a file Spindle itself may have written) still reads.
template <class F>
decltype(auto) with_compression_hint(const MappedFile& f, const std::string& path, F&& parse) {
  try {
    return parse();
  } catch (const ParseError&) {
    if (const char* format = compression_of(f.data(), f.size())) throw_compressed(format, path);
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

/// Threads to use: `requested` when > 0, else omp_get_max_threads().
int resolve_threads(int requested);

}  // namespace detail
}  // namespace spindle
