// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): Graph::transpose() built
// on the host (the counting sort in engine/src/graph.cpp) against the device's build that CUDA
// operations install (ops/cuda/transpose.cu), on generated R-MAT graphs. Each build runs on a
// fresh copy of the graph (no cached transpose), wall-clocked from the call to the host arrays
// being complete; the device build twice: with A's structure already on the device (as in a
// PageRank, whose out-degrees read it first) and with nothing uploaded. Every device build is
// compared element for element with the host's.
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/device_transpose.cu build/test/libspindle.a -lcusparse -lcublas
//     -lcublasLt -o device_transpose
// Run: ./device_transpose [scale ...]   (default: 16 18 20 22)
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <class V>
void run(int scale) {
  BuildOptions o;
  o.duplicates = DuplicatePolicy::Collapse;
  const auto P = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 1), o);
  const auto A = P.with_values<V>();
  auto copy = [&A] {
    return Graph<std::int32_t, V>(A.rows(), A.cols(), std::vector<std::int32_t>(A.row_ptr()),
                                  std::vector<std::int32_t>(A.col_idx()), std::vector(A.values()));
  };
  const char* type = Graph<std::int32_t, V>::is_pattern ? "pattern" : "float";
  for (int rep = 0; rep < 3; ++rep) {
    const auto h = copy();
    double t0 = now_ms();
    const auto& th = h.transpose();
    const double host = now_ms() - t0;
    double dev[2];
    bool same = true;
    for (int uploaded = 1; uploaded >= 0; --uploaded) {
      const auto d = copy();
      if (uploaded) {
        (void)detail::cuda::device_pattern(d);
        if constexpr (!Graph<std::int32_t, V>::is_pattern) (void)detail::cuda::device_csr<V>(d);
      }
      t0 = now_ms();
      const detail::ScopedTransposeBuilder on(detail::cuda_transpose_builder());
      const auto& td = d.transpose();
      dev[uploaded] = now_ms() - t0;
      same = same && td.row_ptr() == th.row_ptr() && td.col_idx() == th.col_idx() &&
             td.values() == th.values();
    }
    printf(
        "R-MAT %d %s (%lld entries, %d threads): host %.1f ms, device %.1f ms (A on the device) "
        "/ %.1f ms (nothing uploaded)%s\n",
        scale, type, static_cast<long long>(A.nnz()), omp_get_max_threads(), host, dev[1], dev[0],
        same ? "" : "  DIFFERENT ARRAYS");
    fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> scales;
  for (int i = 1; i < argc; ++i) scales.push_back(atoi(argv[i]));
  if (scales.empty()) scales = {16, 18, 20, 22};
  (void)detail::cuda::context();  // the context, outside the timings
  for (int s : scales) run<Pattern>(s);
  run<float>(scales.back());
  return 0;
}
