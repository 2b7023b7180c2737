// SPDX-License-Identifier: Apache-2.0
// cpu_threads_now (engine/src/cpu_load.cpp): other processes spinning on every allowed CPU leave
// the CPU backend one thread; the bound set by OMP_NUM_THREADS / --threads is never exceeded;
// switching adaptation off gives the bound back. Linux only (/proc).
#include <gtest/gtest.h>
#include <omp.h>

#if defined(__linux__)
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <chrono>
#include <thread>
#include <vector>

#include "spindle/executor.hpp"

namespace spindle {
namespace {

#if defined(__linux__)
int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/// Child processes spinning, one per allowed CPU, until destroyed.
struct Spinners {
  std::vector<pid_t> pids;
  explicit Spinners(int n) {
    for (int i = 0; i < n; ++i) {
      const pid_t p = fork();
      if (p == 0) {
        volatile unsigned long x = 0;
        for (;;) x = x + 1;  // killed by the parent
      }
      if (p > 0) pids.push_back(p);
    }
  }
  ~Spinners() {
    for (const pid_t p : pids) kill(p, SIGKILL);
    for (const pid_t p : pids) waitpid(p, nullptr, 0);
  }
};
#endif

TEST(CpuLoad, OtherProcessesBusyOnEveryCpuLeaveOneThread) {
#if !defined(__linux__)
  GTEST_SKIP() << "load adaptation reads /proc (Linux)";
#else
  const int cpus = allowed_cpus();
  const int bound = omp_get_max_threads();
  if (cpus < 2 || bound < 2) GTEST_SKIP() << "one CPU or one thread: nothing to adapt";
  set_adaptive_cpu_threads(true);
  int seen = bound;
  {
    Spinners busy(cpus);
    ASSERT_EQ(static_cast<int>(busy.pids.size()), cpus) << "fork failed";
    // A few 30 ms windows for the running estimate to reach the spinners' load.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    while (std::chrono::steady_clock::now() < until) {
      seen = cpu_threads_now();
      if (seen == 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  EXPECT_EQ(seen, 1) << cpu_threads_basis();
  EXPECT_NE(cpu_threads_basis().find("CPUs"), std::string::npos) << cpu_threads_basis();
#endif
}

TEST(CpuLoad, TheThreadBoundIsNeverExceededAndAdaptationCanBeTurnedOff) {
  const int bound = omp_get_max_threads();
  set_adaptive_cpu_threads(true);
  for (int i = 0; i < 5; ++i) {
    const int now = cpu_threads_now();
    EXPECT_GE(now, 1);
    EXPECT_LE(now, bound);
  }
  set_adaptive_cpu_threads(false);
  EXPECT_EQ(cpu_threads_now(), bound);
  EXPECT_NE(cpu_threads_basis().find("off"), std::string::npos) << cpu_threads_basis();
  set_adaptive_cpu_threads(true);
}

}  // namespace
}  // namespace spindle
