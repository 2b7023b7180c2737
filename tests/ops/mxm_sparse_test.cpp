// SPDX-License-Identifier: Apache-2.0
// Sparse x sparse mxm: every kernel (forced through the descriptor) against a std::map oracle
// written from the GraphBLAS definitions, for every built-in semiring, value and index type,
// masks, accumulators, transposes, degenerate shapes, aliasing and real graphs; determinism
// across thread counts; the refusal of outputs that cannot fit; the planner's decisions.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/spgemm.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/ops.hpp"

namespace spindle {
namespace {

using Key = std::pair<std::int64_t, std::int64_t>;
using MapMatrix = std::map<Key, double>;  // (row, col) -> value, ordered by row then column

struct Ref {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  MapMatrix e;
};

// Random sparse matrix: ~20% empty rows, one dense row (when rows > 2), other rows of random
// length up to `max_len`. Values k/8 (k in 1..24, exact in float), ~8% explicit zeros.
Ref random_ref(std::int64_t rows, std::int64_t cols, std::int64_t max_len, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Ref r{rows, cols, {}};
  if (cols == 0) return r;
  const std::int64_t dense_row = rows > 2 ? static_cast<std::int64_t>(seed % rows) : -1;
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t len = 0;
    if (i == dense_row) {
      len = cols;
    } else if (u(rng) >= 0.2) {
      len = static_cast<std::int64_t>(u(rng) * u(rng) * (max_len + 1));
    }
    for (std::int64_t t = 0; t < len; ++t) {
      const std::int64_t j = i == dense_row ? t : static_cast<std::int64_t>(u(rng) * cols);
      const double v = u(rng) < 0.08 ? 0.0 : std::floor(u(rng) * 24 + 1) / 8.0;
      r.e[{i, j}] = v;
    }
  }
  return r;
}

Ref transposed(const Ref& a) {
  Ref t{a.cols, a.rows, {}};
  for (const auto& [k, v] : a.e) t.e[{k.second, k.first}] = v;
  return t;
}

template <class I, class V>
Graph<I, V> to_graph(const Ref& r) {
  std::vector<I> rp(static_cast<std::size_t>(r.rows) + 1, 0);
  std::vector<I> ci;
  std::vector<typename Graph<I, V>::stored_value_type> vals;
  for (const auto& [k, v] : r.e) {
    ++rp[k.first + 1];
    ci.push_back(static_cast<I>(k.second));
    if constexpr (!is_pattern_v<V>) vals.push_back(static_cast<V>(v));
  }
  for (std::int64_t i = 0; i < r.rows; ++i) rp[i + 1] += rp[i];
  return Graph<I, V>(static_cast<I>(r.rows), static_cast<I>(r.cols), std::move(rp), std::move(ci),
                     std::move(vals));
}

// The values a graph of V holds for the reference (pattern: 1).
template <class V>
Ref as_stored(const Ref& r) {
  Ref o = r;
  for (auto& [k, v] : o.e) {
    if constexpr (is_pattern_v<V>) {
      v = 1.0;
    } else {
      v = static_cast<double>(static_cast<V>(v));
    }
  }
  return o;
}

template <class I, class T>
MapMatrix from_graph(const Graph<I, T>& g) {
  MapMatrix m;
  for (std::int64_t i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      m[{i, g.col_idx()[k]}] = static_cast<double>(g.values()[k]);
    }
  }
  return m;
}

struct MaskSpec {
  bool present = false;
  bool structural = false;
  bool complement = false;
  Ref m;
};

// The oracle: T = A ⊕.⊗ B in T's arithmetic, products added in increasing k (the first one
// starting the sum), then the mask / accumulator / replace rules of GrB_mxm.
template <class S>
MapMatrix oracle(const Ref& a, const Ref& b, const Ref& c_old, bool keep_old, const MaskSpec& mask,
                 Accum accum, bool replace) {
  using T = typename S::value_type;
  std::map<std::int64_t, std::map<std::int64_t, T>> brow;
  for (const auto& [k, v] : b.e) brow[k.first][k.second] = static_cast<T>(v);
  std::map<Key, T> t;
  for (const auto& [k, av] : a.e) {  // row-major: k increasing within row i
    auto it = brow.find(k.second);
    if (it == brow.end()) continue;
    for (const auto& [j, bv] : it->second) {
      const T p = S::mul(static_cast<T>(av), bv);
      auto f = t.find({k.first, j});
      if (f == t.end()) {
        t[{k.first, j}] = p;
      } else {
        f->second = S::add(f->second, p);
      }
    }
  }
  auto selected = [&](const Key& key) {
    if (!mask.present) return true;
    auto f = mask.m.e.find(key);
    const bool s = f != mask.m.e.end() && (mask.structural || f->second != 0.0);
    return s != mask.complement;
  };
  MapMatrix out;
  std::map<Key, int> keys;
  if (keep_old) {
    for (const auto& [k, v] : c_old.e) keys[k] |= 1;
  }
  for (const auto& [k, v] : t) keys[k] |= 2;
  for (const auto& [k, which] : keys) {
    const bool has_c = which & 1;
    const bool has_t = which & 2;
    const T cv = has_c ? static_cast<T>(c_old.e.at(k)) : T(0);
    if (selected(k)) {
      if (has_c && has_t && accum.enabled) {
        out[k] = static_cast<double>(apply_binary(accum.op, cv, t.at(k)));
      } else if (has_t) {
        out[k] = static_cast<double>(t.at(k));
      } else if (accum.enabled) {
        out[k] = static_cast<double>(cv);
      }
    } else if (has_c && !replace) {
      out[k] = static_cast<double>(cv);
    }
  }
  return out;
}

template <class S>
bool close(double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (got == want) return true;
  // Same order of additions as the oracle: results are identical; the tolerance covers only
  // float plus-based sums, should a compiler contract a multiply-add.
  if (S::kind == SemiringKind::PlusTimes || S::kind == SemiringKind::PlusMin) {
    return std::fabs(got - want) <= 1e-5 * std::max(1.0, std::fabs(want));
  }
  return false;
}

template <class S>
void expect_matches(const MapMatrix& got, const MapMatrix& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  auto g = got.begin();
  for (auto w = want.begin(); w != want.end(); ++w, ++g) {
    ASSERT_EQ(g->first, w->first) << what;
    ASSERT_TRUE(close<S>(g->second, w->second))
        << what << " at (" << w->first.first << "," << w->first.second << "): got " << g->second
        << ", want " << w->second;
  }
}

constexpr SpgemmKernel kKernels[] = {SpgemmKernel::Auto, SpgemmKernel::GustavsonDense,
                                     SpgemmKernel::GustavsonHash, SpgemmKernel::MaskedGustavson,
                                     SpgemmKernel::MaskedDot};

struct Case {
  std::int64_t m = 0, k = 0, n = 0, max_len = 6;
  std::uint64_t seed = 1;
  bool ta = false, tb = false;
  int mask = 0;  // 0 none, 1 structural, 2 value, 3 structural complemented, 4 value complemented
  bool replace = false;
  Accum accum = Accum::none();
};

std::string describe(const Case& c, SpgemmKernel kern) {
  return std::string(to_string(kern)) + " m=" + std::to_string(c.m) + " k=" + std::to_string(c.k) +
         " n=" + std::to_string(c.n) + " seed=" + std::to_string(c.seed) +
         " ta=" + std::to_string(c.ta) + " tb=" + std::to_string(c.tb) +
         " mask=" + std::to_string(c.mask) + " replace=" + std::to_string(c.replace) +
         " accum=" + (c.accum.enabled ? to_string(c.accum.op) : "none");
}

// Runs one case with every kernel and compares with the oracle.
template <class S, class I, class VA, class VB>
void run_case(const Case& c) {
  using T = typename S::value_type;
  const Ref a_log = random_ref(c.m, c.k, c.max_len, c.seed * 7 + 1);
  const Ref b_log = random_ref(c.k, c.n, c.max_len, c.seed * 7 + 2);
  const Ref a_stored = c.ta ? transposed(a_log) : a_log;
  const Ref b_stored = c.tb ? transposed(b_log) : b_log;
  const Graph<I, VA> A = to_graph<I, VA>(a_stored);
  const Graph<I, VB> B = to_graph<I, VB>(b_stored);
  MaskSpec ms;
  ms.present = c.mask != 0;
  ms.structural = c.mask == 1 || c.mask == 3;
  ms.complement = c.mask >= 3;
  ms.m = random_ref(c.m, c.n, c.max_len * 2, c.seed * 7 + 3);
  const Graph<I, double> Mg = to_graph<I, double>(ms.m);
  MatrixMask mask;
  if (ms.present) {
    mask = ms.structural ? MatrixMask::structural(Mg, ms.complement)
                         : MatrixMask::value(Mg, ms.complement);
  }
  const Ref c_old = as_stored<T>(random_ref(c.m, c.n, c.max_len, c.seed * 7 + 4));
  const bool keep_old = c.accum.enabled || (ms.present && !c.replace);
  const MapMatrix want = oracle<S>(as_stored<VA>(a_log), as_stored<VB>(b_log), c_old, keep_old, ms,
                                   c.accum, c.replace);
  for (const SpgemmKernel kern : kKernels) {
    Descriptor d;
    d.transpose_a = c.ta;
    d.transpose_b = c.tb;
    d.replace = c.replace;
    d.device = Device::Cpu;
    d.force(kern);
    Graph<I, T> C = to_graph<I, T>(c_old);
    mxm(C, mask, c.accum, S{}, A, B, d);
    ASSERT_EQ(C.rows(), c.m);
    ASSERT_EQ(C.cols(), c.n);
    expect_matches<S>(from_graph(C), want,
                      std::string(to_string(S::kind)) + " " + describe(c, kern));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <class T, class I, class VA, class VB>
void every_semiring(const Case& c) {
  for (const SemiringKind kind : kBuiltinSemirings) {
    visit_semiring<T>(kind, [&](auto s) {
      run_case<decltype(s), I, VA, VB>(c);
      return 0;
    });
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(MxmSparse, EverySemiringAndKernelMatchesOracleUnmasked) {
  Case c;
  c.m = 37;
  c.k = 23;
  c.n = 41;
  for (std::uint64_t seed : {1, 2}) {
    c.seed = seed;
    every_semiring<float, std::int32_t, float, float>(c);
    every_semiring<double, std::int32_t, double, Pattern>(c);
    every_semiring<double, std::int64_t, Pattern, float>(c);
    every_semiring<float, std::int64_t, double, double>(c);
  }
}

TEST(MxmSparse, EverySemiringAndKernelMatchesOracleWithMasks) {
  Case c;
  c.m = 29;
  c.k = 31;
  c.n = 19;
  for (int mask = 1; mask <= 4; ++mask) {
    for (bool replace : {false, true}) {
      c.mask = mask;
      c.replace = replace;
      c.seed = static_cast<std::uint64_t>(mask * 10 + replace);
      every_semiring<float, std::int32_t, float, Pattern>(c);
      every_semiring<double, std::int64_t, double, double>(c);
    }
  }
}

TEST(MxmSparse, AccumulatorsAndTransposesMatchOracle) {
  for (const BinaryOp op : {BinaryOp::Plus, BinaryOp::Min, BinaryOp::Max, BinaryOp::Second}) {
    for (int t = 0; t < 4; ++t) {
      Case c;
      c.m = 17;
      c.k = 40;
      c.n = 33;
      c.ta = t & 1;
      c.tb = t & 2;
      c.accum = Accum::with(op);
      c.mask = t % 3 == 0 ? 0 : 2;
      c.replace = t == 2;
      c.seed = 100 + static_cast<std::uint64_t>(op) * 4 + static_cast<std::uint64_t>(t);
      run_case<semiring::plus_times<double>, std::int32_t, double, float>(c);
      run_case<semiring::min_plus<float>, std::int64_t, float, float>(c);
      run_case<semiring::max_times<double>, std::int32_t, Pattern, double>(c);
      run_case<semiring::plus_pair<float>, std::int64_t, Pattern, Pattern>(c);
    }
  }
}

TEST(MxmSparse, WideAndLongRowsMatchOracle) {
  // Rows longer than the hash table's first size, columns beyond the dense-scan cut-off.
  Case c;
  c.m = 60;
  c.k = 300;
  c.n = 2000;
  c.max_len = 200;
  for (int mask : {0, 1, 3}) {
    c.mask = mask;
    c.seed = 500 + static_cast<std::uint64_t>(mask);
    run_case<semiring::plus_times<double>, std::int32_t, double, double>(c);
    run_case<semiring::lor_land<float>, std::int64_t, Pattern, Pattern>(c);
    run_case<semiring::any_pair<double>, std::int32_t, float, Pattern>(c);
  }
}

TEST(MxmSparse, DegenerateShapes) {
  for (const SpgemmKernel kern : kKernels) {
    const Descriptor d = Descriptor().force(kern).on(Device::Cpu);
    using S = semiring::plus_times<double>;
    // 0 x 0
    Graph<std::int32_t, double> C;
    mxm(C, S{}, Graph<std::int32_t, double>(), Graph<std::int32_t, double>(), d);
    EXPECT_EQ(C.rows(), 0);
    EXPECT_EQ(C.nnz(), 0);
    // inner dimension 0: m x 0 times 0 x n has no products
    const Graph<std::int32_t, double> A0 = to_graph<std::int32_t, double>(Ref{5, 0, {}});
    const Graph<std::int32_t, double> B0 = to_graph<std::int32_t, double>(Ref{0, 7, {}});
    mxm(C, S{}, A0, B0, d);
    EXPECT_EQ(C.rows(), 5);
    EXPECT_EQ(C.cols(), 7);
    EXPECT_EQ(C.nnz(), 0);
    // ... with an accumulator, C keeps its entries
    const Ref old = random_ref(5, 7, 4, 9);
    C = to_graph<std::int32_t, double>(old);
    mxm(C, MatrixMask{}, Accum::plus(), S{}, A0, B0, d);
    EXPECT_EQ(from_graph(C), old.e);
    // no stored entries at all
    const Graph<std::int32_t, Pattern> E = to_graph<std::int32_t, Pattern>(Ref{4, 4, {}});
    mxm(C, S{}, E, E, d);
    EXPECT_EQ(C.rows(), 4);
    EXPECT_EQ(C.nnz(), 0);
    // 0 rows, n columns
    mxm(C, S{}, to_graph<std::int32_t, double>(Ref{0, 3, {}}),
        to_graph<std::int32_t, Pattern>(random_ref(3, 6, 3, 2)), d);
    EXPECT_EQ(C.rows(), 0);
    EXPECT_EQ(C.cols(), 6);
  }
}

TEST(MxmSparse, ShapeErrorsAndDevices) {
  using S = semiring::plus_times<float>;
  const auto A = to_graph<std::int32_t, float>(random_ref(4, 5, 3, 1));
  const auto B = to_graph<std::int32_t, float>(random_ref(6, 3, 3, 2));
  Graph<std::int32_t, float> C;
  EXPECT_THROW(mxm(C, S{}, A, B), DimensionMismatch);
  const auto B2 = to_graph<std::int32_t, float>(random_ref(5, 3, 3, 2));
  EXPECT_NO_THROW(mxm(C, S{}, A, B2));
  EXPECT_THROW(mxm(C, S{}, A, B2, Descriptor().with_transpose_a()), DimensionMismatch);
  const auto M = to_graph<std::int32_t, float>(random_ref(4, 4, 3, 3));
  EXPECT_THROW(mxm(C, MatrixMask::structural(M), S{}, A, B2), DimensionMismatch);
  Graph<std::int32_t, float> wrong = to_graph<std::int32_t, float>(random_ref(3, 3, 2, 4));
  EXPECT_THROW(mxm(wrong, MatrixMask{}, Accum::plus(), S{}, A, B2), DimensionMismatch);
  // No accumulator and replace: C's old shape does not matter.
  EXPECT_NO_THROW(mxm(wrong,
                      MatrixMask::structural(to_graph<std::int32_t, float>(random_ref(4, 3, 2, 5))),
                      S{}, A, B2, Descriptor().with_replace()));
  const Plan p = plan_for_mxm<S>(MatrixMask{}, A, B2);
  EXPECT_EQ(p.device, Device::Cpu) << p.reason;  // a tiny product stays on the CPU
  if (!cuda_available()) {
    EXPECT_THROW(mxm(C, S{}, A, B2, Descriptor().on(Device::Cuda)), Unsupported);
    EXPECT_THROW(plan_for_mxm<S>(MatrixMask{}, A, B2, Descriptor().on(Device::Cuda)), Unsupported);
  }
}

TEST(MxmSparse, OutputMayAliasAnInputOrTheMask) {
  using S = semiring::plus_times<double>;
  const Ref r = random_ref(50, 50, 8, 77);
  for (const SpgemmKernel kern : kKernels) {
    const Descriptor d = Descriptor().force(kern);
    // The expected result in a separate output whose old contents equal A.
    Graph<std::int64_t, double> expect = to_graph<std::int64_t, double>(r);
    const auto A2 = to_graph<std::int64_t, double>(r);
    mxm(expect, MatrixMask::structural(A2), Accum::plus(), S{}, A2, A2, d);
    Graph<std::int64_t, double> C = to_graph<std::int64_t, double>(r);
    mxm(C, MatrixMask::structural(C), Accum::plus(), S{}, C, C, d);
    EXPECT_EQ(from_graph(C), from_graph(expect)) << to_string(kern);
    // A result assigned onto A itself, unmasked.
    Graph<std::int64_t, double> D = to_graph<std::int64_t, double>(r);
    Graph<std::int64_t, double> ref;
    mxm(ref, S{}, D, D, d);
    mxm(D, S{}, D, D, d);
    EXPECT_EQ(from_graph(D), from_graph(ref));
  }
}

// Outer product of two 2^20-vectors: 2^40 entries, refused before any allocation.
TEST(MxmSparse, OutputThatCannotFitIsRefusedWithTheNumbers) {
  const std::int64_t n = std::int64_t{1} << 20;
  auto column = [n](auto tag) {
    using I = decltype(tag);
    std::vector<I> rp(static_cast<std::size_t>(n) + 1);
    for (std::int64_t i = 0; i <= n; ++i) rp[i] = static_cast<I>(i);
    return Graph<I, Pattern>(static_cast<I>(n), 1, std::move(rp), std::vector<I>(n, 0));
  };
  auto row = [n](auto tag) {
    using I = decltype(tag);
    std::vector<I> ci(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) ci[j] = static_cast<I>(j);
    return Graph<I, Pattern>(1, static_cast<I>(n), std::vector<I>{0, static_cast<I>(n)},
                             std::move(ci));
  };
  using S = semiring::plus_times<float>;
  for (const SpgemmKernel kern :
       {SpgemmKernel::Auto, SpgemmKernel::GustavsonDense, SpgemmKernel::GustavsonHash}) {
    const Descriptor d = Descriptor().force(kern);
    {
      Graph<std::int32_t, float> C;
      try {
        mxm(C, S{}, column(std::int32_t{}), row(std::int32_t{}), d);
        FAIL() << "expected InvalidArgument";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("1099511627776"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
      }
    }
    {
      Graph<std::int64_t, float> C;
      try {
        mxm(C, S{}, column(std::int64_t{}), row(std::int64_t{}), d);
        FAIL() << "expected OutOfMemory";
      } catch (const OutOfMemory& e) {
        EXPECT_NE(std::string(e.what()).find("1099511627776"), std::string::npos) << e.what();
      }
    }
  }
}

template <class I, class T>
bool same_bits(const Graph<I, T>& a, const Graph<I, T>& b) {
  return a.row_ptr() == b.row_ptr() && a.col_idx() == b.col_idx() &&
         std::memcmp(a.values().data(), b.values().data(), a.values().size() * sizeof(T)) == 0;
}

TEST(MxmSparse, SameBitsForAnyThreadCountAndKernel) {
  // Big enough that the kernels use several threads (work above kWorkPerThread per thread).
  const Ref r = random_ref(3000, 3000, 60, 4242);
  Ref vals = r;
  std::mt19937_64 rng(5);
  for (auto& [k, v] : vals.e) v = std::uniform_real_distribution<double>(0.1, 3.0)(rng);
  const auto A = to_graph<std::int32_t, double>(vals);
  const auto M = to_graph<std::int32_t, Pattern>(r);
  const int saved = omp_get_max_threads();
  for (const SpgemmKernel kern : kKernels) {
    for (const bool masked : {false, true}) {
      const Descriptor d = Descriptor().force(kern).with_replace();
      const MatrixMask mask = masked ? MatrixMask::structural(M) : MatrixMask{};
      omp_set_num_threads(1);
      Graph<std::int32_t, float> ref;
      mxm(ref, mask, semiring::plus_times<float>{}, A, A, d);
      EXPECT_GT(ref.nnz(), 0);
      for (int threads : {2, 3, 4}) {
        omp_set_num_threads(threads);
        Graph<std::int32_t, float> got;
        mxm(got, mask, semiring::plus_times<float>{}, A, A, d);
        EXPECT_TRUE(same_bits(ref, got))
            << to_string(kern) << " masked=" << masked << " threads=" << threads;
      }
      // Every kernel gives the bits of the dense Gustavson form.
      omp_set_num_threads(saved);
      Graph<std::int32_t, float> dense;
      mxm(dense, mask, semiring::plus_times<float>{}, A, A,
          Descriptor().force(SpgemmKernel::GustavsonDense).with_replace());
      EXPECT_TRUE(same_bits(ref, dense)) << to_string(kern) << " masked=" << masked;
    }
  }
  omp_set_num_threads(saved);
}

TEST(MxmSparse, RealGraphsMatchOracle) {
  const std::string dir = std::string(SPINDLE_DATA_DIR) + "/graphs";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no " << dir;
  int tested = 0;
  for (const char* name : {"karate.mtx", "chesapeake.mtx", "cugraph_dolphins.mtx",
                           "cugraph_polbooks.mtx", "1138_bus.mtx", "lp_afiro.mtx"}) {
    const std::string path = dir + "/" + name;
    if (!std::filesystem::exists(path)) continue;
    const auto G = read_matrix_market<std::int32_t, double>(path);
    Ref r{G.rows(), G.cols(), from_graph(G)};
    // A·A^T (rectangular lp_afiro works too), unmasked and masked by A's pattern where square.
    const Ref rt = transposed(r);
    for (const SpgemmKernel kern : kKernels) {
      const Descriptor d = Descriptor().force(kern).with_transpose_b();
      Graph<std::int32_t, double> C;
      mxm(C, semiring::plus_times<double>{}, G, G, d);
      expect_matches<semiring::plus_times<double>>(
          from_graph(C), oracle<semiring::plus_times<double>>(r, rt, Ref{}, false, {}, {}, false),
          std::string(name) + " " + to_string(kern));
      if (G.rows() == G.cols()) {
        MaskSpec ms;
        ms.present = true;
        ms.structural = true;
        ms.m = r;
        Graph<std::int32_t, double> T;
        mxm(T, MatrixMask::structural(G), semiring::plus_pair<double>{}, G, G,
            Descriptor().force(kern).with_replace());
        expect_matches<semiring::plus_pair<double>>(
            from_graph(T), oracle<semiring::plus_pair<double>>(r, r, Ref{}, false, ms, {}, true),
            std::string(name) + " masked " + to_string(kern));
      }
    }
    ++tested;
  }
  EXPECT_GT(tested, 0);
}

// ---- planner ----

detail::SpgemmInfo info_of(std::int64_t rows, std::int64_t cols, std::int64_t flops) {
  detail::SpgemmInfo info;
  info.rows = rows;
  info.cols = cols;
  info.inner = rows;
  info.nnz_a = flops / 4;
  info.nnz_b = flops / 4;
  info.flops = flops;
  info.nonempty_rows = rows;
  info.requested = Device::Cpu;
  return info;
}

TEST(MxmSparsePlanner, DenseAccumulatorWhenItFitsTheCache) {
  const Plan p = detail::plan_spgemm(info_of(1000, 1000, 100000), {});
  EXPECT_EQ(p.spgemm, SpgemmKernel::GustavsonDense) << p.reason;
  EXPECT_EQ(p.kernel_name(), "gustavson_dense");
}

TEST(MxmSparsePlanner, HashAccumulatorForSparseRowsOfManyColumns) {
  const Plan p = detail::plan_spgemm(info_of(1 << 22, 1 << 22, std::int64_t{40} << 22), {});
  EXPECT_EQ(p.spgemm, SpgemmKernel::GustavsonHash) << p.reason;
}

TEST(MxmSparsePlanner, DenseAccumulatorForFullRowsOfManyColumns) {
  const Plan p = detail::plan_spgemm(info_of(1000, 1 << 20, std::int64_t{1} << 30), {});
  EXPECT_EQ(p.spgemm, SpgemmKernel::GustavsonDense) << p.reason;
}

TEST(MxmSparsePlanner, DotFormForASparseMaskAndGustavsonForADenseOne) {
  detail::SpgemmInfo info = info_of(1 << 16, 1 << 16, std::int64_t{1} << 26);
  info.masked = true;
  info.mask_entries = 1 << 20;
  info.dot_cost = std::int64_t{1} << 23;
  info.transpose_b_cached = true;
  EXPECT_EQ(detail::plan_spgemm(info, {}).spgemm, SpgemmKernel::MaskedDot);
  info.dot_cost = std::int64_t{1} << 27;
  EXPECT_EQ(detail::plan_spgemm(info, {}).spgemm, SpgemmKernel::MaskedGustavson);
  info.dot_cost = std::int64_t{1} << 23;
  info.mask_complemented = true;
  EXPECT_EQ(detail::plan_spgemm(info, {}).spgemm, SpgemmKernel::MaskedGustavson);
}

TEST(MxmSparsePlanner, ForcedKernelsAndFallbacks) {
  detail::SpgemmInfo info = info_of(100, 100, 1000);
  Plan p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::GustavsonHash));
  EXPECT_EQ(p.spgemm, SpgemmKernel::GustavsonHash);
  EXPECT_TRUE(p.forced);
  p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::MaskedDot));
  EXPECT_FALSE(p.forced);
  EXPECT_EQ(p.spgemm, SpgemmKernel::GustavsonDense);
  EXPECT_NE(p.reason.find("fell back"), std::string::npos) << p.reason;
  info.masked = true;
  info.mask_complemented = true;
  p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::MaskedDot));
  EXPECT_FALSE(p.forced);
  EXPECT_NE(p.reason.find("complemented"), std::string::npos) << p.reason;
  info = info_of(10, std::int64_t{1} << 40, 100);
  p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::GustavsonDense));
  EXPECT_EQ(p.spgemm, SpgemmKernel::GustavsonHash) << p.reason;
}

// The CUDA rules, planned for an H100-like device (no GPU needed).
detail::SpgemmInfo cuda_info(std::int64_t rows, std::int64_t cols, std::int64_t flops) {
  detail::SpgemmInfo info = info_of(rows, cols, flops);
  info.requested = Device::Auto;
  info.target = Device::Cuda;
  info.max_row_flops = flops / std::max<std::int64_t>(rows, 1) * 8;
  info.smem_per_block = 227 * 1024;
  info.device_memory = std::int64_t{80} << 30;
  return info;
}

TEST(MxmSparsePlanner, CudaRowwiseWithItsBinsAndSmallProductsOnTheCpu) {
  detail::SpgemmInfo info = cuda_info(1 << 20, 1 << 20, std::int64_t{1} << 28);
  Plan p = detail::plan_spgemm(info, {});
  EXPECT_EQ(p.device, Device::Cuda) << p.reason;
  EXPECT_EQ(p.spgemm, SpgemmKernel::CudaRowwise) << p.reason;
  EXPECT_EQ(p.params.items_per_worker, detail::kCudaSpgemmEscMax);
  EXPECT_EQ(p.params.tile, detail::kCudaSpgemmTableMax);
  // A device with 48 KB of shared memory per block gets 2048-slot tables at most.
  info.smem_per_block = 48 * 1024;
  EXPECT_EQ(detail::plan_spgemm(info, {}).params.tile, 2048);
  // Auto keeps a small product on the CPU; asking for CUDA does not.
  info = cuda_info(1000, 1000, 100000);
  p = detail::plan_spgemm(info, {});
  EXPECT_EQ(p.device, Device::Cpu) << p.reason;
  EXPECT_NE(p.reason.find("products <"), std::string::npos) << p.reason;
  info.requested = Device::Cuda;
  EXPECT_EQ(detail::plan_spgemm(info, {}).device, Device::Cuda);
  // A forced CPU kernel on a CUDA call falls back, and a CUDA kernel on a CPU call too.
  p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::GustavsonHash));
  EXPECT_EQ(p.spgemm, SpgemmKernel::CudaRowwise) << p.reason;
  EXPECT_NE(p.reason.find("CPU kernel"), std::string::npos) << p.reason;
  p = detail::plan_spgemm(info_of(100, 100, 1000), Descriptor().force(SpgemmKernel::CudaRowwise));
  EXPECT_EQ(p.device, Device::Cpu);
  EXPECT_NE(p.reason.find("CUDA kernel"), std::string::npos) << p.reason;
}

TEST(MxmSparsePlanner, CudaDotFormForMasksAndDenseSlabLimits) {
  detail::SpgemmInfo info = cuda_info(1 << 16, 1 << 16, std::int64_t{1} << 26);
  info.masked = true;
  info.mask_entries = 1 << 20;
  info.dot_cost = std::int64_t{1} << 23;
  info.transpose_b_cached = true;
  Plan p = detail::plan_spgemm(info, {});
  EXPECT_EQ(p.spgemm, SpgemmKernel::CudaMaskedDot) << p.reason;
  p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::CudaRowwise));
  EXPECT_EQ(p.spgemm, SpgemmKernel::CudaRowwise);
  EXPECT_TRUE(p.forced);
  EXPECT_EQ(p.params.tile, detail::kCudaSpgemmTableMax);  // forcing keeps the bins' parameters
  info.dot_cost = std::int64_t{1} << 27;
  EXPECT_EQ(detail::plan_spgemm(info, {}).spgemm, SpgemmKernel::CudaRowwise);
  info.mask_complemented = true;
  p = detail::plan_spgemm(info, Descriptor().force(SpgemmKernel::CudaMaskedDot));
  EXPECT_EQ(p.spgemm, SpgemmKernel::CudaRowwise);
  EXPECT_NE(p.reason.find("complemented"), std::string::npos) << p.reason;
  // Rows too long for shared memory over 2^40 columns need slabs no device holds: the dot form
  // takes a plain mask, Auto goes to the CPU without one, and Device::Cuda is refused.
  info = cuda_info(1 << 10, std::int64_t{1} << 40, std::int64_t{1} << 30);
  p = detail::plan_spgemm(info, {});
  EXPECT_EQ(p.device, Device::Cpu) << p.reason;
  EXPECT_NE(p.reason.find("dense accumulator"), std::string::npos) << p.reason;
  info.requested = Device::Cuda;
  EXPECT_THROW(detail::plan_spgemm(info, {}), OutOfMemory);
  info.masked = true;
  info.dot_cost = std::int64_t{1} << 33;
  EXPECT_EQ(detail::plan_spgemm(info, {}).spgemm, SpgemmKernel::CudaMaskedDot);
}

TEST(MxmSparsePlanner, KernelNamesRoundTrip) {
  for (const SpgemmKernel k : kKernels) {
    EXPECT_EQ(parse_spgemm_kernel(to_string(k)), k);
  }
  for (const SpgemmKernel k : {SpgemmKernel::CudaRowwise, SpgemmKernel::CudaMaskedDot}) {
    EXPECT_EQ(parse_spgemm_kernel(to_string(k)), k);
  }
  EXPECT_EQ(parse_spgemm_kernel("nope"), std::nullopt);
}

TEST(MxmSparsePlanner, TriangleCountingPicksTheDotForm) {
  // L·L masked by L on a graph with hubs: the mask has nnz(L) entries, the row-wise form
  // multiplies the hubs' rows over and over.
  Ref r{2000, 2000, {}};
  std::mt19937_64 rng(3);
  for (int e = 0; e < 20000; ++e) {
    const std::int64_t i = rng() % 2000;
    const std::int64_t j = (rng() % 4 == 0) ? rng() % 20 : rng() % 2000;  // hubs 0..19
    if (i > j) r.e[{i, j}] = 1.0;
    if (j > i) r.e[{j, i}] = 1.0;
  }
  const auto L = to_graph<std::int32_t, Pattern>(r);
  const Plan p = plan_for_mxm<semiring::plus_pair<double>>(
      MatrixMask::structural(L), L, L, Descriptor().with_transpose_b().on(Device::Cpu));
  EXPECT_EQ(p.spgemm, SpgemmKernel::MaskedDot) << p.reason;
}

}  // namespace
}  // namespace spindle
