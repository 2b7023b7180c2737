// SPDX-License-Identifier: Apache-2.0
// The CUDA element-wise, assignment and reduction operations against the CPU backend, with
// absent entries, masks, accumulators and replace; scalar reductions deterministic run to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

const Descriptor kCpu = Descriptor().on(Device::Cpu);

template <class T>
std::vector<Mask> masks_of(const Vector<T>& m) {
  return {Mask{}, Mask::value(m), Mask::value(m, true), Mask::structural(m),
          Mask::structural(m, true)};
}

// Runs op(w, desc) on the CPU and on CUDA from the same starting w and compares.
template <class T, class Op>
void expect_same(const Vector<T>& w0, Op op, const char* what, bool exact = true) {
  Vector<T> want = w0, got = w0;
  op(want, kCpu);
  op(got, Descriptor().on(Device::Cuda));
  EXPECT_TRUE(cuda_test::same_result(got, want, exact)) << what;
}

template <class T>
void check_vector_ops() {
  const std::int64_t n = 10007;
  const auto u = cuda_test::random_vector<T>(n, 0.3, 1);
  const auto v = cuda_test::random_vector<T>(n, 0.5, 2);
  const auto full = cuda_test::random_vector<T>(n, 0.0, 3);
  const auto mvec = cuda_test::random_vector<std::int32_t>(n, 0.3, 4);
  for (const Vector<T>* w0 : {&full, &v}) {
    for (const Mask& m : masks_of(mvec)) {
      for (Accum acc : {Accum::none(), Accum::plus()}) {
        for (bool rep : {false, true}) {
          auto d = [&](Descriptor x) { return x.with_replace(rep); };
          expect_same(
              *w0,
              [&](Vector<T>& w, Descriptor x) {
                ewise_add(w, m, acc, BinaryOp::Times, u, v, d(x));
              },
              "ewise_add");
          expect_same(
              *w0,
              [&](Vector<T>& w, Descriptor x) {
                ewise_mult(w, m, acc, BinaryOp::Min, u, full, d(x));
              },
              "ewise_mult");
          expect_same(
              *w0,
              [&](Vector<T>& w, Descriptor x) { apply(w, m, acc, Unary<T>::plus(T(3)), u, d(x)); },
              "apply");
          expect_same(
              *w0, [&](Vector<T>& w, Descriptor x) { assign(w, m, acc, T(7), d(x)); },
              "assign scalar");
          for (const Vector<T>* in : {&u, &full}) {
            expect_same(
                *w0, [&](Vector<T>& w, Descriptor x) { apply_index(w, m, acc, *in, T(2), d(x)); },
                "apply_index");
          }
          expect_same(
              *w0, [&](Vector<T>& w, Descriptor x) { assign(w, m, acc, u, d(x)); },
              "assign vector");
          expect_same(
              *w0,
              [&](Vector<T>& w, Descriptor x) {
                assign(w, m, acc, T(2), std::vector<std::int64_t>{5, 9, 5, n - 1}, d(x));
              },
              "assign scalar to a list");
        }
      }
    }
  }
}

TEST(VectorOpsCuda, ElementWiseAndAssignMatchCpuWithMasksAccumAndReplace) {
  SPINDLE_REQUIRE_CUDA();
  check_vector_ops<float>();
  check_vector_ops<double>();
  check_vector_ops<std::int32_t>();
  check_vector_ops<std::int64_t>();
}

// assign(w, mask, accum, s, idx) runs on the device: against the CPU backend over every kind of w
// (full, with absent entries, empty on the host, empty born on the device, device-resident),
// masks (also structural and valued ones built from w itself, with s = 0 changing what a valued
// one selects), accumulators, replace, and lists that are empty, one index, all indices, or long
// with many repeats (a repeated index is assigned once, which an accumulator shows); a w whose
// device copy is current is used in place: nothing is downloaded or uploaded.
template <class T>
void check_scalar_list_assign() {
  cuda_test::PoisonOutputs poison;
  const std::int64_t n = 40009;
  const auto sparse = cuda_test::random_vector<T>(n, 0.6, 11);
  const auto full = cuda_test::random_vector<T>(n, 0.0, 12);
  const auto mvec = cuda_test::random_vector<std::int32_t>(n, 0.4, 13);
  std::mt19937_64 rng(14);
  std::vector<std::int64_t> many(static_cast<std::size_t>(3 * n / 2));
  for (auto& i : many) i = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n / 3));
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = n - 1 - i;
  const std::vector<std::vector<std::int64_t>> lists{{}, {n / 2}, {0, 7, 7, n - 1, 7}, many, all};
  const Vector<T> empty = Vector<T>::empty(n);
  Vector<T> born(n);  // as the algorithms make an empty vector on the device: no host array
  assign(born, Mask::structural(born, true), Accum::none(), T{},
         Descriptor().on(Device::Cuda).with_replace(true));
  for (const Vector<T>* w0 : {&full, &sparse, &empty, static_cast<const Vector<T>*>(&born)}) {
    for (const Mask& m : masks_of(mvec)) {
      for (Accum acc : {Accum::none(), Accum::plus(), Accum::min()}) {
        for (bool rep : {false, true}) {
          for (const auto& idx : lists) {
            expect_same(
                *w0,
                [&](Vector<T>& w, Descriptor x) {
                  assign(w, m, acc, T(3), idx, x.with_replace(rep));
                },
                "assign scalar to a list");
          }
        }
      }
    }
    // The mask is w itself (read before w changes, as on the CPU).
    for (bool complement : {false, true}) {
      for (Accum acc : {Accum::none(), Accum::plus()}) {
        for (bool rep : {false, true}) {
          for (T s : {T(5), T(0)}) {
            expect_same(
                *w0,
                [&](Vector<T>& w, Descriptor x) {
                  assign(w, Mask::structural(w, complement), acc, s, many, x.with_replace(rep));
                },
                "assign scalar to a list under w's own structure");
            expect_same(
                *w0,
                [&](Vector<T>& w, Descriptor x) {
                  assign(w, Mask::value(w, complement), acc, s, many, x.with_replace(rep));
                },
                "assign scalar to a list under w's own values");
          }
        }
      }
    }
  }
  // A device-resident w stays there: no download, no upload, the result on the device.
  Vector<T> w = sparse;
  apply(w, Mask{}, Accum::none(), Unary<T>::plus(T(1)), sparse, Descriptor().on(Device::Cuda));
  Vector<T> want = w;
  want.sync_to_host();
  assign(want, Mask::structural(mvec), Accum::plus(), T(2), many, kCpu);
  reset_transfer_stats();
  assign(w, Mask::structural(mvec), Accum::plus(), T(2), many, Descriptor().on(Device::Cuda));
  const TransferStats t = transfer_stats();
  EXPECT_EQ(t.downloads, 0u);
  EXPECT_EQ(t.uploads, 0u);
  EXPECT_EQ(w.residency(), Residency::Device);
  EXPECT_TRUE(cuda_test::same_result(w, want, true));
}

TEST(VectorOpsCuda, ScalarAssignToAnIndexListRunsOnTheDeviceAndMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  check_scalar_list_assign<float>();
  check_scalar_list_assign<double>();
  check_scalar_list_assign<std::int32_t>();
  check_scalar_list_assign<std::int64_t>();
}

TEST(VectorOpsCuda, ReductionsMatchCpuAndAreBitIdenticalRunToRun) {
  SPINDLE_REQUIRE_CUDA();
  for (std::int64_t n : {1, 4095, 8192, 100003}) {
    const auto u = cuda_test::random_vector<double>(n, 0.2, 10 + n);
    const auto f = cuda_test::random_vector<float>(n, 0.0, 20 + n);
    const auto g = cuda_test::random_vector<float>(n, 0.4, 30 + n);
    for (MonoidKind m : {MonoidKind::Plus, MonoidKind::Min, MonoidKind::Max, MonoidKind::Any,
                         MonoidKind::LOr, MonoidKind::LAnd, MonoidKind::Times}) {
      const double want = reduce(m, u, kCpu);
      const double got = reduce(m, u, Descriptor().on(Device::Cuda));
      if ((m == MonoidKind::Plus || m == MonoidKind::Times) && std::isfinite(want)) {
        EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << n;
      } else {
        EXPECT_EQ(got, want) << "monoid " << static_cast<int>(m) << " n " << n;
      }
    }
    const float l1c = l1_distance(f, g, kCpu);
    const float l1g = l1_distance(f, g, Descriptor().on(Device::Cuda));
    EXPECT_NEAR(l1g, l1c, 1e-4f * std::max(1.0f, l1c));
    for (int run = 0; run < 3; ++run) {
      EXPECT_EQ(l1_distance(f, g, Descriptor().on(Device::Cuda)), l1g);
      EXPECT_EQ(reduce(MonoidKind::Plus, f, Descriptor().on(Device::Cuda)),
                reduce(MonoidKind::Plus, f, Descriptor().on(Device::Cuda)));
    }
  }
}

TEST(VectorOpsCuda, RowReductionsMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto A =
      cuda_test::make_graph<std::int32_t, float>(cuda_test::Family::EmptyRuns, 4099, 1999, 40);
  const auto P =
      cuda_test::make_graph<std::int64_t, Pattern>(cuda_test::Family::PowerLaw, 3001, 2777, 41);
  const auto mvec = cuda_test::random_vector<std::uint8_t>(4099, 0.3, 42);
  const auto L =
      cuda_test::make_graph<std::int32_t, float>(cuda_test::Family::LongRows, 1031, 997, 43);
  const auto lmask = cuda_test::random_vector<std::uint8_t>(1031, 0.3, 44);
  for (MonoidKind m : {MonoidKind::Plus, MonoidKind::Max}) {
    for (bool tr : {false, true}) {
      auto d = [&](Descriptor x) { return x.with_transpose_a(tr); };
      const std::int64_t n = tr ? A.cols() : A.rows();
      expect_same(
          Vector<double>(n, 0.0),
          [&](Vector<double>& w, Descriptor x) {
            reduce_rows(w, Mask{}, Accum::none(), m, A, d(x));
          },
          "reduce_rows");
      expect_same(
          Vector<float>(tr ? P.cols() : P.rows(), 0.0f),
          [&](Vector<float>& w, Descriptor x) {
            reduce_rows(w, Mask{}, Accum::none(), m, P, d(x));
          },
          "reduce_rows pattern");
    }
    expect_same(
        Vector<double>(4099, 1.0),
        [&](Vector<double>& w, Descriptor x) {
          reduce_rows(w, Mask::value(mvec), Accum::plus(), m, A, x.with_replace(true));
        },
        "reduce_rows masked");
    // Over a full old output, no replace: the result stays full (no presence bytes on the
    // device, ops/cuda/common/output_rule.hpp), with or without an accumulator.
    for (Accum acc : {Accum::none(), Accum::max()}) {
      expect_same(
          Vector<double>(L.rows(), 1.0),
          [&](Vector<double>& w, Descriptor x) {
            reduce_rows(w, Mask::value(lmask, true), acc, m, L, x);
          },
          "reduce_rows masked over a full output");
    }
    expect_same(
        Vector<double>(4099, 1.0),
        [&](Vector<double>& w, Descriptor x) { reduce_rows(w, Mask{}, Accum::plus(), m, A, x); },
        "reduce_rows accumulated over empty rows");
  }
}

// NaN terms: every reduction folds as if from the identity on both backends, so Min / Max skip a
// NaN wherever it stands (first, last, alone) and Plus / Times propagate it; the same for row
// reductions whose first stored entry is NaN.
TEST(VectorOpsCuda, ReductionsTreatNaNTermsAsTheCpuBackend) {
  SPINDLE_REQUIRE_CUDA();
  const double nan = std::nan("");
  const Descriptor gpu = Descriptor().on(Device::Cuda);
  const std::vector<std::vector<double>> cases = {
      {nan, 2.0, -1.0, nan}, {nan, nan}, {3.0, nan}, {nan}, {-0.0}, {0.0, -0.0, nan, 7.5}};
  for (const auto& c : cases) {
    // Also past one tile of the device reduction, with the NaNs at tile edges.
    for (std::size_t reps : {std::size_t{1}, std::size_t{5000}}) {
      std::vector<double> values;
      for (std::size_t r = 0; r < reps; ++r) values.insert(values.end(), c.begin(), c.end());
      const Vector<double> u(values);
      const Vector<float> f(std::vector<float>(values.begin(), values.end()));
      for (MonoidKind m : {MonoidKind::Plus, MonoidKind::Min, MonoidKind::Max, MonoidKind::Any,
                           MonoidKind::LOr, MonoidKind::LAnd, MonoidKind::Times}) {
        const double want = reduce(m, u, kCpu), got = reduce(m, u, gpu);
        const float wantf = reduce(m, f, kCpu), gotf = reduce(m, f, gpu);
        const std::string what = "monoid " + std::to_string(static_cast<int>(m)) + ", " +
                                 std::to_string(values.size()) + " values";
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << what << ": " << got;
        } else if (m == MonoidKind::Plus || m == MonoidKind::Times) {
          EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << what;
        } else {
          EXPECT_EQ(got, want) << what;
          EXPECT_EQ(std::signbit(got), std::signbit(want)) << what;
        }
        if (std::isnan(wantf)) {
          EXPECT_TRUE(std::isnan(gotf)) << what << " (float): " << gotf;
        } else if (m != MonoidKind::Plus && m != MonoidKind::Times) {
          EXPECT_EQ(gotf, wantf) << what << " (float)";
        }
      }
    }
  }
  // Rows whose first (or only, or every) stored entry is NaN.
  const std::vector<std::int32_t> rp = {0, 3, 4, 6, 6, 9};
  const std::vector<std::int32_t> ci = {0, 1, 2, 1, 0, 2, 0, 1, 2};
  const std::vector<double> vals = {nan, 4.0, -2.0, nan, nan, nan, 1.0, nan, 3.0};
  const Graph<std::int32_t, double> A(5, 3, rp, ci, vals);
  for (MonoidKind m : {MonoidKind::Min, MonoidKind::Max, MonoidKind::Plus, MonoidKind::LOr}) {
    Vector<double> want, got;
    reduce_rows(want, Mask{}, Accum::none(), m, A, kCpu);
    reduce_rows(got, Mask{}, Accum::none(), m, A, gpu);
    ASSERT_EQ(got.size(), want.size());
    for (std::int64_t i = 0; i < want.size(); ++i) {
      const std::string what =
          "row " + std::to_string(i) + ", monoid " + std::to_string(static_cast<int>(m));
      ASSERT_EQ(got.present(i), want.present(i)) << what;
      if (!want.present(i)) continue;
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << what;
      } else {
        EXPECT_EQ(got[i], want[i]) << what;
      }
    }
  }
}

}  // namespace
}  // namespace spindle
