// SPDX-License-Identifier: Apache-2.0
/// @file graphblas_triangles_compare.cpp
/// @brief Benchmark only (never an engine dependency): triangle counting on the CPU in
/// SuiteSparse:GraphBLAS and in Spindle, on the same symmetrized R-MAT graph in one process, the
/// sides alternating (issue 48's CPU bar). Built only when CMake finds libgraphblas.
///
/// GraphBLAS runs LAGraph's "Sandia_LUT with presort" method op for op, the method LAGraph picks
/// for power-law graphs, starting from the symmetric matrix U already in GraphBLAS:
///   d = row degrees of U                               GrB_reduce (PLUS_PAIR-like count)
///   perm = vertices by increasing degree (ties by id)  on the host, as LAGraph sorts them
///   PU = U(perm, perm)                                 GrB_extract
///   L = tril(PU, -1)                                   GrB_select (GrB_TRIL)
///   C<L> = L plus.pair L'                              GrB_mxm, structural mask, dot3 method
///   t = Σ C                                            GrB_reduce to int64
/// Spindle's rows: triangles() end to end from U (it builds the same degree-ordered L and
/// computes C<L> = L plus.pair L^T); and the masked product alone on the L GraphBLAS built
/// (same labels), against GraphBLAS's mxm + reduce alone.
///
/// Usage: spindle_bench_graphblas_triangles [--scale S] [--edge-factor E] [--seed X]
///                                          [--threads T] [--rounds R]
///   (defaults 18 16 1 2 3; wall ms, median of the rounds, and the process CPU ms)

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "graphblas_bench_common.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/matrix_mask.hpp"
#include "spindle/ops/mxm_sparse.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using I = std::int32_t;
using G = spindle::Graph<I, spindle::Pattern>;

using spindle_bench::cpu_ms;
using spindle_bench::median;

/// An iso-valued (pattern) GraphBLAS matrix with g's entries.
GrB_Matrix to_graphblas(const G& g) {
  const GrB_Index n = static_cast<GrB_Index>(g.rows());
  const GrB_Index nnz = static_cast<GrB_Index>(g.nnz());
  std::vector<GrB_Index> r(nnz), c(nnz);
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      r[k] = static_cast<GrB_Index>(i);
      c[k] = static_cast<GrB_Index>(g.col_idx()[k]);
    }
  }
  GrB_Matrix A = nullptr;
  GrB_Scalar one = nullptr;
  GRB_CHECK(GrB_Scalar_new(&one, GrB_BOOL));
  GRB_CHECK(GrB_Scalar_setElement_BOOL(one, true));
  GRB_CHECK(GrB_Matrix_new(&A, GrB_BOOL, n, n));
  GRB_CHECK(GxB_Matrix_build_Scalar(A, r.data(), c.data(), one, nnz));
  GRB_CHECK(GrB_Scalar_free(&one));
  GRB_CHECK(GrB_Matrix_wait(A, GrB_MATERIALIZE));
  return A;
}

/// The Sandia_LUT-with-presort pipeline from U; returns the count. `L_out` (when given) keeps L.
std::int64_t graphblas_triangles(GrB_Matrix U, GrB_Index n, GrB_Matrix* L_out) {
  GrB_Vector d = nullptr;
  GRB_CHECK(GrB_Vector_new(&d, GrB_INT64, n));
  GRB_CHECK(GrB_Matrix_reduce_Monoid(d, nullptr, nullptr, GrB_PLUS_MONOID_INT64, U, nullptr));
  std::vector<std::int64_t> deg(n, 0);
  {
    std::vector<GrB_Index> idx(n);
    GrB_Index nv = n;
    GRB_CHECK(GrB_Vector_extractTuples_INT64(idx.data(), deg.data(), &nv, d));
    std::vector<std::int64_t> full(n, 0);
    for (GrB_Index k = 0; k < nv; ++k) full[idx[k]] = deg[k];
    deg.swap(full);
  }
  GRB_CHECK(GrB_Vector_free(&d));
  std::vector<GrB_Index> perm(n);
  std::iota(perm.begin(), perm.end(), GrB_Index{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [&](GrB_Index a, GrB_Index b) { return deg[a] < deg[b]; });
  GrB_Matrix PU = nullptr, L = nullptr, C = nullptr;
  GRB_CHECK(GrB_Matrix_new(&PU, GrB_BOOL, n, n));
  GRB_CHECK(GrB_Matrix_extract(PU, nullptr, nullptr, U, perm.data(), n, perm.data(), n, nullptr));
  GRB_CHECK(GrB_Matrix_new(&L, GrB_BOOL, n, n));
  GRB_CHECK(GrB_Matrix_select_INT64(L, nullptr, nullptr, GrB_TRIL, PU, -1, nullptr));
  GRB_CHECK(GrB_Matrix_free(&PU));
  GRB_CHECK(GrB_Matrix_new(&C, GrB_INT64, n, n));
  GRB_CHECK(GrB_mxm(C, L, nullptr, GxB_PLUS_PAIR_INT64, L, L, GrB_DESC_ST1));
  std::int64_t t = 0;
  GRB_CHECK(GrB_Matrix_reduce_INT64(&t, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
  GRB_CHECK(GrB_Matrix_free(&C));
  if (L_out != nullptr) {
    *L_out = L;
  } else {
    GRB_CHECK(GrB_Matrix_free(&L));
  }
  return t;
}

/// GraphBLAS's product and reduction alone on L (`desc`: GrB_DESC_ST1, GraphBLAS picks the
/// method, or the same with the dot method forced).
std::int64_t graphblas_product(GrB_Matrix L, GrB_Index n, GrB_Descriptor desc) {
  GrB_Matrix C = nullptr;
  GRB_CHECK(GrB_Matrix_new(&C, GrB_INT64, n, n));
  GRB_CHECK(GrB_mxm(C, L, nullptr, GxB_PLUS_PAIR_INT64, L, L, desc));
  std::int64_t t = 0;
  GRB_CHECK(GrB_Matrix_reduce_INT64(&t, nullptr, GrB_PLUS_MONOID_INT64, C, nullptr));
  GRB_CHECK(GrB_Matrix_free(&C));
  return t;
}

/// L's pattern as a Spindle graph (rows sorted, as GraphBLAS keeps them).
G from_graphblas(GrB_Matrix L, GrB_Index n) {
  GrB_Index nv = 0;
  GRB_CHECK(GrB_Matrix_nvals(&nv, L));
  std::vector<GrB_Index> r(nv), c(nv);
  GRB_CHECK(GrB_Matrix_extractTuples_BOOL(r.data(), c.data(), nullptr, &nv, L));
  std::vector<std::pair<I, I>> e(nv);
  for (GrB_Index k = 0; k < nv; ++k) e[k] = {static_cast<I>(r[k]), static_cast<I>(c[k])};
  std::sort(e.begin(), e.end());
  std::vector<I> rp(n + 1, 0), ci(nv);
  for (GrB_Index k = 0; k < nv; ++k) {
    ++rp[static_cast<std::size_t>(e[k].first) + 1];
    ci[k] = e[k].second;
  }
  for (GrB_Index i = 0; i < n; ++i) rp[i + 1] += rp[i];
  return G(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci));
}

std::int64_t spindle_product(const G& L) {
  spindle::Descriptor d;
  d.device = spindle::Device::Cpu;
  d.replace = true;
  d.transpose_b = true;
  spindle::Graph<I, double> C;
  spindle::mxm(C, spindle::MatrixMask::structural(L), spindle::semiring::plus_pair<double>{}, L, L,
               d);
  double t = 0;
  for (const double v : C.values()) t += v;
  return static_cast<std::int64_t>(t);
}

struct Row {
  std::vector<double> wall, cpu;
  std::int64_t result = -1;
};

template <class F>
void time_into(Row& row, F&& f) {
  const auto t0 = Clock::now();
  const double c0 = cpu_ms();
  row.result = f();
  row.cpu.push_back(cpu_ms() - c0);
  row.wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
}

}  // namespace

int main(int argc, char** argv) {
  int scale = 18;
  std::int64_t edge_factor = 16;
  std::uint64_t seed = 1;
  int threads = 2;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--scale") {
      scale = std::atoi(next());
    } else if (a == "--edge-factor") {
      edge_factor = std::atoll(next());
    } else if (a == "--seed") {
      seed = std::strtoull(next(), nullptr, 10);
    } else if (a == "--threads") {
      threads = std::max(1, std::atoi(next()));
    } else if (a == "--rounds") {
      rounds = std::max(1, std::atoi(next()));
    } else {
      std::fprintf(stderr, "unknown argument %s (see the file comment)\n", a.c_str());
      return 2;
    }
  }
  omp_set_num_threads(threads);
  GRB_CHECK(GrB_init(GrB_NONBLOCKING));
  GRB_CHECK(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads));
  spindle::BuildOptions bo;
  bo.symmetrize = true;
  bo.self_loops = spindle::SelfLoopPolicy::Drop;
  const G U = spindle::build_graph<I, spindle::Pattern>(
      spindle::generate_rmat<I>(scale, edge_factor, seed), bo);
  const GrB_Index n = static_cast<GrB_Index>(U.rows());
  GrB_Matrix gU = to_graphblas(U);
  GrB_Matrix gL = nullptr;
  const std::int64_t want = graphblas_triangles(gU, n, &gL);  // also warms GraphBLAS up
  const G L = from_graphblas(gL, n);
  spindle::TriangleOptions o;
  o.device = spindle::Device::Cpu;
  const std::int64_t mine = spindle::triangles(U, o).total;  // warm-up
  std::printf(
      "R-MAT scale %d, edge factor %lld, seed %llu, symmetrized: n %lld, nnz %lld; "
      "L %lld entries; %d threads; GraphBLAS %d.%d.%d; %d rounds\n",
      scale, static_cast<long long>(edge_factor), static_cast<unsigned long long>(seed),
      static_cast<long long>(n), static_cast<long long>(U.nnz()), static_cast<long long>(L.nnz()),
      threads, GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB, rounds);
  GrB_Descriptor dot = nullptr;  // GrB_DESC_ST1 with the dot method forced
  GRB_CHECK(GrB_Descriptor_new(&dot));
  GRB_CHECK(GrB_Descriptor_set(dot, GrB_MASK, GrB_STRUCTURE));
  GRB_CHECK(GrB_Descriptor_set(dot, GrB_INP1, GrB_TRAN));
  GRB_CHECK(GrB_Descriptor_set(dot, GxB_AxB_METHOD, GxB_AxB_DOT));
  Row gb_whole, sp_whole, gb_prod, gb_dot, sp_prod;
  for (int r = 0; r < rounds; ++r) {
    time_into(gb_whole, [&] { return graphblas_triangles(gU, n, nullptr); });
    time_into(sp_whole, [&] { return spindle::triangles(U, o).total; });
    time_into(gb_prod, [&] { return graphblas_product(gL, n, GrB_DESC_ST1); });
    time_into(gb_dot, [&] { return graphblas_product(gL, n, dot); });
    time_into(sp_prod, [&] { return spindle_product(L); });
  }
  GrB_Descriptor_free(&dot);
  bool ok = mine == want;
  std::printf("%-44s %12s %12s %16s %s\n", "", "wall ms", "cpu ms", "triangles", "");
  auto line = [&](const char* what, const Row& row) {
    const bool good = row.result == want;
    ok = ok && good;
    std::printf("%-44s %12.1f %12.1f %16lld %s\n", what, median(row.wall), median(row.cpu),
                static_cast<long long>(row.result), good ? "" : "DIFFERS");
  };
  line("GraphBLAS Sandia_LUT + presort, from U", gb_whole);
  line("Spindle triangles(), from U", sp_whole);
  line("GraphBLAS C<L> = L plus.pair L' + reduce", gb_prod);
  line("  the same, dot method forced", gb_dot);
  line("Spindle C<L> = L plus.pair L^T + sum", sp_prod);
  std::printf("ratio Spindle / GraphBLAS (wall): from U %.2f, product (GraphBLAS's faster) %.2f\n",
              median(sp_whole.wall) / median(gb_whole.wall),
              median(sp_prod.wall) / std::min(median(gb_prod.wall), median(gb_dot.wall)));
  GrB_Matrix_free(&gL);
  GrB_Matrix_free(&gU);
  GrB_finalize();
  return ok ? 0 : 1;
}
