// SPDX-License-Identifier: Apache-2.0
// spindle/cuda/warm_up.hpp: starting and waiting are safe in any order and any number of times,
// with or without a CUDA device (without one, or in a build without CUDA, they do nothing), and
// operations after a warm-up give the same results as without one.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "spindle/cuda/warm_up.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/mxv.hpp"

namespace spindle {
namespace {

TEST(CudaWarmUp, WaitWithoutStartReturnsAndStartIsIdempotent) {
  cuda_warm_up_wait();
  std::vector<std::thread> starters;
  for (int i = 0; i < 4; ++i) starters.emplace_back([] { cuda_warm_up_start(); });
  for (auto& t : starters) t.join();
  cuda_warm_up_wait();
  cuda_warm_up_wait();
  cuda_warm_up_start();  // after a finished warm-up: nothing more to do
  cuda_warm_up_wait();
}

TEST(CudaWarmUp, AnOperationAfterTheWarmUpMatchesTheCpuBackend) {
  cuda_warm_up_start();
  // y = A x on the device Auto resolves to (CUDA when present), racing the warm-up if it still
  // runs, against the CPU backend.
  Graph<std::int32_t, float> A(3, 3, {0, 2, 3, 3}, {0, 2, 1}, {1.f, 2.f, 3.f});
  const Vector<float> x(std::vector<float>{1.f, 10.f, 100.f});
  Vector<float> got(3), want(3);
  const semiring::plus_times<float> pt{};
  mxv(got, Mask{}, Accum::none(), pt, A, x, Descriptor().on(resolve_device(Device::Auto)));
  mxv(want, Mask{}, Accum::none(), pt, A, x, Descriptor().on(Device::Cpu));
  cuda_warm_up_wait();
  ASSERT_EQ(got.size(), 3);
  for (std::int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got.present(i), want.present(i)) << i;
    if (want.present(i)) {
      EXPECT_EQ(got[i], want[i]) << i;
    }
  }
  EXPECT_EQ(want[0], 201.f);
  EXPECT_EQ(want[1], 30.f);
  EXPECT_FALSE(want.present(2));
}

}  // namespace
}  // namespace spindle
