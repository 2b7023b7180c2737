// SPDX-License-Identifier: Apache-2.0
/// @file algorithms_bench.cpp
/// @brief Every graph algorithm on one generated R-MAT graph (issue 48): the CPU backend and the
/// CUDA backend with the planner's choices, and on CUDA the same algorithm with its products
/// forced to cuSPARSE through its own options where the engine has such a kernel for them; every
/// GPU result checked against the CPU backend's on the same graph. Public API only.
///
/// The graph: R-MAT (scale S, edge factor E, seed X), self-loops dropped, symmetrized (the
/// undirected graph), int32 indices, pattern only (no algorithm here reads values: HITS and Katz
/// run unweighted). Strongly connected components run on the directed graph (the same entries,
/// not symmetrized). Algorithms (--algorithms keys):
///   wcc        weakly connected components
///   scc        strongly connected components (directed graph)
///   triangles  triangle count (total only)
///   clustering triangles per vertex and the local clustering coefficient
///   kcore      core numbers
///   ktruss     the k-truss (--ktruss-k, default 3)
///   bc         betweenness centrality from --bc-sources sampled sources (seed 1), normalized
///   hits       HITS, fp32, exactly --iters iterations (tol 0: the same work on every side)
///   katz       Katz centrality, fp32, exactly --iters iterations, alpha below 1 / lambda_max
///              (default 0.5 / an upper bound on lambda_max: the Collatz-Wielandt bound
///              max_i (A x)_i / x_i after 20 steps of x <- (A + I) x from ones; --katz-alpha
///              overrides), beta 1; the result is the unnormalized last iterate (tol 0)
///   jaccard    Jaccard coefficient of every edge at --jaccard-vertices sampled vertices (each
///              with at least one edge; all their edges, keyed by the sampled vertex). The
///              algorithm costs two SpMMs over the whole graph per batch of distinct second
///              vertices, so every edge of the graph (--jaccard-vertices 0) is quadratic.
///
/// cuSPARSE baseline: HITS and Katz take MxvKernel::Cusparse (HitsOptions / KatzOptions
/// ::mxv_kernel), betweenness MxmKernel::Cusparse (BetweennessOptions::mxm_kernel). A forced
/// kernel that cannot run a call falls back to the planner (logged with SPINDLE_LOG=plan), so
/// before timing it the benchmark asks the public planner (plan_for_mxv / plan_for_vxm /
/// plan_for_mxm, the plans that run) about the products those algorithms issue -- HITS: vxm and
/// mxv over plus_times<float> accumulating (Accum::plus) into zeros; Katz: vxm over
/// plus_times<float> with Accum::plus; betweenness: mxm over plus_times<double>, n x batch, with
/// and without transpose_a (algorithms/src/{hits,katz,betweenness}.cpp) -- and reports "no
/// cuSPARSE equivalent" with the planner's reason where the forced kernel is refused, rather than
/// timing the planner twice. Check with SPINDLE_LOG=plan that the lines say "(forced)". Components,
/// core numbers, triangles and the k-truss use semirings cuSPARSE does not compute or sparse x
/// sparse products it has no kernel for in the engine, and Jaccard has no kernel option: "—". The
/// triangle count's cuSPARSE baseline (cusparseSpGEMM) is in spindle_bench_spgemm.
///
/// Times: wall clock around one call of the algorithm on the already built graph, median of
/// --runs after one warm-up call per device and variant. The warm-up makes the device copies,
/// transposes and pattern copies the algorithm caches with the graph, so the timed calls do not
/// upload the graph; they do include every per-call transfer the algorithm makes (frontiers,
/// labels, result vectors in host memory). HITS and Katz leave their vectors on the device: their
/// timed call ends with a one-scalar reduce of the result on the device, which waits for the
/// queued work (a few microseconds), and does not download the vectors. ratio = cuSPARSE ms /
/// Spindle ms (above 1: Spindle faster). --threads sets the CPU backend's OpenMP threads.
///
/// Check (unless --no-check): every CUDA result, the cuSPARSE variant's too, against the CPU
/// backend's on the same graph (timed with --device both, else one untimed call): exact for
/// integer results (labels, counts, core numbers, the truss's edges); for floating ones the
/// largest |gpu - cpu| over the largest |cpu|, at most 1e-9 for fp64 (betweenness); Jaccard and
/// clustering coefficients within 1e-12 absolute. HITS and Katz run in fp32: each fp32 result's
/// error against an fp64 CPU run of the same iterations (relative to its largest entry) may be
/// at most twice the CPU fp32 result's, or 1e-5.
///
/// Usage: spindle_bench_algorithms [--scale S] [--edge-factor E] [--seed X]
///          [--device cpu|cuda|both] [--threads T] [--runs R] [--algorithms LIST] [--skip LIST]
///          [--iters K] [--ktruss-k K] [--bc-sources K] [--bc-batch B] [--katz-alpha A]
///          [--jaccard-vertices V] [--no-check] [--json FILE]
/// Defaults: scale 22, edge factor 16, seed 1, device cuda when a GPU is visible else cpu, threads
/// = OpenMP default, runs 3, every algorithm, iters 20, k-truss k 3, 64 betweenness sources in
/// the algorithm's default batch (0), 64 Jaccard vertices. Exit 0; 1 when a run failed or a
/// check found a difference; 2 on a usage error or --device cuda|both without a CUDA device.

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_args.hpp"
#include "spindle/algorithms/betweenness.hpp"
#include "spindle/algorithms/components.hpp"
#include "spindle/algorithms/hits.hpp"
#include "spindle/algorithms/jaccard.hpp"
#include "spindle/algorithms/katz.hpp"
#include "spindle/algorithms/kcore.hpp"
#include "spindle/algorithms/ktruss.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace {

using namespace spindle;
using I = std::int32_t;
using G = Graph<I, Pattern>;
using Clock = std::chrono::steady_clock;

const char* const kAll[] = {"wcc",    "scc", "triangles", "clustering", "kcore",
                            "ktruss", "bc",  "hits",      "katz",       "jaccard"};

const char* const kUsage =
    "usage: spindle_bench_algorithms [--scale S] [--edge-factor E] [--seed X]\n"
    "         [--device cpu|cuda|both] [--threads T] [--runs R] [--algorithms LIST] [--skip LIST]\n"
    "         [--iters K] [--ktruss-k K] [--bc-sources K] [--bc-batch B] [--katz-alpha A]\n"
    "         [--jaccard-vertices V] [--no-check] [--json FILE]\n"
    "Every algorithm on a symmetrized R-MAT graph (int32, pattern): CPU and/or CUDA with the\n"
    "planner's choices, on CUDA also with cuSPARSE forced where the engine has it, each GPU\n"
    "result checked against the CPU. Algorithms (LIST, comma-separated): wcc scc triangles\n"
    "clustering kcore ktruss bc hits katz jaccard. Defaults: scale 22, edge factor 16, seed 1,\n"
    "device cuda if present else cpu, runs 3, iters 20, ktruss-k 3, bc-sources 64, bc-batch 0\n"
    "(the algorithm's), jaccard-vertices 64. The file comment says what each row measures.";

struct Options {
  int scale = 22;
  std::int64_t edge_factor = 16;
  std::uint64_t seed = 1;
  bool cpu = false, cuda = false;
  int runs = 3;
  std::vector<std::string> algorithms;
  int iters = 20;
  std::int64_t ktruss_k = 3;
  std::int64_t bc_sources = 64;
  std::int64_t bc_batch = 0;
  double katz_alpha = 0.0;  // 0: from the bound on lambda_max
  std::int64_t jaccard_vertices = 64;
  bool check = true;
  std::string json;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "spindle_bench_algorithms: %s (see --help)\n", what.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  std::string device = cuda_available() ? "cuda" : "cpu";
  std::vector<std::string> skip;
  std::vector<std::string> only(std::begin(kAll), std::end(kAll));
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    auto integer = [&](std::int64_t lo) {
      const std::string v = value();
      std::size_t used = 0;
      long long x = 0;
      try {
        x = std::stoll(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || x < lo) {
        usage_error(a + " needs an integer >= " + std::to_string(lo) + ", got '" + v + "'");
      }
      return static_cast<std::int64_t>(x);
    };
    if (a == "--scale") {
      o.scale = static_cast<int>(integer(1));
    } else if (a == "--edge-factor") {
      o.edge_factor = integer(1);
    } else if (a == "--seed") {
      o.seed = static_cast<std::uint64_t>(integer(0));
    } else if (a == "--device") {
      device = value();
    } else if (a == "--threads") {
      omp_set_num_threads(static_cast<int>(integer(1)));
    } else if (a == "--runs") {
      o.runs = static_cast<int>(integer(1));
    } else if (a == "--algorithms") {
      only = spindle_bench::split_commas(value());
    } else if (a == "--skip") {
      skip = spindle_bench::split_commas(value());
    } else if (a == "--iters") {
      o.iters = static_cast<int>(integer(1));
    } else if (a == "--ktruss-k") {
      o.ktruss_k = integer(2);
    } else if (a == "--bc-sources") {
      o.bc_sources = integer(1);
    } else if (a == "--bc-batch") {
      o.bc_batch = integer(0);
    } else if (a == "--katz-alpha") {
      const std::string v = value();
      char* end = nullptr;
      o.katz_alpha = std::strtod(v.c_str(), &end);
      if (*end != '\0' || !(o.katz_alpha > 0.0) || !std::isfinite(o.katz_alpha)) {
        usage_error("--katz-alpha needs a positive number, got '" + v + "'");
      }
    } else if (a == "--jaccard-vertices") {
      o.jaccard_vertices = integer(0);
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "--json") {
      o.json = value();
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", kUsage);
      std::exit(0);
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  auto known = [](const std::string& k) {
    return std::find(std::begin(kAll), std::end(kAll), k) != std::end(kAll);
  };
  for (const auto& k : only) {
    if (!known(k)) usage_error("unknown algorithm '" + k + "'");
  }
  for (const auto& k : skip) {
    if (!known(k)) usage_error("unknown algorithm '" + k + "' in --skip");
  }
  for (const char* k : kAll) {  // in the table's order
    if (std::find(only.begin(), only.end(), k) != only.end() &&
        std::find(skip.begin(), skip.end(), k) == skip.end()) {
      o.algorithms.push_back(k);
    }
  }
  if (device == "cpu") {
    o.cpu = true;
  } else if (device == "cuda") {
    o.cuda = true;
  } else if (device == "both") {
    o.cpu = o.cuda = true;
  } else {
    usage_error("--device must be cpu, cuda or both, got '" + device + "'");
  }
  return o;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// ---- checks -------------------------------------------------------------------------------

struct Check {
  bool ok = true;
  std::string text;
};

Check both(const Check& a, const Check& b) {
  if (a.ok && !b.ok) return b;
  if (!a.ok) return a;
  return {true, a.text == "exact" ? b.text : a.text};
}

template <class T>
Check exact(const std::vector<T>& got, const std::vector<T>& ref, const char* what) {
  if (got.size() != ref.size()) return {false, std::string(what) + " sizes differ"};
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != ref[i];
  if (bad == 0) return {true, "exact"};
  return {false, std::to_string(bad) + " " + what + " differ"};
}

// Largest |got - ref| over the largest |ref| (relative = true) or absolute, against tol.
template <class T>
Check close(const T* got, const T* ref, std::size_t n, double tol, bool relative) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(double(got[i]) - double(ref[i]));
    diff = std::isnan(d) ? INFINITY : std::max(diff, d);
    scale = std::max(scale, std::fabs(double(ref[i])));
  }
  const double err = relative ? diff / std::max(scale, 1e-300) : diff;
  if (err == 0.0) return {true, "exact"};
  const bool ok = err <= tol;
  return {ok, fmt(ok ? "%.1e" : "DIFF %.1e", err) + (relative ? " rel" : " abs")};
}

template <class T>
Check close(const std::vector<T>& got, const std::vector<T>& ref, double tol, bool relative) {
  if (got.size() != ref.size()) return {false, "sizes differ"};
  return close(got.data(), ref.data(), got.size(), tol, relative);
}

template <class T>
Check close(const Vector<T>& got, const Vector<T>& ref, double tol) {
  if (got.size() != ref.size()) return {false, "sizes differ"};
  return close(got.data(), ref.data(), static_cast<std::size_t>(got.size()), tol, true);
}

/// An fp32 result against the fp64 truth: its largest error relative to the truth's largest
/// entry may be at most twice the CPU backend's fp32 error (the same iterations in another
/// summation order), or 1e-5. Long fp32 iterations amplify rounding (Katz near 1 / lambda_max),
/// so a fixed bound on |gpu - cpu| would blame either side for what fp32 does to both.
template <class T64>
Check close_to_truth(const Vector<float>& got, const Vector<float>& cpu, const Vector<T64>& truth) {
  if (got.size() != truth.size() || cpu.size() != truth.size()) return {false, "sizes differ"};
  auto rel_err = [&truth](const Vector<float>& x) {
    double diff = 0.0, scale = 0.0;
    for (std::int64_t i = 0; i < truth.size(); ++i) {
      const double d = std::fabs(double(x[i]) - double(truth[i]));
      diff = std::isnan(d) ? INFINITY : std::max(diff, d);
      scale = std::max(scale, std::fabs(double(truth[i])));
    }
    return diff / std::max(scale, 1e-300);
  };
  const double e = rel_err(got), e_cpu = rel_err(cpu);
  const bool ok = e <= std::max(1e-5, 2.0 * e_cpu);
  return {ok, fmt(ok ? "%.1e" : "DIFF %.1e", e) + fmt(" rel to fp64 (CPU fp32 %.1e)", e_cpu)};
}

// ---- one algorithm ------------------------------------------------------------------------

/// What the benchmark needs of one algorithm. `probe`, when set, says whether the engine runs
/// the algorithm's products on cuSPARSE when forced ("" yes, else the planner's reason); unset:
/// the algorithm has no cuSPARSE kernel to force. `plan` names the planner's CUDA kernels.
template <class R>
struct Case {
  std::string key, title;
  std::function<R(Device, bool cusparse)> run;
  std::function<std::string(const R&)> summary;
  std::function<Check(const R& got, const R& ref)> compare;
  std::function<std::string()> probe;
  std::function<std::string()> plan;
};

struct Row {
  std::string algorithm, device, variant, result, check = "—", baseline = "—", note, error;
  double ms = -1, base_ms = -1, cpu_ref_ms = -1;
  bool failed = false;
};

template <class F>
auto timed(int runs, F&& f, double& ms) -> decltype(f()) {
  auto r = f();  // warm-up: uploads, transposes, pattern copies cached with the graph
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const Clock::time_point t0 = Clock::now();
    r = f();
    t.push_back(ms_since(t0));
  }
  ms = median(t);
  return r;
}

template <class R>
void bench(const Case<R>& c, const Options& o, std::vector<Row>& rows) {
  std::optional<R> ref;
  if (o.cpu) {
    Row row;
    row.algorithm = c.title;
    row.device = "cpu";
    row.variant = "planner, " + std::to_string(cpu_threads()) + " threads";
    try {
      R r = timed(
          o.runs, [&] { return c.run(Device::Cpu, false); }, row.ms);
      row.result = c.summary(r);
      row.check = "reference";
      ref = std::move(r);
    } catch (const std::exception& e) {
      row.error = e.what();
      row.failed = true;
    }
    rows.push_back(row);
    std::fflush(stdout);
  }
  if (!o.cuda) return;
  Row row;
  row.algorithm = c.title;
  row.device = "cuda";
  row.variant = "planner";
  std::optional<R> r, base;
  try {
    r = timed(
        o.runs, [&] { return c.run(Device::Cuda, false); }, row.ms);
    row.result = c.summary(*r);
    if (c.plan) row.variant += ": " + c.plan();
  } catch (const std::exception& e) {
    row.error = e.what();
    row.failed = true;
  }
  if (r && c.probe) {
    try {
      const std::string why = c.probe();
      if (why.empty()) {
        base = timed(
            o.runs, [&] { return c.run(Device::Cuda, true); }, row.base_ms);
        row.baseline = fmt("%.2f", row.base_ms);
      } else {
        row.baseline = "no equiv.";
        row.note = "no cuSPARSE equivalent: " + why;
      }
    } catch (const std::exception& e) {
      row.baseline = "error";
      row.note = std::string("the cuSPARSE variant failed: ") + e.what();
      row.failed = true;
    }
  }
  if (r && o.check) {
    try {
      if (!ref) {
        const Clock::time_point t0 = Clock::now();
        ref = c.run(Device::Cpu, false);
        row.cpu_ref_ms = ms_since(t0);
      }
      Check k = c.compare(*r, *ref);
      if (base) {
        const Check kb = c.compare(*base, *ref);
        if (!kb.ok) k = {false, "cuSPARSE: " + kb.text};
      }
      row.check = k.text;
      row.failed = row.failed || !k.ok;
    } catch (const std::exception& e) {
      row.check = "no CPU reference";
      row.error = std::string("CPU reference: ") + e.what();
      row.failed = true;
    }
  }
  rows.push_back(row);
}

// ---- planner questions --------------------------------------------------------------------

// "" when the plan runs the forced cuSPARSE kernel, else why not (the planner's reason).
std::string refused(const Plan& p) {
  const bool ok = p.forced && (p.op == OpKind::Mxm ? p.mxm == MxmKernel::Cusparse
                                                   : p.mxv == MxvKernel::Cusparse);
  if (ok) return {};
  // The planner's reason reads "forced kernel X cannot run here (why); fell back to ...".
  const std::string why = p.reason.substr(0, p.reason.find("; fell back"));
  return to_string(p.op) + std::string(": ") + why;
}

Descriptor cuda_desc(MxvKernel mv = MxvKernel::Auto, MxmKernel mm = MxmKernel::Auto) {
  Descriptor d;
  d.device = Device::Cuda;
  d.mxv_kernel = mv;
  d.mxm_kernel = mm;
  return d;
}

// hits: a = A^T h (vxm) and h = A a (mxv), plus_times<float>, Accum::plus into zeros.
std::string hits_probe(const G& A, MxvKernel k, bool names) {
  using S = semiring::plus_times<float>;
  const Plan v = plan_for_vxm<S>(A, Mask{}, Accum::plus(), cuda_desc(k));
  const Plan m = plan_for_mxv<S>(A, Mask{}, Accum::plus(), cuda_desc(k));
  if (names) return "vxm " + v.kernel_name() + ", mxv " + m.kernel_name();
  const std::string a = refused(v);
  return a.empty() ? refused(m) : a;
}

// katz: x' = A^T x (vxm), plus_times<float>, Accum::plus into zeros.
std::string katz_probe(const G& A, MxvKernel k, bool names) {
  const Plan v = plan_for_vxm<semiring::plus_times<float>>(A, Mask{}, Accum::plus(), cuda_desc(k));
  return names ? "vxm " + v.kernel_name() : refused(v);
}

// The batch betweenness_centrality picks (betweenness.hpp) for `sources` sources.
std::int64_t bc_batch(const Options& o, std::int64_t n) {
  const std::int64_t b =
      o.bc_batch > 0 ? o.bc_batch
                     : std::min<std::int64_t>(
                           64, std::max<std::int64_t>(1, (std::int64_t{1} << 28) / (48 * n)));
  return std::min(b, o.bc_sources);
}

// betweenness: T = A^T F (transpose_a) and T = A W, plus_times<double>, n x batch, no accum.
std::string bc_probe(const G& A, std::int64_t batch, MxmKernel k, bool names) {
  using S = semiring::plus_times<double>;
  Descriptor pull = cuda_desc(MxvKernel::Auto, k);
  pull.transpose_a = true;
  const Plan f = plan_for_mxm<S>(A, batch, pull);
  const Plan b = plan_for_mxm<S>(A, batch, cuda_desc(MxvKernel::Auto, k));
  if (names)
    return "mxm " + f.kernel_name() + " / " + b.kernel_name() + " (N " + std::to_string(batch) +
           ")";
  const std::string a = refused(f);
  return a.empty() ? refused(b) : a;
}

// ---- inputs -------------------------------------------------------------------------------

// An upper bound on the spectral radius of the symmetric 0/1 matrix A (Collatz-Wielandt: for
// x > 0, rho(A) <= max_i (A x)_i / x_i) after `steps` steps of x <- (A + I) x from ones (the +I
// keeps x positive on every vertex), and the Rayleigh quotient, a lower bound.
std::pair<double, double> spectral_bounds(const G& A, int steps) {
  const std::int64_t n = A.rows();
  const I* rp = A.row_ptr().data();
  const I* ci = A.col_idx().data();
  std::vector<double> x(static_cast<std::size_t>(n), 1.0), y(x.size());
  auto multiply = [&] {
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0.0;
      for (I k = rp[i]; k < rp[i + 1]; ++k) s += x[static_cast<std::size_t>(ci[k])];
      y[static_cast<std::size_t>(i)] = s;
    }
  };
  for (int s = 0; s < steps; ++s) {
    multiply();
    double top = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) top = std::max(top, y[i] + x[i]);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = (y[i] + x[i]) / top;
  }
  multiply();
  double upper = 0.0, xy = 0.0, xx = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    upper = std::max(upper, y[i] / x[i]);
    xy += x[i] * y[i];
    xx += x[i] * x[i];
  }
  return {upper, xx > 0 ? xy / xx : 0.0};
}

// Every edge (u, v) at `count` vertices v sampled among those with an edge (all vertices when
// count is 0 or at least their number), keyed by v: one batch column per sampled vertex.
std::vector<std::pair<std::int64_t, std::int64_t>> jaccard_pairs(const G& A, std::int64_t count,
                                                                 std::uint64_t seed) {
  std::vector<std::int64_t> with_edges;
  for (std::int64_t v = 0; v < A.rows(); ++v) {
    if (A.row_length(static_cast<I>(v)) > 0) with_edges.push_back(v);
  }
  if (count > 0 && count < static_cast<std::int64_t>(with_edges.size())) {
    std::mt19937_64 gen(seed);
    for (std::int64_t i = 0; i < count; ++i) {
      std::uniform_int_distribution<std::int64_t> pick(
          i, static_cast<std::int64_t>(with_edges.size()) - 1);
      std::swap(with_edges[static_cast<std::size_t>(i)],
                with_edges[static_cast<std::size_t>(pick(gen))]);
    }
    with_edges.resize(static_cast<std::size_t>(count));
    std::sort(with_edges.begin(), with_edges.end());
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  const auto& rp = A.row_ptr();
  const auto& ci = A.col_idx();
  for (const std::int64_t v : with_edges) {
    for (I k = rp[static_cast<std::size_t>(v)]; k < rp[static_cast<std::size_t>(v) + 1]; ++k) {
      pairs.emplace_back(ci[static_cast<std::size_t>(k)], v);
    }
  }
  return pairs;
}

// Waits for the work queued on the device that produced v (a one-scalar reduce there).
template <class T>
void settle(const Vector<T>& v, Device d) {
  if (d != Device::Cuda) return;
  Descriptor desc;
  desc.device = Device::Cuda;
  (void)reduce(MonoidKind::Plus, v, desc);
}

// ---- output -------------------------------------------------------------------------------

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_number(double x) { return x < 0 || !std::isfinite(x) ? "null" : fmt("%.4f", x); }

// Pads to `w` columns counting UTF-8 code points (the table's dashes are one column wide).
std::string pad(const std::string& s, std::size_t w, bool right = false) {
  std::size_t cols = 0;
  for (const char ch : s) cols += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  const std::string fill(cols < w ? w - cols : 0, ' ');
  return right ? fill + s : s + fill;
}

void print_table(const std::vector<Row>& rows) {
  const std::size_t wv = [&] {
    std::size_t w = 7;
    for (const Row& r : rows) w = std::max(w, r.variant.size());
    return w;
  }();
  std::printf("%s %s %s %s %s %s %s %s\n", pad("algorithm", 20).c_str(), pad("device", 6).c_str(),
              pad("variant", wv).c_str(), pad("ms", 10, true).c_str(),
              pad("cuSPARSE ms", 11, true).c_str(), pad("ratio", 6, true).c_str(),
              pad("result", 34).c_str(), "check");
  for (const Row& r : rows) {
    const bool ratio = r.ms > 0 && r.base_ms > 0;
    std::printf("%s %s %s %s %s %s %s %s\n", pad(r.algorithm, 20).c_str(), pad(r.device, 6).c_str(),
                pad(r.variant, wv).c_str(),
                pad(r.ms >= 0 ? fmt("%.2f", r.ms) : "—", 10, true).c_str(),
                pad(r.device == "cpu" ? "—" : r.baseline, 11, true).c_str(),
                pad(ratio ? fmt("%.2f", r.base_ms / r.ms) : "—", 6, true).c_str(),
                pad(r.error.empty() ? r.result : "error", 34).c_str(), r.check.c_str());
  }
  for (const Row& r : rows) {
    if (!r.note.empty()) std::printf("  %s: %s\n", r.algorithm.c_str(), r.note.c_str());
    if (!r.error.empty()) {
      std::printf("  %s on %s failed: %s\n", r.algorithm.c_str(), r.device.c_str(),
                  r.error.c_str());
    }
    if (r.cpu_ref_ms >= 0) {
      std::printf("  %s: CPU reference for the check, one call: %.1f ms\n", r.algorithm.c_str(),
                  r.cpu_ref_ms);
    }
  }
}

// Written to FILE.tmp, then renamed: never a half-written FILE.
void write_json(const Options& o, const G& A, std::int64_t directed_nnz, double alpha,
                std::size_t jaccard_pairs, const std::vector<Row>& rows) {
  const std::string device_name = o.cuda ? device_caps().name : std::string("cpu only");
  const std::string tmp = o.json + ".tmp";
  bool written = false;
  {
    std::ofstream j(tmp);
    if (!j) throw Error("cannot write " + tmp);
    j << "{\"graph\": {\"generator\": \"rmat\", \"scale\": " << o.scale
      << ", \"edge_factor\": " << o.edge_factor << ", \"seed\": " << o.seed
      << ", \"n\": " << A.rows() << ", \"nnz\": " << A.nnz()
      << ", \"directed_nnz\": " << directed_nnz << "}, \"device\": " << json_string(device_name)
      << ", \"cpu_threads\": " << cpu_threads() << ", \"runs\": " << o.runs
      << ", \"iters\": " << o.iters << ", \"katz_alpha\": " << fmt("%.9g", alpha)
      << ", \"bc_sources\": " << o.bc_sources << ", \"jaccard_pairs\": " << jaccard_pairs
      << ", \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      j << (i ? ", " : "") << "{\"algorithm\": " << json_string(r.algorithm)
        << ", \"device\": " << json_string(r.device) << ", \"variant\": " << json_string(r.variant)
        << ", \"ms\": " << json_number(r.ms) << ", \"cusparse_ms\": " << json_number(r.base_ms)
        << ", \"ratio\": " << (r.ms > 0 && r.base_ms > 0 ? fmt("%.4f", r.base_ms / r.ms) : "null")
        << ", \"baseline\": " << json_string(r.note.empty() ? r.baseline : r.note)
        << ", \"result\": " << json_string(r.result) << ", \"check\": " << json_string(r.check)
        << ", \"cpu_reference_ms\": " << json_number(r.cpu_ref_ms)
        << ", \"error\": " << (r.error.empty() ? "null" : json_string(r.error)) << "}";
    }
    j << "]}\n";
    j.close();
    written = !j.fail();
  }
  if (!written || std::rename(tmp.c_str(), o.json.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("cannot write " + o.json);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.cuda && !cuda_available()) {
    std::fprintf(stderr, "spindle_bench_algorithms: --device %s needs a CUDA device (%s)\n",
                 o.cpu ? "both" : "cuda",
                 built_with_cuda() ? "none visible" : "built without CUDA");
    return 2;
  }
  try {
    auto wants = [&](const char* k) {
      return std::find(o.algorithms.begin(), o.algorithms.end(), k) != o.algorithms.end();
    };
    const Clock::time_point t0 = Clock::now();
    BuildOptions bo;
    bo.self_loops = SelfLoopPolicy::Drop;
    std::optional<G> directed;
    if (wants("scc")) {
      directed = build_graph<I, Pattern>(generate_rmat<I>(o.scale, o.edge_factor, o.seed), bo);
    }
    bo.symmetrize = true;
    const G A = build_graph<I, Pattern>(generate_rmat<I>(o.scale, o.edge_factor, o.seed), bo);
    const double build_s = ms_since(t0) / 1e3;
    const std::string device_name = o.cuda ? device_caps().name : std::string("cpu only");
    std::printf(
        "# spindle_bench_algorithms: R-MAT scale %d, edge factor %lld, seed %llu, self-loops "
        "dropped, symmetrized: n %lld, nnz %lld (%lld undirected edges), max degree %lld%s; "
        "generated and built in %.1f s\n",
        o.scale, static_cast<long long>(o.edge_factor), static_cast<unsigned long long>(o.seed),
        static_cast<long long>(A.rows()), static_cast<long long>(A.nnz()),
        static_cast<long long>(A.nnz() / 2), static_cast<long long>(A.stats().max_row),
        directed ? (", directed nnz " + std::to_string(directed->nnz())).c_str() : "", build_s);
    std::printf(
        "# device %s, CPU threads %d; ms = median of %d after a warm-up (graph uploads, "
        "transposes cached); ratio = cuSPARSE ms / Spindle ms\n",
        device_name.c_str(), cpu_threads(), o.runs);

    double alpha = o.katz_alpha;
    std::string alpha_note = "given";
    if (wants("katz") && alpha == 0.0) {
      const auto [upper, lower] = spectral_bounds(A, 20);
      alpha = upper > 0 ? 0.5 / upper : 0.1;
      alpha_note =
          fmt("0.5 / %.1f", upper) + fmt(" (lambda_max in [%.1f, ", lower) + fmt("%.1f])", upper);
    }
    if (wants("katz")) {
      std::printf("# katz: alpha %.6g = %s, beta 1, %d iterations\n", alpha, alpha_note.c_str(),
                  o.iters);
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
    if (wants("jaccard")) {
      pairs = jaccard_pairs(A, o.jaccard_vertices, o.seed);
      std::printf("# jaccard: %zu pairs (the edges of %lld sampled vertices)\n", pairs.size(),
                  static_cast<long long>(o.jaccard_vertices));
    }
    std::fflush(stdout);

    std::vector<Row> rows;
    const std::string k_str = std::to_string(o.ktruss_k);
    for (const std::string& key : o.algorithms) {
      if (key == "wcc" || key == "scc") {
        const bool strong = key == "scc";
        const G& g = strong ? *directed : A;
        Case<ComponentsResult> c;
        c.title = strong ? "scc (directed)" : "wcc";
        c.run = [&g, strong](Device d, bool) {
          ComponentsOptions co;
          co.device = d;
          return strong ? strongly_connected_components(g, co) : weakly_connected_components(g, co);
        };
        c.summary = [](const ComponentsResult& r) {
          return std::to_string(r.count) + " comps, " + std::to_string(r.rounds) + " rounds";
        };
        c.compare = [](const ComponentsResult& a, const ComponentsResult& b) {
          return exact(a.label, b.label, "labels");
        };
        bench(c, o, rows);
      } else if (key == "triangles" || key == "clustering") {
        const bool local = key == "clustering";
        Case<TriangleResult> c;
        c.title = local ? "triangles+clustering" : "triangles";
        c.run = [&A, local](Device d, bool) {
          TriangleOptions to;
          to.device = d;
          to.per_vertex = to.clustering = local;
          return triangles(A, to);
        };
        c.summary = [local](const TriangleResult& r) {
          std::string s = std::to_string(r.total) + " triangles";
          if (local && !r.clustering.empty()) {
            double sum = 0.0;
            for (const double x : r.clustering) sum += x;
            s += fmt(", mean cc %.4f", sum / double(r.clustering.size()));
          }
          return s;
        };
        c.compare = [](const TriangleResult& a, const TriangleResult& b) {
          if (a.total != b.total) return Check{false, "totals differ"};
          return both(exact(a.per_vertex, b.per_vertex, "counts"),
                      close(a.clustering, b.clustering, 1e-12, false));
        };
        bench(c, o, rows);
      } else if (key == "kcore") {
        Case<KCoreResult> c;
        c.title = "kcore";
        c.run = [&A](Device d, bool) {
          KCoreOptions ko;
          ko.device = d;
          return core_numbers(A, ko);
        };
        c.summary = [](const KCoreResult& r) {
          return "max core " + std::to_string(r.max_core) + ", " + std::to_string(r.steps) +
                 " steps";
        };
        c.compare = [](const KCoreResult& a, const KCoreResult& b) {
          return exact(a.core, b.core, "cores");
        };
        bench(c, o, rows);
      } else if (key == "ktruss") {
        Case<KTrussResult<I>> c;
        c.title = "ktruss k=" + k_str;
        c.run = [&A, &o](Device d, bool) {
          KTrussOptions ko;
          ko.device = d;
          return k_truss(A, o.ktruss_k, ko);
        };
        c.summary = [](const KTrussResult<I>& r) {
          return std::to_string(r.edges) + " edges, " + std::to_string(r.rounds) + " rounds";
        };
        c.compare = [](const KTrussResult<I>& a, const KTrussResult<I>& b) {
          if (a.edges != b.edges) return Check{false, "edge counts differ"};
          return both(exact(a.truss.row_ptr(), b.truss.row_ptr(), "rows"),
                      exact(a.truss.col_idx(), b.truss.col_idx(), "entries"));
        };
        bench(c, o, rows);
      } else if (key == "bc") {
        const std::int64_t batch = bc_batch(o, A.rows());
        Case<BetweennessResult> c;
        c.title = "bc k=" + std::to_string(o.bc_sources);
        c.run = [&A, &o](Device d, bool cusparse) {
          BetweennessOptions bo2;
          bo2.k = std::min<std::int64_t>(o.bc_sources, A.rows());
          bo2.seed = 1;
          bo2.directed = false;
          bo2.batch = o.bc_batch;
          bo2.device = d;
          bo2.mxm_kernel = cusparse ? MxmKernel::Cusparse : MxmKernel::Auto;
          return betweenness_centrality(A, bo2);
        };
        c.summary = [](const BetweennessResult& r) {
          double top = 0.0;
          for (const double x : r.centrality) top = std::max(top, x);
          return std::to_string(r.batches) + " batches, max " + fmt("%.3g", top);
        };
        c.compare = [](const BetweennessResult& a, const BetweennessResult& b) {
          return both(exact(a.sources, b.sources, "sources"),
                      close(a.centrality, b.centrality, 1e-9, true));
        };
        c.probe = [&A, batch] { return bc_probe(A, batch, MxmKernel::Cusparse, false); };
        c.plan = [&A, batch] { return bc_probe(A, batch, MxmKernel::Auto, true); };
        bench(c, o, rows);
      } else if (key == "hits") {
        Case<HitsResult<float>> c;
        c.title = "hits";
        c.run = [&A, &o](Device d, bool cusparse) {
          HitsOptions ho;
          ho.max_iter = o.iters;
          ho.tol = 0.0;
          ho.device = d;
          ho.mxv_kernel = cusparse ? MxvKernel::Cusparse : MxvKernel::Auto;
          HitsResult<float> r = hits<float>(A, ho);
          settle(r.hubs, d);
          return r;
        };
        c.summary = [](const HitsResult<float>& r) {
          return std::to_string(r.iterations) + " iters, resid " + fmt("%.2e", r.residual);
        };
        std::shared_ptr<HitsResult<double>> truth;  // made at the first check
        c.compare = [&A, &o, truth](const HitsResult<float>& a,
                                    const HitsResult<float>& b) mutable {
          if (!truth) {
            HitsOptions ho;
            ho.max_iter = o.iters;
            ho.tol = 0.0;
            ho.device = Device::Cpu;
            truth = std::make_shared<HitsResult<double>>(hits<double>(A, ho));
          }
          return both(close_to_truth(a.hubs, b.hubs, truth->hubs),
                      close_to_truth(a.authorities, b.authorities, truth->authorities));
        };
        c.probe = [&A] { return hits_probe(A, MxvKernel::Cusparse, false); };
        c.plan = [&A] { return hits_probe(A, MxvKernel::Auto, true); };
        bench(c, o, rows);
      } else if (key == "katz") {
        Case<KatzResult<float>> c;
        c.title = "katz";
        c.run = [&A, &o, alpha](Device d, bool cusparse) {
          KatzOptions ko;
          ko.alpha = alpha;
          ko.max_iter = o.iters;
          ko.tol = 0.0;
          ko.device = d;
          ko.mxv_kernel = cusparse ? MxvKernel::Cusparse : MxvKernel::Auto;
          KatzResult<float> r = katz_centrality<float>(A, ko);
          settle(r.centrality, d);
          return r;
        };
        c.summary = [](const KatzResult<float>& r) {
          return std::to_string(r.iterations) + " iters, resid " + fmt("%.2e", r.residual);
        };
        std::shared_ptr<KatzResult<double>> truth;  // made at the first check
        c.compare = [&A, &o, alpha, truth](const KatzResult<float>& a,
                                           const KatzResult<float>& b) mutable {
          if (!truth) {
            KatzOptions ko;
            ko.alpha = alpha;
            ko.max_iter = o.iters;
            ko.tol = 0.0;
            ko.device = Device::Cpu;
            truth = std::make_shared<KatzResult<double>>(katz_centrality<double>(A, ko));
          }
          return close_to_truth(a.centrality, b.centrality, truth->centrality);
        };
        c.probe = [&A] { return katz_probe(A, MxvKernel::Cusparse, false); };
        c.plan = [&A] { return katz_probe(A, MxvKernel::Auto, true); };
        bench(c, o, rows);
      } else if (key == "jaccard") {
        Case<std::vector<double>> c;
        c.title = "jaccard";
        c.run = [&A, &pairs](Device d, bool) {
          JaccardOptions jo;
          jo.device = d;
          return jaccard_coefficient(A, pairs, jo);
        };
        c.summary = [](const std::vector<double>& r) {
          double sum = 0.0;
          for (const double x : r) sum += x;
          return std::to_string(r.size()) + " pairs, mean " +
                 fmt("%.4f", r.empty() ? 0.0 : sum / double(r.size()));
        };
        c.compare = [](const std::vector<double>& a, const std::vector<double>& b) {
          return close(a, b, 1e-12, false);
        };
        bench(c, o, rows);
      }
      const Row& last = rows.back();
      std::fprintf(stderr, "# %s on %s done (%.1f ms)\n", last.algorithm.c_str(),
                   last.device.c_str(), last.ms);
    }

    print_table(rows);
    if (!o.json.empty())
      write_json(o, A, directed ? directed->nnz() : -1, alpha, pairs.size(), rows);
    const bool failed =
        std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.failed; });
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spindle_bench_algorithms: %s\n", e.what());
    return 1;
  }
}
