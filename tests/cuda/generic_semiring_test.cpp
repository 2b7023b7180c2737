// SPDX-License-Identifier: Apache-2.0
// Every built-in semiring on CUDA against the CPU backend, for mxv, vxm, mxm and sddmm over
// float/double semirings, int32/int64 indices and float/double/pattern graphs: the semirings a
// build precompiles through their specialized kernels and through the generic kernels (forced),
// the others through the generic kernels (their only path). Graphs carry rows longer than the
// generic kernels' long-row bound, so both of their kernels run. GPU tests: skipped without a
// device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "spindle/debug/launches.hpp"
#include "spindle/dense.hpp"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle {
namespace {

using cuda_test::Family;

Descriptor on(Device d) {
  Descriptor desc;
  desc.device = d;
  return desc;
}

Descriptor generic_cuda() {
  Descriptor d = on(Device::Cuda);
  d.mxv_kernel = MxvKernel::Generic;
  d.mxm_kernel = MxmKernel::Generic;
  d.sddmm_kernel = SddmmKernel::Generic;
  return d;
}

template <class T>
DenseMatrix<T> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  DenseMatrix<T> m(rows, cols);
  for (std::int64_t i = 0; i < rows * cols; ++i) {
    m.data()[i] = static_cast<T>(static_cast<int>(rng() % 17) - 6) / T(4);
  }
  return m;
}

template <class T>
::testing::AssertionResult same_dense(const T* got, const T* want, std::int64_t n, bool exact) {
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-11;
  for (std::int64_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]);
    const double w = static_cast<double>(want[i]);
    const bool same_inf = std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0);
    const bool ok = exact ? (g == w || same_inf)
                          : (same_inf || std::fabs(g - w) <= tol * std::max(1.0, std::fabs(w)));
    if (!ok) {
      return ::testing::AssertionFailure()
             << "element " << i << ": CUDA " << g << ", CPU " << w << " (of " << n << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// Calls f(S{}, "name") for every built-in semiring over T.
template <class T, class F>
void each_semiring(F&& f) {
  for (SemiringKind k : kBuiltinSemirings) {
    visit_semiring<T>(k, [&](auto s) { f(s, std::string(to_string(k))); });
  }
}

// The graph shapes: skewed rows with one longer than every generic long-row bound, and even
// ones.
template <class I, class V>
std::vector<Graph<I, V>> graphs() {
  std::vector<Graph<I, V>> g;
  g.push_back(cuda_test::make_graph<I, V>(Family::HugeRow, 1500, 2600, 11));
  g.push_back(cuda_test::make_graph<I, V>(Family::PowerLaw, 1203, 1100, 12));
  g.push_back(cuda_test::make_graph<I, V>(Family::EmptyRuns, 2000, 700, 13));
  return g;
}

template <class T, class I, class V>
void check_mxv_all() {
  for (const Graph<I, V>& A : graphs<I, V>()) {
    SCOPED_TRACE(std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ", " +
                 std::to_string(A.nnz()) + " entries");
    each_semiring<T>([&](auto s, const std::string& name) {
      using S = decltype(s);
      SCOPED_TRACE(name);
      const bool exact = cuda_test::exact_semiring(S::kind);
      const Vector<T> u = cuda_test::random_vector<T>(A.cols(), 0.0, 21);
      const Vector<T> u_sparse = cuda_test::random_vector<T>(A.cols(), 0.4, 22);
      const Vector<T> ut = cuda_test::random_vector<T>(A.rows(), 0.3, 23);
      const Vector<T> m = cuda_test::random_vector<T>(A.rows(), 0.5, 24);
      for (const Descriptor& cuda : {on(Device::Cuda), generic_cuda()}) {
        // plain mxv
        Vector<T> want(A.rows()), got(A.rows());
        mxv(want, Mask{}, Accum::none(), s, A, u, on(Device::Cpu));
        mxv(got, Mask{}, Accum::none(), s, A, u, cuda);
        EXPECT_TRUE(cuda_test::same_result(got, want, exact)) << "plain mxv";
        // masked, accumulated, with absent inputs
        Vector<T> w0 = cuda_test::random_vector<T>(A.rows(), 0.2, 25);
        Vector<T> want2 = w0, got2 = w0;
        mxv(want2, Mask::structural(m), Accum::with(BinaryOp::Max), s, A, u_sparse,
            on(Device::Cpu));
        mxv(got2, Mask::structural(m), Accum::with(BinaryOp::Max), s, A, u_sparse, cuda);
        EXPECT_TRUE(cuda_test::same_result(got2, want2, exact)) << "masked mxv";
        // vxm over the transpose, complemented mask, replace
        Descriptor cpu_r = on(Device::Cpu);
        cpu_r.replace = true;
        Descriptor cuda_r = cuda;
        cuda_r.replace = true;
        Vector<T> want3 = cuda_test::random_vector<T>(A.cols(), 0.3, 26);
        Vector<T> got3 = want3;
        const Vector<T> cm = cuda_test::random_vector<T>(A.cols(), 0.5, 27);
        vxm(want3, Mask::structural(cm, true), Accum::none(), s, ut, A, cpu_r);
        vxm(got3, Mask::structural(cm, true), Accum::none(), s, ut, A, cuda_r);
        EXPECT_TRUE(cuda_test::same_result(got3, want3, exact)) << "vxm";
      }
    });
  }
}

template <class T, class I, class V>
void check_mxm_all() {
  for (const Graph<I, V>& A : graphs<I, V>()) {
    SCOPED_TRACE(std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
    each_semiring<T>([&](auto s, const std::string& name) {
      using S = decltype(s);
      SCOPED_TRACE(name);
      const bool exact = cuda_test::exact_semiring(S::kind);
      for (std::int64_t n : {1, 5, 32}) {
        SCOPED_TRACE("N = " + std::to_string(n));
        const DenseMatrix<T> B = random_dense<T>(A.cols(), n, 31 + n);
        for (const Descriptor& cuda : {on(Device::Cuda), generic_cuda()}) {
          DenseMatrix<T> want, got;
          mxm(want, Accum::none(), s, A, B, on(Device::Cpu));
          mxm(got, Accum::none(), s, A, B, cuda);
          EXPECT_TRUE(same_dense(got.data(), want.data(), want.size(), exact)) << "mxm";
          // C += A^T B^T (transposes and an accumulator)
          Descriptor cpu_t = on(Device::Cpu);
          cpu_t.transpose_a = cpu_t.transpose_b = true;
          Descriptor cuda_t = cuda;
          cuda_t.transpose_a = cuda_t.transpose_b = true;
          const DenseMatrix<T> Bt = random_dense<T>(n, A.rows(), 41 + n);
          DenseMatrix<T> want2 = random_dense<T>(A.cols(), n, 51);
          DenseMatrix<T> got2 = want2;
          mxm(want2, Accum::with(BinaryOp::Min), s, A, Bt, cpu_t);
          mxm(got2, Accum::with(BinaryOp::Min), s, A, Bt, cuda_t);
          EXPECT_TRUE(same_dense(got2.data(), want2.data(), want2.size(), exact))
              << "mxm transposed";
        }
      }
    });
  }
}

template <class T, class I, class V>
void check_sddmm_all() {
  for (const Graph<I, V>& S : graphs<I, V>()) {
    SCOPED_TRACE(std::to_string(S.rows()) + " x " + std::to_string(S.cols()));
    each_semiring<T>([&](auto s, const std::string& name) {
      using Sr = decltype(s);
      SCOPED_TRACE(name);
      const bool exact = cuda_test::exact_semiring(Sr::kind);
      for (std::int64_t k : {3, 16, 40}) {
        SCOPED_TRACE("K = " + std::to_string(k));
        const DenseMatrix<T> X = random_dense<T>(S.rows(), k, 61 + k);
        const DenseMatrix<T> Y = random_dense<T>(S.cols(), k, 71 + k);
        for (const Descriptor& cuda : {on(Device::Cuda), generic_cuda()}) {
          std::vector<T> want, got;
          sddmm(want, Accum::none(), s, S, X, Y, on(Device::Cpu));
          sddmm(got, Accum::none(), s, S, X, Y, cuda);
          ASSERT_EQ(got.size(), want.size());
          EXPECT_TRUE(
              same_dense(got.data(), want.data(), static_cast<std::int64_t>(want.size()), exact))
              << "sddmm";
        }
      }
    });
  }
}

#define SPINDLE_GENERIC_TESTS_(T, I, V, NAME)                      \
  TEST(GenericSemirings, MxvVxmMatchCpuForEverySemiring_##NAME) {  \
    SPINDLE_REQUIRE_CUDA();                                        \
    check_mxv_all<T, I, V>();                                      \
  }                                                                \
  TEST(GenericSemirings, MxmMatchesCpuForEverySemiring_##NAME) {   \
    SPINDLE_REQUIRE_CUDA();                                        \
    check_mxm_all<T, I, V>();                                      \
  }                                                                \
  TEST(GenericSemirings, SddmmMatchesCpuForEverySemiring_##NAME) { \
    SPINDLE_REQUIRE_CUDA();                                        \
    check_sddmm_all<T, I, V>();                                    \
  }

SPINDLE_GENERIC_TESTS_(float, std::int32_t, float, F32I32Float)
SPINDLE_GENERIC_TESTS_(float, std::int32_t, Pattern, F32I32Pattern)
SPINDLE_GENERIC_TESTS_(float, std::int64_t, double, F32I64Double)
SPINDLE_GENERIC_TESTS_(double, std::int32_t, float, F64I32Float)
SPINDLE_GENERIC_TESTS_(double, std::int64_t, double, F64I64Double)
SPINDLE_GENERIC_TESTS_(double, std::int64_t, Pattern, F64I64Pattern)

// The plan names the generic kernels for a semiring the build did not precompile, and the kernel
// that runs is the one planned.
TEST(GenericSemirings, NotPrecompiledSemiringsArePlannedAndRunGeneric) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 900, 800, 5);
  const Vector<float> u = cuda_test::random_vector<float>(A.cols(), 0.0, 1);
  bool saw_generic = false;
  each_semiring<float>([&](auto s, const std::string& name) {
    using S = decltype(s);
    SCOPED_TRACE(name);
    const Plan p = plan_for_mxv<S>(A, Mask{}, Accum::none(), on(Device::Cuda));
    if (detail::cuda_precompiled(OpKind::Mxv, S::kind)) {
      EXPECT_NE(p.mxv, MxvKernel::Generic) << p.describe();
      return;
    }
    saw_generic = true;
    EXPECT_EQ(p.mxv, MxvKernel::Generic) << p.describe();
    EXPECT_NE(p.reason.find("not precompiled"), std::string::npos) << p.reason;
    debug::record_launches(true);
    Vector<float> w(A.rows());
    mxv(w, Mask{}, Accum::none(), s, A, u, on(Device::Cuda));
    const auto runs = debug::recorded_launches();
    debug::record_launches(false);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].mxv, MxvKernel::Generic);
    EXPECT_EQ(runs[0].params.lanes_per_row, p.params.lanes_per_row);
  });
  EXPECT_TRUE(saw_generic) << "every built-in semiring is precompiled in this build";
}

}  // namespace
}  // namespace spindle
