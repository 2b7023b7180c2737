// SPDX-License-Identifier: Apache-2.0
#include "spindle/loaders/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "spindle/error.hpp"

namespace spindle {

namespace {

// ---- live temporaries, where a signal handler can find them ---------------------------------
// Fixed slots of C strings: the handler may only do async-signal-safe work (read the slots,
// unlink). A slot goes free -> filling -> live -> free; the handler unlinks live ones only.

constexpr int kSlots = 64;
constexpr std::size_t kSlotPath = 4096;
constexpr int kFree = 0, kFilling = 1, kLive = 2;

struct Slot {
  std::atomic<int> state{kFree};
  char path[kSlotPath];
};
Slot g_slots[kSlots];

int acquire_slot(const std::string& path) {
  if (path.size() >= kSlotPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;  // more than kSlots outputs open at once: this one is not removed on a signal
}

void release_slot(int i) {
  if (i >= 0) g_slots[i].state.store(kFree, std::memory_order_release);
}

// Signals whose default action ends the process: each removes the live temporaries first.
constexpr int kCleanupSignals[] = {SIGHUP,  SIGINT,    SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2,
                                   SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPOLL, SIGSYS,
                                   SIGABRT, SIGSEGV,   SIGBUS,  SIGFPE,  SIGILL};

void on_fatal_signal(int sig) {
  const int saved = errno;
  remove_live_temporaries();
  // SA_RESETHAND restored the default action; the signal is blocked while this runs, so the
  // raise takes effect when the handler returns: the process ends as the signal says (status,
  // core). A fault (SIGSEGV...) simply happens again under the default action.
  ::raise(sig);
  errno = saved;
}

std::string errno_text(int err) { return std::strerror(err); }

std::string dir_of(const std::string& p) {
  const std::size_t slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string base_of(const std::string& p) {
  const std::size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The temporary beside `target`: `.NAME.<pid>.<n>.tmp`, NAME cut so that the whole name fits
// the 255-byte limit of a file name (a 254-character output name still works).
std::string temp_name(const std::string& target, unsigned long serial) {
  constexpr std::size_t kNameMax = 255;
  const std::string suffix =
      "." + std::to_string(::getpid()) + "." + std::to_string(serial) + ".tmp";
  std::string base = base_of(target);
  const std::size_t room = kNameMax - 1 - suffix.size();
  if (base.size() > room) base.resize(room);
  const std::size_t slash = target.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  return dir + "." + base + suffix;
}

std::atomic<unsigned long> g_serial{0};

}  // namespace

void remove_live_temporaries() noexcept {
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) == kLive) ::unlink(s.path);
  }
}

void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : kCleanupSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      // Ignored (nohup's SIGHUP) or handled by the application: left alone.
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = on_fatal_signal;
      sa.sa_flags = SA_RESETHAND;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

std::string follow_symlinks(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 256) + 1, '\0');
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n < 0) return p;
    buf.resize(static_cast<std::size_t>(n));
    // A relative target is relative to the link's folder.
    p = !buf.empty() && buf[0] == '/'      ? buf
        : p.find('/') == std::string::npos ? buf
                                           : dir_of(p) + "/" + buf;
  }
  throw Error(path + ": cannot write: too many levels of symbolic links");
}

OutputKind check_output_path(const std::string& path) {
  if (path == "-") return OutputKind::Stdout;
  if (path.empty()) throw Error("output path is empty");
  const std::string target = follow_symlinks(path);
  const std::string shown = target == path ? path : path + " (a link to " + target + ")";
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(shown + ": cannot write: is a directory");
    if (S_ISBLK(st.st_mode)) {
      throw Error(shown + ": cannot write: is a block device (refusing to write over it)");
    }
    if (S_ISSOCK(st.st_mode)) throw Error(shown + ": cannot write: is a socket");
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      if (::access(target.c_str(), W_OK) != 0) {
        throw Error(shown + ": cannot write: " + errno_text(errno));
      }
      return OutputKind::Stream;
    }
  }
  const std::string dir = dir_of(target);
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode)) {
    throw Error(shown + ": cannot write: the folder " + dir + " does not exist");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw Error(shown + ": cannot write into " + dir + ": " + errno_text(errno));
  }
  return ::stat(target.c_str(), &st) == 0 ? OutputKind::File : OutputKind::NewFile;
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  buffer_.reserve(std::size_t{1} << 20);
  if (path_ == "-") {
    target_ = path_;
    fd_ = STDOUT_FILENO;
    return;
  }
  if (path_.empty()) throw Error("output path is empty");
  target_ = follow_symlinks(path_);
  const std::string shown = target_ == path_ ? path_ : path_ + " (a link to " + target_ + ")";
  struct stat st {};
  const bool exists = ::stat(target_.c_str(), &st) == 0;
  if (exists) {
    if (S_ISDIR(st.st_mode)) throw Error(shown + ": cannot write: is a directory");
    if (S_ISBLK(st.st_mode)) {
      throw Error(shown + ": cannot write: is a block device (refusing to write over it)");
    }
    if (S_ISSOCK(st.st_mode)) throw Error(shown + ": cannot write: is a socket");
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
      fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0) throw Error(shown + ": cannot write: " + errno_text(errno));
      own_fd_ = true;
      return;
    }
  }
  for (int attempt = 0;; ++attempt) {
    temp_ = temp_name(target_, g_serial.fetch_add(1));
    // Listed before it exists, so that no signal can come between its creation and its listing.
    slot_ = acquire_slot(temp_);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) break;
    const int err = errno;
    release_slot(slot_);
    slot_ = -1;
    if (err == EEXIST && attempt < 100) continue;  // a leftover of another process with our pid
    temp_.clear();
    if (err == ENOENT) {
      throw Error(shown + ": cannot write: the folder " + dir_of(target_) + " does not exist");
    }
    throw Error(shown + ": cannot create the output file: " + errno_text(err));
  }
  own_fd_ = true;
  // A replaced file keeps its permissions (the temporary got the umask's).
  if (exists && S_ISREG(st.st_mode)) (void)::fchmod(fd_, st.st_mode & 07777);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) discard();
}

void AtomicFileWriter::discard() noexcept {
  if (own_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  release_slot(slot_);
  slot_ = -1;
}

namespace {
// Writes all of [p, p + size) to fd; false with errno set on failure.
bool write_all(int fd, const char* p, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace

void AtomicFileWriter::flush_buffer() {
  const bool ok = write_all(fd_, buffer_.data(), buffer_.size());
  const int err = errno;
  buffer_.clear();
  if (!ok) throw Error(path_ + ": write failed: " + errno_text(err));
}

void AtomicFileWriter::write(const char* data, std::size_t size) {
  if (fd_ < 0 || finished_) throw Error(path_ + ": write after commit");
  if (size == 0) return;
  if (buffer_.size() + size > buffer_.capacity()) flush_buffer();
  if (size >= buffer_.capacity()) {  // one large piece: written straight through
    if (!write_all(fd_, data, size)) throw Error(path_ + ": write failed: " + errno_text(errno));
    return;
  }
  buffer_.append(data, size);
}

void AtomicFileWriter::finish() {
  if (finished_) return;
  if (fd_ < 0) throw Error(path_ + ": commit called twice");
  try {
    flush_buffer();
  } catch (...) {
    discard();
    throw;
  }
  finished_ = true;
  if (own_fd_) {
    const int rc = ::close(fd_);
    const int err = errno;
    fd_ = -1;
    if (rc != 0) {
      discard();
      throw Error(path_ + ": write failed: " + errno_text(err));
    }
  }
}

void AtomicFileWriter::publish() {
  if (committed_) throw Error(path_ + ": commit called twice");
  if (!finished_) throw Error(path_ + ": publish before finish");
  if (!temp_.empty() && ::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    discard();
    throw Error(path_ + ": cannot move " + temp_ + " into place: " + errno_text(err));
  }
  committed_ = true;
  release_slot(slot_);
  slot_ = -1;
}

void AtomicFileWriter::commit() {
  finish();
  publish();
}

}  // namespace spindle
