// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): the host's cost of one mxv / vxm call on launch-bound graphs.
// `spindle bench mxv` puts a spin kernel ahead of its timed launches, so its figures are device
// time only; a program that calls mxv in a loop (BFS levels, PageRank on a small graph) waits for
// whichever is slower, the device or the host's planning and launching. Here, for each call:
//   - issue: wall time to enqueue 200 calls while a spin kernel holds the stream (the device never
//     catches up, so this is the host's cost per call);
//   - loop: wall time per call of 2000 calls with one synchronize at the end (what a loop gets);
//   - an empty kernel's issue cost, for the floor.
// Run: ./host_cost DATA_DIR
#include <cuda_runtime.h>
#include <cxxabi.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/time.h>

#include <cstring>
#include <map>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/src/cuda/timing.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"

using namespace spindle;
using Clock = std::chrono::steady_clock;

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}
__global__ void empty_kernel() {}

// A small sampling profiler (SIGPROF every 50 us of CPU time; link with -rdynamic for names):
// inclusive samples per function over the call stacks taken while `profile` runs.
constexpr int kDepth = 32;
constexpr int kMaxSamples = 200000;
void* g_stacks[kMaxSamples][kDepth];
int g_depth[kMaxSamples];
volatile int g_samples = 0;
void on_prof(int) {
  const int i = g_samples;
  if (i >= kMaxSamples) return;
  g_depth[i] = backtrace(g_stacks[i], kDepth);
  g_samples = i + 1;
}
std::string name_of(void* p) {
  char** s = backtrace_symbols(&p, 1);
  std::string r = s ? s[0] : "?";
  free(s);
  const auto a = r.find('('), b = r.find('+', a);
  if (a != std::string::npos && b != std::string::npos && b > a + 1) {
    const std::string m = r.substr(a + 1, b - a - 1);
    int st = 0;
    char* d = abi::__cxa_demangle(m.c_str(), nullptr, nullptr, &st);
    r = st == 0 && d ? d : m;
    free(d);
  }
  if (r.size() > 150) r = r.substr(0, 150);
  return r;
}
template <class F>
void profile(const char* what, F&& call, int calls) {
  signal(SIGPROF, on_prof);
  backtrace(g_stacks[0], 1);  // loads libgcc before the first signal
  g_samples = 0;
  itimerval t{};
  t.it_interval.tv_usec = 50;
  t.it_value.tv_usec = 50;
  setitimer(ITIMER_PROF, &t, nullptr);
  for (int i = 0; i < calls; ++i) {
    call();
    if (i % 1000 == 999) cudaDeviceSynchronize();
  }
  cudaDeviceSynchronize();
  t = {};
  setitimer(ITIMER_PROF, &t, nullptr);
  const int n = g_samples;
  std::map<void*, int> self;
  std::map<std::string, int> incl, selfn;
  for (int i = 0; i < n; ++i) {
    std::map<std::string, int> seen;
    for (int d = 1; d < g_depth[i]; ++d) seen[name_of(g_stacks[i][d])] = 1;  // 0: the handler
    for (auto& [k, v] : seen) incl[k]++;
    if (g_depth[i] > 2) selfn[name_of(g_stacks[i][2])]++;  // 1: the signal trampoline
  }
  std::vector<std::pair<int, std::string>> top;
  for (auto& [k, v] : incl) top.push_back({v, k});
  std::sort(top.rbegin(), top.rend());
  std::printf("\n### profile %s: %d samples\n", what, n);
  for (size_t i = 0; i < top.size() && i < 45; ++i)
    std::printf("incl %5.1f%%  %s\n", 100.0 * top[i].first / n, top[i].second.c_str());
  top.clear();
  for (auto& [k, v] : selfn) top.push_back({v, k});
  std::sort(top.rbegin(), top.rend());
  for (size_t i = 0; i < top.size() && i < 25; ++i)
    std::printf("self %5.1f%%  %s\n", 100.0 * top[i].first / n, top[i].second.c_str());
}

template <class F>
void measure(const char* what, F&& call) {
  for (int i = 0; i < 20; ++i) call();
  cudaDeviceSynchronize();
  std::vector<double> issue, loop;
  for (int r = 0; r < 5; ++r) {
    spin_kernel<<<1, 1>>>(200'000'000LL);  // ~100 ms
    const auto t0 = Clock::now();
    for (int i = 0; i < 200; ++i) call();
    issue.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / 200);
    cudaDeviceSynchronize();
    const auto t1 = Clock::now();
    for (int i = 0; i < 2000; ++i) call();
    cudaDeviceSynchronize();
    loop.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t1).count() / 2000);
  }
  // Device time: the benchmark's timer (events on the library's stream, every launch queued
  // behind a spin kernel, so the host's cost is hidden), median of 31.
  const double dev_us =
      1000.0 * spindle::detail::cuda::median(spindle::detail::cuda::time_runs(call, 3, 31));
  std::sort(issue.begin(), issue.end());
  std::sort(loop.begin(), loop.end());
  std::printf("%-44s issue %6.2f us/call  loop %6.2f us/call  device %6.2f us\n", what, issue[2],
              loop[2], dev_us);
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "data";
  measure("empty kernel", [] { empty_kernel<<<1, 1>>>(); });
  const semiring::plus_times<float> pt{};
  for (const char* f : {"as20graph.txt", "1138_bus.mtx", "email-Eu-core.csv", "lp_afiro.mtx"}) {
    const auto L = load_graph<std::int32_t, float>(dir + "/graphs/" + f);
    const auto& A = L.graph;
    const std::int64_t n = A.rows();
    Descriptor desc;
    desc.device = Device::Cuda;
    Vector<float> u(A.cols(), 1.f), w(n), u2(n, 1.f), w2(A.cols());
    measure((std::string(f) + " mxv").c_str(),
            [&] { mxv(w, Mask{}, Accum::none(), pt, A, u, desc); });
    measure((std::string(f) + " vxm").c_str(),
            [&] { vxm(w2, Mask{}, Accum::none(), pt, u2, A, desc); });
    Vector<float> m(n);
    for (std::int64_t i = 0; i < n; i += 2) m.set(i, 1.f);
    measure((std::string(f) + " mxv, structural mask").c_str(),
            [&] { mxv(w, Mask::structural(m), Accum::none(), pt, A, u, desc); });
    if (std::string(f) == "1138_bus.mtx" || std::string(f) == "as20graph.txt") {
      profile((std::string(f) + " mxv").c_str(),
              [&] { mxv(w, Mask{}, Accum::none(), pt, A, u, desc); }, 30000);
      profile((std::string(f) + " mxv, structural mask").c_str(),
              [&] { mxv(w, Mask::structural(m), Accum::none(), pt, A, u, desc); }, 20000);
    }
  }
  profile(
      "empty kernel", [] { empty_kernel<<<1, 1>>>(); }, 30000);
  return 0;
}
