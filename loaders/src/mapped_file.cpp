// SPDX-License-Identifier: Apache-2.0
#include "mapped_file.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "spindle/error.hpp"

namespace spindle {
namespace detail {

namespace {
[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw Error(path + ": " + what + ": " + std::strerror(err));
}
}  // namespace

namespace {
std::mutex& capture_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::shared_ptr<const std::vector<char>>>& captures() {
  static std::map<std::string, std::shared_ptr<const std::vector<char>>> c;
  return c;
}
}  // namespace

std::shared_ptr<const std::vector<char>> captured_stream(const std::string& path) {
  std::lock_guard<std::mutex> lock(capture_mutex());
  const auto it = captures().find(path);
  return it == captures().end() ? nullptr : it->second;
}

void register_captured_stream(const std::string& path,
                              std::shared_ptr<const std::vector<char>> bytes) {
  std::lock_guard<std::mutex> lock(capture_mutex());
  captures()[path] = std::move(bytes);
}

void drop_captured_stream(const std::string& path) {
  std::lock_guard<std::mutex> lock(capture_mutex());
  captures().erase(path);
}

std::vector<char> read_all(int fd, const std::string& path) {
  std::vector<char> out;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot read", errno);
    }
    if (got == 0) break;
    out.insert(out.end(), chunk, chunk + got);
  }
  return out;
}

const char* compression_of(const char* data, std::size_t size) noexcept {
  const auto starts = [&](const char* magic, std::size_t n) {
    return size >= n && std::memcmp(data, magic, n) == 0;
  };
  if (starts("\x1f\x8b", 2)) return "gzip";
  if (starts("BZh", 3) && size >= 10 && data[3] >= '1' && data[3] <= '9' &&
      std::memcmp(data + 4, "1AY&SY", 6) == 0) {  // + the first block's magic
    return "bzip2";
  }
  if (starts("\xfd\x37zXZ", 5)) return "xz";  // FD, then "7zXZ"
  if (starts("\x28\xb5\x2f\xfd", 4)) return "zstd";
  return nullptr;
}

void throw_compressed(const char* format, const std::string& path) {
  const std::string tool = std::string(format) == "gzip"    ? "zcat"
                           : std::string(format) == "bzip2" ? "bzcat"
                           : std::string(format) == "xz"    ? "xzcat"
                                                            : "zstdcat";
  throw ParseError(path, 0,
                   std::string(format) +
                       "-compressed data; Spindle reads uncompressed files: decompress it "
                       "first, or pass it through a pipe: <(" +
                       tool + " " + path + ")");
}

MappedFile::MappedFile(const std::string& path) {
  if (auto held = captured_stream(path)) {
    captured_ = std::move(held);
    data_ = captured_->data();
    size_ = captured_->size();
    return;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail(path, "cannot stat", err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": is a directory, expected a file");
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* m = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      ::madvise(m, static_cast<std::size_t>(st.st_size), MADV_SEQUENTIAL | MADV_WILLNEED);
      map_ = m;
      data_ = static_cast<const char*>(m);
      size_ = static_cast<std::size_t>(st.st_size);
      ::close(fd);
      return;
    }
  }
  // Not mappable (pipe, special file, empty file): read it.
  try {
    buffer_ = read_all(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  data_ = buffer_.data();
  size_ = buffer_.size();
}

MappedFile::~MappedFile() {
  if (map_) ::munmap(map_, size_);
}

std::vector<std::size_t> split_at_lines(const char* begin, const char* end, std::size_t pieces,
                                        std::size_t min_bytes) {
  const std::size_t total = static_cast<std::size_t>(end - begin);
  std::vector<std::size_t> cuts{0};
  if (total == 0) {
    cuts.push_back(0);
    return cuts;
  }
  pieces = std::max<std::size_t>(1, std::min(pieces, total / std::max<std::size_t>(1, min_bytes)));
  for (std::size_t k = 1; k < pieces; ++k) {
    std::size_t at = total / pieces * k;
    if (at <= cuts.back()) continue;
    const void* nl = std::memchr(begin + at, '\n', total - at);
    if (!nl) break;
    at = static_cast<std::size_t>(static_cast<const char*>(nl) - begin) + 1;
    if (at >= total) break;
    if (at > cuts.back()) cuts.push_back(at);
  }
  cuts.push_back(total);
  return cuts;
}

std::uint64_t available_memory_bytes() {
  std::uint64_t kb = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned long long v = 0;
      if (std::sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
        kb = v;
        break;
      }
    }
    std::fclose(f);
  }
  if (kb) return kb * 1024;
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0
             ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size)
             : 0;
}

void check_memory(const std::string& path, std::uint64_t needed, const char* what) {
  const std::uint64_t avail = available_memory_bytes();
  if (avail != 0 && needed > avail) {
    char buf[256];
    std::snprintf(buf, sizeof buf, ": %s needs about %.1f GB, %.1f GB of memory are available",
                  what, static_cast<double>(needed) / 1e9, static_cast<double>(avail) / 1e9);
    throw OutOfMemory(path + buf);
  }
}

int resolve_threads(int requested) {
  return requested > 0 ? requested : std::max(1, omp_get_max_threads());
}

}  // namespace detail
}  // namespace spindle
