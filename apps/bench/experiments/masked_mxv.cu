// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): which mxv kernel a masked call should run on a large skewed
// graph. The planner sends plain skewed calls from 2e7 entries on to row_block's warp form over
// relabelled columns, but a masked or accumulating call (the general path) gets no relabelling
// and, with a complemented mask, the shape rules' row_block/1024; a mask that is not complemented
// goes to subwarp_per_row (it skips unselected rows). This times, on one generated graph with
// float values, w<mask> = A u (plus_times, u full) for structural masks over a vector with a
// given share of its entries present (complemented and not), with each kernel forced, against the
// planner's own choice (the public mxv) and the plain call. Every result is checked against the
// CPU backend first (the device output poisoned before the checked run).
//
// Build (from the repository root, after the CUDA build in build/test):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/masked_mxv.cu build/test/libspindle.a -lcusparse -lcublas
//     -lcublasLt -lopenblas -o masked_mxv
// Run: ./masked_mxv [scale] [reps]        (R-MAT, edge factor 16; default 22, 20)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/src/cuda/timing.hpp"
#include "ops/core/backend.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/mxv.hpp"

using namespace spindle;
using I = std::int32_t;
using T = float;
using S = semiring::plus_times<T>;

namespace {

Plan forced(MxvKernel k, int lanes, std::int64_t items, int block_threads, int tile) {
  Plan p;
  p.op = OpKind::Mxv;
  p.device = Device::Cuda;
  p.mxv = k;
  p.params.lanes_per_row = lanes;
  p.params.items_per_worker = items;
  p.params.block_threads = block_threads;
  p.params.tile = tile;
  p.forced = true;
  return p;
}

bool same(const Vector<T>& got, const Vector<T>& want, std::string& why) {
  got.sync_to_host();
  if (got.size() != want.size()) {
    why = "size";
    return false;
  }
  for (std::int64_t i = 0; i < want.size(); ++i) {
    if (got.present(i) != want.present(i)) {
      why = "presence differs at " + std::to_string(i);
      return false;
    }
    if (!want.present(i)) continue;
    const double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= 1e-4 * std::max(1.0, std::fabs(w)))) {
      why = "value differs at " + std::to_string(i);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 22;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  Coo<I> coo = generate_rmat<I>(scale, 16, 1);
  std::mt19937_64 rng(7);
  coo.val.resize(coo.row.size());
  for (auto& v : coo.val) v = 0.5 + static_cast<double>(rng() % 4096) / 4096.0;
  const auto A = build_graph<I, T>(std::move(coo));
  const std::int64_t n = A.rows();
  std::printf("rmat%d: n %lld nnz %lld\n", scale, static_cast<long long>(n),
              static_cast<long long>(A.nnz()));
  Vector<T> u(n);
  for (std::int64_t j = 0; j < n; ++j) u[j] = static_cast<T>(0.25 + (rng() % 4096) / 4096.0);

  struct K {
    const char* name;
    Plan plan;
  };
  const std::vector<K> kernels = {
      {"row_block/1024", forced(MxvKernel::RowBlock, 0, 1024, 256, 0)},
      {"row_block/512", forced(MxvKernel::RowBlock, 0, 512, 128, 0)},
      {"row_block/256 (warp form)", forced(MxvKernel::RowBlock, 0, 256, 1024, 0)},
      {"subwarp/32", forced(MxvKernel::SubwarpPerRow, 32, 0, 256, 0)},
      {"subwarp/8", forced(MxvKernel::SubwarpPerRow, 8, 0, 256, 0)},
      {"merge_path/6", forced(MxvKernel::MergePath, 0, 6, 256, 0)},
      {"nnz_split/1024", forced(MxvKernel::NnzSplitSegmented, 0, 1024, 256, 0)},
      {"row_block/1024+relabel", forced(MxvKernel::RowBlock, 0, 1024, 256, 1)},
      {"row_block/512+relabel", forced(MxvKernel::RowBlock, 0, 512, 128, 1)},
      {"row_block/256+relabel (warp)", forced(MxvKernel::RowBlock, 0, 256, 1024, 1)},
  };

  auto time_ms = [&](auto&& enqueue) {
    return detail::cuda::median(detail::cuda::time_runs(enqueue, 3, reps));
  };
  const Descriptor on_cuda = Descriptor().on(Device::Cuda);
  {
    Vector<T> y;
    const double plain = time_ms([&] { mxv(y, Mask{}, Accum::none(), S{}, A, u, on_cuda); });
    std::printf("plain call, planner's pick (warp form over relabelled columns): %.4f ms\n", plain);
  }
  // A second input with half its entries absent (a BFS frontier-like u): the general path
  // without a mask.
  Vector<T> u_half = Vector<T>::empty(n);
  for (std::int64_t j = 0; j < n; j += 2) u_half.set(j, u[j]);
  {
    Vector<T> want = Vector<T>::empty(n);
    mxv(want, Mask{}, Accum::none(), S{}, A, u_half, Descriptor().on(Device::Cpu));
    want.sync_to_host();
    std::printf("\nno mask, u with every other entry absent\n");
    Vector<T> y = Vector<T>::empty(n);
    const double pick = time_ms([&] { mxv(y, Mask{}, Accum::none(), S{}, A, u_half, on_cuda); });
    std::string why;
    std::printf("  %-28s %9.4f ms %s\n", "planner's pick", pick,
                same(y, want, why) ? "" : why.c_str());
    for (const K& k : kernels) {
      Vector<T> z = Vector<T>::empty(n);
      debug::poison_device_outputs(true);
      detail::cuda::mxv<S>(k.plan, z, Mask{}, Accum::none(), A, u_half, false, false);
      debug::poison_device_outputs(false);
      const bool kok = same(z, want, why);
      const double ms = time_ms(
          [&] { detail::cuda::mxv<S>(k.plan, z, Mask{}, Accum::none(), A, u_half, false, false); });
      std::printf("  %-28s %9.4f ms  %.2fx the pick %s\n", k.name, ms, pick / ms,
                  kok ? "" : ("WRONG: " + why).c_str());
    }
  }
  for (const double share : {0.1, 0.5, 0.9}) {
    Vector<T> present = Vector<T>::empty(n);
    std::bernoulli_distribution in(share);
    for (std::int64_t i = 0; i < n; ++i) {
      if (in(rng)) present.set(i, T(1));
    }
    for (const bool complement : {true, false}) {
      const Mask mask = Mask::structural(present, complement);
      Vector<T> want = Vector<T>::empty(n);
      mxv(want, mask, Accum::none(), S{}, A, u, Descriptor().on(Device::Cpu));
      want.sync_to_host();
      std::printf("\nmask: %s structural, %.0f%% of the vector present (rows computed: %.0f%%)\n",
                  complement ? "complemented" : "plain", 100 * share,
                  100 * (complement ? 1 - share : share));
      Vector<T> y = Vector<T>::empty(n);
      mxv(y, mask, Accum::none(), S{}, A, u, on_cuda);
      std::string why;
      const bool ok = same(y, want, why);
      const double pick = time_ms([&] { mxv(y, mask, Accum::none(), S{}, A, u, on_cuda); });
      std::printf("  %-28s %9.4f ms %s\n", "planner's pick", pick, ok ? "" : why.c_str());
      for (const K& k : kernels) {
        Vector<T> z = Vector<T>::empty(n);
        debug::poison_device_outputs(true);
        detail::cuda::mxv<S>(k.plan, z, mask, Accum::none(), A, u, false, false);
        debug::poison_device_outputs(false);
        const bool kok = same(z, want, why);
        const double ms = time_ms(
            [&] { detail::cuda::mxv<S>(k.plan, z, mask, Accum::none(), A, u, false, false); });
        std::printf("  %-28s %9.4f ms  %.2fx the pick %s\n", k.name, ms, pick / ms,
                    kok ? "" : ("WRONG: " + why).c_str());
      }
    }
  }
  return 0;
}
