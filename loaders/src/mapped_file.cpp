// SPDX-License-Identifier: Apache-2.0
#include "mapped_file.hpp"

#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#if SPINDLE_HAS_ZLIB
#include <zlib.h>
#endif

#include "spindle/error.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle {
namespace detail {

namespace {
[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw Error(path + ": " + what + ": " + std::strerror(err));
}

std::string format_size(std::uint64_t bytes) {
  char buf[48];
  if (bytes >= (std::uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (std::uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return buf;
}
}  // namespace

// ---- captured streams --------------------------------------------------------------------------

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

// ---- streams under limits ----------------------------------------------------------------------

std::uint64_t stream_limit_bytes() {
  if (const char* env = std::getenv("SPINDLE_STREAM_LIMIT")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && v > 0) return v;
  }
  constexpr std::uint64_t kFloor = std::uint64_t{64} << 20;
  return std::max(kFloor, available_memory_bytes() / 2);
}

namespace {

bool is_gzip(const char* data, std::size_t size) {
  return size >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

/// Collects the bytes of a stream (or of decompressed data) and enforces the limits.
class LimitedSink {
 public:
  LimitedSink(const std::string& path, Content content, const StreamCheck& check,
              const char* source)
      : path_(path),
        content_(content),
        check_(check),
        source_(source),
        limit_(stream_limit_bytes()) {}

  void append(const char* p, std::size_t n) {
    if (n == 0) return;
    if (expected_ != 0 && bytes_.size() + n > expected_) {
      throw ParseError(path_, 0,
                       "trailing bytes: more data than the " + std::to_string(expected_) +
                           " bytes its header declares");
    }
    if (bytes_.size() + n > limit_) {
      throw Error(path_ + ": " + source_ + " holds more than " + format_size(limit_) +
                  " (the most Spindle keeps in memory from a stream or a compressed file: half "
                  "the memory available; SPINDLE_STREAM_LIMIT sets it in bytes); save it "
                  "uncompressed to a file to read it");
    }
    if (content_ == Content::TextOrSpg && bytes_.size() + n >= 8) {
      // Decided on the first 8 bytes, before they are checked as text.
      char head[8];
      const std::size_t held = std::min<std::size_t>(bytes_.size(), 8);
      std::copy(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(held), head);
      std::copy(p, p + (8 - held), head + held);
      content_ = is_spg_magic(head, 8) ? Content::Binary : Content::Text;
    }
    if (content_ != Content::Binary) check_text(p, n);
    bytes_.insert(bytes_.end(), p, p + n);
    if (!probed_ && bytes_.size() >= kStreamProbeBytes) probe(false);
  }

  std::vector<char> finish() {
    if (!probed_) probe(true);
    return std::move(bytes_);
  }

 private:
  void check_text(const char* p, std::size_t n) {
    if (const void* nul = std::memchr(p, '\0', n)) {
      const auto at = static_cast<std::size_t>(static_cast<const char*>(nul) - p);
      count_lines(p, at);
      throw ParseError(path_, line_,
                       "NUL byte at byte " + std::to_string(bytes_.size() + at + 1) +
                           ": binary data, expected a text file");
    }
    count_lines(p, n);
  }
  void count_lines(const char* p, std::size_t n) {
    const char* e = p + n;
    while (p < e) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(e - p));
      const char* stop = nl ? static_cast<const char*>(nl) : e;
      line_bytes_ += static_cast<std::size_t>(stop - p);
      if (line_bytes_ > kMaxStreamLineBytes) {
        throw ParseError(path_, line_,
                         "no line break within " + format_size(kMaxStreamLineBytes) +
                             " (the longest line Spindle reads from a stream or a compressed "
                             "file): not a text graph file?");
      }
      if (!nl) break;
      ++line_;
      line_bytes_ = 0;
      p = stop + 1;
    }
  }
  void probe(bool eof) {
    probed_ = true;
    if (!check_) return;
    expected_ = check_(bytes_.data(), bytes_.size(), eof);
    if (expected_ != 0 && expected_ > limit_) {
      throw Error(path_ + ": declares " + format_size(expected_) + " of data, more than " +
                  format_size(limit_) +
                  " (the most Spindle keeps in memory from a stream or a compressed file: "
                  "half the memory available; SPINDLE_STREAM_LIMIT sets it in bytes)");
    }
    if (expected_ != 0 && bytes_.size() > expected_) {
      throw ParseError(path_, 0,
                       "trailing bytes: more data than the " + std::to_string(expected_) +
                           " bytes its header declares");
    }
  }

  const std::string& path_;
  Content content_;
  const StreamCheck& check_;
  const char* source_;
  std::uint64_t limit_;
  std::uint64_t expected_ = 0;
  bool probed_ = false;
  std::vector<char> bytes_;
  std::int64_t line_ = 1;
  std::size_t line_bytes_ = 0;
};

/// Raw bytes in, the file's bytes out: passes them through, or inflates gzip data (every member
/// of a multi-member file) when they start with the gzip magic.
class Decoder {
 public:
  Decoder(const std::string& path, LimitedSink& sink) : path_(path), sink_(sink) {}
  ~Decoder() {
#if SPINDLE_HAS_ZLIB
    if (z_open_) inflateEnd(&z_);
#endif
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  bool gzip() const { return mode_ == Mode::Gzip; }

  void feed(const char* p, std::size_t n) {
    if (mode_ == Mode::Undecided) {
      head_.insert(head_.end(), p, p + n);
      if (head_.size() < 2) return;
      decide();
      const std::vector<char> head = std::move(head_);
      head_.clear();
      feed_decided(head.data(), head.size());
      return;
    }
    feed_decided(p, n);
  }

  void end() {
    if (mode_ == Mode::Undecided) {
      decide();
      const std::vector<char> head = std::move(head_);
      head_.clear();
      feed_decided(head.data(), head.size());
    }
#if SPINDLE_HAS_ZLIB
    if (mode_ == Mode::Gzip && (!member_done_ || !head_.empty())) {
      throw ParseError(path_, 0,
                       "truncated gzip data: the compressed stream ends before its last member "
                       "does");
    }
#endif
  }

 private:
  enum class Mode : std::uint8_t { Undecided, Plain, Gzip };

  void decide() {
#if SPINDLE_HAS_ZLIB
    if (is_gzip(head_.data(), head_.size())) {
      mode_ = Mode::Gzip;
      std::memset(&z_, 0, sizeof z_);
      if (inflateInit2(&z_, 15 + 16) != Z_OK) throw Error(path_ + ": cannot start zlib");
      z_open_ = true;
      member_done_ = false;
      return;
    }
#endif
    mode_ = Mode::Plain;
  }

  void feed_decided(const char* p, std::size_t n) {
    if (mode_ == Mode::Plain) {
      sink_.append(p, n);
      return;
    }
#if SPINDLE_HAS_ZLIB
    inflate_chunk(p, n);
#endif
  }

#if SPINDLE_HAS_ZLIB
  void inflate_chunk(const char* p, std::size_t n) {
    std::vector<char> joined;
    if (!head_.empty()) {  // a member boundary split between two reads
      joined = std::move(head_);
      head_.clear();
      joined.insert(joined.end(), p, p + n);
      p = joined.data();
      n = joined.size();
    }
    while (n > 0) {
      if (member_done_) {
        // Another gzip member may follow (gzip -c a b > c); anything else is garbage.
        if (n < 2 && static_cast<unsigned char>(p[0]) == 0x1f) {
          head_.assign(p, p + n);
          return;
        }
        if (!is_gzip(p, n)) throw ParseError(path_, 0, "trailing bytes after the gzip data");
        inflateReset(&z_);
        member_done_ = false;
      }
      // zlib counts in uInt: at most 1 GiB at a time.
      const std::size_t take = std::min<std::size_t>(n, std::size_t{1} << 30);
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
      z_.avail_in = static_cast<uInt>(take);
      for (;;) {
        z_.next_out = reinterpret_cast<Bytef*>(out_);
        z_.avail_out = sizeof out_;
        const int rc = inflate(&z_, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
          throw ParseError(
              path_, 0,
              std::string("corrupt gzip data (zlib: ") + (z_.msg ? z_.msg : "error") + ")");
        }
        sink_.append(out_, sizeof out_ - z_.avail_out);
        if (rc == Z_STREAM_END) {
          member_done_ = true;
          break;
        }
        if (z_.avail_out != 0) break;  // the input is used up; the output was not full
      }
      const std::size_t used = take - z_.avail_in;
      if (used == 0 && !member_done_) throw ParseError(path_, 0, "corrupt gzip data");
      p += used;
      n -= used;
    }
  }
  z_stream z_{};
  bool z_open_ = false;
  bool member_done_ = true;
  char out_[1 << 17];
#endif

  const std::string& path_;
  LimitedSink& sink_;
  Mode mode_ = Mode::Undecided;
  std::vector<char> head_;
};

}  // namespace

std::vector<char> read_stream(int fd, const std::string& path, Content content,
                              const StreamCheck& check, bool* decompressed) {
  LimitedSink sink(path, content, check, "the stream");
  Decoder decoder(path, sink);
  std::vector<char> chunk(std::size_t{1} << 16);
  for (;;) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot read", errno);
    }
    if (got == 0) break;
    decoder.feed(chunk.data(), static_cast<std::size_t>(got));
  }
  decoder.end();
  if (decompressed) *decompressed = decoder.gzip();
  return sink.finish();
}

// ---- the SIGBUS guard of mapped files ----------------------------------------------------------

namespace {

struct Guard {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<int> faulted{0};
};
constexpr int kGuards = 64;
Guard g_guards[kGuards];
struct sigaction g_previous_bus;
std::uintptr_t g_page_size = 4096;

// A mapped file that shrank: the pages past its new end raise SIGBUS when read. Zero pages are
// mapped over the rest of the mapping (mmap is a plain system call, safe here), the fault is
// recorded and the read resumes: the reader sees NUL bytes, and check_unchanged() turns the
// whole read into an Error. A SIGBUS elsewhere goes to whoever handled it before.
void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Guard& g : g_guards) {
    const std::uintptr_t b = g.begin.load(std::memory_order_acquire);
    const std::uintptr_t e = g.end.load(std::memory_order_acquire);
    if (b != 0 && addr >= b && addr < e) {
      const std::uintptr_t page = addr & ~(g_page_size - 1);
      void* r = ::mmap(reinterpret_cast<void*>(page), e - page, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (r != MAP_FAILED) {
        g.faulted.store(1, std::memory_order_release);
        return;
      }
    }
  }
  if (g_previous_bus.sa_flags & SA_SIGINFO) {
    if (g_previous_bus.sa_sigaction) {
      g_previous_bus.sa_sigaction(sig, info, context);
      return;
    }
  } else if (g_previous_bus.sa_handler != SIG_DFL && g_previous_bus.sa_handler != SIG_IGN) {
    g_previous_bus.sa_handler(sig);
    return;
  }
  // Default action: restore it; the faulting access happens again and ends the process.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGBUS, &dfl, nullptr);
}

void install_sigbus_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    const long ps = ::sysconf(_SC_PAGESIZE);
    if (ps > 0) g_page_size = static_cast<std::uintptr_t>(ps);
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous_bus);
  });
}

int acquire_guard(const void* base, std::size_t bytes) {
  install_sigbus_guard();
  for (int i = 0; i < kGuards; ++i) {
    std::uintptr_t expected = 0;
    // begin is claimed first (with a placeholder end of 0: matches nothing), then end is set.
    if (g_guards[i].begin.compare_exchange_strong(expected, 1)) {
      g_guards[i].faulted.store(0);
      g_guards[i].end.store(0);
      g_guards[i].begin.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_release);
      g_guards[i].end.store(reinterpret_cast<std::uintptr_t>(base) + bytes,
                            std::memory_order_release);
      return i;
    }
  }
  return -1;  // more than kGuards files mapped at once: unguarded (the read still works)
}

void release_guard(int i) {
  if (i < 0) return;
  g_guards[i].end.store(0, std::memory_order_release);
  g_guards[i].begin.store(0, std::memory_order_release);
}

}  // namespace

// ---- MappedFile --------------------------------------------------------------------------------

MappedFile::MappedFile(const std::string& path, Content content, const StreamCheck& check) {
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
    const auto bytes = static_cast<std::size_t>(st.st_size);
    void* m = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      map_ = m;
      map_size_ = bytes;
      fd_ = fd;
      mapped_bytes_ = st.st_size;
      mtime_sec_ = st.st_mtim.tv_sec;
      mtime_nsec_ = st.st_mtim.tv_nsec;
      guard_ = acquire_guard(m, bytes);
      ::madvise(m, bytes, MADV_SEQUENTIAL | MADV_WILLNEED);
      data_ = static_cast<const char*>(m);
      size_ = bytes;
#if SPINDLE_HAS_ZLIB
      if (is_gzip(data_, size_)) {
        // A compressed regular file: inflated under the stream limits, then unmapped.
        LimitedSink sink(path, content, check, "the decompressed file");
        Decoder decoder(path, sink);
        decoder.feed(data_, size_);
        decoder.end();
        check_unchanged(path);
        buffer_ = sink.finish();
        decompressed_ = true;
        release_guard(guard_);
        guard_ = -1;
        ::munmap(map_, map_size_);
        map_ = nullptr;
        ::close(fd_);
        fd_ = -1;
        data_ = buffer_.data();
        size_ = buffer_.size();
      }
#endif
      return;
    }
  }
  // Not mappable (pipe, character device, empty file): read it as a stream.
  try {
    buffer_ = read_stream(fd, path, content, check, &decompressed_);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  data_ = buffer_.data();
  size_ = buffer_.size();
}

MappedFile::~MappedFile() {
  release_guard(guard_);
  if (map_) ::munmap(map_, map_size_);
  if (fd_ >= 0) ::close(fd_);
}

void MappedFile::check_unchanged(const std::string& path) const {
  if (fd_ < 0) return;
  const bool faulted = guard_ >= 0 && g_guards[guard_].faulted.load(std::memory_order_acquire);
  struct stat st {};
  const bool stat_ok = ::fstat(fd_, &st) == 0;
  const bool resized = stat_ok && st.st_size != mapped_bytes_;
  const bool touched =
      stat_ok && (st.st_mtim.tv_sec != mtime_sec_ || st.st_mtim.tv_nsec != mtime_nsec_);
  if (!faulted && !resized && !touched) return;
  std::string what;
  if (stat_ok && st.st_size < mapped_bytes_) {
    what = "shrank from " + std::to_string(mapped_bytes_) + " to " + std::to_string(st.st_size) +
           " bytes";
  } else if (resized) {
    what = "changed size from " + std::to_string(mapped_bytes_) + " to " +
           std::to_string(st.st_size) + " bytes";
  } else if (faulted) {
    what = "lost pages";
  } else {
    what = "was modified";
  }
  throw Error(path + ": the file " + what +
              " while it was being read (another program truncated or rewrote it); nothing "
              "read from it is used: read it again once it is complete");
}

// ---- the rest ----------------------------------------------------------------------------------

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
                       "-compressed data; Spindle reads gzip (when built with zlib) and "
                       "uncompressed files: decompress it first, or pass it through a pipe: <(" +
                       tool + " " + path + ")");
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

std::uint64_t saturating_mul_add(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept {
  std::uint64_t m = 0;
  if (__builtin_mul_overflow(a, b, &m)) return UINT64_MAX;
  std::uint64_t s = 0;
  if (__builtin_add_overflow(m, c, &s)) return UINT64_MAX;
  return s;
}

void check_memory(const std::string& path, std::uint64_t needed, const char* what) {
  const std::uint64_t avail = available_memory_bytes();
  if (avail != 0 && needed > avail) {
    char buf[256];
    std::snprintf(buf, sizeof buf, ": %s needs about %.3g GB, %.1f GB of memory are available",
                  what, static_cast<double>(needed) / 1e9, static_cast<double>(avail) / 1e9);
    throw OutOfMemory(path + buf);
  }
}

int resolve_threads(int requested) {
  return requested > 0 ? requested : std::max(1, omp_get_max_threads());
}

}  // namespace detail
}  // namespace spindle
