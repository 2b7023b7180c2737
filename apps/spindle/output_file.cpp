// SPDX-License-Identifier: Apache-2.0
#include "output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

#include "spindle/error.hpp"

namespace spindle::cli {

namespace {

// Temporaries alive right now, so a signal handler can remove them. A fixed array of C strings
// because only async-signal-safe work (unlink) may happen in the handler.
constexpr int kMaxLive = 8;
std::atomic<const char*> g_live[kMaxLive];

void on_fatal_signal(int sig) {
  for (auto& slot : g_live) {
    const char* p = slot.load();
    if (p) ::unlink(p);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void register_live(const char* p) {
  static std::once_flag once;
  std::call_once(once, [] {
    std::signal(SIGINT, on_fatal_signal);
    std::signal(SIGTERM, on_fatal_signal);
    std::signal(SIGHUP, on_fatal_signal);
  });
  for (auto& slot : g_live) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, p)) return;
  }
}

void unregister_live(const char* p) {
  for (auto& slot : g_live) {
    const char* expected = p;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string extension_of(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)), temp_(path_ + ".tmp." + std::to_string(::getpid())) {
  if (path_.empty()) throw InvalidArgument("output path is empty");
  // A folder in the way would only show at the final rename, after the whole computation.
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error("cannot write " + path_ + ": Is a directory");
  }
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) {
    throw Error("cannot write " + path_ + ": " + errno_text());
  }
  register_live(temp_.c_str());
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) discard();
}

std::FILE* AtomicOutput::file() { return file_; }

void AtomicOutput::discard() noexcept {
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  std::remove(temp_.c_str());
  unregister_live(temp_.c_str());
}

void AtomicOutput::commit() {
  bool ok = true;
  std::string why;
  if (file_) {
    if (std::fflush(file_) != 0 || std::ferror(file_)) {
      ok = false;
      why = errno_text();
    }
    if (std::fclose(file_) != 0 && ok) {
      ok = false;
      why = errno_text();
    }
    file_ = nullptr;
  }
  if (ok && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    ok = false;
    why = errno_text();
  }
  if (!ok) {
    discard();
    throw Error("cannot write " + path_ + ": " + why);
  }
  committed_ = true;
  unregister_live(temp_.c_str());
}

}  // namespace spindle::cli
