// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared harness of the GPU benchmarks (spindle_bench_mxm / _sddmm / _gcn): the graph suite
// (generated R-MAT / uniform and files), device-side random fill, poisoning and comparison,
// CUDA-event timing through the engine's time_runs (median of many back-to-back runs after
// warm-up: device time) and a small JSON writer.

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "engine/src/cuda/timing.hpp"
#include "ops/cuda/mxm/spmm_args.cuh"
#include "ops/cuda/mxm/spmm_common.cuh"
#include "spindle/coo_builder.hpp"
#include "spindle/detail/mix.hpp"
#include "spindle/error.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"

namespace spindle::bench {

using detail::cuda::DeviceBuffer;

struct Options {
  std::vector<std::string> graphs;
  std::vector<std::int64_t> widths;
  int reps = 20;
  int warmup = 3;
  std::string json;
  bool check = true;
};

inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ',')) {
    if (!x.empty()) out.push_back(x);
  }
  return out;
}

/// --graphs a,b (rmatS, uniformS or file paths), --widths 1,2 (N or K), --reps R, --warmup W,
/// --json FILE, --no-check.
inline Options parse_options(int argc, char** argv, std::vector<std::string> default_graphs,
                             std::vector<std::int64_t> default_widths, const char* usage) {
  Options o;
  o.graphs = std::move(default_graphs);
  o.widths = std::move(default_widths);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidArgument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--graphs") {
      o.graphs = split(value());
    } else if (a == "--widths" || a == "--n" || a == "--k") {
      o.widths.clear();
      for (const auto& w : split(value())) o.widths.push_back(std::stoll(w));
    } else if (a == "--reps") {
      o.reps = std::max(1, std::stoi(value()));
    } else if (a == "--warmup") {
      o.warmup = std::max(0, std::stoi(value()));
    } else if (a == "--json") {
      o.json = value();
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "--help" || a == "-h") {
      std::printf("%s\n", usage);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n%s\n", a.c_str(), usage);
      std::exit(2);
    }
  }
  return o;
}

/// A value in (0.5, 1.5] from an index: deterministic, never zero.
inline float hashed_value(std::uint64_t x) {
  x = spindle::detail::mix64(x + spindle::detail::kGolden);
  return 0.5f + static_cast<float>((x >> 40) + 1) / static_cast<float>(1ull << 24);
}

struct NamedGraph {
  std::string name;
  Graph<std::int32_t, float> g;
};

/// "rmat22" / "uniform20": generated (edge factor 16, seed 1, duplicates collapsed, self-loops
/// kept) with hashed values; anything else is a file read with load_graph (its values replaced
/// by hashed ones so every graph has the same value distribution).
inline NamedGraph make_graph(const std::string& spec) {
  Graph<std::int32_t, Pattern> p;
  auto starts = [&](const char* pre) { return spec.rfind(pre, 0) == 0; };
  if (starts("rmat") || starts("uniform")) {
    const bool rmat = starts("rmat");
    const int scale = std::stoi(spec.substr(rmat ? 4 : 7));
    Coo<std::int32_t> coo = rmat ? generate_rmat<std::int32_t>(scale, 16, 1)
                                 : generate_uniform<std::int32_t>(scale, 16, 1);
    p = build_graph<std::int32_t, Pattern>(std::move(coo));
  } else {
    p = load_graph<std::int32_t, Pattern>(spec).graph;
  }
  std::vector<float> vals(static_cast<std::size_t>(p.nnz()));
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(vals.size()); ++k) {
    vals[static_cast<std::size_t>(k)] = hashed_value(static_cast<std::uint64_t>(k));
  }
  std::string name = spec;
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  return {name, Graph<std::int32_t, float>(p.rows(), p.cols(), p.row_ptr(), p.col_idx(),
                                           std::move(vals))};
}

// ---- device helpers ----------------------------------------------------------------------

template <class T>
__global__ void fill_uniform_kernel(T* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t x =
        spindle::detail::mix64(seed * 0x2545f4914f6cdd1dull + static_cast<std::uint64_t>(i));
    p[i] = static_cast<T>(spindle::detail::unit_interval(x) * 2.0 - 1.0);
  }
}

/// Uniform [-1, 1) values from a seed (never all zeros: GPU.md, "never time on zeros").
template <class T>
void fill_uniform(T* p, std::int64_t n, std::uint64_t seed, cudaStream_t s) {
  fill_uniform_kernel<T><<<1024, 256, 0, s>>>(p, n, seed);
  SPINDLE_CUDA_CHECK(cudaPeekAtLastError());
}

/// NaN everywhere: an element a kernel forgets to write stays NaN and fails the comparison.
template <class T>
void poison(T* p, std::int64_t n, cudaStream_t s) {
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(p, 0xff, static_cast<std::size_t>(n) * sizeof(T), s));
}

template <class T>
__global__ void diff_kernel(const T* got, const T* ref, std::int64_t n, double* out) {
  __shared__ double se[256];
  __shared__ double sr[256];
  __shared__ double sn[256];
  double e = 0, r = 0, bad = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double g = static_cast<double>(got[i]);
    const double f = static_cast<double>(ref[i]);
    if (!(g == g)) {
      bad += 1;
    } else {
      e += (g - f) * (g - f);
    }
    r += f * f;
  }
  se[threadIdx.x] = e;
  sr[threadIdx.x] = r;
  sn[threadIdx.x] = bad;
  __syncthreads();
  for (int o = 128; o > 0; o >>= 1) {
    if (static_cast<int>(threadIdx.x) < o) {
      se[threadIdx.x] += se[threadIdx.x + o];
      sr[threadIdx.x] += sr[threadIdx.x + o];
      sn[threadIdx.x] += sn[threadIdx.x + o];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x] = se[0];
    out[3 * blockIdx.x + 1] = sr[0];
    out[3 * blockIdx.x + 2] = sn[0];
  }
}

/// The raw arguments of the plus_times SpMM C = A·B over the device CSR d of A: B is
/// cols(A) x n and C rows(A) x n, both dense, row-major, leading dimension n; no epilogue.
inline detail::cuda::SpmmArgs<std::int32_t, float, float> spmm_args(
    const detail::cuda::DeviceCsr<std::int32_t, float>& d, std::int64_t n, const float* b,
    float* c) {
  return detail::cuda::make_spmm_args<semiring::plus_times<float>>(d, n, b, n, c, n);
}

struct Diff {
  double rel = 0;        ///< ||got - ref|| / ||ref|| over the non-NaN entries
  std::int64_t nan = 0;  ///< entries of got that are NaN (unwritten, since outputs are poisoned)
  bool ok(double tol) const { return nan == 0 && rel <= tol; }
};

template <class T>
Diff compare(const T* got, const T* ref, std::int64_t n, cudaStream_t s) {
  constexpr int kBlocks = 512;
  DeviceBuffer part(3 * kBlocks * sizeof(double), "bench compare");
  diff_kernel<T><<<kBlocks, 256, 0, s>>>(got, ref, n, part.as<double>());
  SPINDLE_CUDA_CHECK(cudaPeekAtLastError());
  std::vector<double> h(3 * kBlocks);
  SPINDLE_CUDA_CHECK(
      cudaMemcpyAsync(h.data(), part.get(), part.bytes(), cudaMemcpyDeviceToHost, s));
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(s));
  double e = 0, r = 0, bad = 0;
  for (int b = 0; b < kBlocks; ++b) {
    e += h[3 * b];
    r += h[3 * b + 1];
    bad += h[3 * b + 2];
  }
  Diff d;
  d.rel = r > 0 ? std::sqrt(e / r) : std::sqrt(e);
  d.nan = static_cast<std::int64_t>(bad);
  return d;
}

// ---- timing ------------------------------------------------------------------------------

struct Timing {
  double median = 0;
  double min = 0;
  std::vector<float> all;
};

/// Median (and min) of `reps` CUDA-event-timed runs of f after `warmup` runs, through the
/// engine's timing (engine/src/cuda/timing.hpp), the same as the mxv benchmark and tuning mode:
/// the runs are enqueued behind a short spin kernel and execute back to back, so each event pair
/// measures device time, not the host's work per call (planning, lookups, launch), which would
/// otherwise decide the figure for kernels of a few microseconds. f must only enqueue work on s,
/// the context's stream.
inline Timing time_runs(const std::function<void()>& f, cudaStream_t s, int warmup, int reps) {
  if (s != detail::cuda::context().stream) {
    throw Error("bench time_runs: the timed work must run on the context's stream");
  }
  Timing t;
  t.all = detail::cuda::time_runs(f, warmup, reps);
  t.median = detail::cuda::median(t.all);  // the mean of the middle two for an even count
  t.min = t.all.empty() ? 0.0 : *std::min_element(t.all.begin(), t.all.end());
  return t;
}

// ---- JSON --------------------------------------------------------------------------------

/// A flat JSON object built field by field.
class JsonObject {
 public:
  JsonObject& num(const std::string& k, double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", std::isfinite(v) ? v : -1.0);
    return raw(k, b);
  }
  JsonObject& str(const std::string& k, const std::string& v) {
    std::string e;
    for (char c : v) {
      if (c == '"' || c == '\\') e += '\\';
      e += c;
    }
    return raw(k, "\"" + e + "\"");
  }
  JsonObject& raw(const std::string& k, const std::string& v) {
    body_ += (body_.empty() ? "" : ", ") + ("\"" + k + "\": ") + v;
    return *this;
  }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

inline void write_json(const std::string& path, const std::string& bench, const std::string& device,
                       const std::vector<JsonObject>& rows, const JsonObject& summary) {
  if (path.empty()) return;
  std::ofstream f(path);
  f << "{\"benchmark\": \"" << bench << "\", \"device\": \"" << device
    << "\", \"summary\": " << summary.text() << ", \"results\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    f << "  " << rows[i].text() << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  f << "]}\n";
}

inline std::string device_name() {
  cudaDeviceProp p{};
  int dev = 0;
  SPINDLE_CUDA_CHECK(cudaGetDevice(&dev));
  SPINDLE_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
  return p.name;
}

inline double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

inline double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

}  // namespace spindle::bench
