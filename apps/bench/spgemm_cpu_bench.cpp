// SPDX-License-Identifier: Apache-2.0
/// @file spgemm_cpu_bench.cpp
/// @brief Sparse x sparse mxm, triangle counting and the k-truss on the CPU backend over a
/// generated, symmetrized R-MAT graph: A·A (plus_times, fp32) and the triangle count with each
/// kernel forced and with the planner's choice, and the k-truss with the planner's choice
/// (median of R runs, wall and process CPU time; the k-truss rows give its rounds of products
/// and, as the result, its edges).
///
/// Usage: spindle_bench_spgemm_cpu [--scale S] [--edge-factor E] [--seed X] [--threads T]
///                                 [--runs R] [--no-square] [--no-triangles] [--ktruss K,...]
///                                 [--directed]
/// Defaults: scale 18, edge factor 16, seed 1, threads = OpenMP default, R = 3, k-truss for
/// k = 3. --no-square skips A·A (its output is large at scale 20 and beyond), --no-triangles the
/// triangle counts; --ktruss 0 skips the k-truss. --directed keeps the generated directions (the
/// graph `spindle generate rmat` writes) instead of symmetrizing; triangles() and k_truss() then
/// work on its undirected underlying graph as always.

#include <omp.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "spindle/algorithms/ktruss.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/mxm_sparse.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}

struct Timing {
  double wall_ms = 0;
  double cpu_ms = 0;
};

Timing median_of(int runs, const std::function<void()>& f) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    const double c0 = cpu_ms();
    f();
    cpu.push_back(cpu_ms() - c0);
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  int scale = 18;
  std::int64_t edge_factor = 16;
  std::uint64_t seed = 1;
  int runs = 3;
  bool square = true;
  bool directed = false;
  bool triangles = true;
  std::vector<std::int64_t> trusses = {3};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--scale") {
      scale = std::atoi(next());
    } else if (a == "--edge-factor") {
      edge_factor = std::atoll(next());
    } else if (a == "--seed") {
      seed = std::strtoull(next(), nullptr, 10);
    } else if (a == "--threads") {
      omp_set_num_threads(std::atoi(next()));
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(next()));
    } else if (a == "--no-square") {
      square = false;
    } else if (a == "--no-triangles") {
      triangles = false;
    } else if (a == "--ktruss") {
      trusses.clear();
      const std::string list = next();
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const long long k = std::atoll(list.substr(at, comma - at).c_str());
        if (k >= 2) trusses.push_back(k);
        at = comma + 1;
      }
    } else if (a == "--directed") {
      directed = true;
    } else {
      std::fprintf(stderr, "unknown argument %s (see the file comment)\n", a.c_str());
      return 2;
    }
  }
  using I = std::int32_t;
  spindle::BuildOptions bo;
  bo.symmetrize = !directed;
  bo.self_loops = spindle::SelfLoopPolicy::Drop;
  const auto A = spindle::build_graph<I, spindle::Pattern>(
      spindle::generate_rmat<I>(scale, edge_factor, seed), bo);
  std::printf(
      "R-MAT scale %d, edge factor %lld, seed %llu, %s: n %lld, nnz %lld, "
      "threads %d, median of %d runs\n",
      scale, static_cast<long long>(edge_factor), static_cast<unsigned long long>(seed),
      directed ? "directed" : "symmetrized", static_cast<long long>(A.rows()),
      static_cast<long long>(A.nnz()), omp_get_max_threads(), runs);
  std::printf("%-28s %-18s %12s %12s %14s\n", "operation", "kernel", "wall ms", "cpu ms", "result");
  using spindle::SpgemmKernel;
  if (square) {
    for (const SpgemmKernel k :
         {SpgemmKernel::Auto, SpgemmKernel::GustavsonDense, SpgemmKernel::GustavsonHash}) {
      spindle::Descriptor d;
      d.device = spindle::Device::Cpu;
      d.force(k);
      spindle::Graph<I, float> C;
      const Timing t =
          median_of(runs, [&] { mxm(C, spindle::semiring::plus_times<float>{}, A, A, d); });
      const spindle::Plan p = spindle::plan_for_mxm<spindle::semiring::plus_times<float>>(
          spindle::MatrixMask{}, A, A, d);
      std::printf("%-28s %-18s %12.1f %12.1f %14lld\n", "A*A plus_times fp32",
                  p.kernel_name().c_str(), t.wall_ms, t.cpu_ms, static_cast<long long>(C.nnz()));
    }
  }
  for (const SpgemmKernel k :
       {SpgemmKernel::Auto, SpgemmKernel::MaskedDot, SpgemmKernel::MaskedGustavson}) {
    if (!triangles) break;
    for (const bool per_vertex : {false, true}) {
      spindle::TriangleOptions o;
      o.device = spindle::Device::Cpu;
      o.kernel = k;
      o.per_vertex = per_vertex;
      spindle::TriangleResult r;
      const Timing t = median_of(runs, [&] { r = spindle::triangles(A, o); });
      std::printf("%-28s %-18s %12.1f %12.1f %14lld\n",
                  per_vertex ? "triangles per vertex" : "triangles total", spindle::to_string(k),
                  t.wall_ms, t.cpu_ms, static_cast<long long>(r.total));
    }
  }
  for (const std::int64_t k : trusses) {
    spindle::KTrussOptions o;
    o.device = spindle::Device::Cpu;
    spindle::KTrussResult<I> r;
    const Timing t = median_of(runs, [&] { r = spindle::k_truss(A, k, o); });
    const std::string what =
        "k-truss k=" + std::to_string(k) + ", " + std::to_string(r.rounds) + " rounds";
    std::printf("%-28s %-18s %12.1f %12.1f %14lld\n", what.c_str(),
                spindle::to_string(SpgemmKernel::Auto), t.wall_ms, t.cpu_ms,
                static_cast<long long>(r.edges));
  }
  return 0;
}
