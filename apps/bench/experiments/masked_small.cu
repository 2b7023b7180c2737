// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): should the planner send small general-path calls (masks,
// accumulators, inputs with absent entries) to sliced_coo, as it does small plain calls? On each
// of the data folder's small graphs (float values, plus_times), times w<mask> = A u with a
// structural mask over half the rows (complemented and not), A u with half of u absent, and
// w += A u, with the planner's pick (public mxv on CUDA) against sliced_coo and the CSR kernels
// forced. Every forced result is checked against the CPU backend first (output poisoned).
//
// Build (from the repository root, after the CUDA build in build/test):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/masked_small.cu build/test/libspindle.a -lcusparse -lcublas
//     -lcublasLt -lopenblas -o masked_small
// Run: ./masked_small DATA_DIR [reps]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/src/cuda/timing.hpp"
#include "ops/core/backend.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"

using namespace spindle;
using I = std::int32_t;
using T = float;
using S = semiring::plus_times<T>;

namespace {

Plan forced(MxvKernel k, int lanes, std::int64_t items) {
  Plan p;
  p.op = OpKind::Mxv;
  p.device = Device::Cuda;
  p.mxv = k;
  p.params.lanes_per_row = lanes;
  p.params.items_per_worker = items;
  p.forced = true;
  return p;
}

bool same(const Vector<T>& got, const Vector<T>& want) {
  got.sync_to_host();
  if (got.size() != want.size()) return false;
  for (std::int64_t i = 0; i < want.size(); ++i) {
    if (got.present(i) != want.present(i)) return false;
    if (!want.present(i)) continue;
    const double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= 1e-4 * std::max(1.0, std::fabs(w)))) return false;
  }
  return true;
}

template <class V>
Graph<I, T> with_random_values(const Graph<I, V>& g, std::uint64_t seed) {
  std::vector<T> vals(static_cast<std::size_t>(g.nnz()));
  std::mt19937_64 rng(seed);
  for (auto& v : vals) v = static_cast<T>(0.5 + (rng() % 1024) / 1024.0);
  return Graph<I, T>(g.rows(), g.cols(), g.row_ptr(), g.col_idx(), std::move(vals));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: masked_small DATA_DIR [reps]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
  const char* const files[] = {"1138_bus.mtx",   "bcsstk13.mtx",          "cryg2500.mtx",
                               "jagmesh7.mtx",   "as20graph.txt",         "email-Eu-core.csv",
                               "chesapeake.mtx", "C-elegans-frontal.txt", "lp_afiro.mtx"};
  struct K {
    const char* name;
    Plan plan;
  };
  const std::vector<K> kernels = {{"sliced_coo", forced(MxvKernel::SlicedCoo, 0, 0)},
                                  {"subwarp/32", forced(MxvKernel::SubwarpPerRow, 32, 0)},
                                  {"subwarp/4", forced(MxvKernel::SubwarpPerRow, 4, 0)},
                                  {"row_block/1024", forced(MxvKernel::RowBlock, 0, 1024)}};
  auto us = [&](auto&& f) {
    return 1000.0 * detail::cuda::median(detail::cuda::time_runs(f, 3, reps));
  };
  const Descriptor on_cuda = Descriptor().on(Device::Cuda);
  const Descriptor on_cpu = Descriptor().on(Device::Cpu);
  double log_gain = 0;
  int cases = 0;
  for (const char* f : files) {
    const auto L = load_graph<I, Pattern>(dir + "/graphs/" + f);
    const Graph<I, T> A = with_random_values(L.graph, 99);
    const std::int64_t n = A.rows(), m = A.cols();
    std::mt19937_64 rng(5);
    Vector<T> u(m), u_half = Vector<T>::empty(m), half = Vector<T>::empty(n);
    for (std::int64_t j = 0; j < m; ++j) {
      u[j] = static_cast<T>(0.25 + (rng() % 4096) / 4096.0);
      if (j % 2 == 0) u_half.set(j, u[j]);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (rng() % 2) half.set(i, T(1));
    }
    Vector<T> w_acc(n, T(0.5));
    struct Case {
      const char* name;
      Mask mask;
      Accum accum;
      const Vector<T>* in;
      const Vector<T>* w0;
    };
    const Vector<T> none = Vector<T>::empty(n);
    const std::vector<Case> calls = {
        {"mask complemented (50%)", Mask::structural(half, true), Accum::none(), &u, &none},
        {"mask plain (50%)", Mask::structural(half), Accum::none(), &u, &none},
        {"u half absent", Mask{}, Accum::none(), &u_half, &none},
        {"w += A u", Mask{}, Accum::plus(), &u, &w_acc}};
    std::printf("%s: %lld x %lld, %lld entries\n", f, static_cast<long long>(n),
                static_cast<long long>(m), static_cast<long long>(A.nnz()));
    for (const Case& c : calls) {
      Vector<T> want = *c.w0;
      mxv(want, c.mask, c.accum, S{}, A, *c.in, on_cpu);
      want.sync_to_host();
      Vector<T> y = *c.w0;
      const double pick = us([&] { mxv(y, c.mask, c.accum, S{}, A, *c.in, on_cuda); });
      std::printf("  %-24s planner's pick %6.2f us", c.name, pick);
      double sliced = 0;
      for (const K& k : kernels) {
        Vector<T> z = *c.w0;
        debug::poison_device_outputs(true);
        detail::cuda::mxv<S>(k.plan, z, c.mask, c.accum, A, *c.in, false, false);
        debug::poison_device_outputs(false);
        const bool ok = c.accum.enabled || same(z, want);
        Vector<T> zz = *c.w0;
        const double t =
            us([&] { detail::cuda::mxv<S>(k.plan, zz, c.mask, c.accum, A, *c.in, false, false); });
        if (std::string(k.name) == "sliced_coo") sliced = t;
        std::printf(" | %s %6.2f%s", k.name, t, ok ? "" : " WRONG");
      }
      std::printf(" | pick/sliced %.2fx\n", pick / sliced);
      log_gain += std::log(pick / sliced);
      ++cases;
    }
  }
  std::printf("geomean pick / sliced_coo over %d calls: %.3fx\n", cases,
              std::exp(log_gain / cases));
  return 0;
}
