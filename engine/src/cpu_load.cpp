// SPDX-License-Identifier: Apache-2.0
// How many CPUs the CPU backend may use right now (executor.hpp: cpu_threads_now): the CPUs of
// the affinity mask less what other processes keep busy, from /proc (Linux).
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "spindle/executor.hpp"

namespace spindle {
namespace {

// Other processes' CPU use is measured over windows of at least this long. /proc/stat counts in
// clock ticks (10 ms on Linux), so a window must span a few ticks per CPU to tell a busy loop
// (one CPU) from noise; 30 ms keeps the estimate less than two windows behind a change in load
// while reading /proc at most ~35 times a second (about 10 us a read).
constexpr std::int64_t kWindowNs = 30'000'000;

// Weight of the newest window in the running estimate of the other processes' load: a window of
// 3 ticks per CPU is noisy by a tick, and halving keeps one stray tick from dropping a thread.
constexpr double kNewWeight = 0.5;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Reads a small /proc file whole into buf (NUL-terminated); false when it cannot.
bool read_proc(const char* path, char* buf, std::size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t got = 0;
  while (got + 1 < size) {
    const ssize_t r = ::read(fd, buf + got, size - 1 - got);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  buf[got] = '\0';
  return got > 0;
}

struct Ticks {
  std::uint64_t total = 0;  // every state, all CPUs
  std::uint64_t busy = 0;   // neither idle nor waiting for I/O (steal counts: another VM ran)
  std::uint64_t own = 0;    // this process (all its threads)
  int online = 0;           // CPUs in /proc/stat
};

bool read_ticks(Ticks& t) {
  char buf[256];  // the aggregate first line is all that is needed
  if (!read_proc("/proc/stat", buf, sizeof buf)) return false;
  unsigned long long v[8] = {};
  if (std::sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                  &v[4], &v[5], &v[6], &v[7]) != 8) {
    return false;
  }
  t.total = 0;
  for (unsigned long long x : v) t.total += x;
  t.busy = t.total - v[3] - v[4];
  t.online = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  char self[1024];
  if (!read_proc("/proc/self/stat", self, sizeof self)) return false;
  // Fields after the command name (which may hold spaces and parentheses): state is field 3,
  // utime and stime fields 14 and 15.
  const char* p = std::strrchr(self, ')');
  if (p == nullptr) return false;
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                  &stime) != 2) {
    return false;
  }
  t.own = utime + stime;
  return true;
}

// Tasks runnable right now on the whole machine, the caller included (/proc/loadavg's fourth
// field, "running/total"); -1 when unknown.
int runnable_now() {
  char buf[128];
  if (!read_proc("/proc/loadavg", buf, sizeof buf)) return -1;
  int running = 0, total = 0;
  if (std::sscanf(buf, "%*f %*f %*f %d/%d", &running, &total) != 2) return -1;
  return running;
}

int affinity_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1, omp_get_num_procs());
}

bool adaptive_from_environment() {
  const char* v = std::getenv("SPINDLE_ADAPT_THREADS");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

struct LoadState {
  std::mutex mutex;
  std::atomic<bool> adaptive{adaptive_from_environment()};
  std::atomic<int> free_cpus{0};         // 0: not measured yet
  std::atomic<std::int64_t> next_ns{0};  // when to read /proc again
  // Guarded by mutex:
  bool have_sample = false;
  bool unavailable = false;  // /proc could not be read: no adaptation
  Ticks last;
  std::int64_t last_ns = 0;
  double others = 0.0;  // CPUs other processes keep busy (running estimate)
  int cpus = 0;         // the affinity mask's CPUs
  std::string basis;
};

LoadState& state() {
  static LoadState s;
  return s;
}

// Updates s.free_cpus from /proc; called with s.mutex held.
void measure(LoadState& s, std::int64_t now) {
  if (s.cpus == 0) s.cpus = affinity_cpus();
  Ticks t;
  if (!read_ticks(t)) {
    s.unavailable = true;
    s.basis = "machine load unknown (/proc/stat unreadable): all threads";
    s.free_cpus.store(s.cpus, std::memory_order_relaxed);
    return;
  }
  char line[160];
  if (!s.have_sample) {
    // No window yet: count the tasks runnable now, less the caller.
    const int running = runnable_now();
    s.others = running > 0 ? double(running - 1) : 0.0;
    std::snprintf(line, sizeof line, "%d runnable tasks besides this one (/proc/loadavg)",
                  std::max(0, running - 1));
  } else {
    const std::uint64_t total = t.total - s.last.total;
    if (total == 0) {
      s.next_ns.store(now + kWindowNs, std::memory_order_relaxed);
      return;  // no tick yet: keep the estimate
    }
    const double busy = double(t.busy - s.last.busy);
    const double own = double(t.own - s.last.own);
    const double window = std::max(0.0, busy - own) / double(total) * double(t.online);
    s.others = (1.0 - kNewWeight) * s.others + kNewWeight * window;
    std::snprintf(line, sizeof line,
                  "other processes busy on %.1f of %d CPUs over the last %.0f ms (/proc/stat)",
                  s.others, t.online, double(now - s.last_ns) * 1e-6);
  }
  s.have_sample = true;
  s.last = t;
  s.last_ns = now;
  // The CPUs nobody else uses, rounded to the nearest: a process using half a CPU costs a
  // thread half the time.
  const double idle = double(std::min(s.cpus, t.online)) -
                      std::max(0.0, s.others - double(std::max(0, t.online - s.cpus)));
  const int free_cpus = std::clamp(static_cast<int>(std::floor(idle + 0.5)), 1, s.cpus);
  s.basis = std::string(line) + ": " + std::to_string(free_cpus) + " of " + std::to_string(s.cpus) +
            " CPUs free";
  s.free_cpus.store(free_cpus, std::memory_order_relaxed);
  s.next_ns.store(now + kWindowNs, std::memory_order_relaxed);
}

}  // namespace

int cpu_threads_now() noexcept {
  const int cap = omp_get_max_threads();
  LoadState& s = state();
  if (cap <= 1 || !s.adaptive.load(std::memory_order_relaxed)) return cap;
  const std::int64_t now = now_ns();
  int free_cpus = s.free_cpus.load(std::memory_order_relaxed);
  if (free_cpus == 0 || now >= s.next_ns.load(std::memory_order_relaxed)) {
    std::unique_lock<std::mutex> lock(s.mutex, std::try_to_lock);
    if (lock.owns_lock()) {
      try {
        if (!s.unavailable) measure(s, now);
      } catch (...) {  // std::string: keep what was known
      }
      free_cpus = s.free_cpus.load(std::memory_order_relaxed);
    }
  }
  return free_cpus > 0 ? std::min(cap, free_cpus) : cap;
}

void set_adaptive_cpu_threads(bool on) noexcept {
  state().adaptive.store(on, std::memory_order_relaxed);
}

bool adaptive_cpu_threads() noexcept { return state().adaptive.load(std::memory_order_relaxed); }

std::string cpu_threads_basis() {
  LoadState& s = state();
  const int cap = omp_get_max_threads();
  if (!s.adaptive.load(std::memory_order_relaxed)) {
    return "load adaptation off (SPINDLE_ADAPT_THREADS=0): up to " + std::to_string(cap) +
           " threads";
  }
  const int now = cpu_threads_now();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.basis.empty() ? std::to_string(now) + " threads"
                         : s.basis + "; up to " + std::to_string(now) + " of " +
                               std::to_string(cap) + " threads";
}

}  // namespace spindle
