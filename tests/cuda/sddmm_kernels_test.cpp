// SPDX-License-Identifier: Apache-2.0
// GPU SDDMM: every kernel variant (forced through the Plan) against the naive oracle of
// mxm_test_util.hpp, for odd and even K, every semiring, int64, pattern and double values,
// accumulators and a transposed Y. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuda/mxm_test_util.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle::test {
namespace {

std::vector<SddmmKernel> sddmm_kernels(bool plus_times) {
  std::vector<SddmmKernel> k = {SddmmKernel::Vct, SddmmKernel::Iir, SddmmKernel::Wmt,
                                SddmmKernel::Generic};
  if (plus_times) k.push_back(SddmmKernel::Cusparse);
  return k;
}

Plan sddmm_plan(SddmmKernel k) {
  Plan p;
  p.op = OpKind::Sddmm;
  p.device = Device::Cuda;
  p.sddmm = k;
  p.forced = true;
  return p;
}

template <class S, class I, class V>
void check_sddmm(const Csr& m, std::int64_t K, std::uint64_t seed, Accum accum = {},
                 bool transpose_b = false) {
  using T = typename S::value_type;
  const Graph<I, V> G = to_graph<I, V>(m);
  const DenseMatrix<T> X = random_dense<T>(m.rows, K, seed);
  const DenseMatrix<T> Y = random_dense<T>(m.cols, K, seed + 1);
  DenseMatrix<T> Yt(K, m.cols);
  for (std::int64_t j = 0; j < m.cols; ++j) {
    for (std::int64_t c = 0; c < K; ++c) Yt(c, j) = Y(j, c);
  }
  std::vector<T> base(static_cast<std::size_t>(m.nnz()));
  for (std::size_t e = 0; e < base.size(); ++e) base[e] = static_cast<T>(double(e % 11) - 5.0);
  std::vector<T> expect = base;
  ref_sddmm<T>(S::kind, m, is_pattern_v<V>, X, Y, accum, expect);
  for (SddmmKernel k : sddmm_kernels(S::kind == SemiringKind::PlusTimes)) {
    SCOPED_TRACE(std::string(to_string(k)) + ", K = " + std::to_string(K));
    std::vector<T> out = base;
    if (!accum.enabled) out.assign(out.size(), std::numeric_limits<T>::quiet_NaN());
    Plan p = sddmm_plan(k);
    detail::SddmmInfo info;
    info.semiring = S::kind;
    info.value = value_kind_of<T>();
    info.matrix_value = value_kind_of<V>();
    info.index = index_kind_of<I>();
    info.k = K;
    info.accum = accum.enabled;
    info.transpose_b = transpose_b;
    info.precompiled = detail::cuda_precompiled(OpKind::Sddmm, S::kind);
    const std::string why = detail::finalize_sddmm_cuda(p, G.stats(), info);
    if (why.empty()) {
      detail::cuda::sddmm<S>(p, out, accum, G, X, transpose_b ? Yt : Y, transpose_b);
    } else {
      // A specialized kernel for a semiring the build did not precompile: the public call
      // forcing it falls back to the generic kernels, and its plan says so.
      EXPECT_FALSE(info.precompiled) << why;
      Descriptor d;
      d.device = Device::Cuda;
      d.transpose_b = transpose_b;
      d.sddmm_kernel = k;
      const Plan shown = plan_for_sddmm<S>(G, K, d);
      EXPECT_EQ(shown.sddmm, SddmmKernel::Generic) << shown.describe();
      sddmm(out, accum, S{}, G, X, transpose_b ? Yt : Y, d);
    }
    const std::int64_t bad = first_mismatch(out.data(), expect.data(), m.nnz());
    if (bad >= 0) {
      ADD_FAILURE() << "first mismatch at entry " << bad << ": got " << out[bad] << ", expected "
                    << expect[bad];
    }
  }
}

const std::int64_t kDepths[] = {1, 2, 3, 4, 5, 16, 31, 32, 33, 64, 100, 128, 256};

// One test per shape, per semiring and per depth (rather than one test looping over them): the
// same cases, but gtest shards can spread them, which is what lets compute-sanitizer's racecheck
// (~100x slower) get through the suite in one run.
class SddmmCudaShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(SddmmCudaShapes, EveryKernelMatchesOracleOnEveryDepthPlusTimesFloat) {
  SPINDLE_SKIP_WITHOUT_GPU();
  std::uint64_t seed = 500 + 16 * static_cast<std::uint64_t>(GetParam());
  const Csr m = make_shape(GetParam(), seed++);
  for (std::int64_t K : kDepths) {
    check_sddmm<semiring::plus_times<float>, std::int32_t, float>(m, K, seed++);
  }
}

INSTANTIATE_TEST_SUITE_P(AllShapes, SddmmCudaShapes,
                         ::testing::Values(Shape::PowerLaw, Shape::DenseRow5000, Shape::MostlyEmpty,
                                           Shape::Uniform, Shape::LongRows, Shape::Tiny),
                         [](const ::testing::TestParamInfo<Shape>& i) {
                           return std::string(shape_name(i.param));
                         });

template <class S>
void every_sddmm_kernel_for_semiring(std::uint64_t seed) {
  SCOPED_TRACE(to_string(S::kind));
  const Csr m = make_shape(Shape::PowerLaw, seed);
  for (std::int64_t K : {1, 7, 32, 33, 130}) check_sddmm<S, std::int32_t, float>(m, K, seed + K);
}

#define SPINDLE_SDDMM_SEMIRING_TEST(Name, semiring_t, seed)             \
  TEST(SddmmCudaSemirings, EveryKernelMatchesOracleFor##Name) {         \
    SPINDLE_SKIP_WITHOUT_GPU();                                         \
    every_sddmm_kernel_for_semiring<semiring::semiring_t<float>>(seed); \
  }
SPINDLE_TEST_BUILTIN_SEMIRINGS(SPINDLE_SDDMM_SEMIRING_TEST)
#undef SPINDLE_SDDMM_SEMIRING_TEST

class SddmmCudaDepths : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(SddmmCudaDepths, EveryKernelMatchesOracleWithInt64IndicesPatternAndDoubleValues) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::PowerLaw, 41);
  const std::int64_t K = GetParam();
  check_sddmm<semiring::plus_times<float>, std::int64_t, float>(m, K, 1 + K);
  check_sddmm<semiring::plus_times<float>, std::int32_t, Pattern>(m, K, 2 + K);
  check_sddmm<semiring::plus_times<double>, std::int64_t, Pattern>(m, K, 3 + K);
  check_sddmm<semiring::plus_times<double>, std::int32_t, float>(m, K, 4 + K);
  check_sddmm<semiring::max_plus<double>, std::int64_t, double>(m, K, 5 + K);
}

INSTANTIATE_TEST_SUITE_P(Depths, SddmmCudaDepths, ::testing::Values(3, 32, 100));

TEST(SddmmCuda, AccumulatorsAndTransposedYMatchOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::DenseRow5000, 8);
  for (std::int64_t K : {5, 64}) {
    check_sddmm<semiring::plus_times<float>, std::int32_t, float>(m, K, 11, Accum::plus());
    check_sddmm<semiring::max_plus<float>, std::int32_t, float>(m, K, 12, Accum::max());
    check_sddmm<semiring::plus_times<float>, std::int32_t, float>(m, K, 13, Accum{}, true);
  }
}

}  // namespace
}  // namespace spindle::test
