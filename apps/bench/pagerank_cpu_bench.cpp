// SPDX-License-Identifier: Apache-2.0
/// @file pagerank_cpu_bench.cpp
/// @brief PageRank on the CPU backend over a generated R-MAT graph: time per iteration (median
/// of the timed iterations of one fixed-length run) and the whole default run, in one table.
///
/// Usage: spindle_bench_pagerank_cpu [--scale S] [--edge-factor E] [--seed X] [--threads T]
///                                   [--iters K] [--runs R]
/// Defaults: scale 20, edge factor 16, seed 1, threads = OpenMP default, K = 20 timed
/// iterations, R = 3 whole runs (median reported).

#include <omp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "spindle/algorithms/pagerank.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// CPU time of the process (all threads), ms: on a shared machine, the work without the waiting
/// for a core (run with OMP_WAIT_POLICY=passive so idle threads do not spin).
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Row {
  std::string precision;
  double iter_ms = 0, iter_min_ms = 0, iter_cpu_ms = 0, first_call_ms = 0, run_ms = 0;
  int run_iters = 0;
  bool converged = false;
};

template <class T, class G>
Row measure(const G& g, int iters, int runs) {
  Row row;
  row.precision = sizeof(T) == 4 ? "float" : "double";
  // Per-iteration: one run with tol = 0 so it never stops early; the callback timestamps each
  // iteration. The first iteration is dropped (it warms caches and allocates).
  std::vector<double> per_iter, per_cpu;
  spindle::PageRankOptions o;
  o.device = spindle::Device::Cpu;
  o.tol = 0.0;
  o.max_iter = iters + 1;
  auto last = Clock::now();
  double last_cpu = cpu_ms();
  o.on_iteration = [&](int it, double) {
    const auto now = Clock::now();
    const double now_cpu = cpu_ms();
    if (it > 1) {
      per_iter.push_back(std::chrono::duration<double, std::milli>(now - last).count());
      per_cpu.push_back(now_cpu - last_cpu);
    }
    last = now;
    last_cpu = now_cpu;
  };
  const auto t0 = Clock::now();
  last = t0;
  last_cpu = cpu_ms();
  spindle::pagerank<T>(g, o);
  row.first_call_ms = ms_since(t0);
  row.iter_ms = median(per_iter);
  row.iter_cpu_ms = median(per_cpu);
  row.iter_min_ms = *std::min_element(per_iter.begin(), per_iter.end());

  // Whole run with the defaults (tol 1e-6 on the L1 change, up to 100 iterations).
  std::vector<double> whole;
  for (int r = 0; r < runs; ++r) {
    spindle::PageRankOptions d;
    d.device = spindle::Device::Cpu;
    const auto t1 = Clock::now();
    const auto res = spindle::pagerank<T>(g, d);
    whole.push_back(ms_since(t1));
    row.run_iters = res.iterations;
    row.converged = res.converged;
  }
  row.run_ms = median(whole);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  int scale = 20, iters = 20, runs = 3, threads = 0;
  std::int64_t edge_factor = 16;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value after %s\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--scale")) {
      scale = std::atoi(next());
    } else if (!std::strcmp(argv[i], "--edge-factor")) {
      edge_factor = std::atoll(next());
    } else if (!std::strcmp(argv[i], "--seed")) {
      seed = std::strtoull(next(), nullptr, 10);
    } else if (!std::strcmp(argv[i], "--threads")) {
      threads = std::atoi(next());
    } else if (!std::strcmp(argv[i], "--iters")) {
      iters = std::max(1, std::atoi(next()));
    } else if (!std::strcmp(argv[i], "--runs")) {
      runs = std::max(1, std::atoi(next()));
    } else {
      const bool help = !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h");
      if (!help) std::fprintf(stderr, "unknown argument '%s'\n", argv[i]);
      std::fprintf(help ? stdout : stderr,
                   "usage: spindle bench pagerank-cpu [--scale S] [--edge-factor E] [--seed X] "
                   "[--threads T] [--iters K] [--runs R]\n");
      return help ? 0 : 2;
    }
  }
  if (threads > 0) omp_set_num_threads(threads);

  const auto tg = Clock::now();
  auto coo = spindle::generate_rmat<std::int32_t>(scale, edge_factor, seed);
  // The PageRank input convention: duplicates collapse, self-loops are kept.
  const auto g = spindle::build_graph<std::int32_t, spindle::Pattern>(std::move(coo));
  const double gen_ms = ms_since(tg);
  const auto tt = Clock::now();
  (void)g.transpose();  // cached; built once, outside the timings below
  const double transpose_ms = ms_since(tt);

  std::printf(
      "PageRank CPU benchmark: R-MAT scale %d, edge factor %lld, seed %llu -> n = %lld, "
      "nnz = %lld (pattern, duplicates collapsed, self-loops kept)\n",
      scale, static_cast<long long>(edge_factor), static_cast<unsigned long long>(seed),
      static_cast<long long>(g.rows()), static_cast<long long>(g.nnz()));
  std::printf(
      "threads = %d, generate+build %.0f ms, transpose %.0f ms, %d timed iterations, "
      "%d whole runs\n\n",
      omp_get_max_threads(), gen_ms, transpose_ms, iters, runs);

  std::vector<Row> rows;
  rows.push_back(measure<float>(g, iters, runs));
  rows.push_back(measure<double>(g, iters, runs));

  std::printf(
      "| precision | iteration ms (median) | iteration ms (min) | iteration CPU ms (median) | "
      "edges/s per iteration | whole run ms (median) | iterations | converged |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %.2f | %.2f | %.2f | %.2e | %.1f | %d | %s |\n", r.precision.c_str(),
                r.iter_ms, r.iter_min_ms, r.iter_cpu_ms, double(g.nnz()) / (r.iter_ms * 1e-3),
                r.run_ms, r.run_iters, r.converged ? "yes" : "no");
  }
  return 0;
}
