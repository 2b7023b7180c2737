// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared by the libFuzzer targets: the readers take paths, so each input is written to a
// per-process temporary file (in /dev/shm when it exists, to keep the fuzzer fast), and every
// call is wrapped so that a spindle::Error is an accepted outcome while any other exception is
// reported as a finding.

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "spindle/error.hpp"

namespace spindle::fuzz {

/// A file this process owns for its lifetime; rewritten for every input.
class TempFile {
 public:
  explicit TempFile(const std::string& tag) {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : std::getenv("TMPDIR");
    path_ =
        std::string(dir ? dir : "/tmp") + "/spindle-fuzz-" + std::to_string(getpid()) + "-" + tag;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f) std::abort();  // the harness, not the code under test, failed
    if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Runs f(); returns true when it completed, false when it threw a spindle::Error (the expected
/// way to refuse bad input). Any other exception aborts with its message so libFuzzer keeps the
/// input as a crash.
template <class F>
bool expect_clean(const char* what, F&& f) {
  try {
    f();
    return true;
  } catch (const spindle::Error&) {
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FINDING: %s threw a non-spindle exception: %s\n", what, e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "FINDING: %s threw an unknown exception\n", what);
    std::abort();
  }
}

/// Aborts with a message when an invariant of a successful read does not hold.
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FINDING: invariant violated: %s\n", what);
    std::abort();
  }
}

/// Equal as stored numbers, with every NaN equal to every NaN (payloads may differ after a
/// text round trip).
template <class T>
bool same_value(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

}  // namespace spindle::fuzz
