// SPDX-License-Identifier: Apache-2.0
// Device residency: chains of CUDA operations keep vectors on the device (no silent round
// trips), host reads download once, host writes make the device copy stale, copies stay on the
// device, masks built from device vectors are not downloaded, allocation failures surface as
// OutOfMemory and leave the inputs untouched, vectors built with a fill value are filled on the
// device and never uploaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cuda_test_util.hpp"
#include "deferred_host_util.hpp"
#include "spindle/cuda/external.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"
#include "spindle/version.hpp"
#if SPINDLE_HAS_CUDA
#include <cuda_runtime.h>

#include "engine/src/cuda/transfer.hpp"
#endif

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

// A vector built with a size and a fill value has no host array until the host needs one
// (spindle/vector.hpp): the device fills its copy itself, nothing is uploaded, and every use
// still sees the filled vector.
using test::host_array_made;

TEST(CudaResidency, VectorBuiltWithAFillIsFilledOnTheDeviceNotUploaded) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 4001, 4001, 10);
  // 0 (equal bytes) takes a memset, the others the fill kernel.
  for (float fill : {0.0f, 0.25f, -1.5f}) {
    Vector<float> u(4001, fill), g;
    reset_transfer_stats();
    mxv(g, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
    EXPECT_EQ(transfer_stats().uploads, 0u) << fill;
    EXPECT_EQ(transfer_stats().upload_bytes, 0u) << fill;
    EXPECT_FALSE(host_array_made(u)) << fill;
    Vector<float> c;  // the CPU reads u's host array, made from the fill
    mxv(c, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u,
        Descriptor().on(Device::Cpu));
    EXPECT_TRUE(cuda_test::same_result(g, c, false)) << fill;
    EXPECT_EQ(u.values(), std::vector<float>(4001, fill));
  }
  // Sums that are exact in the type: every element of the device copy holds the fill.
  EXPECT_EQ(reduce(MonoidKind::Plus, Vector<double>(4001, 0.5), kCuda), 2000.5);
  EXPECT_EQ(reduce(MonoidKind::Plus, Vector<float>(1000, 0.25f), kCuda), 250.0f);
  EXPECT_EQ(reduce(MonoidKind::Min, Vector<double>(777, -2.0), kCuda), -2.0);
  // A value whose four bytes are equal but not zero (0x40404040) takes the memset: min and max
  // over the device copy are that value exactly.
  const std::uint32_t bits = 0x40404040u;
  float same_bytes = 0.0f;
  std::memcpy(&same_bytes, &bits, sizeof bits);
  const Vector<float> sb(4001, same_bytes);
  EXPECT_EQ(reduce(MonoidKind::Min, sb, kCuda), same_bytes);
  EXPECT_EQ(reduce(MonoidKind::Max, sb, kCuda), same_bytes);
  // fill() after the device copy was filled: the next device read fills it again, anew.
  Vector<float> f(3000, 1.0f);
  EXPECT_EQ(reduce(MonoidKind::Plus, f, kCuda), 3000.0f);
  f.fill(2.0f);
  EXPECT_EQ(reduce(MonoidKind::Plus, f, kCuda), 6000.0f);
  EXPECT_FALSE(host_array_made(f));
  EXPECT_EQ(transfer_stats().uploads, 0u);
}

// A deferred vector written on the device only (its host array never made).
Vector<float> y_device_only(const Graph<std::int32_t, float>& A, const Vector<float>& u) {
  Vector<float> y(A.rows(), -1.0f);
  mxv(y, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, kCuda);
  EXPECT_FALSE(host_array_made(y));
  return y;
}

TEST(CudaResidency, DeferredOutputsAccumulatorsAndMasksMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 3001, 11);
  const auto u = cuda_test::random_vector<float>(3001, 0.0, 12);
  const semiring::plus_times<float> pt{};
  const Descriptor cpu = Descriptor().on(Device::Cpu);

  // An output written on the device: its host array is made at the first read and downloaded
  // into.
  Vector<float> y(3001, 123.0f), yc;
  mxv(y, Mask{}, Accum::none(), pt, A, u, kCuda);
  mxv(yc, Mask{}, Accum::none(), pt, A, u, cpu);
  EXPECT_FALSE(host_array_made(y));
  reset_transfer_stats();
  EXPECT_TRUE(cuda_test::same_result(y, yc, false));
  EXPECT_EQ(transfer_stats().downloads, 1u);

  // An accumulator keeps the fill as its old value (filled on the device).
  Vector<float> acc(3001, 2.0f), accc(3001, 2.0f);
  mxv(acc, Mask{}, Accum::plus(), pt, A, u, kCuda);
  mxv(accc, Mask{}, Accum::plus(), pt, A, u, cpu);
  EXPECT_TRUE(cuda_test::same_result(acc, accc, false));

  // A mask over a deferred vector, on the device (zeros, complemented: every entry): filled on
  // the device, never made on the host nor uploaded.
  Vector<std::int32_t> zeros(3001, 0);
  Vector<float> masked(3001, 0.0f), maskedc(3001, 0.0f);
  reset_transfer_stats();
  mxv(masked, Mask::value(zeros, true), Accum::none(), pt, A, u, kCuda);
  EXPECT_EQ(transfer_stats().uploads, 0u);
  EXPECT_FALSE(host_array_made(zeros));
  mxv(maskedc, Mask::value(zeros, true), Accum::none(), pt, A, u, cpu);
  EXPECT_TRUE(cuda_test::same_result(masked, maskedc, false));
  EXPECT_TRUE(cuda_test::same_result(masked, yc, false));

  // A mask whose vector was never made on the host but is newer on the device: the CPU's first
  // use makes the array and downloads into it.
  Vector<float> m(3001, 0.0f), mc(3001, 0.0f);
  mxv(m, Mask{}, Accum::none(), semiring::any_pair<float>{}, A, u, kCuda);
  mxv(mc, Mask{}, Accum::none(), semiring::any_pair<float>{}, A, u, cpu);
  EXPECT_FALSE(host_array_made(m));
  Vector<float> w(3001, 0.0f), wc(3001, 0.0f);
  mxv(w, Mask::structural(m, true), Accum::none(), pt, A, u, cpu);
  mxv(wc, Mask::structural(mc, true), Accum::none(), pt, A, u, cpu);
  EXPECT_TRUE(cuda_test::same_result(w, wc, false));

  // A copy of a deferred vector whose device copy is newer: the copy's first host read makes
  // its array and downloads the device result into it.
  const Vector<float> y_dev = y_device_only(A, u);
  const Vector<float> y_copy(y_dev);  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_FALSE(host_array_made(y_copy));
  EXPECT_TRUE(cuda_test::same_result(y_copy, yc, false));

  // An empty deferred vector as an accumulated output: its bitmap goes up, its values are
  // filled on the device, and only the entries the product makes appear.
  auto sparse_acc = Vector<float>::empty(3001), sparse_accc = Vector<float>::empty(3001);
  mxv(sparse_acc, Mask{}, Accum::plus(), pt, A, u, kCuda);
  mxv(sparse_accc, Mask{}, Accum::plus(), pt, A, u, cpu);
  EXPECT_TRUE(cuda_test::same_result(sparse_acc, sparse_accc, false));

  // An empty vector (no entries, no host values) as the input: nothing takes part.
  const auto none = Vector<float>::empty(3001);
  Vector<float> e, ec;
  mxv(e, Mask{}, Accum::none(), pt, A, none, kCuda);
  mxv(ec, Mask{}, Accum::none(), pt, A, none, cpu);
  EXPECT_TRUE(cuda_test::same_result(e, ec, false));
  EXPECT_EQ(e.nvals(), 0);
}

}  // namespace
}  // namespace spindle

namespace spindle {
namespace {

// The largest |got - want| relative to max(1, |want|) over two matrices of one shape.
template <class T>
double max_rel_diff(const DenseMatrix<T>& got, const DenseMatrix<T>& want) {
  EXPECT_EQ(got.rows(), want.rows());
  EXPECT_EQ(got.cols(), want.cols());
  double worst = 0;
  for (std::int64_t k = 0; k < want.size() && k < got.size(); ++k) {
    const double w = want.data()[k];
    worst = std::max(worst, std::fabs(got.data()[k] - w) / std::max(1.0, std::fabs(w)));
  }
  return worst;
}

// A DenseMatrix built with a shape and a fill has no host array until the host needs one, as a
// Vector: read on the device it is filled there (no upload), an output written on the device
// never makes one, and the first host read makes it and downloads once.
TEST(CudaResidency, DenseMatrixBuiltWithAFillIsFilledOnTheDeviceAndOutputsStayThere) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 3001, 13);
  const semiring::plus_times<float> pt{};
  const Descriptor cpu = Descriptor().on(Device::Cpu);
  for (float fill : {0.0f, 0.75f}) {
    SCOPED_TRACE(fill);
    const DenseMatrix<float> B(3001, 8, fill);
    DenseMatrix<float> C, Cc;
    DenseMatrix<float> pre(3001, 8, -5.0f);  // an output of the right shape, overwritten
    reset_transfer_stats();
    mxm(C, pt, A, B, kCuda);
    mxm(pre, pt, A, B, kCuda);
    EXPECT_EQ(transfer_stats().uploads, 0u);
    EXPECT_EQ(transfer_stats().upload_bytes, 0u);
    EXPECT_FALSE(host_array_made(B));
    EXPECT_FALSE(host_array_made(C));
    EXPECT_FALSE(host_array_made(pre));
    EXPECT_EQ(C.residency(), Residency::Device);
    mxm(Cc, pt, A, B, cpu);  // the CPU reads B's host array, made from the fill
    EXPECT_TRUE(host_array_made(B));
    reset_transfer_stats();
    const DenseMatrix<float>& c = C;
    EXPECT_LE(max_rel_diff(c, Cc), 1e-5);
    EXPECT_EQ(transfer_stats().downloads, 1u) << "one download into the newly made array";
    EXPECT_TRUE(host_array_made(C));
    EXPECT_LE(max_rel_diff(pre, Cc), 1e-5);

    // An accumulated output keeps its fill as the old value, filled on the device.
    DenseMatrix<float> acc(3001, 8, 2.0f), accc(3001, 8, 2.0f);
    reset_transfer_stats();
    mxm(acc, Accum::plus(), pt, A, B, kCuda);
    EXPECT_EQ(transfer_stats().uploads, 0u);
    EXPECT_FALSE(host_array_made(acc));
    mxm(accc, Accum::plus(), pt, A, B, cpu);
    EXPECT_LE(max_rel_diff(acc, accc), 1e-5);

    // A copy of a deferred output whose device copy is current stays on the device.
    DenseMatrix<float> D;
    mxm(D, pt, A, B, kCuda);
    const DenseMatrix<float> D_copy(D);  // NOLINT(performance-unnecessary-copy-initialization)
    EXPECT_FALSE(host_array_made(D_copy));
    EXPECT_LE(max_rel_diff(D_copy, Cc), 1e-5);
  }
}

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

#if SPINDLE_HAS_CUDA
// Host <-> device copies staged through the pinned buffers (transfer.hpp) against plain
// cudaMemcpy: sizes on both sides of the staging threshold, whole chunks and partial last
// chunks, with the destination poisoned first; then again after release_device_resources() has
// freed the buffers (the next staged copy makes new ones). Builds without CUDA have no such
// copies (and no CUDA runtime to compare with).
TEST(CudaTransfer, StagedCopiesMatchPlainCopiesAtEverySize) {
  SPINDLE_REQUIRE_CUDA();
  using detail::cuda::kStagedCopyMinBytes;
  using detail::cuda::kStagingChunk;
  const std::size_t sizes[] = {0,
                               1,
                               4093,
                               kStagedCopyMinBytes - 4,
                               kStagedCopyMinBytes,
                               kStagingChunk,
                               2 * kStagingChunk + 12,
                               5 * kStagingChunk + 3};
  std::mt19937_64 rng(17);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (int round = 0; round < 2; ++round) {
    for (const std::size_t bytes : sizes) {
      std::vector<unsigned char> src(bytes), back(bytes, 0xAB), plain(bytes, 0xCD);
      for (auto& b : src) b = static_cast<unsigned char>(rng());
      void* d = nullptr;
      ASSERT_EQ(cudaMalloc(&d, std::max<std::size_t>(bytes, 1)), cudaSuccess);
      // Every step on `stream`, which is non-blocking: a cudaMemset or cudaMemcpy on the legacy
      // default stream is not ordered with it (the poison could land after the staged copy, as
      // it did under `ctest -j3`), and a plain cudaMemcpy from pageable memory may return
      // before its DMA has finished.
      ASSERT_EQ(cudaMemsetAsync(d, 0xFF, std::max<std::size_t>(bytes, 1), stream), cudaSuccess);
      detail::cuda::copy_to_device(d, src.data(), bytes, stream);
      ASSERT_EQ(cudaMemcpyAsync(plain.data(), d, bytes, cudaMemcpyDeviceToHost, stream),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      EXPECT_TRUE(plain == src) << bytes << " bytes up, round " << round;
      // Down from data that a plain copy put there (the other way round).
      for (auto& b : src) b = static_cast<unsigned char>(rng());
      ASSERT_EQ(cudaMemcpyAsync(d, src.data(), bytes, cudaMemcpyHostToDevice, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      detail::cuda::copy_to_host(back.data(), d, bytes, stream);
      EXPECT_TRUE(back == src) << bytes << " bytes down, round " << round;
      ASSERT_EQ(cudaFree(d), cudaSuccess);
    }
    release_device_resources();
  }
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}
#endif

// A vector large enough for staged copies (12 MB, a partial last chunk) crosses the bus both ways
// through the library's own paths (upload for an operation, download for a host read).
TEST(CudaTransfer, LargeVectorsCrossTheBusIntact) {
  SPINDLE_REQUIRE_CUDA();
  const std::int64_t n = 3000001;
  Vector<float> x(n);
  std::mt19937_64 rng(23);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(rng() % 100000) / 7.0f;
  Vector<float> z;
  reset_transfer_stats();
  apply(z, Mask{}, Accum::none(), Unary<float>::times(2.0f), x, kCuda);
  EXPECT_EQ(transfer_stats().uploads, 1u);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(z[i], 2.0f * x[i]) << "entry " << i;
  }
  EXPECT_EQ(transfer_stats().downloads, 1u);
}

// Foreign device memory (spindle/cuda/external.hpp) ----------------------------------------------

#if SPINDLE_HAS_CUDA
/// A cudaMalloc'd copy of `host`, as a torch or cupy tensor would hold it (freed by the test).
template <class T>
T* foreign_device_copy(const std::vector<T>& host) {
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(host.size(), 1) * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
            cudaSuccess);
  return static_cast<T*>(p);
}

template <class T>
std::vector<T> read_device(const T* p, std::size_t n) {
  std::vector<T> out(n);
  EXPECT_EQ(cudaMemcpy(out.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}
#endif

TEST(CudaExternal, ForeignDeviceVectorsGoInAndOutWithoutHostTraffic) {
  SPINDLE_REQUIRE_CUDA();
#if SPINDLE_HAS_CUDA
  const std::int64_t n = 7919;
  const auto A = cuda_test::make_graph<std::int32_t, float>(Family::PowerLaw, n, n, 21);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);  // no cancellation: same_result's bound
  std::vector<float> xs(static_cast<std::size_t>(n));
  for (auto& v : xs) v = dist(rng);
  float* src = foreign_device_copy(xs);
  Vector<float> warm;
  mxv(warm, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, Vector<float>(xs),
      kCuda);  // the graph's upload, outside the counts below
  reset_transfer_stats();
  const Vector<float> x = vector_from_device(src, n);
  // The source belongs to its owner again: overwrite and free it before x is used.
  ASSERT_EQ(cudaMemset(src, 0xFF, static_cast<std::size_t>(n) * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaFree(src), cudaSuccess);
  EXPECT_EQ(x.residency(), Residency::Device);
  EXPECT_FALSE(host_array_made(x));
  EXPECT_TRUE(x.is_full());
  Vector<float> y(n, 0.0f);  // full: rows without entries keep their 0 (only full vectors lend)
  mxv(y, Mask{}, Accum::plus(), semiring::plus_times<float>{}, A, x, kCuda);
  const float* out = device_pointer(y);
  TransferStats t = transfer_stats();
  EXPECT_EQ(t.uploads, 0u) << "the foreign vector went through the host";
  EXPECT_EQ(t.downloads, 0u) << "the result went through the host";
  EXPECT_FALSE(host_array_made(y));
  const std::vector<float> got = read_device(out, static_cast<std::size_t>(n));
  Vector<float> want(n, 0.0f);
  mxv(want, Mask{}, Accum::plus(), semiring::plus_times<float>{}, A, Vector<float>(xs),
      Descriptor().on(Device::Cpu));
  EXPECT_TRUE(cuda_test::same_result(Vector<float>(got), want, false));
  // The host reads x on demand: one download, the values copied in.
  reset_transfer_stats();
  const Vector<float>& xc = x;
  for (std::int64_t i = 0; i < n; i += 97) ASSERT_EQ(xc[i], xs[static_cast<std::size_t>(i)]);
  EXPECT_EQ(transfer_stats().downloads, 1u);

  // A host-resident vector's device pointer uploads it once (counted) and holds its values.
  Vector<double> h(std::vector<double>{1.5, -2.0, 3.25});
  reset_transfer_stats();
  const double* hp = device_pointer(h);
  EXPECT_EQ(transfer_stats().uploads, 1u);
  EXPECT_EQ(read_device(hp, 3), (std::vector<double>{1.5, -2.0, 3.25}));
  // An empty vector copies nothing and needs no pointer check.
  EXPECT_EQ(vector_from_device<float>(nullptr, 0).size(), 0);
#endif
}

TEST(CudaExternal, ForeignDeviceMatricesFeedSpmmAndComeBackOnTheDevice) {
  SPINDLE_REQUIRE_CUDA();
#if SPINDLE_HAS_CUDA
  const std::int64_t n = 3001, k = 24;
  const auto A = cuda_test::make_graph<std::int32_t, double>(Family::Uniform, n, n, 22);
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> bs(static_cast<std::size_t>(n * k));
  for (auto& v : bs) v = dist(rng);
  double* src = foreign_device_copy(bs);
  reset_transfer_stats();
  const DenseMatrix<double> B = dense_from_device(src, n, k);
  ASSERT_EQ(cudaFree(src), cudaSuccess);
  DenseMatrix<double> C;
  mxm(C, semiring::plus_times<double>{}, A, B, kCuda);
  const double* cp = device_pointer(C);
  EXPECT_EQ(transfer_stats().uploads, 0u);
  EXPECT_EQ(transfer_stats().downloads, 0u);
  const std::vector<double> got = read_device(cp, static_cast<std::size_t>(n * k));
  DenseMatrix<double> want;
  mxm(want, semiring::plus_times<double>{}, A, DenseMatrix<double>(n, k, bs),
      Descriptor().on(Device::Cpu));
  EXPECT_LE(max_rel_diff(DenseMatrix<double>(n, k, got), want), 1e-12);
#endif
}

TEST(CudaExternal, WhatCannotBeCopiedOrLentIsRefused) {
  SPINDLE_REQUIRE_CUDA();
#if SPINDLE_HAS_CUDA
  std::vector<float> host(100, 1.0f);
  try {
    (void)vector_from_device(host.data(), 100);
    ADD_FAILURE() << "host memory was accepted as device memory";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)dense_from_device(host.data(), -1, 4), InvalidArgument);
  Vector<float> sparse = Vector<float>::empty(10);
  EXPECT_THROW((void)device_pointer(sparse), InvalidArgument);
  EXPECT_NE(engine_stream(), 0u);
#endif
}

TEST(CudaExternal, BuildsWithoutCudaSayWhy) {
  if (built_with_cuda()) GTEST_SKIP() << "a CUDA build: covered by the tests above";
  std::vector<float> host(4, 1.0f);
  EXPECT_THROW((void)vector_from_device(host.data(), 4), Unsupported);
  EXPECT_THROW((void)engine_stream(), Unsupported);
  EXPECT_THROW((void)device_pointer(Vector<float>(4, 1.0f)), Unsupported);
}

}  // namespace
}  // namespace spindle
