// SPDX-License-Identifier: Apache-2.0
// spindle_bench_gcn: 2-layer GCN inference (Kipf & Welling, Â = D^-1/2 (A + I) D^-1/2 computed
// once) through the algorithms' own code path (gcn_inference_normalized, Device::Cuda: cuBLAS
// GEMMs, Spindle SpMM with the bias/ReLU epilogue fused), timed end to end with CUDA events
// (median of --reps calls after warm-up, inputs resident on the device, workspace reused), then
// checked against the CPU backend. With --export DIR it writes the graph (raw int32 CSR), the
// features, weights, biases and Spindle's output for apps/bench/pyg_gcn_reference.py.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "apps/bench/mxm_bench.cuh"
#include "ops/cuda/gemm/split_tf32.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "spindle/algorithms/gcn.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/npy.hpp"
#include "spindle/ops/gemm.hpp"
#include "spindle/ops/mxm.hpp"

using namespace spindle;
using namespace spindle::bench;

namespace {

/// Sets an environment variable for a scope and restores the caller's value (or its absence)
/// on exit, so the benchmark's variants never drop a setting the user ran it with.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

const char* kUsage =
    "usage: spindle bench gcn [--graph rmat22|uniform22|FILE] [--features 128] [--layers 128,32] "
    "[--reps 20] [--warmup 3] [--export DIR] [--no-cpu-check] [--json FILE]";

template <class I>
void write_raw(const std::string& path, const std::vector<I>& v) {
  std::ofstream f(path, std::ios::binary);
  std::vector<std::int32_t> w(v.begin(), v.end());
  f.write(reinterpret_cast<const char*>(w.data()),
          static_cast<std::streamsize>(w.size() * sizeof(std::int32_t)));
  if (!f) throw Error("cannot write " + path);
}

/// ||got - ref|| / ||ref|| (the plain norm of got - ref when ref is all zeros).
double rel_l2(const float* got, const float* ref, std::int64_t n) {
  double e = 0, r = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const double d = static_cast<double>(got[k]) - ref[k];
    e += d * d;
    r += static_cast<double>(ref[k]) * ref[k];
  }
  return r > 0 ? std::sqrt(e / r) : std::sqrt(e);
}

/// The process's resident set in MB (/proc/self/statm; -1 where it cannot be read).
double resident_mb() {
  std::ifstream f("/proc/self/statm");
  long long pages = 0, resident = 0;
  if (!(f >> pages >> resident)) return -1;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string graph = "rmat22", export_dir, json;
  std::int64_t features = 128;
  std::vector<std::int64_t> layers = {128, 32};
  int reps = 20, warmup = 3;
  bool cpu_check = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidArgument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--graph") {
      graph = value();
    } else if (a == "--features") {
      features = std::stoll(value());
    } else if (a == "--layers") {
      layers.clear();
      for (const auto& w : split(value())) layers.push_back(std::stoll(w));
    } else if (a == "--reps") {
      reps = std::max(1, std::stoi(value()));
    } else if (a == "--warmup") {
      warmup = std::max(0, std::stoi(value()));
    } else if (a == "--export") {
      export_dir = value();
    } else if (a == "--no-cpu-check") {
      cpu_check = false;
    } else if (a == "--json") {
      json = value();
    } else {
      const bool help = a == "--help" || a == "-h";
      if (!help) std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      std::fprintf(help ? stdout : stderr, "%s\n", kUsage);
      return help ? 0 : 2;
    }
  }
  if (!cuda_available()) {
    std::fprintf(stderr, "spindle bench gcn: no CUDA device is visible\n");
    return 1;
  }
  const std::string dev = device_name();
  const NamedGraph ng = make_graph(graph);
  const Graph<std::int32_t, Pattern> A = ng.g.with_values<Pattern>();
  std::printf("# spindle_bench_gcn on %s: %s, n = %lld, nnz = %lld, widths %lld", dev.c_str(),
              ng.name.c_str(), static_cast<long long>(A.rows()), static_cast<long long>(A.nnz()),
              static_cast<long long>(features));
  for (auto w : layers) std::printf("-%lld", static_cast<long long>(w));
  std::printf(", fp32\n");

  GcnOptions gpu;
  gpu.device = Device::Cuda;
  auto& ctx = detail::cuda::context();
  const cudaStream_t s = ctx.stream;

  auto t0 = std::chrono::steady_clock::now();
  const Graph<std::int32_t, float> A_hat = gcn_normalize<float>(A, gpu);
  const double norm_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const GcnModel<float> model = glorot_model<float>(features, layers, 1);
  const DenseMatrix<float> X = random_features<float>(A.rows(), features, 2);

  // The first call with a fresh workspace (host wall clock, synchronized): device buffers are
  // allocated and X is uploaded, but the workspace's matrices make no host array (DenseMatrix
  // defers it until the host reads one). Then what making those arrays costs on the host, which
  // every first call paid before (they were allocated and zero-filled at construction): the same
  // shapes, made and filled, timed, with the resident set before and after.
  double first_ms = 0, first_rss_mb = 0, made_ms = 0, made_mb = 0, made_rss_mb = 0;
  {
    GcnWorkspace<float> fresh;
    const double rss0 = resident_mb();
    auto f0 = std::chrono::steady_clock::now();
    gcn_inference_normalized(A_hat, X, model, fresh, gpu);
    ctx.synchronize();
    first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
    const double rss1 = resident_mb();
    first_rss_mb = rss1 - rss0;
    std::vector<DenseMatrix<float>> made;
    f0 = std::chrono::steady_clock::now();
    for (const auto* mats : {&fresh.tmp, &fresh.out}) {
      for (const DenseMatrix<float>& m : *mats) {
        if (m.size() == 0) continue;
        made.emplace_back(m.rows(), m.cols());
        (void)made.back().data();  // non-const: makes the array, zero-filled
        made_mb += static_cast<double>(m.size()) * sizeof(float) / 1e6;
      }
    }
    made_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
    made_rss_mb = resident_mb() - rss1;
    std::printf(
        "# RESULT gcn-first-call %s on %s: %.1f ms for a first inference with a fresh workspace "
        "(wall, synchronized; X uploaded); host resident set %+.0f MB. Making the workspace's %zu "
        "host arrays (%.0f MB) on the host, as every first call did before they were deferred: "
        "%.1f ms more, resident set %+.0f MB\n",
        ng.name.c_str(), dev.c_str(), first_ms, first_rss_mb, made.size(), made_mb, made_ms,
        made_rss_mb);
  }

  GcnWorkspace<float> ws;
  const Timing t =
      time_runs([&] { gcn_inference_normalized(A_hat, X, model, ws, gpu); }, s, warmup, reps);
  // Host wall time of one call including the final synchronization (launch overhead shows).
  t0 = std::chrono::steady_clock::now();
  gcn_inference_normalized(A_hat, X, model, ws, gpu);
  ctx.synchronize();
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const DenseMatrix<float>& out = ws.out.back();
  const float* gpu_out = out.data();  // const access: one download

  // Where the time goes: CUDA events recorded between the steps that gcn_inference_normalized
  // reports through GcnOptions::on_stage (the same calls as above), median per step over reps.
  std::vector<std::pair<std::string, double>> stages;
  {
    std::vector<cudaEvent_t> events;
    std::vector<std::string> labels;
    std::size_t step = 0;
    auto record = [&] {
      if (step == events.size()) {
        events.emplace_back();
        SPINDLE_CUDA_CHECK(cudaEventCreate(&events.back()));
      }
      SPINDLE_CUDA_CHECK(cudaEventRecord(events[step++], s));
    };
    GcnOptions staged = gpu;
    staged.on_stage = [&](const GcnStage& st) {
      record();
      if (step - 2 < labels.size()) return;  // step - 2: this step's index; labelled once
      std::string label = "layer " + std::to_string(st.layer + 1);
      if (st.kind == GcnStage::Kind::Transform && st.project) {
        label += " GEMM pair " + std::to_string(st.in_width) + "->" + std::to_string(st.out_width) +
                 " +bias+relu";
      } else if (st.kind == GcnStage::Kind::Transform) {
        label += " GEMM " + std::to_string(st.in_width) + "x" + std::to_string(st.out_width);
      } else if (st.kind == GcnStage::Kind::Aggregate) {
        label += " SpMM N=" + std::to_string(st.in_width);
      } else {
        label += " bias";
      }
      if (st.kind == GcnStage::Kind::Aggregate && st.bias) label += " +bias";
      if (st.kind != GcnStage::Kind::Transform && st.relu) label += "+relu";
      if (st.project && st.kind == GcnStage::Kind::Aggregate)
        label += " *W " + std::to_string(st.in_width) + "x" + std::to_string(st.out_width);
      labels.push_back(label);
    };
    std::vector<std::vector<float>> per_step;
    for (int r = 0; r < reps; ++r) {
      step = 0;
      record();
      gcn_inference_normalized(A_hat, X, model, ws, staged);
      SPINDLE_CUDA_CHECK(cudaEventSynchronize(events[step - 1]));
      per_step.resize(step - 1);
      for (std::size_t k = 0; k + 1 < step; ++k) {
        float ms = 0;
        SPINDLE_CUDA_CHECK(cudaEventElapsedTime(&ms, events[k], events[k + 1]));
        per_step[k].push_back(ms);
      }
    }
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    for (std::size_t k = 0; k < per_step.size(); ++k) {
      std::vector<float> v = per_step[k];
      std::sort(v.begin(), v.end());
      stages.emplace_back(labels[k], v[v.size() / 2]);
    }
  }
  double stage_sum = 0;
  for (const auto& st : stages) {
    std::printf("#   %-32s %8.3f ms\n", st.first.c_str(), st.second);
    stage_sum += st.second;
  }
  std::printf("#   %-32s %8.3f ms (the whole inference: %.3f ms)\n", "sum of the stages", stage_sum,
              t.median);

  // A variant of the inference, timed as above, and its output's difference from the default's.
  struct Variant {
    Timing t;
    double rel = 0;
  };
  auto variant = [&](const GcnOptions& opt) {
    GcnWorkspace<float> w;
    Variant v{
        time_runs([&] { gcn_inference_normalized(A_hat, X, model, w, opt); }, s, warmup, reps)};
    const DenseMatrix<float>& o = w.out.back();
    v.rel = rel_l2(o.data(), gpu_out, out.size());  // const access: one download
    return v;
  };

  // With the projected SpMM (GcnOptions::fuse): a hidden layer's SpMM applies the next layer's
  // dense product as it finishes each row. Reported with its difference from the unfused result.
  GcnOptions fused_opt = gpu;
  fused_opt.fuse = true;
  const Variant fused = variant(fused_opt);
  std::printf(
      "# RESULT gcn-fused %s on %s: %.3f ms per inference (fuse on; median of %d; min "
      "%.3f); rel L2 vs the unfused result %.3g\n",
      ng.name.c_str(), dev.c_str(), fused.t.median, reps, fused.t.min, fused.rel);

  // Without the GEMM pair (GcnOptions::fuse_dense): layer 1 transforms first, and its output is
  // written and read back by layer 2's GEMM.
  GcnOptions unpaired_opt = gpu;
  unpaired_opt.fuse_dense = false;
  const Variant unpaired = variant(unpaired_opt);
  std::printf(
      "# RESULT gcn-no-gemm-pair %s on %s: %.3f ms per inference (fuse_dense off; median of %d; "
      "min %.3f); rel L2 vs the default %.3g\n",
      ng.name.c_str(), dev.c_str(), unpaired.t.median, reps, unpaired.t.min, unpaired.rel);

  // The same with TF32 tensor-core GEMMs (SPINDLE_GEMM_TF32, ops/cuda/gemm): the SpMMs and the
  // epilogues are unchanged; reported with its difference from the FP32 result.
  Variant tf32;
  {
    const ScopedEnv on("SPINDLE_GEMM_TF32", "1");
    tf32 = variant(gpu);
  }

  // The same with cuBLAS's FP32 GEMMs instead of the split-TF32 kernel (SPINDLE_GEMM_SPLIT_TF32=0).
  Variant cublas;
  {
    const ScopedEnv off("SPINDLE_GEMM_SPLIT_TF32", "0");
    cublas = variant(gpu);
  }
  std::printf(
      "# RESULT gcn-cublas-gemm %s on %s: %.3f ms per inference (cublasSgemm for the dense "
      "products; median of %d; min %.3f); rel L2 vs the default %.3g\n",
      ng.name.c_str(), dev.c_str(), cublas.t.median, reps, cublas.t.min, cublas.rel);

  // Each layer's dense product on its own: the split-TF32 kernel, cublasSgemm and cuBLAS TF32 on
  // the same operands, and the split kernel's and cublasSgemm's largest error against a double
  // product on 2048 sampled rows (relative to that row's largest sum of |products|).
  std::vector<std::pair<std::string, double>> gemm_rows;
  {
    std::int64_t in = features;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const DenseMatrix<float>& W = model.weights[l];
      const DenseMatrix<float> H = random_features<float>(A.rows(), in, 7 + l);
      DenseMatrix<float> C(A.rows(), W.cols());
      auto timed = [&](const char* split, const char* tf32v) {
        const ScopedEnv sp("SPINDLE_GEMM_SPLIT_TF32", split);
        const ScopedEnv tf("SPINDLE_GEMM_TF32", tf32v);
        return time_runs([&] { gemm(C, H, W, Device::Cuda); }, s, warmup, reps);
      };
      auto sampled_err = [&](const char* split) {
        {
          const ScopedEnv sp("SPINDLE_GEMM_SPLIT_TF32", split);
          const ScopedEnv tf("SPINDLE_GEMM_TF32", "0");
          gemm(C, H, W, Device::Cuda);
        }
        const DenseMatrix<float>& Cc = C;  // const access: one download
        const float* c = Cc.data();
        const float* h = H.data();
        const float* w = W.data();
        const std::int64_t n = W.cols();
        double worst = 0;
        for (int sample = 0; sample < 2048; ++sample) {
          const std::int64_t r = (static_cast<std::int64_t>(sample) * 2654435761LL) % A.rows();
          for (std::int64_t j = 0; j < n; ++j) {
            double sum = 0, mag = 0;
            for (std::int64_t t = 0; t < in; ++t) {
              sum += double(h[r * in + t]) * double(w[t * n + j]);
              mag += std::fabs(double(h[r * in + t]) * double(w[t * n + j]));
            }
            worst = std::max(worst, std::fabs(double(c[r * n + j]) - sum) / std::max(mag, 1e-30));
          }
        }
        return worst;
      };
      // Every blocking of the split kernel, forced in turn (the default's is the line below).
      for (int bl = 0; bl < detail::cuda::debug_split_tf32_blockings(); ++bl) {
        const std::string name = detail::cuda::debug_split_tf32_force(bl);
        const Timing tb = timed("1", "0");
        std::printf("# gemm %lldx%lldx%lld split-TF32 blocking %-20s %8.3f ms\n",
                    static_cast<long long>(A.rows()), static_cast<long long>(in),
                    static_cast<long long>(W.cols()), name.c_str(), tb.median);
        gemm_rows.emplace_back("gemm split-TF32 " + name + " n=" + std::to_string(W.cols()) + " ms",
                               tb.median);
      }
      detail::cuda::debug_split_tf32_force(-1);
      const Timing split_t = timed("1", "0");
      const Timing sgemm_t = timed("0", "0");
      const Timing tf32_t = timed("0", "1");
      const double split_err = sampled_err("1");
      const double sgemm_err = sampled_err("0");
      const std::string shape =
          std::to_string(A.rows()) + "x" + std::to_string(in) + "x" + std::to_string(W.cols());
      std::printf(
          "# RESULT gemm %s: split-TF32 %.3f ms, cublasSgemm %.3f ms (%.2fx), cuBLAS TF32 %.3f "
          "ms; max error vs double on 2048 rows: split-TF32 %.3g, cublasSgemm %.3g\n",
          shape.c_str(), split_t.median, sgemm_t.median, sgemm_t.median / split_t.median,
          tf32_t.median, split_err, sgemm_err);
      gemm_rows.emplace_back("gemm " + shape + " split-TF32 ms", split_t.median);
      gemm_rows.emplace_back("gemm " + shape + " cublasSgemm ms", sgemm_t.median);
      gemm_rows.emplace_back("gemm " + shape + " cuBLAS TF32 ms", tf32_t.median);
      gemm_rows.emplace_back("gemm " + shape + " split-TF32 max error", split_err);
      gemm_rows.emplace_back("gemm " + shape + " cublasSgemm max error", sgemm_err);
      in = W.cols();
    }
  }

  // The default with the device's persisting L2 set-aside at 0 for the runs (put back after): a
  // process starts with one (11.25 MiB on the H200s lent here) that no Spindle code asked for.
  Variant noaside{};
  std::size_t aside = 0;
  bool aside_ok = cudaDeviceGetLimit(&aside, cudaLimitPersistingL2CacheSize) == cudaSuccess &&
                  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0) == cudaSuccess;
  if (aside_ok) {
    noaside = variant(gpu);
    aside_ok = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, aside) == cudaSuccess;
    std::printf(
        "# RESULT gcn-set-aside-0 %s on %s: %.3f ms per inference (persisting L2 set-aside 0 "
        "instead of %zu bytes; median of %d; min %.3f); rel L2 vs the default %.3g\n",
        ng.name.c_str(), dev.c_str(), noaside.t.median, aside, reps, noaside.t.min, noaside.rel);
  }
  cudaGetLastError();

  // Tuning mode (GcnOptions::tune): each aggregation's SpMM kernels timed once per width and
  // each GEMM's cuBLAS algorithms once per shape, in a first untimed inference; the timed runs
  // reuse the winners. Reported with its difference from the planner's FP32 result.
  GcnOptions tuned_opt = gpu;
  tuned_opt.tune = true;
  tuned_opt.on_stage = [&](const GcnStage& st) {
    if (st.tuned.empty()) return;
    std::printf("# tuned layer %zu %s: %s\n", st.layer + 1,
                st.kind == GcnStage::Kind::Transform ? "GEMM" : "SpMM", st.tuned.c_str());
  };
  GcnWorkspace<float> wst;
  gcn_inference_normalized(A_hat, X, model, wst, tuned_opt);
  tuned_opt.on_stage = {};
  const Timing tt = time_runs([&] { gcn_inference_normalized(A_hat, X, model, wst, tuned_opt); }, s,
                              warmup, reps);
  const DenseMatrix<float>& tuned_out = wst.out.back();
  const double tuned_rel = rel_l2(tuned_out.data(), gpu_out, out.size());  // const: one download
  std::printf(
      "# RESULT gcn-tuned %s on %s: %.3f ms per inference (tuning mode, FP32-accuracy GEMMs; "
      "median of %d; min %.3f); rel L2 vs the untuned result %.3g\n",
      ng.name.c_str(), dev.c_str(), tt.median, reps, tt.min, tuned_rel);

  double rel = -1, cpu_ms = -1;
  if (cpu_check) {
    GcnOptions cpu;
    cpu.device = Device::Cpu;
    t0 = std::chrono::steady_clock::now();
    const DenseMatrix<float> ref = gcn_inference_normalized(A_hat, X, model, cpu);
    cpu_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rel = rel_l2(gpu_out, ref.data(), ref.size());
  }
  std::printf(
      "# RESULT gcn %s on %s: %.3f ms per inference (FP32-accuracy GEMMs; median of %d, CUDA "
      "events; min %.3f), %.3f ms wall incl. sync; with TF32 GEMMs %.3f ms (rel L2 vs "
      "FP32 %.3g); normalization once %.1f ms; CPU backend %.1f ms; rel L2 diff vs CPU "
      "%.3g\n",
      ng.name.c_str(), dev.c_str(), t.median, reps, t.min, wall_ms, tf32.t.median, tf32.rel,
      norm_ms, cpu_ms, rel);
  if (!export_dir.empty()) {
    write_raw(export_dir + "/row_ptr.i32", A.row_ptr());
    write_raw(export_dir + "/col_idx.i32", A.col_idx());
    write_npy(export_dir + "/x.npy", X);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      write_npy(export_dir + "/w" + std::to_string(l) + ".npy", model.weights[l]);
      write_npy(export_dir + "/b" + std::to_string(l) + ".npy", model.biases[l]);
    }
    write_npy(export_dir + "/spindle_out.npy", out);
    std::ofstream meta(export_dir + "/meta.txt");
    meta << A.rows() << " " << A.nnz() << " " << layers.size() << " " << t.median << "\n";
    std::printf("# exported to %s\n", export_dir.c_str());
  }
  JsonObject row;
  row.str("graph", ng.name)
      .num("n", static_cast<double>(A.rows()))
      .num("nnz", static_cast<double>(A.nnz()))
      .num("gpu_ms_median", t.median)
      .num("gpu_ms_min", t.min)
      .num("wall_ms", wall_ms)
      .num("first_call_ms", first_ms)
      .num("first_call_resident_mb", first_rss_mb)
      .num("workspace_host_arrays_mb", made_mb)
      .num("workspace_host_arrays_make_ms", made_ms)
      .num("fused_ms_median", fused.t.median)
      .num("fused_rel_diff_vs_unfused", fused.rel)
      .num("tf32_gemm_ms_median", tf32.t.median)
      .num("tf32_rel_diff_vs_fp32", tf32.rel)
      .num("cublas_gemm_ms_median", cublas.t.median)
      .num("cublas_gemm_rel_diff", cublas.rel)
      .num("set_aside_0_ms_median", noaside.t.median)
      .num("no_gemm_pair_ms_median", unpaired.t.median)
      .num("no_gemm_pair_rel_diff", unpaired.rel)
      .num("tuned_ms_median", tt.median)
      .num("tuned_rel_diff_vs_fp32", tuned_rel)
      .num("normalize_ms", norm_ms)
      .num("cpu_ms", cpu_ms)
      .num("rel_diff_vs_cpu", rel);
  for (const auto& st : stages) row.num("stage " + st.first + " ms", st.second);
  for (const auto& g : gemm_rows) row.num(g.first, g.second);
  write_json(json, "gcn", dev, {row}, JsonObject{});
  return (rel >= 0 && rel > 1e-4) || tuned_rel > 1e-4 || fused.rel > 1e-4 || cublas.rel > 1e-4 ? 1
                                                                                               : 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "spindle_bench_gcn: %s\n", e.what());
  return 1;
}
