// SPDX-License-Identifier: Apache-2.0
// spindle_bench_sddmm: SDDMM (plus_times, fp32, int32) — vct, iir, wmt, the planner's pick, the
// tuned pick and cusparseSDDMM on the same device data in the same process. cuSPARSE computes
// spy(S) ∘ (X Yᵀ) without S's values, so Spindle runs on the same pattern S (identical output:
// the dot product per stored entry). Outputs are poisoned with NaN and compared with cuSPARSE
// before timing; times are medians of CUDA-event-timed runs after warm-up.
#include <cstdio>
#include <string>
#include <vector>

#include "apps/bench/mxm_bench.cuh"
#include "ops/core/planner.hpp"
#include "ops/cuda/sddmm/families.hpp"
#include "ops/cuda/sddmm/sddmm_run.cuh"
#include "spindle/executor.hpp"

// The kernels are the library's (families.hpp): this program instantiates none of them.
namespace spindle::detail::cuda {
SPINDLE_SDDMM_FAMILIES(extern, ::spindle::semiring::plus_times<float>, float, std::int32_t, float)
SPINDLE_SDDMM_FAMILIES(extern, ::spindle::semiring::plus_times<float>, float, std::int32_t,
                       ::spindle::Pattern)
}  // namespace spindle::detail::cuda

using namespace spindle;
using namespace spindle::bench;
using S = semiring::plus_times<float>;

namespace {

constexpr double kTolerance = 1e-4;

const char* kUsage =
    "usage: spindle bench sddmm [--graphs rmat20,uniform20,rmat22,uniform22,FILE...] "
    "[--k 16,32,64,128,256] [--reps 20] [--warmup 3] [--json FILE] [--no-check]";

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse_options(argc, argv, {"rmat20", "uniform20", "rmat22", "uniform22"},
                                  {16, 32, 64, 128, 256}, kUsage);
  if (!cuda_available()) {
    std::fprintf(stderr, "spindle bench sddmm: no CUDA device is visible\n");
    return 1;
  }
  auto& ctx = detail::cuda::context();
  const cudaStream_t s = ctx.stream;
  const std::string dev = device_name();
  std::printf(
      "# spindle_bench_sddmm on %s: plus_times fp32, int32 indices, pattern S; median of "
      "%d runs after %d warm-up; speedup = cuSPARSE ms / ours ms\n",
      dev.c_str(), o.reps, o.warmup);
  std::vector<JsonObject> rows;
  std::vector<double> sp_best, sp_planner, sp_tuned, planner_over_best, tuned_over_best;
  int failures = 0;
  for (const std::string& spec : o.graphs) {
    const NamedGraph ng = make_graph(spec);
    const auto& G = ng.g;
    const GraphStats& st = G.stats();
    std::printf("\n## %s: n = %lld, nnz = %lld, avg row %.1f, stdv %.1f, max row %lld\n",
                ng.name.c_str(), static_cast<long long>(st.rows), static_cast<long long>(st.nnz),
                st.avg_row, st.stdv_row, static_cast<long long>(st.max_row));
    std::printf("%-10s %4s | %-42s | %-20s | %-20s | %-10s | %6s %6s %6s\n", "graph", "K",
                "ours: kernel ms ...", "planner", "tuned", "cuSPARSE", "best", "plan", "tuned");
    const auto d = detail::cuda::device_pattern(G);
    for (const std::int64_t k : o.widths) {
      DeviceBuffer X(static_cast<std::size_t>(st.rows * k) * sizeof(float), "bench X");
      DeviceBuffer Y(static_cast<std::size_t>(st.cols * k) * sizeof(float), "bench Y");
      DeviceBuffer out(static_cast<std::size_t>(st.nnz) * sizeof(float), "bench out");
      DeviceBuffer ref(static_cast<std::size_t>(st.nnz) * sizeof(float), "bench ref");
      fill_uniform(X.as<float>(), st.rows * k, 11 + static_cast<std::uint64_t>(k), s);
      fill_uniform(Y.as<float>(), st.cols * k, 13 + static_cast<std::uint64_t>(k), s);
      JsonObject row;
      row.str("graph", ng.name)
          .num("k", static_cast<double>(k))
          .num("nnz", static_cast<double>(st.nnz));
      double cus_ms = -1;
      try {
        detail::cuda::CusparseSddmm<std::int32_t, float> op(d, X.as<float>(), k, Y.as<float>(), k,
                                                            k, ref.as<float>());
        if (op.supported()) {
          poison(ref.as<float>(), st.nnz, s);
          op.run();
          cus_ms = time_runs([&] { op.run(); }, s, o.warmup, o.reps).median;
          row.num("cusparse_ms", cus_ms);
        } else {
          row.str("cusparse", "unsupported");
        }
      } catch (const Error& e) {
        row.str("cusparse", std::string("failed: ") + e.what());
      }
      if (cus_ms < 0) {
        std::printf("%-10s %4lld | cuSPARSE SDDMM did not run; skipped\n", ng.name.c_str(),
                    static_cast<long long>(k));
        rows.push_back(row);
        continue;
      }

      detail::cuda::SddmmArgs<std::int32_t, Pattern, float> a;
      a.nnz = st.nnz;
      a.k = k;
      a.col_idx = d.col_idx;
      a.x = X.as<const float>();
      a.ldx = k;
      a.y = Y.as<const float>();
      a.ldy = k;
      a.out = out.as<float>();
      a.identity = 0.0f;

      auto run_checked = [&](const Plan& p, const std::string& label, bool record) -> double {
        poison(out.as<float>(), st.nnz, s);
        detail::cuda::run_sddmm<S>(p, a, d, G, s);
        if (o.check) {
          const Diff df = compare(out.as<float>(), ref.as<float>(), st.nnz, s);
          if (!df.ok(kTolerance)) {
            ++failures;
            std::printf("  CHECK FAILED %s K=%lld %s: rel err %.3g, %lld NaN\n", ng.name.c_str(),
                        static_cast<long long>(k), label.c_str(), df.rel,
                        static_cast<long long>(df.nan));
            row.str(label + "_check", "FAILED");
          }
          if (record) row.num(label + "_rel_err", df.rel);
        }
        const double ms =
            time_runs([&] { detail::cuda::run_sddmm<S>(p, a, d, G, s); }, s, o.warmup, o.reps)
                .median;
        if (record) row.num(label + "_ms", ms);
        return ms;
      };

      double best = -1;
      std::string best_name, cells;
      for (SddmmKernel kk : {SddmmKernel::Vct, SddmmKernel::Iir, SddmmKernel::Wmt}) {
        Plan p;
        p.op = OpKind::Sddmm;
        p.device = Device::Cuda;
        p.sddmm = kk;
        const double ms = run_checked(p, to_string(kk), true);
        char b[40];
        std::snprintf(b, sizeof b, "%s %.3f ", to_string(kk), ms);
        cells += b;
        if (best < 0 || ms < best) {
          best = ms;
          best_name = to_string(kk);
        }
      }
      detail::SddmmInfo info;
      info.k = k;
      info.matrix_value = ValueKind::Pattern;
      const Plan planned = detail::plan_sddmm_cuda(st, info, device_caps(), Descriptor{});
      const double plan_ms = run_checked(planned, "planner", false);
      const Plan tuned = detail::cuda::tune_sddmm<S>(planned, a, d, G, s);
      const double tuned_ms = run_checked(tuned, "tuned", false);
      row.str("planner_kernel", to_string(planned.sddmm)).num("planner_ms", plan_ms);
      row.str("tuned_kernel", to_string(tuned.sddmm)).num("tuned_ms", tuned_ms);
      row.str("best_ours", best_name).num("best_ours_ms", best);
      const double sb = cus_ms / best, sp = cus_ms / plan_ms, stn = cus_ms / tuned_ms;
      sp_best.push_back(sb);
      sp_planner.push_back(sp);
      sp_tuned.push_back(stn);
      planner_over_best.push_back(plan_ms / best);
      tuned_over_best.push_back(tuned_ms / best);
      row.num("speedup_best", sb).num("speedup_planner", sp).num("speedup_tuned", stn);
      rows.push_back(row);
      char pc[48], tc[48], cc[32];
      std::snprintf(pc, sizeof pc, "%s %.3f", to_string(planned.sddmm), plan_ms);
      std::snprintf(tc, sizeof tc, "%s %.3f", to_string(tuned.sddmm), tuned_ms);
      std::snprintf(cc, sizeof cc, "%.3f", cus_ms);
      std::printf("%-10s %4lld | %-42s | %-20s | %-20s | %-10s | %5.2fx %5.2fx %5.2fx\n",
                  ng.name.c_str(), static_cast<long long>(k), cells.c_str(), pc, tc, cc, sb, sp,
                  stn);
      std::fflush(stdout);
    }
  }
  const double mean_plan = mean(planner_over_best), mean_tuned = mean(tuned_over_best);
  std::printf(
      "\n# SUMMARY sddmm on %s: geomean speedup vs cuSPARSE: best kernel %.3fx, planner "
      "%.3fx, tuned %.3fx (%zu cases); planner / best ours: mean %.3f; tuned / best: "
      "mean %.3f; check failures: %d\n",
      dev.c_str(), geomean(sp_best), geomean(sp_planner), geomean(sp_tuned), sp_best.size(),
      mean_plan, mean_tuned, failures);
  JsonObject sum;
  sum.num("geomean_speedup_best", geomean(sp_best))
      .num("geomean_speedup_planner", geomean(sp_planner))
      .num("geomean_speedup_tuned", geomean(sp_tuned))
      .num("planner_over_best_mean", mean_plan)
      .num("tuned_over_best_mean", mean_tuned)
      .num("check_failures", failures);
  write_json(o.json, "sddmm", dev, rows, sum);
  return failures == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "spindle_bench_sddmm: %s\n", e.what());
  return 1;
}
