// SPDX-License-Identifier: Apache-2.0
/// @file pagerank_bench.cpp
/// @brief PageRank on the GPU (`spindle bench pagerank`): per-iteration time and the whole run on
/// generated graphs (R-MAT, uniform, meshes, power laws, bipartite: generate_named's names) or
/// files, pattern-only CSR (4 bytes per edge), fp32. In the
/// same process and on the same data: Spindle with the planner's mxv kernel, the same iteration
/// with cuSPARSE's SpMV (the baseline; the fused vector steps are shared), and the CPU backend
/// as the check (L1 distance of the ranks after the same number of iterations).
///
/// Per-iteration time: wall clock between the on_iteration callbacks of a fixed-length run; median
/// over the iterations of every run after the first. On CUDA the callback for iteration k comes
/// when k's residual arrives, with k + 1 already queued, so the interval between callbacks is the
/// device's time per iteration (steps that keep the device busy count, host gaps would too). Whole
/// run: the default stop rule (tol 1e-6, at most 100 iterations), graph already resident, median of
/// the runs. The closing summary keeps two suites apart: large graphs (at least 2^20 vertices or
/// 2^24 entries), where memory traffic decides, and small ones, where launch latency does.
///
/// Usage: spindle_bench_pagerank [--graphs rmat22,uniform22,FILE] [--iters K] [--runs R]
///                               [--no-check] [--breakdown] [--methods] [--json FILE]
///
/// --methods times the solvers to the same answer: the exact vector is the power iteration in
/// double on the GPU run to a change below 1e-12; then each method (power, anderson) in fp32 with
/// tol 1e-6, 3e-7, 1e-7, 3e-8 and 1e-8 (the default preset's test, ‖x'-x‖₁ < tol, for both),
/// graph resident, median of the runs; for each method the loosest tol whose ranks lie within
/// L1 1e-6 of the exact vector gives its time to answer.
///
/// --breakdown splits the first call's set-up on each graph (run it with --no-check, or the CPU
/// check leaves the transpose cached on the host): the upload of A (reduce_rows over it), the
/// first vxm over A (the transpose built on the device and downloaded into host arrays, the plan,
/// one product) against a second one, and a fresh host array of A^T's size zero-filled the way a
/// Graph's std::vector is.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench_args.hpp"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace {

using namespace spindle;
using Clock = std::chrono::steady_clock;

const char* const kUsage =
    "usage: spindle bench pagerank [--graphs rmat22,uniform22,FILE] [--iters K] [--runs R]\n"
    "                              [--no-check] [--breakdown] [--methods] [--json FILE]\n"
    "PageRank on the GPU (pattern CSR, fp32): ms per iteration and per whole run for Spindle's\n"
    "planner pick and for the same iteration on cuSPARSE SpMV, plus the CPU backend as a check.\n"
    "Graphs: a file, or a generated graph (edge factor 16, seed 1): rmatS, uniformS, meshS,\n"
    "meshS-r (scrambled ids), plawS-gX (power law of exponent X), plawS-gX-o (degree-ordered\n"
    "ids), bipsymS (users x items as one undirected graph).\n"
    "Defaults: --graphs rmat22 --iters 20 --runs 5.";

struct Options {
  std::vector<std::string> graphs{"rmat22"};
  int iters = 20;
  int runs = 5;
  bool check = true;
  bool breakdown = false;
  bool methods = false;
  std::string json;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidArgument(a + " needs a value");
      return argv[++i];
    };
    auto positive = [&](const std::string& v) {
      std::size_t used = 0;
      int x = 0;
      try {
        x = std::stoi(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || x < 1)
        throw InvalidArgument(a + " needs a positive integer, got '" + v + "'");
      return x;
    };
    if (a == "--graphs") {
      o.graphs = spindle_bench::split_commas(value());
    } else if (a == "--iters") {
      o.iters = std::max(2, positive(value()));
    } else if (a == "--runs") {
      o.runs = positive(value());
    } else if (a == "--breakdown") {
      o.breakdown = true;
    } else if (a == "--methods") {
      o.methods = true;
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "--json") {
      o.json = value();
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", kUsage);
      std::exit(0);
    } else {
      throw InvalidArgument("unknown argument '" + a + "' (see --help)");
    }
  }
  if (o.graphs.empty()) throw InvalidArgument("--graphs needs at least one graph");
  return o;
}

Graph<std::int32_t, Pattern> make(const std::string& spec) {
  std::error_code ec;
  if (std::filesystem::exists(spec, ec)) return load_graph<std::int32_t, Pattern>(spec).graph;
  return build_graph<std::int32_t, Pattern>(generate_named<std::int32_t>(spec, 16, 1));
}

// Large graphs: memory traffic decides their time; small ones are launch-bound.
bool is_large(const Graph<std::int32_t, Pattern>& A) {
  return A.rows() >= (std::int64_t{1} << 20) || A.nnz() >= (std::int64_t{1} << 24);
}

double median(std::vector<double> v) {
  if (v.empty()) return -1.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct Timing {
  std::string label;
  double iter_ms = -1.0;   // median per iteration
  double iter_min = -1.0;  // fastest and slowest iteration
  double iter_max = -1.0;
  double whole_ms = -1.0;  // median whole default run
  // The first call on a graph not yet on the device (the first variant only): its wall time,
  // the bytes it uploaded, and the time of one plain upload of as many bytes (a Vector reduced
  // on CUDA: the engine's own staged transfer path).
  double first_ms = -1.0;
  double first_upload_mb = -1.0;
  double upload_ref_ms = -1.0;
  int whole_iters = 0;
  double l1_vs_cpu = -1.0;
  std::string error;
};

// The first call's steps, each ended by a scalar read (which waits for the device).
void print_breakdown(const Graph<std::int32_t, Pattern>& A) {
  using ms = std::chrono::duration<double, std::milli>;
  const Descriptor d = Descriptor().on(Device::Cuda);
  const std::int64_t n = A.rows();
  Clock::time_point t0 = Clock::now();
  Vector<float> deg(n, 0.0f);
  reduce_rows(deg, Mask{}, Accum::plus(), MonoidKind::Plus, A, d);
  (void)reduce(MonoidKind::Plus, deg, d);
  const double upload = ms(Clock::now() - t0).count();
  Vector<float> x(n, 1.0f), y(n);
  t0 = Clock::now();
  vxm(y, Mask{}, Accum::none(), semiring::plus_times<float>{}, x, A, d);
  (void)reduce(MonoidKind::Plus, y, d);
  const double first = ms(Clock::now() - t0).count();
  t0 = Clock::now();
  vxm(y, Mask{}, Accum::none(), semiring::plus_times<float>{}, x, A, d);
  (void)reduce(MonoidKind::Plus, y, d);
  const double second = ms(Clock::now() - t0).count();
  t0 = Clock::now();
  double fill = 0;
  {
    std::vector<std::int32_t> rp(static_cast<std::size_t>(A.cols()) + 1),
        ci(static_cast<std::size_t>(A.nnz()));
    fill = ms(Clock::now() - t0).count();
    t0 = Clock::now();
  }
  const double release = ms(Clock::now() - t0).count();
  std::printf(
      "%-16s breakdown: upload of A (reduce_rows) %.1f ms; first vxm %.1f ms, second %.2f ms: "
      "transpose + download + plan %.1f ms; a zero-filled host A^T (%.0f MB) %.1f ms, freed in "
      "%.1f ms\n",
      "", upload, first, second, first - second,
      static_cast<double>(A.nnz() + A.cols() + 1) * 4 / 1e6, fill, release);
}

Timing time_variant(const Graph<std::int32_t, Pattern>& A, const std::string& label, MxvKernel k,
                    const Options& o, const std::vector<float>* cpu_ranks) {
  Timing t;
  t.label = label;
  try {
    PageRankOptions po;
    po.device = Device::Cuda;
    po.mxv_kernel = k;
    po.tol = 0.0;  // fixed length: every iteration runs
    po.max_iter = o.iters;
    std::vector<double> per;
    Clock::time_point last;
    po.on_iteration = [&](int it, double) {
      const Clock::time_point now = Clock::now();
      if (it > 1) per.push_back(std::chrono::duration<double, std::milli>(now - last).count());
      last = now;
    };
    reset_transfer_stats();
    const Clock::time_point f0 = Clock::now();
    (void)pagerank<float>(A, po);  // warm-up: uploads, transpose, plan, partitions
    t.first_ms = std::chrono::duration<double, std::milli>(Clock::now() - f0).count();
    const TransferStats ts = transfer_stats();
    const std::uint64_t up = ts.graph_upload_bytes + ts.upload_bytes;
    t.first_upload_mb = static_cast<double>(up) / 1e6;
    if (up >= 4) {
      std::vector<double> ref;
      for (int r = 0; r < 3; ++r) {
        Vector<float> v(static_cast<std::int64_t>(up / 4), 1.0f);
        v.data()[0] = 2.0f;  // a host array, written: the reduce below must upload it
        const Clock::time_point u0 = Clock::now();
        (void)reduce(MonoidKind::Plus, v, Descriptor().on(Device::Cuda));
        ref.push_back(std::chrono::duration<double, std::milli>(Clock::now() - u0).count());
      }
      t.upload_ref_ms = median(ref);
    }
    per.clear();
    PageRankResult<float> fixed;
    for (int r = 0; r < o.runs; ++r) fixed = pagerank<float>(A, po);
    t.iter_ms = median(per);
    if (!per.empty()) {
      t.iter_min = *std::min_element(per.begin(), per.end());
      t.iter_max = *std::max_element(per.begin(), per.end());
    }
    if (cpu_ranks != nullptr) {
      const float* rk = static_cast<const Vector<float>&>(fixed.ranks).data();  // one download
      double l1 = 0.0;
      for (std::size_t i = 0; i < cpu_ranks->size(); ++i) {
        l1 += std::fabs(double(rk[i]) - double((*cpu_ranks)[i]));
      }
      t.l1_vs_cpu = l1;
    }
    PageRankOptions whole;
    whole.device = Device::Cuda;
    whole.mxv_kernel = k;
    std::vector<double> runs;
    for (int r = 0; r < o.runs; ++r) {
      const Clock::time_point t0 = Clock::now();
      const PageRankResult<float> res = pagerank<float>(A, whole);
      runs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      t.whole_iters = res.iterations;
    }
    t.whole_ms = median(runs);
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  return t;
}

// --methods: time to an answer within L1 1e-6 of the exact vector, per method (see the file's
// comment). Prints a line per (method, tol) and a summary line per method; JSON beside.
void time_methods(const Graph<std::int32_t, Pattern>& A, const std::string& spec, const Options& o,
                  std::ofstream& json) {
  using ms = std::chrono::duration<double, std::milli>;
  PageRankOptions ex;
  ex.device = Device::Cuda;
  ex.tol = 1e-12;
  ex.max_iter = 1000;
  const Clock::time_point e0 = Clock::now();
  const PageRankResult<double> exact = pagerank<double>(A, ex);
  const double exact_ms = ms(Clock::now() - e0).count();
  const double* xr = static_cast<const Vector<double>&>(exact.ranks).data();
  std::printf("%-16s exact: double power iteration, %d iterations to a change of %.1e (%.0f ms)\n",
              spec.c_str(), exact.iterations, exact.residual, exact_ms);
  const double kTarget = 1e-6;
  double answer_ms[2] = {-1.0, -1.0};
  int answer_iters[2] = {0, 0};
  double answer_tol[2] = {0, 0};
  if (json) {
    json << ", \"methods\": {\"exact_iterations\": " << exact.iterations << ", \"runs\": [";
  }
  bool first = true;
  for (int m = 0; m < 2; ++m) {
    const PageRankMethod method = m == 0 ? PageRankMethod::Power : PageRankMethod::Anderson;
    const char* name = m == 0 ? "power" : "anderson";
    for (const double tol : {1e-6, 3e-7, 1e-7, 3e-8, 1e-8}) {
      PageRankOptions po;
      po.device = Device::Cuda;
      po.method = method;
      po.tol = tol;
      po.max_iter = 1000;
      (void)pagerank<float>(A, po);  // warm: transpose, plan, layouts
      std::vector<double> runs;
      PageRankResult<float> res;
      for (int r = 0; r < std::max(3, o.runs); ++r) {
        const Clock::time_point t0 = Clock::now();
        res = pagerank<float>(A, po);
        runs.push_back(ms(Clock::now() - t0).count());
      }
      const float* rk = static_cast<const Vector<float>&>(res.ranks).data();
      double l1 = 0.0;
      for (std::int64_t i = 0; i < A.rows(); ++i) l1 += std::fabs(double(rk[i]) - xr[i]);
      const double t = median(runs);
      std::printf(
          "%-16s %-9s tol %.0e: %4d iterations, %9.3f ms (min %.3f max %.3f), L1 to exact "
          "%.2e%s\n",
          "", name, tol, res.iterations, t, *std::min_element(runs.begin(), runs.end()),
          *std::max_element(runs.begin(), runs.end()), l1, l1 <= kTarget ? " *" : "");
      if (json) {
        json << (first ? "" : ", ") << "{\"method\": \"" << name << "\", \"tol\": " << tol
             << ", \"iterations\": " << res.iterations << ", \"ms\": " << t
             << ", \"l1_to_exact\": " << l1 << "}";
      }
      first = false;
      if (l1 <= kTarget && answer_ms[m] < 0) {
        answer_ms[m] = t;
        answer_iters[m] = res.iterations;
        answer_tol[m] = tol;
      }
    }
  }
  if (json) json << "]}";
  if (answer_ms[0] > 0 && answer_ms[1] > 0) {
    std::printf(
        "%-16s time to L1 <= 1e-6 of exact: power %.3f ms (%d it, tol %.0e), anderson "
        "%.3f ms (%d it, tol %.0e): anderson / power = %.2f\n",
        "", answer_ms[0], answer_iters[0], answer_tol[0], answer_ms[1], answer_iters[1],
        answer_tol[1], answer_ms[1] / answer_ms[0]);
  } else {
    std::printf("%-16s a method did not reach L1 <= 1e-6 of exact on the tol grid\n", "");
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    if (!cuda_available()) {
      std::fprintf(stderr, "spindle bench pagerank: needs a CUDA device (%s)\n",
                   built_with_cuda() ? "none visible" : "this build has no CUDA");
      return 1;
    }
    std::ofstream json;
    if (!o.json.empty()) {
      json.open(o.json);
      if (!json) throw Error("cannot write " + o.json);
      json << "{\"device\": \"" << device_caps().name << "\", \"iters\": " << o.iters
           << ", \"runs\": " << o.runs << ", \"graphs\": [";
    }
    std::printf("# spindle bench pagerank on %s: pattern CSR, fp32, default preset (alpha 0.85)\n",
                device_caps().name.c_str());
    std::printf(
        "# per iteration: median over %d runs of %d iterations; whole run: tol 1e-6, "
        "median of %d; speedup = cuSPARSE ms / Spindle ms\n",
        o.runs, o.iters, o.runs);
    std::printf("%-16s %10s %11s | %-22s %9s %9s %5s | %9s %9s | %7s %7s | %9s\n", "graph", "n",
                "nnz", "variant", "ms/iter", "whole ms", "iters", "cuS/iter", "cuS whole", "x iter",
                "x whole", "L1 vs CPU");
    bool first = true;
    // log-speedup sums per suite: [0] large, [1] small; the worst ratio of each.
    double log_sum[2] = {0, 0}, worst[2] = {1e30, 1e30};
    int counted[2] = {0, 0};
    for (const std::string& spec : o.graphs) {
      const Graph<std::int32_t, Pattern> A = make(spec);
      std::vector<float> cpu;
      if (o.check) {
        PageRankOptions c;
        c.device = Device::Cpu;
        c.tol = 0.0;
        c.max_iter = o.iters;
        const auto r = pagerank<float>(A, c);
        const float* rk = r.ranks.data();
        cpu.assign(rk, rk + r.ranks.size());
      }
      if (o.breakdown) print_breakdown(A);
      if (o.methods) {
        if (json) {
          json << (first ? "" : ", ") << "{\"graph\": \"" << spec << "\", \"n\": " << A.rows()
               << ", \"nnz\": " << A.nnz();
        }
        time_methods(A, spec, o, json);
        if (json) json << "}";
        first = false;
        continue;
      }
      const Timing ours =
          time_variant(A, "spindle (planner)", MxvKernel::Auto, o, o.check ? &cpu : nullptr);
      const Timing base =
          time_variant(A, "cusparse spmv", MxvKernel::Cusparse, o, o.check ? &cpu : nullptr);
      std::printf(
          "%-16s %10lld %11lld | %-22s %9.4f %9.3f %5d | %9.4f %9.3f | %6.2fx %6.2fx | %9.2e\n",
          spec.c_str(), static_cast<long long>(A.rows()), static_cast<long long>(A.nnz()),
          ours.label.c_str(), ours.iter_ms, ours.whole_ms, ours.whole_iters, base.iter_ms,
          base.whole_ms, base.iter_ms / ours.iter_ms, base.whole_ms / ours.whole_ms,
          ours.l1_vs_cpu);
      std::printf("%-16s %22s | %-22s %9s (min %.4f max %.4f; cuSPARSE min %.4f max %.4f)\n", "",
                  "", "", "", ours.iter_min, ours.iter_max, base.iter_min, base.iter_max);
      {
        const double over = ours.first_ms - o.iters * ours.iter_ms;
        std::printf(
            "%-16s first call %.1f ms = %d iterations + %.1f ms set-up; it uploaded %.1f MB, "
            "which alone take %.1f ms (set-up / upload %.2fx)\n",
            "", ours.first_ms, o.iters, over, ours.first_upload_mb, ours.upload_ref_ms,
            ours.upload_ref_ms > 0 ? over / ours.upload_ref_ms : -1.0);
      }
      for (const Timing* t : {&ours, &base}) {
        if (!t->error.empty()) std::printf("  %s failed: %s\n", t->label.c_str(), t->error.c_str());
      }
      if (ours.iter_ms > 0 && base.iter_ms > 0) {
        const int suite = is_large(A) ? 0 : 1;
        log_sum[suite] += std::log(base.iter_ms / ours.iter_ms);
        worst[suite] = std::min(worst[suite], base.iter_ms / ours.iter_ms);
        ++counted[suite];
      }
      if (json) {
        json << (first ? "" : ", ") << "{\"graph\": \"" << spec << "\", \"n\": " << A.rows()
             << ", \"nnz\": " << A.nnz() << ", \"suite\": \"" << (is_large(A) ? "large" : "small")
             << "\"";
        for (const Timing* t : {&ours, &base}) {
          json << ", \"" << (t == &ours ? "spindle" : "cusparse")
               << "\": {\"ms_per_iter\": " << t->iter_ms << ", \"iter_min\": " << t->iter_min
               << ", \"iter_max\": " << t->iter_max << ", \"whole_ms\": " << t->whole_ms
               << ", \"whole_iters\": " << t->whole_iters << ", \"l1_vs_cpu\": " << t->l1_vs_cpu
               << ", \"first_ms\": " << t->first_ms
               << ", \"first_upload_mb\": " << t->first_upload_mb
               << ", \"upload_ref_ms\": " << t->upload_ref_ms << "}";
        }
        json << "}";
      }
      first = false;
    }
    for (int suite = 0; suite < 2; ++suite) {
      if (counted[suite] == 0) continue;
      std::printf("# %s graphs (%d): per-iteration speedup geomean %.3fx, worst %.3fx\n",
                  suite == 0 ? "large (>= 2^20 vertices or 2^24 entries)" : "small (launch-bound)",
                  counted[suite], std::exp(log_sum[suite] / counted[suite]), worst[suite]);
    }
    if (json) json << "]}\n";
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spindle bench pagerank: %s\n", e.what());
    return 1;
  }
}
