// SPDX-License-Identifier: Apache-2.0
// spindle_bench_mxm: SpMM (plus_times, fp32, int32, row-major B and C) — every Spindle kernel,
// the planner's pick, the tuned pick and cuSPARSE SpMM (default / CSR_ALG1 / CSR_ALG2 /
// CSR_ALG3, best-of) on the same device data in the same process. Every output is poisoned with
// NaN before a checked run and compared with cuSPARSE (relative L2 error); times are medians of
// CUDA-event-timed runs after warm-up. Prints one table (ms, and speedups = cuSPARSE best / ours)
// and writes everything as JSON with --json.
#include <cstdio>
#include <string>
#include <vector>

#include "apps/bench/mxm_bench.cuh"
#include "ops/core/planner.hpp"
#include "ops/cuda/mxm/families.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "ops/cuda/mxm/spmm_run.cuh"
#include "spindle/executor.hpp"

// The kernels are the library's (families.hpp): this program instantiates none of them.
namespace spindle::detail::cuda {
SPINDLE_MXM_FAMILIES(extern, ::spindle::semiring::plus_times<float>, float, std::int32_t, float)
}  // namespace spindle::detail::cuda

using namespace spindle;
using namespace spindle::bench;
using detail::cuda::CusparseSpmm;
using detail::cuda::CusparseSpmmAlg;
using S = semiring::plus_times<float>;

namespace {

constexpr double kTolerance = 1e-4;

const char* kUsage =
    "usage: spindle bench mxm [--graphs rmat20,uniform20,rmat22,uniform22,FILE...] "
    "[--n 1,2,4,8,16,32,64,128,256] [--reps 20] [--warmup 3] [--json FILE] [--no-check]";

Plan variant(MxmKernel k, int tile) {
  Plan p;
  p.op = OpKind::Mxm;
  p.device = Device::Cuda;
  p.mxm = k;
  p.params.tile = tile;
  return p;
}

std::string plan_label(const Plan& p) { return detail::cuda::spmm_label(p); }

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse_options(argc, argv, {"rmat20", "uniform20", "rmat22", "uniform22"},
                                  {1, 2, 4, 8, 16, 32, 64, 128, 256}, kUsage);
  if (!cuda_available()) {
    std::fprintf(stderr, "spindle bench mxm: no CUDA device is visible\n");
    return 1;
  }
  auto& ctx = detail::cuda::context();
  const cudaStream_t s = ctx.stream;
  const std::string dev = device_name();
  std::printf(
      "# spindle_bench_mxm on %s: plus_times fp32, int32 indices; median of %d runs "
      "after %d warm-up; speedup = best cuSPARSE ms / ours ms\n",
      dev.c_str(), o.reps, o.warmup);
  std::vector<JsonObject> rows;
  std::vector<double> sp_best, sp_planner, sp_tuned, planner_over_best, tuned_over_best;
  std::vector<double> sp_best_big, sp_planner_big;
  int failures = 0;
  for (const std::string& spec : o.graphs) {
    const NamedGraph ng = make_graph(spec);
    const auto& G = ng.g;
    const GraphStats& st = G.stats();
    std::printf("\n## %s: n = %lld, nnz = %lld, avg row %.1f, stdv %.1f, max row %lld\n",
                ng.name.c_str(), static_cast<long long>(st.rows), static_cast<long long>(st.nnz),
                st.avg_row, st.stdv_row, static_cast<long long>(st.max_row));
    std::printf("%-10s %4s | %-58s | %-26s | %-26s | %-30s | %6s %6s %6s\n", "graph", "N",
                "ours: kernel ms ...", "planner", "tuned", "cuSPARSE best", "best", "plan",
                "tuned");
    const auto d = detail::cuda::device_csr<float>(G);
    const bool big = st.nnz > 10'000'000;
    for (const std::int64_t n : o.widths) {
      const std::int64_t rows_n = st.rows * n;
      DeviceBuffer B(static_cast<std::size_t>(st.cols * n) * sizeof(float), "bench B");
      DeviceBuffer C(static_cast<std::size_t>(rows_n) * sizeof(float), "bench C");
      DeviceBuffer Cref(static_cast<std::size_t>(rows_n) * sizeof(float), "bench C ref");
      fill_uniform(B.as<float>(), st.cols * n, 7 + static_cast<std::uint64_t>(n), s);
      JsonObject row;
      row.str("graph", ng.name)
          .num("n", static_cast<double>(n))
          .num("nnz", static_cast<double>(st.nnz));

      // cuSPARSE: every algorithm that accepts row-major operands; the first one is the reference.
      double cus_best = -1;
      std::string cus_best_name;
      bool have_ref = false;
      std::string cus_cells;
      for (CusparseSpmmAlg alg : detail::cuda::kCusparseSpmmAlgs) {
        const std::string name = to_string(alg);
        try {
          CusparseSpmm<std::int32_t, float> op(d, B.as<float>(), n, C.as<float>(), n, n, 0.0f, alg);
          if (!op.supported()) {
            row.str(name, "unsupported");
            continue;
          }
          poison(C.as<float>(), rows_n, s);
          op.run();
          if (!have_ref) {
            SPINDLE_CUDA_CHECK(
                cudaMemcpyAsync(Cref.get(), C.get(), C.bytes(), cudaMemcpyDeviceToDevice, s));
            have_ref = true;
          } else if (o.check) {
            const Diff df = compare(C.as<float>(), Cref.as<float>(), rows_n, s);
            row.num(name + "_rel_err", df.rel);
          }
          const Timing t = time_runs([&] { op.run(); }, s, o.warmup, o.reps);
          row.num(name + "_ms", t.median);
          if (cus_best < 0 || t.median < cus_best) {
            cus_best = t.median;
            cus_best_name = name;
          }
        } catch (const Error& e) {
          row.str(name, std::string("failed: ") + e.what());
        }
      }
      if (!have_ref) {
        std::printf("%-10s %4lld | cuSPARSE ran no algorithm; skipped\n", ng.name.c_str(),
                    static_cast<long long>(n));
        continue;
      }
      row.str("cusparse_best", cus_best_name).num("cusparse_best_ms", cus_best);

      const auto a = spmm_args(d, n, B.as<const float>(), C.as<float>());

      auto run_checked = [&](const Plan& p, const std::string& label, bool record) -> double {
        poison(C.as<float>(), rows_n, s);
        detail::cuda::run_spmm<S>(p, a, G, s);  // also builds cached partitions / reorderings
        if (o.check) {
          const Diff df = compare(C.as<float>(), Cref.as<float>(), rows_n, s);
          if (!df.ok(kTolerance)) {
            ++failures;
            std::printf("  CHECK FAILED %s N=%lld %s: rel err %.3g, %lld NaN\n", ng.name.c_str(),
                        static_cast<long long>(n), label.c_str(), df.rel,
                        static_cast<long long>(df.nan));
            row.str(label + "_check", "FAILED");
          }
          if (record) row.num(label + "_rel_err", df.rel);
        }
        const Timing t =
            time_runs([&] { detail::cuda::run_spmm<S>(p, a, G, s); }, s, o.warmup, o.reps);
        if (record) row.num(label + "_ms", t.median);
        return t.median;
      };

      std::vector<Plan> variants;
      if (n == 1) variants.push_back(variant(MxmKernel::Spmv, 0));  // mxv's rules and kernels
      if (n <= 16) variants.push_back(variant(MxmKernel::ParallelReduceVec, 0));
      if (n <= 32 ||
          static_cast<std::int64_t>(G.nnz()) < detail::cuda::kSpmmRowBlockAnyWidthBelowNnz) {
        variants.push_back(variant(MxmKernel::RowBlock, 0));
      }
      if (n <= 32 && static_cast<std::int64_t>(G.nnz()) >= detail::kSpmmSmallGraphNnz) {
        // row_block with rows over 64 entries in blocks of their own (the small-graph rule)
        Plan v = variant(MxmKernel::RowBlock, 0);
        v.params.items_per_worker = detail::kSpmmSmallGraphLongRow;
        variants.push_back(v);
      }
      variants.push_back(variant(MxmKernel::RowCacheSeq, 0));
      // The row_cache_seq forms for small graphs (the tuner's list, spmm_limits.hpp).
      for (const detail::SpmmSeqForm& f :
           detail::spmm_small_graph_seq_forms(n, static_cast<std::int64_t>(G.nnz()))) {
        Plan v = variant(MxmKernel::RowCacheSeq, 0);
        v.params.items_per_worker = f.split;
        v.params.lanes_per_row = f.lanes;
        v.params.tile = f.tile;
        variants.push_back(v);
      }
      variants.push_back(variant(MxmKernel::NnzBalancedSeq, 0));
      if (n >= 16) variants.push_back(variant(MxmKernel::AsptTiled, 0));  // Adaptive Sparse Tiling
      // Each variant as the planner completes a forced kernel (forms, defaults); one it refuses
      // for this call is not timed.
      detail::MxmInfo vinfo;
      vinfo.n = n;
      std::vector<Plan> runnable;
      for (Plan v : variants) {
        if (detail::finalize_mxm_cuda(v, st, vinfo, device_caps()).empty()) runnable.push_back(v);
      }
      double best = -1;
      std::string best_name, cells;
      for (const Plan& p : runnable) {
        const std::string label = plan_label(p);
        const double ms = run_checked(p, label, true);
        char b[48];
        std::snprintf(b, sizeof b, "%s %.3f ", label.c_str(), ms);
        cells += b;
        if (best < 0 || ms < best) {
          best = ms;
          best_name = label;
        }
      }
      // The planner's pick, as the library makes it for this call.
      detail::MxmInfo info;
      info.n = n;
      const Plan planned = detail::plan_mxm_cuda(st, info, device_caps(), Descriptor{});
      const double plan_ms = run_checked(planned, "planner", false);
      row.str("planner_kernel", plan_label(planned)).str("planner_reason", planned.reason);
      row.num("planner_ms", plan_ms);
      // The tuned pick: candidates timed once, winner cached on the graph.
      const Plan tuned = detail::cuda::tune_spmm<S>(planned, info, a, G, s);
      const double tuned_ms = run_checked(tuned, "tuned", false);
      row.str("tuned_kernel", plan_label(tuned)).num("tuned_ms", tuned_ms);
      row.str("best_ours", best_name).num("best_ours_ms", best);

      const double sb = cus_best / best, sp = cus_best / plan_ms, stn = cus_best / tuned_ms;
      sp_best.push_back(sb);
      sp_planner.push_back(sp);
      sp_tuned.push_back(stn);
      planner_over_best.push_back(plan_ms / best);
      tuned_over_best.push_back(tuned_ms / best);
      if (big) {
        sp_best_big.push_back(sb);
        sp_planner_big.push_back(sp);
      }
      row.num("speedup_best", sb).num("speedup_planner", sp).num("speedup_tuned", stn);
      rows.push_back(row);
      char pc[64], tc[64], cc[64];
      std::snprintf(pc, sizeof pc, "%s %.3f", plan_label(planned).c_str(), plan_ms);
      std::snprintf(tc, sizeof tc, "%s %.3f", plan_label(tuned).c_str(), tuned_ms);
      std::snprintf(cc, sizeof cc, "%s %.3f", cus_best_name.c_str(), cus_best);
      std::printf("%-10s %4lld | %-58s | %-26s | %-26s | %-30s | %5.2fx %5.2fx %5.2fx\n",
                  ng.name.c_str(), static_cast<long long>(n), cells.c_str(), pc, tc, cc, sb, sp,
                  stn);
      std::fflush(stdout);
    }
  }
  const double mean_plan = mean(planner_over_best), mean_tuned = mean(tuned_over_best);
  std::printf(
      "\n# SUMMARY spmm on %s: geomean speedup vs best cuSPARSE: best kernel %.3fx, "
      "planner %.3fx, tuned %.3fx (all %zu cases); graphs with nnz > 1e7: best %.3fx, "
      "planner %.3fx; planner / best ours: mean %.3f; tuned / best: mean %.3f; "
      "check failures: %d\n",
      dev.c_str(), geomean(sp_best), geomean(sp_planner), geomean(sp_tuned), sp_best.size(),
      geomean(sp_best_big), geomean(sp_planner_big), mean_plan, mean_tuned, failures);
  JsonObject sum;
  sum.num("geomean_speedup_best", geomean(sp_best))
      .num("geomean_speedup_planner", geomean(sp_planner))
      .num("geomean_speedup_tuned", geomean(sp_tuned))
      .num("geomean_speedup_best_large", geomean(sp_best_big))
      .num("geomean_speedup_planner_large", geomean(sp_planner_big))
      .num("planner_over_best_mean", mean_plan)
      .num("tuned_over_best_mean", mean_tuned)
      .num("check_failures", failures);
  write_json(o.json, "mxm", dev, rows, sum);
  return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "spindle_bench_mxm: %s\n", e.what());
  return 1;
}
