// SPDX-License-Identifier: Apache-2.0
// Device residency: chains of CUDA operations keep vectors on the device (no silent round
// trips), host reads download once, host writes make the device copy stale, copies stay on the
// device, masks built from device vectors are not downloaded, allocation failures surface as
// OutOfMemory and leave the inputs untouched.
#include <gtest/gtest.h>

#include "cuda_test_util.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

using cuda_test::Family;

const Descriptor kCuda = Descriptor().on(Device::Cuda);

TEST(CudaResidency, ChainOfOperationsMovesNoVectorAndReadsOneScalar) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, Pattern>(Family::PowerLaw, 5003, 5003, 1);
  Vector<float> x(5003, 1.0f / 5003), y, z;
  mxv(y, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, x, kCuda);  // warm-up uploads
  reset_transfer_stats();
  for (int it = 0; it < 5; ++it) {
    mxv(y, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, x, kCuda);
    apply(z, Mask{}, Accum::none(), Unary<float>::times(0.85f), y, kCuda);
    ewise_add(x, Mask{}, Accum::none(), BinaryOp::Plus, z, z, kCuda);
  }
  const float s = reduce(MonoidKind::Plus, x, kCuda);
  const TransferStats t = transfer_stats();
  EXPECT_EQ(t.downloads, 0u) << "a vector went to the host inside the chain";
  EXPECT_EQ(t.uploads, 0u) << "a vector went to the device again inside the chain";
  EXPECT_EQ(t.graph_uploads, 0u) << "the graph was uploaded again";
  EXPECT_EQ(t.scalar_reads, 1u);
  EXPECT_GT(s, 0.0f);
  EXPECT_EQ(x.residency(), Residency::Device);
}

TEST(CudaResidency, HostReadDownloadsOnceAndMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::EmptyRuns, 3001, 3001, 2);
  const auto u = cuda_test::random_vector<float>(3001, 0.0, 3);
  Vector<float> g, c;
  mxv(g, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  mxv(c, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, Descriptor().on(Device::Cpu));
  reset_transfer_stats();
  EXPECT_TRUE(cuda_test::same_result(g, c, false));  // reads every entry through the accessors
  EXPECT_EQ(transfer_stats().downloads, 1u);
  EXPECT_EQ(g.residency(), Residency::Both);
}

TEST(CudaResidency, HostWriteMakesTheDeviceCopyStale) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::Uniform, 1001, 1001, 4);
  Vector<float> u(1001, 1.0f), w;
  mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  u[17] = 5.0f;  // host write: the device copy of u is stale
  EXPECT_EQ(u.residency(), Residency::Host);
  reset_transfer_stats();
  mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  EXPECT_EQ(transfer_stats().uploads, 1u);
  Vector<float> c;
  mxv(c, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, Descriptor().on(Device::Cpu));
  EXPECT_TRUE(cuda_test::same_result(w, c, false));
}

TEST(CudaResidency, CopyOfADeviceVectorStaysOnTheDevice) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::Uniform, 1001, 1001, 5);
  Vector<float> u(1001, 2.0f), w;
  mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  reset_transfer_stats();
  Vector<float> copy = w;
  EXPECT_EQ(copy.residency(), Residency::Device);
  EXPECT_EQ(transfer_stats().downloads, 0u);
  EXPECT_EQ(copy.values(), w.values());
}

TEST(CudaResidency, MaskFromADeviceVectorIsNotDownloaded) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 2001, 2001, 6);
  const auto u = cuda_test::random_vector<float>(2001, 0.0, 7);
  Vector<float> m, w(2001, 0.0f);
  mxv(m, Mask{}, Accum::none(), semiring::any_pair<float>{}, A, u, kCuda);  // m on the device
  reset_transfer_stats();
  mxv(w, Mask::structural(m, true), Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  EXPECT_EQ(transfer_stats().downloads, 0u);
  // The same mask on the CPU downloads m once, then both agree.
  Vector<float> c(2001, 0.0f);
  mxv(c, Mask::structural(m, true), Accum::none(), semiring::plus_times<float>{}, A, u,
      Descriptor().on(Device::Cpu));
  EXPECT_TRUE(cuda_test::same_result(w, c, false));
}

TEST(CudaResidency, InjectedDeviceAllocationFailureThrowsOutOfMemoryAndKeepsInputs) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 3001, 8);
  const auto u = cuda_test::random_vector<float>(3001, 0.0, 9);
  const std::vector<float> u_before = u.values();
  Vector<float> w(3001, 1.0f);
  {
    debug::ScopedAllocationFailure fail(1, debug::AllocationFilter::Device);
    EXPECT_THROW(mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda),
                 OutOfMemory);
  }
  EXPECT_EQ(u.values(), u_before);
  // Nothing half-built stays cached: the next call works.
  Vector<float> c;
  mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  mxv(c, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, Descriptor().on(Device::Cpu));
  EXPECT_TRUE(cuda_test::same_result(w, c, false));
}

}  // namespace
}  // namespace spindle

namespace spindle {
namespace {

TEST(CudaResources, ReleasedHandlesAndScratchAreRecreatedByTheNextCall) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 4001, 4001, 7);
  const auto u = cuda_test::random_vector<float>(4001, 0.0, 8);
  Vector<float> want;
  mxv(want, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u,
      Descriptor().on(Device::Cpu));
  for (MxvKernel k : {MxvKernel::Cusparse, MxvKernel::NnzSplitSegmented}) {
    for (int round = 0; round < 2; ++round) {
      Vector<float> got;
      mxv(got, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u,
          Descriptor(kCuda).force(k));
      EXPECT_TRUE(cuda_test::same_result(got, want, false)) << to_string(k) << " round " << round;
      const float s = reduce(MonoidKind::Plus, got, kCuda);  // uses the scratch workspace
      EXPECT_GT(s, 0.0f);
      release_device_resources();  // handles and scratch freed; the next call makes new ones
    }
  }
  release_device_resources();  // twice in a row is harmless
}

}  // namespace
}  // namespace spindle
