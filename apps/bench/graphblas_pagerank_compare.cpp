// SPDX-License-Identifier: Apache-2.0
/// @file graphblas_pagerank_compare.cpp
/// @brief Benchmark only (never an engine dependency): the same PageRank iteration in
/// SuiteSparse:GraphBLAS and in Spindle, on the same generated R-MAT graph in one process, side
/// by side. Built only when CMake finds libgraphblas.
///
/// The GraphBLAS iteration mirrors Spindle's Default preset op for op (LAGraph style, pull over a
/// pre-built transpose with an iso-valued matrix, i.e. pattern-only):
///   w = x .* (α ./ outdeg)   (0 at dangling)  GrB_eWiseMult
///   xd<!struct(outdeg), replace> = x; s = Σ xd   GrB_assign + GrB_reduce (dangling mass)
///   x' = ((1-α) + α s) / n                    GrB_assign (scalar)
///   x' += Aᵀ w                                GrB_mxv, PLUS_SECOND semiring
///   r = Σ |x' - x|                            GrB_eWiseAdd(MINUS) + GrB_apply(ABS) + GrB_reduce
///
/// Usage: spindle_bench_graphblas_pagerank [--scale S] [--edge-factor E] [--seed X]
///                                         [--threads T] [--iters K] [--rounds R]
///   (defaults 20 16 1 2 20 3; the sides alternate R times)

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "graphblas_bench_common.hpp"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using G = spindle::Graph<std::int32_t, spindle::Pattern>;

using spindle_bench::cpu_ms;
using spindle_bench::median;

template <class T>
struct Ops {
  static constexpr bool f32 = std::is_same_v<T, float>;
  static GrB_Type type() { return f32 ? GrB_FP32 : GrB_FP64; }
  static GrB_BinaryOp times() { return f32 ? GrB_TIMES_FP32 : GrB_TIMES_FP64; }
  static GrB_BinaryOp plus() { return f32 ? GrB_PLUS_FP32 : GrB_PLUS_FP64; }
  static GrB_BinaryOp minus() { return f32 ? GrB_MINUS_FP32 : GrB_MINUS_FP64; }
  static GrB_BinaryOp div() { return f32 ? GrB_DIV_FP32 : GrB_DIV_FP64; }
  static GrB_UnaryOp abs() { return f32 ? GrB_ABS_FP32 : GrB_ABS_FP64; }
  static GrB_Monoid plus_monoid() { return f32 ? GrB_PLUS_MONOID_FP32 : GrB_PLUS_MONOID_FP64; }
  static GrB_Semiring plus_second() { return f32 ? GxB_PLUS_SECOND_FP32 : GxB_PLUS_SECOND_FP64; }
  static void assign(GrB_Vector w, T s, GrB_Index n) {
    if constexpr (f32) {
      GRB_CHECK(GrB_Vector_assign_FP32(w, nullptr, nullptr, s, GrB_ALL, n, nullptr));
    } else {
      GRB_CHECK(GrB_Vector_assign_FP64(w, nullptr, nullptr, s, GrB_ALL, n, nullptr));
    }
  }
  static T reduce(GrB_Vector u) {
    T s = 0;
    if constexpr (f32) {
      GRB_CHECK(GrB_Vector_reduce_FP32(&s, nullptr, plus_monoid(), u, nullptr));
    } else {
      GRB_CHECK(GrB_Vector_reduce_FP64(&s, nullptr, plus_monoid(), u, nullptr));
    }
    return s;
  }
  static void scalar_div(GrB_Vector w, T s, GrB_Vector u) {  // w = s ./ u
    if constexpr (f32) {
      GRB_CHECK(GrB_Vector_apply_BinaryOp1st_FP32(w, nullptr, nullptr, div(), s, u, nullptr));
    } else {
      GRB_CHECK(GrB_Vector_apply_BinaryOp1st_FP64(w, nullptr, nullptr, div(), s, u, nullptr));
    }
  }
};

struct Timing {
  double iter_ms = 0, min_ms = 0, setup_ms = 0, cpu_iter_ms = 0;
  std::vector<double> ranks;
};

/// GraphBLAS PageRank (Default convention), `iters` timed iterations after one warm-up.
template <class T>
Timing graphblas_pagerank(const G& g, int iters) {
  using O = Ops<T>;
  const GrB_Index n = static_cast<GrB_Index>(g.rows());
  const GrB_Index nnz = static_cast<GrB_Index>(g.nnz());
  const double alpha = 0.85;
  Timing out;
  const auto t0 = Clock::now();
  GrB_Matrix A = nullptr, AT = nullptr;
  {
    std::vector<GrB_Index> I(nnz), J(nnz);
    for (std::int32_t i = 0; i < g.rows(); ++i)
      for (std::int32_t k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
        I[k] = static_cast<GrB_Index>(i);
        J[k] = static_cast<GrB_Index>(g.col_idx()[k]);
      }
    GrB_Scalar one = nullptr;
    GRB_CHECK(GrB_Scalar_new(&one, O::type()));
    GRB_CHECK(GrB_Scalar_setElement_FP64(one, 1.0));
    GRB_CHECK(GrB_Matrix_new(&A, O::type(), n, n));
    GRB_CHECK(GxB_Matrix_build_Scalar(A, I.data(), J.data(), one, nnz));  // iso: pattern-only
    GRB_CHECK(GrB_Scalar_free(&one));
  }
  GRB_CHECK(GrB_Matrix_new(&AT, O::type(), n, n));
  GRB_CHECK(GrB_transpose(AT, nullptr, nullptr, A, nullptr));
  GrB_Vector d = nullptr, inv = nullptr, x = nullptr, xn = nullptr, w = nullptr, xd = nullptr,
             t = nullptr;
  for (GrB_Vector* v : {&d, &inv, &x, &xn, &w, &xd, &t}) GRB_CHECK(GrB_Vector_new(v, O::type(), n));
  GRB_CHECK(GrB_Matrix_reduce_Monoid(d, nullptr, nullptr, O::plus_monoid(), A, nullptr));
  // inv = α ./ d where d exists, 0 elsewhere: a full inv keeps w full, GraphBLAS's fastest
  // (dense-vector) mxv path, as Spindle's own iterate is.
  O::assign(inv, T(0), n);
  {
    GrB_Vector tmp = nullptr;
    GRB_CHECK(GrB_Vector_new(&tmp, O::type(), n));
    O::scalar_div(tmp, T(alpha), d);
    GRB_CHECK(GrB_Vector_assign(inv, tmp, nullptr, tmp, GrB_ALL, n, GrB_DESC_S));
    GRB_CHECK(GrB_Vector_free(&tmp));
  }
  O::assign(x, T(1.0 / double(n)), n);
  GRB_CHECK(GrB_Vector_wait(inv, GrB_MATERIALIZE));
  GRB_CHECK(GrB_Matrix_wait(AT, GrB_MATERIALIZE));
  out.setup_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  std::vector<double> per_iter, per_cpu;
  for (int it = 0; it <= iters; ++it) {
    const auto ti = Clock::now();
    const double ci = cpu_ms();
    GRB_CHECK(GrB_Vector_eWiseMult_BinaryOp(w, nullptr, nullptr, O::times(), x, inv, nullptr));
    GRB_CHECK(GrB_Vector_assign(xd, d, nullptr, x, GrB_ALL, n, GrB_DESC_RSC));
    const double dsum = double(O::reduce(xd));
    O::assign(xn, T(((1.0 - alpha) + alpha * dsum) / double(n)), n);
    GRB_CHECK(GrB_mxv(xn, nullptr, O::plus(), O::plus_second(), AT, w, nullptr));
    GRB_CHECK(GrB_Vector_eWiseAdd_BinaryOp(t, nullptr, nullptr, O::minus(), xn, x, nullptr));
    GRB_CHECK(GrB_Vector_apply(t, nullptr, nullptr, O::abs(), t, nullptr));
    const double resid = double(O::reduce(t));  // forces completion of the iteration
    (void)resid;
    std::swap(x, xn);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - ti).count();
    if (it > 0) {  // iteration 0 is the warm-up
      per_iter.push_back(ms);
      per_cpu.push_back(cpu_ms() - ci);
    }
  }
  out.iter_ms = median(per_iter);
  out.cpu_iter_ms = median(per_cpu);
  out.min_ms = *std::min_element(per_iter.begin(), per_iter.end());
  out.ranks.resize(n);
  for (GrB_Index i = 0; i < n; ++i) {
    double v = 0;
    if (GrB_Vector_extractElement_FP64(&v, x, i) == GrB_SUCCESS) out.ranks[i] = v;
  }
  for (GrB_Vector* v : {&d, &inv, &x, &xn, &w, &xd, &t}) GrB_Vector_free(v);
  GrB_Matrix_free(&A);
  GrB_Matrix_free(&AT);
  return out;
}

/// Spindle's pagerank with the same number of iterations (tol = 0), per-iteration timestamps.
template <class T>
Timing spindle_pagerank(const G& g, int iters) {
  Timing out;
  std::vector<double> per_iter, per_cpu;
  spindle::PageRankOptions o;
  o.device = spindle::Device::Cpu;
  o.tol = 0.0;
  o.max_iter = iters + 1;
  auto last = Clock::now();
  double last_cpu = cpu_ms();
  const auto t0 = last;
  o.on_iteration = [&](int it, double) {
    const auto now = Clock::now();
    const double now_cpu = cpu_ms();
    if (it == 1) {
      out.setup_ms = std::chrono::duration<double, std::milli>(now - t0).count();
    } else {
      per_iter.push_back(std::chrono::duration<double, std::milli>(now - last).count());
      per_cpu.push_back(now_cpu - last_cpu);
    }
    last = now;
    last_cpu = now_cpu;
  };
  const auto r = spindle::pagerank<T>(g, o);
  out.iter_ms = median(per_iter);
  out.cpu_iter_ms = median(per_cpu);
  out.min_ms = *std::min_element(per_iter.begin(), per_iter.end());
  out.ranks.assign(r.ranks.values().begin(), r.ranks.values().end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int scale = 20, threads = 2, iters = 20, rounds = 3;
  std::int64_t edge_factor = 16;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--scale")) {
      scale = std::atoi(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "--edge-factor")) {
      edge_factor = std::atoll(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "--seed")) {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--threads")) {
      threads = std::atoi(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "--iters")) {
      iters = std::max(1, std::atoi(argv[i + 1]));
    } else if (!std::strcmp(argv[i], "--rounds")) {
      rounds = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  omp_set_num_threads(threads);
  GRB_CHECK(GrB_init(GrB_NONBLOCKING));
  GRB_CHECK(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));

  auto coo = spindle::generate_rmat<std::int32_t>(scale, edge_factor, seed);
  const G g = spindle::build_graph<std::int32_t, spindle::Pattern>(std::move(coo));
  (void)g.transpose();  // Spindle's cached transpose, built outside the timings like GraphBLAS's AT
  std::printf(
      "R-MAT scale %d, edge factor %lld, seed %llu: n = %lld, nnz = %lld; %d threads "
      "(OpenMP and GxB_NTHREADS); %d timed iterations after one warm-up, %d alternating rounds; "
      "SuiteSparse:GraphBLAS %d.%d.%d\n\n",
      scale, static_cast<long long>(edge_factor), static_cast<unsigned long long>(seed),
      static_cast<long long>(g.rows()), static_cast<long long>(g.nnz()), threads, iters, rounds,
      GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB);
  std::printf(
      "| precision | Spindle ms/iter (median) | GraphBLAS ms/iter (median) | "
      "Spindle min | GraphBLAS min | GraphBLAS / Spindle | Spindle CPU ms/iter | "
      "GraphBLAS CPU ms/iter | CPU ratio | L1(ranks) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  auto row = [&](const char* name, const Timing& s, const Timing& b) {
    double diff = 0.0;
    for (std::size_t i = 0; i < s.ranks.size(); ++i) diff += std::fabs(s.ranks[i] - b.ranks[i]);
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx | %.1e |\n", name,
                s.iter_ms, b.iter_ms, s.min_ms, b.min_ms, b.iter_ms / s.iter_ms, s.cpu_iter_ms,
                b.cpu_iter_ms, b.cpu_iter_ms / s.cpu_iter_ms, diff);
  };
  // The two sides alternate `rounds` times so that a change in machine load (a shared machine)
  // hits both alike; the table reports the median over all rounds' per-round medians.
  auto compare = [&](auto tag, const char* name) {
    using T = decltype(tag);
    Timing b, s;
    std::vector<double> bm, sm, bmin, smin, bc, sc;
    for (int r = 0; r < rounds; ++r) {
      b = graphblas_pagerank<T>(g, iters);
      s = spindle_pagerank<T>(g, iters);
      bm.push_back(b.iter_ms);
      sm.push_back(s.iter_ms);
      bmin.push_back(b.min_ms);
      smin.push_back(s.min_ms);
      bc.push_back(b.cpu_iter_ms);
      sc.push_back(s.cpu_iter_ms);
    }
    b.cpu_iter_ms = median(bc);
    s.cpu_iter_ms = median(sc);
    b.iter_ms = median(bm);
    s.iter_ms = median(sm);
    b.min_ms = *std::min_element(bmin.begin(), bmin.end());
    s.min_ms = *std::min_element(smin.begin(), smin.end());
    row(name, s, b);
  };
  compare(float{}, "float");
  compare(double{}, "double");
  GrB_finalize();
  return 0;
}
