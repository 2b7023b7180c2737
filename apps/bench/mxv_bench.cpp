// SPDX-License-Identifier: Apache-2.0
// spindle_bench_mxv: CUDA mxv (plus_times) on generated R-MAT and uniform graphs, on other
// generated shapes named with --graphs (meshes, power laws, bipartite: generate_named's names),
// and on the real graphs of the data folder. For each graph: every kernel over its launch-parameter
// sweep, the planner's pick, the tuned pick, and cuSPARSE SpMV (ALG_DEFAULT and CSR_ALG2) on the
// same data in the same process. Every output is checked against the CPU backend before it is timed
// (the output poisoned first); times are medians of --reps runs measured with CUDA events after
// warm-up; x is random (never zeros). Prints a table (ms, GB/s of compulsory bytes, ratios vs
// the best cuSPARSE algorithm) and writes everything with --json FILE. The summaries keep large
// graphs (at least 2^20 rows or 2^24 entries: memory traffic decides) apart from small,
// launch-bound ones.
//
//   spindle_bench_mxv [--rmat 18-23] [--uniform 18-23] [--graphs mesh22,plaw22-g2.1,bip22,...]
//                     [--edge-factor 16] [--data DIR | --no-data]
//                     [--reps 30] [--double] [--json FILE] [--plan-cache FILE] [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bench_args.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "engine/src/cuda/timing.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/cusparse/spmv.hpp"
#include "ops/cuda/mxv/carry_fixup_debug.hpp"
#include "ops/cuda/mxv/sliced_slots.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/cuda/tune.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"

namespace {

using namespace spindle;
using I = std::int32_t;
using spindle_bench::split_commas;

struct Options {
  int rmat_lo = 18, rmat_hi = 23, uni_lo = 18, uni_hi = 23;
  std::vector<std::string> named;  // --graphs: generate_named's names
  std::int64_t edge_factor = 16;
  std::string data_dir;
  bool no_data = false;
  int reps = 30;
  bool use_double = false;
  std::string json;
  std::string plan_cache;
  bool quick = false;
  bool extra = true;
  std::vector<double> colseg_shares;  // --colseg-shares: only column_segmented at these L2 shares
};

struct Config {
  std::string label;   // e.g. "merge_path/8"
  std::string kernel;  // kernel family for the table
  Plan plan;
};

struct Measured {
  std::string label, kernel;
  double ms = 0;
  bool ok = false;
  std::string error;
};

struct GraphResult {
  std::string name, family;
  GraphStats stats;
  double bytes = 0;
  std::vector<Measured> runs;
  Measured planner, tuned, cus_default, cus_alg2;
  std::string planner_reason, tuned_label;
  double fixup_ms = -1;  // nnz_split at its best chunk: time without the fix-up launch
  double nnz_split_best_ms = -1;
};

void usage(std::FILE* out = stderr) {
  std::fprintf(out,
               "usage: spindle bench mxv [--rmat LO-HI|none] [--uniform LO-HI|none] "
               "[--graphs NAME,...] [--edge-factor N] [--data DIR|--no-data] [--reps N] [--double] "
               "[--json FILE] "
               "[--plan-cache FILE] [--quick] [--no-extra] [--colseg-shares S,...]\n"
               "--colseg-shares 0.25,0.45: time only column_segmented, its ranges' slice of u\n"
               "each share of L2 (u's own value bytes), beside the planner's pick and cuSPARSE\n");
}

bool parse_range(const std::string& s, int& lo, int& hi) {
  if (s == "none") {
    lo = 1;
    hi = 0;
    return true;
  }
  const auto dash = s.find('-');
  try {
    lo = std::stoi(s.substr(0, dash));
    hi = dash == std::string::npos ? lo : std::stoi(s.substr(dash + 1));
  } catch (...) {
    return false;
  }
  return lo <= hi + 1;
}

Options parse(int argc, char** argv) {
  Options o;
  if (const char* d = std::getenv("SPINDLE_DATA_DIR")) o.data_dir = d;
#ifdef SPINDLE_BENCH_DATA_DIR
  if (o.data_dir.empty()) o.data_dir = SPINDLE_BENCH_DATA_DIR;
#endif
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--rmat") {
      if (!parse_range(next(), o.rmat_lo, o.rmat_hi)) std::exit((usage(), 2));
    } else if (a == "--uniform") {
      if (!parse_range(next(), o.uni_lo, o.uni_hi)) std::exit((usage(), 2));
    } else if (a == "--graphs") {
      for (std::string& g : split_commas(next())) o.named.push_back(std::move(g));
    } else if (a == "--edge-factor") {
      o.edge_factor = std::stoll(next());
    } else if (a == "--data") {
      o.data_dir = next();
    } else if (a == "--no-data") {
      o.no_data = true;
    } else if (a == "--reps") {
      o.reps = std::max(1, std::stoi(next()));
    } else if (a == "--double") {
      o.use_double = true;
    } else if (a == "--json") {
      o.json = next();
    } else if (a == "--plan-cache") {
      o.plan_cache = next();
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--no-extra") {
      o.extra = false;
    } else if (a == "--colseg-shares") {
      for (const std::string& part : split_commas(next())) {
        double share = 0;
        try {
          share = std::stod(part);
        } catch (...) {
          share = 0;
        }
        if (!(share > 0 && share <= 4)) {
          std::fprintf(stderr, "--colseg-shares: '%s' is not a share of L2 in (0, 4]\n",
                       part.c_str());
          std::exit(2);
        }
        o.colseg_shares.push_back(share);
      }
    } else if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      usage();
      std::exit(2);
    }
  }
  return o;
}

std::string label_of(const Plan& p) {
  std::string l = to_string(p.mxv);
  if (p.params.lanes_per_row) l += "/" + std::to_string(p.params.lanes_per_row);
  if (p.params.items_per_worker) l += "/" + std::to_string(p.params.items_per_worker);
  if (p.params.tile == 1) l += "+relabel";
  return l;
}

std::vector<Config> sweep(bool quick, const std::vector<double>& colseg_shares, int value_bytes) {
  std::vector<Config> c;
  auto add = [&](MxvKernel k, int lanes, std::int64_t items, int relabel = 0) {
    Config x;
    x.kernel = to_string(k);
    x.plan.op = OpKind::Mxv;
    x.plan.device = Device::Cuda;
    x.plan.mxv = k;
    x.plan.params.lanes_per_row = lanes;
    x.plan.params.items_per_worker = items;
    x.plan.params.tile = relabel;
    x.plan.forced = true;
    x.label = label_of(x.plan);
    c.push_back(x);
  };
  if (!colseg_shares.empty()) {
    for (const double share : colseg_shares) {
      add(MxvKernel::ColumnSegmented, 0,
          std::max<std::int64_t>(
              static_cast<std::int64_t>(share * static_cast<double>(device_caps().l2_bytes) /
                                        value_bytes),
              1));
    }
    return c;
  }
  add(MxvKernel::RowPerThread, 0, 0);
  for (int l : quick ? std::vector<int>{4, 16} : std::vector<int>{2, 4, 8, 16, 32}) {
    add(MxvKernel::SubwarpPerRow, l, 0);
  }
  for (std::int64_t ch : quick ? std::vector<std::int64_t>{1024}
                               : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096}) {
    add(MxvKernel::NnzSplitSegmented, 0, ch);
  }
  for (int k : quick ? std::vector<int>{8} : std::vector<int>{4, 6, 8, 10, 12, 16}) {
    add(MxvKernel::MergePath, 0, k);
  }
  for (std::int64_t e : {256, 512, 1024}) add(MxvKernel::RowBlock, 0, e);
  // Slot sizes of sliced_coo (a graph whose longest row exceeds one skips it: run_graph).
  for (std::int64_t e : detail::cuda::kSlicedSlots) add(MxvKernel::SlicedCoo, 0, e);
  // column_segmented at the planner's width (0: a share of L2) and at a quarter of L2 in fp32.
  add(MxvKernel::ColumnSegmented, 0, 0);
  add(MxvKernel::ColumnSegmented, 0, std::max<std::int64_t>(device_caps().l2_bytes / 16, 1));
  add(MxvKernel::ColumnSegmented, 0, 0, 1);
  // The same kernels over columns relabelled by in-degree (tile = 1, mxv_entry.cuh).
  for (int l : {8, 32}) add(MxvKernel::SubwarpPerRow, l, 0, 1);
  for (std::int64_t ch : {512, 1024, 2048}) add(MxvKernel::NnzSplitSegmented, 0, ch, 1);
  add(MxvKernel::MergePath, 0, 6, 1);
  for (std::int64_t e : {256, 512, 1024}) add(MxvKernel::RowBlock, 0, e, 1);
  return c;
}

// Random values in [0.5, 1.5) and a graph with them (structure from `g`).
template <class T, class V>
Graph<I, T> with_random_values(const Graph<I, V>& g, std::uint64_t seed) {
  std::vector<T> vals(static_cast<std::size_t>(g.nnz()));
  std::mt19937_64 rng(seed);
  for (auto& v : vals) v = static_cast<T>(0.5 + (rng() % 1024) / 1024.0);
  return Graph<I, T>(g.rows(), g.cols(), g.row_ptr(), g.col_idx(), std::move(vals));
}

template <class T>
bool close_enough(const Vector<T>& got, const Vector<T>& want, std::string& why) {
  if (got.size() != want.size()) {
    why = "size differs";
    return false;
  }
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
  // Raw host pointers (one download each), so checking a large graph takes milliseconds.
  const T* g = got.data();
  const T* w = want.data();
  const std::uint8_t* gp = got.bitmap_ptr();
  const std::uint8_t* wp = want.bitmap_ptr();
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const bool pg = gp == nullptr || gp[i] != 0, pw = wp == nullptr || wp[i] != 0;
    if (pg != pw) {
      why = "presence differs at " + std::to_string(i);
      return false;
    }
    if (!pw) continue;
    if (!(std::fabs(static_cast<double>(g[i]) - w[i]) <=
          tol * std::max(1.0, std::fabs(static_cast<double>(w[i]))))) {
      why = "value differs at " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs CPU " +
            std::to_string(w[i]);
      return false;
    }
  }
  return true;
}

template <class T>
GraphResult run_graph(const std::string& name, const std::string& family, const Graph<I, T>& A,
                      const Options& o) {
  using S = semiring::plus_times<T>;
  GraphResult r;
  r.name = name;
  r.family = family;
  r.stats = A.stats();
  const std::int64_t n = A.rows(), m = A.cols(), nnz = A.nnz();
  r.bytes = static_cast<double>(n + 1 + nnz) * sizeof(I) + static_cast<double>(nnz) * sizeof(T) +
            static_cast<double>(m + n) * sizeof(T);
  Vector<T> x(m);
  std::mt19937_64 rng(1234);
  for (std::int64_t j = 0; j < m; ++j) x[j] = static_cast<T>(0.25 + (rng() % 4096) / 4096.0);
  Vector<T> ref;
  mxv(ref, Mask{}, Accum::none(), S{}, A, x, Descriptor().on(Device::Cpu));
  ref.sync_to_host();

  // `on` is the graph the call runs on: A, or for sliced_coo's sweep a copy of it (below).
  const detail::MxvInfo plain_info =
      detail::plain_mxv_info(S::kind, value_kind_of<T>(), value_kind_of<T>(), index_kind_of<I>());
  auto measure_on = [&](const Graph<I, T>& on, const std::string& label, const std::string& kernel,
                        const Plan& sweep_plan) {
    Measured me;
    me.label = label;
    me.kernel = kernel;
    // A sweep point names a kernel and its knobs; the planner completes it (form, block size,
    // slot) exactly as for a forced kernel, and the backend runs what it says.
    Plan p = sweep_plan;
    if (std::string why = detail::finalize_mxv_cuda(p, on.stats(), plain_info, device_caps());
        !why.empty()) {
      me.error = "the planner refuses it: " + why;
      return me;
    }
    try {
      Vector<T> y(n, T(-777));
      {
        debug::poison_device_outputs(true);
        detail::cuda::mxv<S>(p, y, Mask{}, Accum::none(), on, x, false, false);
        debug::poison_device_outputs(false);
      }
      if (!close_enough(y, ref, me.error)) return me;
      const auto ms = detail::cuda::time_runs(
          [&] { detail::cuda::mxv<S>(p, y, Mask{}, Accum::none(), on, x, false, false); }, 3,
          o.reps);
      me.ms = detail::cuda::median(ms);
      me.ok = true;
    } catch (const std::exception& e) {
      debug::poison_device_outputs(false);
      me.error = e.what();
    }
    return me;
  };
  auto measure = [&](const std::string& label, const std::string& kernel, const Plan& p) {
    return measure_on(A, label, kernel, p);
  };

  for (const Config& c : sweep(o.quick, o.colseg_shares, static_cast<int>(sizeof(T)))) {
    // sliced_coo with a slot shorter than the longest row would time its row_block fallback.
    const std::int64_t smallest = detail::cuda::sliced_slot_for(r.stats.max_row);
    if (c.plan.mxv == MxvKernel::SlicedCoo &&
        (smallest == 0 || c.plan.params.items_per_worker < smallest)) {
      continue;
    }
    if (c.plan.mxv == MxvKernel::SlicedCoo || c.plan.mxv == MxvKernel::ColumnSegmented) {
      // Every slot size (range width) builds its own layout, cached on the graph it ran on for
      // the graph's lifetime (uniform 23: 1.6-3.2 GB each). Run each on a copy of A that takes
      // its layout (and device copy) away with it, so the sweep holds one layout at a time.
      const Graph<I, T> copy(A.rows(), A.cols(), A.row_ptr(), A.col_idx(), A.values());
      r.runs.push_back(measure_on(copy, c.label, c.kernel, c.plan));
      continue;
    }
    r.runs.push_back(measure(c.label, c.kernel, c.plan));
  }

  // The deterministic carry fix-up's cost: nnz_split at its best chunk without the fix-up launch.
  {
    const Measured* best = nullptr;
    Plan bp;
    for (const Config& c : sweep(o.quick, o.colseg_shares, static_cast<int>(sizeof(T)))) {
      for (const Measured& me : r.runs) {
        if (me.label == c.label && me.ok && c.plan.mxv == MxvKernel::NnzSplitSegmented &&
            (!best || me.ms < best->ms)) {
          best = &me;
          bp = c.plan;
        }
      }
    }
    if (best) {
      r.nnz_split_best_ms = best->ms;
      (void)detail::finalize_mxv_cuda(bp, A.stats(), plain_info, device_caps());  // ran above
      Vector<T> y(n, T(0));
      detail::cuda::debug_skip_carry_fixup(true);
      const auto ms = detail::cuda::time_runs(
          [&] { detail::cuda::mxv<S>(bp, y, Mask{}, Accum::none(), A, x, false, false); }, 3,
          o.reps);
      detail::cuda::debug_skip_carry_fixup(false);
      r.fixup_ms = best->ms - detail::cuda::median(ms);
    }
  }

  // The planner's pick for this call, exactly as mxv() would plan it.
  {
    detail::MxvInfo info;
    info.value = value_kind_of<T>();
    info.matrix_value = value_kind_of<T>();
    const Plan p = detail::plan_mxv_cuda(r.stats, info, device_caps(), Descriptor{});
    r.planner_reason = p.reason;
    const std::string label = label_of(p);
    Plan forced = p;
    forced.forced = true;
    r.planner = measure(label, to_string(p.mxv), forced);
  }
  // Tuning mode's pick (times the candidates once, caches the winner), re-timed here.
  {
    TuneOptions topt;
    topt.plan_cache = o.plan_cache;
    const TuneResult t = tune_mxv<S>(A, topt);
    const std::string label = label_of(t.best);
    r.tuned_label = label + (t.from_cache ? " (cached)" : "");
    Plan forced = t.best;
    forced.forced = true;
    r.tuned = measure(label, to_string(t.best.mxv), forced);
  }
  // cuSPARSE on the same device arrays.
  {
    const auto d = detail::cuda::device_csr<T>(A);
    const auto xin = detail::cuda::device_in(x);
    detail::cuda::DeviceBuffer yb(static_cast<std::size_t>(n) * sizeof(T), "bench y");
    auto& ctx = detail::cuda::context();
    for (auto alg : {detail::cuda::CusparseAlg::Default, detail::cuda::CusparseAlg::CsrAlg2}) {
      Measured me;
      me.label = detail::cuda::to_string(alg);
      me.kernel = me.label;
      try {
        detail::cuda::CusparseSpmv<T, I> sp(d, xin.values, yb.as<T>(), alg);
        SPINDLE_CUDA_CHECK(cudaMemsetAsync(yb.get(), 0xFF, yb.bytes(), ctx.stream));
        sp.run();
        std::vector<T> host(static_cast<std::size_t>(n));
        SPINDLE_CUDA_CHECK(
            cudaMemcpyAsync(host.data(), yb.get(), yb.bytes(), cudaMemcpyDeviceToHost, ctx.stream));
        ctx.synchronize();
        // cuSPARSE writes 0 for empty rows, which Spindle leaves absent.
        Vector<T> y(std::move(host));
        for (std::int64_t i = 0; i < n; ++i) {
          if (A.row_length(static_cast<I>(i)) == 0) y.remove(i);
        }
        if (close_enough(y, ref, me.error)) {
          me.ms = detail::cuda::median(detail::cuda::time_runs([&] { sp.run(); }, 3, o.reps));
          me.ok = true;
        }
      } catch (const std::exception& e) {
        me.error = e.what();
      }
      (alg == detail::cuda::CusparseAlg::Default ? r.cus_default : r.cus_alg2) = me;
    }
  }
  return r;
}

double best_cusparse(const GraphResult& r) {
  double b = 0;
  for (const Measured* m : {&r.cus_default, &r.cus_alg2}) {
    if (m->ok && (b == 0 || m->ms < b)) b = m->ms;
  }
  return b;
}

const Measured* best_of_kernel(const GraphResult& r, const std::string& kernel) {
  const Measured* b = nullptr;
  for (const Measured& m : r.runs) {
    if (m.kernel == kernel && m.ok && (!b || m.ms < b->ms)) b = &m;
  }
  return b;
}

const Measured* best_ours(const GraphResult& r) {
  const Measured* b = nullptr;
  for (const Measured& m : r.runs) {
    if (m.ok && (!b || m.ms < b->ms)) b = &m;
  }
  return b;
}

std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o + "\"";
}

std::string jmeasured(const Measured& m, double bytes) {
  std::ostringstream s;
  s << "{\"label\":" << jstr(m.label) << ",\"kernel\":" << jstr(m.kernel)
    << ",\"ok\":" << (m.ok ? "true" : "false") << ",\"ms\":" << m.ms
    << ",\"gbps\":" << (m.ok && m.ms > 0 ? bytes / (m.ms * 1e6) : 0.0)
    << ",\"error\":" << jstr(m.error) << "}";
  return s.str();
}

void write_json(const std::vector<GraphResult>& all, const Options& o);

void print_and_write(const std::vector<GraphResult>& all, const Options& o) {
  const DeviceCaps& caps = device_caps();
  std::printf(
      "\nspindle_bench_mxv on %s (%d SMs, L2 %lld MB), %s plus_times, int32, "
      "median of %d runs\n",
      caps.name.c_str(), caps.sm_count, static_cast<long long>(caps.l2_bytes >> 20),
      o.use_double ? "fp64" : "fp32", o.reps);
  std::printf(
      "%-22s %9s %10s %6s %7s | %8s %8s %8s %8s %8s %8s %8s | %8s %8s | %-26s %8s %6s | %-22s %6s "
      "| %6s %6s\n",
      "graph", "n", "nnz", "avg", "sd/avg", "row/thr", "subwarp", "nnzsplit", "merge", "rowblock",
      "sliced", "colseg", "cus_def", "cus_alg2", "planner pick", "ms", "x cus", "tuned pick",
      "x cus", "GB/s", "fixup");
  for (const GraphResult& r : all) {
    const double cus = best_cusparse(r);
    auto ms_of = [&](const std::string& k) {
      const Measured* m = best_of_kernel(r, k);
      return m ? m->ms : 0.0;
    };
    const double pr = r.planner.ok && cus > 0 ? cus / r.planner.ms : 0;
    const double tr = r.tuned.ok && cus > 0 ? cus / r.tuned.ms : 0;
    const Measured* bo = best_ours(r);
    std::printf(
        "%-22s %9lld %10lld %6.1f %7.2f | %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f | %8.4f %8.4f "
        "| "
        "%-26s "
        "%8.4f %6.2f | %-22s %6.2f | %6.0f %6.4f\n",
        r.name.c_str(), static_cast<long long>(r.stats.rows), static_cast<long long>(r.stats.nnz),
        r.stats.avg_row, r.stats.imbalance(), ms_of("row_per_thread"), ms_of("subwarp_per_row"),
        ms_of("nnz_split_segmented"), ms_of("merge_path"), ms_of("row_block"), ms_of("sliced_coo"),
        ms_of("column_segmented"), r.cus_default.ok ? r.cus_default.ms : 0.0,
        r.cus_alg2.ok ? r.cus_alg2.ms : 0.0, r.planner.label.c_str(), r.planner.ms, pr,
        r.tuned_label.c_str(), tr,
        r.planner.ok && r.planner.ms > 0 ? r.bytes / (r.planner.ms * 1e6) : 0.0, r.fixup_ms);
    (void)bo;
    for (const Measured& m : r.runs) {
      if (!m.ok)
        std::printf("  FAILED %s on %s: %s\n", m.label.c_str(), r.name.c_str(), m.error.c_str());
    }
    for (const Measured* m : {&r.cus_default, &r.cus_alg2, &r.planner, &r.tuned}) {
      if (!m->ok)
        std::printf("  FAILED %s on %s: %s\n", m->label.c_str(), r.name.c_str(), m->error.c_str());
    }
  }
  // Summaries: the suite of the bars (edge factor 16 + real graphs), every graph, then the large
  // graphs (memory-bound) and the small ones (launch-bound) apart.
  auto large = [](const GraphResult& r) {
    return r.stats.rows >= (std::int64_t{1} << 20) || r.stats.nnz >= (std::int64_t{1} << 24);
  };
  const char* const pass_names[] = {"suite (edge factor 16 + real graphs)", "all graphs",
                                    "large graphs (>= 2^20 rows or 2^24 entries)",
                                    "small graphs (launch-bound)"};
  for (int pass = 0; pass < 4; ++pass) {
    double log_sum = 0, log_sum_tuned = 0, log_best = 0, min_ratio = 1e30, loss_sum = 0,
           loss_max = 0;
    int counted = 0;
    for (const GraphResult& r : all) {
      if (pass == 0 && r.family.find("-ef") != std::string::npos) continue;
      if (pass == 2 && !large(r)) continue;
      if (pass == 3 && large(r)) continue;
      const double cus = best_cusparse(r);
      const Measured* bo = best_ours(r);
      if (!(cus > 0 && r.planner.ok && r.tuned.ok && bo)) continue;
      log_sum += std::log(cus / r.planner.ms);
      log_sum_tuned += std::log(cus / r.tuned.ms);
      log_best += std::log(cus / bo->ms);
      min_ratio = std::min(min_ratio, cus / r.planner.ms);
      loss_sum += r.planner.ms / bo->ms - 1.0;
      loss_max = std::max(loss_max, r.planner.ms / bo->ms);
      ++counted;
    }
    if (counted == 0) continue;
    std::printf(
        "\n%s (%d graphs): planner pick vs best cuSPARSE geomean %.3fx, min %.3fx; tuned "
        "pick %.3fx; best of ours %.3fx\n",
        pass_names[pass], counted, std::exp(log_sum / counted), min_ratio,
        std::exp(log_sum_tuned / counted), std::exp(log_best / counted));
    std::printf("  planner pick vs best of our kernels: %.1f%% slower on average, worst %.3fx\n",
                100.0 * loss_sum / counted, loss_max);
  }
  write_json(all, o);
}

void write_json(const std::vector<GraphResult>& all, const Options& o) {
  if (o.json.empty()) return;
  const DeviceCaps& caps = device_caps();
  std::ofstream out(o.json);
  out << "{\"device\":" << jstr(caps.name)
      << ",\"value_type\":" << jstr(o.use_double ? "double" : "float") << ",\"reps\":" << o.reps
      << ",\"graphs\":[";
  for (std::size_t g = 0; g < all.size(); ++g) {
    const GraphResult& r = all[g];
    out << (g ? "," : "") << "{\"name\":" << jstr(r.name) << ",\"family\":" << jstr(r.family)
        << ",\"rows\":" << r.stats.rows << ",\"nnz\":" << r.stats.nnz
        << ",\"avg_row\":" << r.stats.avg_row << ",\"stdv_row\":" << r.stats.stdv_row
        << ",\"max_row\":" << r.stats.max_row << ",\"empty_rows\":" << r.stats.empty_rows
        << ",\"compulsory_bytes\":" << r.bytes << ",\"planner_reason\":" << jstr(r.planner_reason)
        << ",\"planner\":" << jmeasured(r.planner, r.bytes)
        << ",\"tuned\":" << jmeasured(r.tuned, r.bytes)
        << ",\"cusparse_default\":" << jmeasured(r.cus_default, r.bytes)
        << ",\"cusparse_csr_alg2\":" << jmeasured(r.cus_alg2, r.bytes)
        << ",\"nnz_split_best_ms\":" << r.nnz_split_best_ms << ",\"carry_fixup_ms\":" << r.fixup_ms

        << ",\"runs\":[";
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      out << (i ? "," : "") << jmeasured(r.runs[i], r.bytes);
    }
    out << "]}";
  }
  out << "]}\n";
}

template <class T>
int run(const Options& o) {
  std::vector<GraphResult> all;
  auto t0 = std::chrono::steady_clock::now();
  auto stamp = [&](const std::string& what) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "[%7.1fs] %s\n", s, what.c_str());
  };
  auto generated = [&](const char* fam, int scale) {
    Coo<I> coo = std::string(fam) == "rmat" ? generate_rmat<I>(scale, o.edge_factor, 42)
                                            : generate_uniform<I>(scale, o.edge_factor, 42);
    BuildOptions b;
    b.duplicates = DuplicatePolicy::Collapse;
    const auto P = build_graph<I, Pattern>(std::move(coo), b);
    const auto A = with_random_values<T>(P, 7 + scale);
    const std::string name = std::string(fam) + "-" + std::to_string(scale);
    stamp("built " + name + " (" + std::to_string(A.nnz()) + " entries)");
    all.push_back(run_graph<T>(name, fam, A, o));
    write_json(all, o);  // kept current, so a run stopped early still leaves its numbers
    stamp("measured " + name + ": planner " + all.back().planner.label + " " +
          std::to_string(all.back().planner.ms) + " ms, cusparse " +
          std::to_string(best_cusparse(all.back())) + " ms");
  };
  for (int s = o.rmat_lo; s <= o.rmat_hi; ++s) generated("rmat", s);
  for (int s = o.uni_lo; s <= o.uni_hi; ++s) generated("uniform", s);
  for (const std::string& name : o.named) {
    BuildOptions b;
    b.duplicates = DuplicatePolicy::Collapse;
    const auto P = build_graph<I, Pattern>(generate_named<I>(name, o.edge_factor, 42), b);
    const auto A = with_random_values<T>(P, 11);
    stamp("built " + name + " (" + std::to_string(A.nnz()) + " entries)");
    // The family is the name without its scale: plaw22-g2.1 -> plaw-g2.1.
    const std::size_t digits = name.find_first_of("0123456789");
    const std::size_t after = name.find_first_not_of("0123456789", digits);
    const std::string family =
        name.substr(0, digits) + (after == std::string::npos ? "" : name.substr(after));
    all.push_back(run_graph<T>(name, family, A, o));
    write_json(all, o);
    stamp("measured " + name + ": planner " + all.back().planner.label + " " +
          std::to_string(all.back().planner.ms) + " ms, cusparse " +
          std::to_string(best_cusparse(all.back())) + " ms");
  }
  if (o.extra) {
    // Shapes outside the edge-factor-16 suite, for the planner's thresholds: row-dominated
    // graphs (edge factor 2: ~2 entries per row, many empty rows) and long even rows (64).
    Options e = o;
    e.edge_factor = 2;
    auto gen = [&](const char* fam, int scale, const Options& oo, const std::string& suffix) {
      Coo<I> coo = std::string(fam) == "rmat" ? generate_rmat<I>(scale, oo.edge_factor, 42)
                                              : generate_uniform<I>(scale, oo.edge_factor, 42);
      BuildOptions b;
      b.duplicates = DuplicatePolicy::Collapse;
      const auto A = with_random_values<T>(build_graph<I, Pattern>(std::move(coo), b), 5);
      const std::string name = std::string(fam) + "-" + std::to_string(scale) + suffix;
      all.push_back(run_graph<T>(name, std::string(fam) + suffix, A, o));
      write_json(all, o);
      stamp("measured " + name);
    };
    gen("rmat", 22, e, "-ef2");
    gen("uniform", 22, e, "-ef2");
    e.edge_factor = 64;
    gen("uniform", 19, e, "-ef64");
  }
  if (!o.no_data && !o.data_dir.empty()) {
    const char* const files[] = {"1138_bus.mtx",          "bcsstk13.mtx",   "cryg2500.mtx",
                                 "jagmesh7.mtx",          "as20graph.txt",  "email-Eu-core.csv",
                                 "C-elegans-frontal.txt", "chesapeake.mtx", "lp_afiro.mtx"};
    int found = 0;
    for (const char* f : files) {
      const std::string path = o.data_dir + "/graphs/" + f;
      if (!std::filesystem::exists(path)) continue;
      ++found;
      try {
        const auto L = load_graph<I, Pattern>(path);
        const auto A = with_random_values<T>(L.graph, 99);
        // These fit in L2: their times measure launch latency more than memory bandwidth.
        all.push_back(run_graph<T>(std::string(f) + " (L2)", "real", A, o));
        write_json(all, o);
        stamp(std::string("measured ") + f);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "skipping %s: %s\n", f, e.what());
      }
    }
    if (found == 0) {
      // A suite without its real graphs has another geomean: say so rather than print it quietly.
      std::fprintf(stderr,
                   "warning: none of the real graphs is under %s/graphs/ (--data takes the folder "
                   "that holds graphs/); the suite below is the generated graphs only\n",
                   o.data_dir.c_str());
    }
  }
  print_and_write(all, o);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    if (!cuda_available()) {
      std::fprintf(stderr, "spindle bench mxv: no CUDA device is visible\n");
      return 1;
    }
    return o.use_double ? run<double>(o) : run<float>(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spindle_bench_mxv: %s\n", e.what());
    return 1;
  }
}
