// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): does the order of the
// cold columns matter? The library relabels columns by decreasing in-degree (ties by id) so that
// the hottest 40 K columns of u fit in each block's shared memory; the rest are gathered from L2,
// one 32-byte sector per 4-byte value, and those cold gathers bound the runs kernel on R-MAT 22
// (ops/cuda/mxv/NOTES.md, floor.cu). A sector holds 8 consecutive columns, so cold columns that
// are gathered by the same warp task could share sectors if they had consecutive ids. The best
// any column order can do for a column is to share a sector in one of its tasks (two cold columns
// of a random-like graph rarely meet in more than one), which "first use" does: hot columns as
// before, cold columns numbered in the order the runs partition first meets them.
//
// For each R-MAT case this prints (1) the cold entries and the distinct cold sectors per warp
// instruction (32 consecutive entries of a task) and per task, under both orders, and (2) the
// library's runs kernel (launch_row_block_warp_runs, 40 K hot columns, cold gathers through L1)
// timed over the same CSR with either order, each result checked against a double host product
// with y poisoned first. cuSPARSE's best in the same process.
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/cold_order.cu build/test/libspindle.a -lcusparse -lcublas -lcublasLt
//     -o cold_order
// Run: ./cold_order [scale] [--reps N]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/bench/experiments/harness.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "ops/cuda/mxv/row_block_warp_tasks.hpp"

using namespace spindle;
using namespace spindle::detail::cuda;
using harness::time_ms;
using harness::upload;

namespace {

// Entries of task d: [k0, k0 + nk).
struct Sectors {
  long long cold = 0, per_instr = 0, per_task = 0;
};
Sectors count_sectors(const std::vector<RowBlockDesc>& tasks, const std::vector<int>& cr,
                      std::int64_t hot) {
  Sectors s;
  std::vector<int> task_sec, instr_sec;
  for (const RowBlockDesc& d : tasks) {
    task_sec.clear();
    for (std::int64_t k0 = d.k0; k0 < d.k0 + d.nk; k0 += 32) {
      instr_sec.clear();
      for (std::int64_t k = k0; k < std::min<std::int64_t>(k0 + 32, d.k0 + d.nk); ++k) {
        if (cr[k] >= hot) instr_sec.push_back(cr[k] >> 3);
      }
      s.cold += static_cast<long long>(instr_sec.size());
      std::sort(instr_sec.begin(), instr_sec.end());
      s.per_instr += std::unique(instr_sec.begin(), instr_sec.end()) - instr_sec.begin();
      task_sec.insert(task_sec.end(), instr_sec.begin(), instr_sec.end());
    }
    std::sort(task_sec.begin(), task_sec.end());
    s.per_task += std::unique(task_sec.begin(), task_sec.end()) - task_sec.begin();
  }
  return s;
}

template <class VV>
void run_case(const std::string& name, const Graph<std::int32_t, Pattern>& G, int sms,
              std::int64_t optin) {
  constexpr bool kVal = !std::is_same_v<VV, Pattern>;
  using S = semiring::plus_times<float>;
  const int n = static_cast<int>(G.rows());
  printf("\n## %s: n %d nnz %lld\n", name.c_str(), n, (long long)G.nnz());
  harness::Case<kVal> c(G, 40);
  const RowBlocks pk = build_row_block_warp_runs(c.rp.data(), n);
  // The hot copy the launch will take (the library's budget).
  const auto l =
      WarpFormLaunch::make<float>(std::int64_t(pk.desc.size()), row_block_warp_runs_smem<float>(0),
                                  row_block_warp_hot_entries<float>(), sms, optin);
  const std::int64_t hot = l.hs;
  // First use: hot ids kept, cold columns numbered as the tasks first meet them.
  std::vector<int> inv2(n, -1);
  int next = static_cast<int>(hot);
  for (const RowBlockDesc& d : pk.desc) {
    for (std::int64_t k = d.k0; k < d.k0 + d.nk; ++k) {
      const int j = c.ci[k];
      if (c.rl.inv[j] < hot) {
        inv2[j] = c.rl.inv[j];
      } else if (inv2[j] < 0) {
        inv2[j] = next++;
      }
    }
  }
  for (int j = 0; j < n; ++j) {
    if (inv2[j] < 0) inv2[j] = c.rl.inv[j] < hot ? c.rl.inv[j] : next++;
  }
  std::vector<int> cr2(c.ci.size());
  for (std::size_t k = 0; k < cr2.size(); ++k) cr2[k] = inv2[c.ci[k]];
  std::vector<float> xr2(n);
  for (int j = 0; j < n; ++j) xr2[inv2[j]] = c.x[j];

  const Sectors s1 = count_sectors(pk.desc, c.rl.cr, hot);
  const Sectors s2 = count_sectors(pk.desc, cr2, hot);
  printf("hot copy %lld columns; %zu tasks; cold entries %lld\n", (long long)hot, pk.desc.size(),
         s1.cold);
  printf("in-degree order: %lld sectors over warp instructions, %lld over tasks\n", s1.per_instr,
         s1.per_task);
  printf(
      "first use      : %lld sectors over warp instructions, %lld over tasks (%.1f%% / %.1f%% "
      "fewer)\n",
      s2.per_instr, s2.per_task, 100.0 * (s1.per_instr - s2.per_instr) / s1.per_instr,
      100.0 * (s1.per_task - s2.per_task) / s1.per_task);

  RowBlockDesc* d_pk = upload(pk.desc);
  RowBlockLong* d_plong = upload(pk.longs);
  void* d_ws;
  CK(cudaMalloc(&d_ws, (pk.pieces + 1) * (sizeof(float) + 1) + 64));
  int* d_cr2 = upload(cr2);
  float* d_xr2 = upload(xr2);
  auto time_order = [&](const char* label, int* cols, float* u) {
    MxvArgs<float, int, VV> a = c.template args<VV>();
    a.A.col_idx = cols;
    a.u = u;
    auto call = [&] {
      launch_row_block_warp_runs<S, float, int, VV, 1>(a, std::int64_t(pk.desc.size()), d_pk,
                                                       std::int64_t(pk.longs.size()), d_plong,
                                                       pk.pieces, d_ws, hot, sms, optin, 0);
    };
    harness::poison(c.d_y, n);
    call();
    CK(cudaDeviceSynchronize());
    const double err = c.worst();
    const double t = time_ms(call);
    printf("%-40s %8.4f ms  cus/this %.3f  err %.1e\n", label, t, c.best / t, err);
    fflush(stdout);
  };
  for (int rep = 0; rep < 2; ++rep) {
    time_order("runs kernel, in-degree order", c.d_cr, c.d_xr);
    time_order("runs kernel, cold columns by first use", d_cr2, d_xr2);
  }
  for (void* p : {(void*)d_pk, (void*)d_plong, d_ws, (void*)d_cr2, (void*)d_xr2}) CK(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  return harness::rmat_main(
      argc, argv,
      [](auto values, const std::string& name, const auto& G, int sms, std::int64_t optin) {
        run_case<std::conditional_t<decltype(values)::value, float, Pattern>>(name, G, sms, optin);
      });
}
