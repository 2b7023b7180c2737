// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spgemm_run.cuh
/// @brief spgemm_device's definition (spgemm_device.hpp): the phases of the row-wise form and of
/// the masked dot form, their workspaces and launches. Included by spgemm_f32.cu / _f64.cu.

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "ops/cuda/spgemm/spgemm_device.hpp"
#include "ops/cuda/spgemm/spgemm_kernels.cuh"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace spgemm_run {

inline unsigned grid_for(std::int64_t threads, int block) {
  const std::int64_t b = (threads + block - 1) / block;
  return static_cast<unsigned>(std::max<std::int64_t>(b, 1));
}

inline std::string num(std::int64_t v) { return std::to_string(v); }

/// A device allocation that reports what it was for and the bytes when it fails.
inline DeviceBuffer alloc(std::int64_t bytes, const char* what) {
  return DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(bytes, 0)), what);
}

/// out[0..n] = exclusive prefix sums of in[0..n) followed by the total (in has n + 1 entries,
/// the last 0), queued on `st`.
inline void exclusive_scan(const std::int64_t* in, std::int64_t* out, std::int64_t n,
                           cudaStream_t st) {
  std::size_t temp = 0;
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp, in, out, n + 1, st));
  DeviceBuffer t = alloc(static_cast<std::int64_t>(temp), "mxm (sparse, CUDA): scan workspace");
  SPINDLE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(t.get(), temp, in, out, n + 1, st));
}

/// Copies `n` values from the device to `host` and waits for them (and all work before them).
template <class V>
void read_back(V* host, const V* device, std::size_t n, cudaStream_t st) {
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(host, device, n * sizeof(V), cudaMemcpyDeviceToHost, st));
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(st));
}

template <class I>
__global__ void offsets_to_index(const std::int64_t* in, I* out, std::int64_t n) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k <= n) out[k] = static_cast<I>(in[k]);
}

/// C's arrays for `total` entries: refused with the numbers when they do not fit the index
/// type or the device.
template <class T, class I>
void make_output(SpgemmDeviceResult& C, std::int64_t rows, std::int64_t cols, std::int64_t total,
                 const std::int64_t* offsets, cudaStream_t st) {
  if (total > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
    throw InvalidArgument("mxm (sparse, CUDA): the product has " + num(total) +
                          " entries, more than the index type holds (" +
                          num(static_cast<std::int64_t>(std::numeric_limits<I>::max())) +
                          "); use int64 indices");
  }
  const std::int64_t bytes = total * static_cast<std::int64_t>(sizeof(I) + sizeof(T));
  C.rows = rows;
  C.cols = cols;
  C.nnz = total;
  C.rp = alloc((rows + 1) * static_cast<std::int64_t>(sizeof(I)), "mxm (sparse, CUDA): C offsets");
  try {
    C.ci = alloc(total * static_cast<std::int64_t>(sizeof(I)), "mxm (sparse, CUDA): C columns");
    C.v = alloc(total * static_cast<std::int64_t>(sizeof(T)), "mxm (sparse, CUDA): C values");
  } catch (const OutOfMemory& e) {
    C = SpgemmDeviceResult{};
    throw OutOfMemory("mxm (sparse, CUDA): the product has " + num(total) + " entries (" +
                      num(bytes) +
                      " bytes of columns and values), more than the device holds: " + e.what());
  }
  if (poisoning_outputs() && total > 0) {  // tests: an entry no kernel wrote shows
    SPINDLE_CUDA_CHECK(cudaMemsetAsync(C.ci.get(), 0xff, C.ci.bytes(), st));
    SPINDLE_CUDA_CHECK(cudaMemsetAsync(C.v.get(), 0xff, C.v.bytes(), st));
  }
  offsets_to_index<I><<<grid_for(rows + 1, 256), 256, 0, st>>>(offsets, C.rp.as<I>(), rows);
  SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): offsets");
}

inline int log2_ceil(std::int64_t x) {
  int l = 0;
  while ((std::int64_t{1} << l) < x) ++l;
  return l;
}

template <bool kNumeric, int kGroup, int kBlock, class I, class T>
void launch_hash(const RuntimeSemiring<T>& s, T identity, const DeviceCsr<I, T>& A,
                 const DeviceCsr<I, T>& B, const MaskView<I>& M, const std::int64_t* rows,
                 std::int64_t n, int table, int log2_lanes, std::int64_t* counts, const I* crp,
                 I* cci, T* cv, cudaStream_t st) {
  if (n == 0) return;
  constexpr int kGroups = kBlock / kGroup;
  const std::size_t smem = static_cast<std::size_t>(table) * kGroups *
                           (sizeof(spgemm::Key<I>) + (kNumeric ? sizeof(T) : 0));
  auto k = spgemm::hash_kernel<kNumeric, kGroup, kBlock, I, T>;
  SPINDLE_CUDA_CHECK(
      cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const int lanes = std::min(log2_lanes, log2_ceil(kGroup));
  k<<<grid_for(n, kGroups), kBlock, smem, st>>>(s, identity, A, B, M, rows, n, table, lanes, counts,
                                                crp, cci, cv);
  SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): hash rows");
}

/// Launches every bin of one phase. `lists` holds bin b's rows at b * capacity. The dense bin's
/// accumulators are in shared memory when `shared_dense`, else in global slabs. `st` is the
/// context's stream, the one DeviceBuffer frees on, so buffers die in stream order.
template <bool kNumeric, class I, class T>
void run_bins(const RuntimeSemiring<T>& s, T identity, const DeviceCsr<I, T>& A,
              const DeviceCsr<I, T>& B, const MaskView<I>& M, const std::int64_t* lists,
              std::int64_t capacity, const std::int64_t* n_bin, int log2_lanes,
              std::int64_t* counts, const I* crp, I* cci, T* cv, bool shared_dense, cudaStream_t st,
              std::int64_t* slabs_made) {
  using namespace spgemm;
  if (kNumeric && n_bin[kBinCopy] > 0) {  // the copy rows' counts came from the products
    copy_kernel<I, T><<<grid_for(n_bin[kBinCopy] * 32, 256), 256, 0, st>>>(
        s, A, B, lists + kBinCopy * capacity, n_bin[kBinCopy], crp, cci, cv);
    SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): copy rows");
  }
  if (n_bin[kBinEsc] > 0) {
    esc_kernel<kNumeric, I, T><<<grid_for(n_bin[kBinEsc] * 32, 256), 256, 0, st>>>(
        s, A, B, M, lists + kBinEsc * capacity, n_bin[kBinEsc], counts, crp, cci, cv);
    SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): ESC rows");
  }
  launch_hash<kNumeric, 32, 256>(s, identity, A, B, M, lists + 2 * capacity, n_bin[2], bin_table(2),
                                 log2_lanes, counts, crp, cci, cv, st);
  launch_hash<kNumeric, 64, 256>(s, identity, A, B, M, lists + 3 * capacity, n_bin[3], bin_table(3),
                                 log2_lanes, counts, crp, cci, cv, st);
  launch_hash<kNumeric, 128, 256>(s, identity, A, B, M, lists + 4 * capacity, n_bin[4],
                                  bin_table(4), log2_lanes, counts, crp, cci, cv, st);
  launch_hash<kNumeric, 512, 512>(s, identity, A, B, M, lists + 5 * capacity, n_bin[5],
                                  bin_table(5), log2_lanes, counts, crp, cci, cv, st);
  const std::int64_t nd = n_bin[kBinDense];
  if (nd > 0) {
    int device = 0;
    int sms = 0;
    SPINDLE_CUDA_CHECK(cudaGetDevice(&device));
    SPINDLE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int lanes = std::min(log2_lanes, 5);
    if (shared_dense) {  // the accumulator in each block's shared memory: no slabs
      const std::int64_t blocks = std::min<std::int64_t>(nd, 4 * static_cast<std::int64_t>(sms));
      const auto bytes = static_cast<std::size_t>(dense_smem_bytes(B.cols, sizeof(T), kNumeric));
      dense_kernel<kNumeric, true, I, T><<<static_cast<unsigned>(blocks), kDenseBlock, bytes, st>>>(
          s, identity, A, B, M, lists + kBinDense * capacity, nd, lanes, nullptr, nullptr, counts,
          crp, cci, cv);
      SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): dense rows (shared memory)");
      return;
    }
    const std::int64_t per = spgemm_slab_bytes(B.cols, sizeof(T), kNumeric);
    const std::int64_t max_slabs = 2 * static_cast<std::int64_t>(sms);
    std::size_t free_b = 0;
    std::size_t total_b = 0;
    SPINDLE_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const std::int64_t device_free = static_cast<std::int64_t>(free_b);
    const std::int64_t budget = device_free / kCudaSpgemmSlabShare;
    const std::int64_t fit = per > 0 ? budget / per : 0;
    const std::int64_t slabs = std::min({nd, max_slabs, fit});
    if (slabs < 1) {
      throw OutOfMemory("mxm (sparse, CUDA): " + num(nd) + " rows need a dense accumulator of " +
                        num(per) + " bytes (" + num(B.cols) + " columns), more than 1/" +
                        num(kCudaSpgemmSlabShare) + " of the device's " + num(device_free) +
                        " free bytes");
    }
    DeviceBuffer vals = alloc(kNumeric ? slabs * B.cols * static_cast<std::int64_t>(sizeof(T)) : 0,
                              "mxm (sparse, CUDA): dense accumulators");
    const std::int64_t words = (B.cols + 31) / 32;
    DeviceBuffer bits = alloc(slabs * words * 4, "mxm (sparse, CUDA): dense accumulator bits");
    SPINDLE_CUDA_CHECK(cudaMemsetAsync(bits.get(), 0, bits.bytes(), st));
    if (kNumeric) {
      fill_kernel<T>
          <<<grid_for(slabs * B.cols, 256), 256, 0, st>>>(vals.as<T>(), slabs * B.cols, identity);
      SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): dense accumulator fill");
    }
    dense_kernel<kNumeric, false, I, T><<<static_cast<unsigned>(slabs), kDenseBlock, 0, st>>>(
        s, identity, A, B, M, lists + kBinDense * capacity, nd, lanes, vals.as<T>(),
        bits.as<unsigned int>(), counts, crp, cci, cv);
    SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): dense rows");
    if (slabs_made != nullptr) *slabs_made = std::max(*slabs_made, slabs);
  }
}

/// What the row-wise form reads back to the host: the rows of each symbolic and numeric bin
/// (counted by the binning kernels), then C's entries (copied from the scan's last offset).
struct RowwiseTallies {
  unsigned int sym[spgemm::kBins];
  unsigned int num[spgemm::kBins];
  std::int64_t total;
};

template <class T, class I>
void rowwise(const SpgemmRowwiseConfig& cfg, const RuntimeSemiring<T>& s, T identity,
             const DeviceCsr<I, T>& A, const DeviceCsr<I, T>& B, const MaskView<I>& M,
             SpgemmDeviceResult& C, cudaStream_t st, SpgemmRunInfo* info) {
  const std::int64_t m = A.rows;
  DeviceBuffer tallies = alloc(sizeof(RowwiseTallies), "mxm (sparse, CUDA): bin counts");
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(tallies.get(), 0, tallies.bytes(), st));
  auto* dev_tallies = tallies.as<RowwiseTallies>();
  RowwiseTallies host{};
  DeviceBuffer products = alloc(m * 8, "mxm (sparse, CUDA): products per row");
  DeviceBuffer lists = alloc(m * spgemm::kBins * 8, "mxm (sparse, CUDA): row bins");
  DeviceBuffer counts = alloc((m + 1) * 8, "mxm (sparse, CUDA): entries per row");
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, counts.bytes(), st));
  // Products per row and the symbolic bins in one pass (and the copy rows' entries); the bins'
  // sizes come back (1st wait).
  const bool unmasked = M.rp == nullptr;
  // Where C has few enough columns for a dense accumulator in shared memory (values and a bit
  // per column within kDenseSmemMax), rows whose table would have a quarter of the columns or
  // more take it: one pass over the columns reads the row back sorted, where the table needed
  // a sort of the row.
  const bool shared_dense =
      spgemm::dense_smem_bytes(B.cols, sizeof(T), true) <= spgemm::kDenseSmemMax;
  int dense_table = std::numeric_limits<int>::max();
  if (shared_dense) {
    for (int b = spgemm::kBinDense - 1; b > spgemm::kBinEsc; --b) {
      if (4 * static_cast<std::int64_t>(spgemm::bin_table(b)) >= B.cols) {
        dense_table = spgemm::bin_table(b);
      }
    }
  }
  spgemm::row_flops_kernel<<<grid_for(m * 32, 256), 256, 0, st>>>(
      A, B, unmasked, products.as<std::int64_t>(), counts.as<std::int64_t>(), cfg.esc_max,
      cfg.table_max, dense_table, dev_tallies->sym, lists.as<std::int64_t>());
  SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): products per row");
  read_back(host.sym, dev_tallies->sym, spgemm::kBins, st);
  // Subgroups of lanes per entry of A: about B's mean row length, a power of two up to 32.
  const std::int64_t mean_b = B.rows > 0 ? (B.nnz + B.rows - 1) / B.rows : 1;
  const int log2_lanes = std::min(5, log2_ceil(std::max<std::int64_t>(mean_b, 1)));
  std::int64_t n_sym[spgemm::kBins];
  for (int b = 0; b < spgemm::kBins; ++b) n_sym[b] = host.sym[b];
  std::int64_t slabs = 0;

  // Symbolic: distinct columns per row. Then the offsets and the numeric bins (from the exact
  // entries) are queued behind it, and the total and the bins' sizes come back (2nd wait).
  run_bins<false, I, T>(s, identity, A, B, M, lists.as<std::int64_t>(), m, n_sym, log2_lanes,
                        counts.as<std::int64_t>(), nullptr, nullptr, nullptr, shared_dense, st,
                        &slabs);
  DeviceBuffer offsets = alloc((m + 1) * 8, "mxm (sparse, CUDA): C offsets (int64)");
  exclusive_scan(counts.as<std::int64_t>(), offsets.as<std::int64_t>(), m, st);
  spgemm::bin_rows_kernel<I><<<grid_for(m, 256), 256, 0, st>>>(
      m, A.row_ptr, unmasked, counts.as<std::int64_t>(), products.as<std::int64_t>(), B.cols,
      cfg.esc_max, cfg.table_max, dense_table, m, dev_tallies->num, lists.as<std::int64_t>());
  SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): binning");
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(&dev_tallies->total, offsets.as<std::int64_t>() + m,
                                     sizeof(std::int64_t), cudaMemcpyDeviceToDevice, st));
  read_back(&host, dev_tallies, 1, st);
  make_output<T, I>(C, m, B.cols, host.total, offsets.as<std::int64_t>(), st);
  offsets = DeviceBuffer();  // stream-ordered: freed after make_output's copy of it

  // Numeric: each row written sorted at its offset (the 3rd wait, at the end).
  std::int64_t n_num[spgemm::kBins];
  for (int b = 0; b < spgemm::kBins; ++b) n_num[b] = host.num[b];
  run_bins<true, I, T>(s, identity, A, B, M, lists.as<std::int64_t>(), m, n_num, log2_lanes,
                       nullptr, C.rp.as<const I>(), C.ci.as<I>(), C.v.as<T>(), shared_dense, st,
                       &slabs);
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(st));
  if (info != nullptr) {
    for (int b = 0; b < spgemm::kBins; ++b) info->rows_per_bin[b] = n_num[b];
    info->rows_per_bin[0] = m;
    for (int b = 1; b < spgemm::kBins; ++b) info->rows_per_bin[0] -= n_num[b];
    info->slabs = slabs;
  }
}

template <class T, class I>
void masked_dot(const RuntimeSemiring<T>& s, T identity, const DeviceCsr<I, T>& A,
                const DeviceCsr<I, T>& Bt, const MaskView<I>& M, SpgemmDeviceResult& C,
                cudaStream_t st) {
  const std::int64_t m = A.rows;
  I mask_end = 0;  // the mask's entries: its last offset
  read_back(&mask_end, M.rp + m, 1, st);
  const std::int64_t e = mask_end;
  DeviceBuffer val =
      alloc(e * static_cast<std::int64_t>(sizeof(T)), "mxm (sparse, CUDA): dot values");
  DeviceBuffer flag = alloc(e, "mxm (sparse, CUDA): dot flags");
  if (e > 0) {
    spgemm::dot_kernel<I, T><<<grid_for(e, 256), 256, 0, st>>>(
        s, identity, A, Bt, M.rp, M.ci, e, m, val.as<T>(), flag.as<unsigned char>());
    SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): masked dot");
  }
  DeviceBuffer counts = alloc((m + 1) * 8, "mxm (sparse, CUDA): entries per row");
  SPINDLE_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, counts.bytes(), st));
  if (e > 0) {
    spgemm::dot_count_kernel<I><<<grid_for(m * 32, 256), 256, 0, st>>>(
        M.rp, m, flag.as<unsigned char>(), counts.as<std::int64_t>());
    SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): dot counts");
  }
  DeviceBuffer offsets = alloc((m + 1) * 8, "mxm (sparse, CUDA): C offsets (int64)");
  exclusive_scan(counts.as<std::int64_t>(), offsets.as<std::int64_t>(), m, st);
  std::int64_t total = 0;
  read_back(&total, offsets.as<const std::int64_t>() + m, 1, st);
  make_output<T, I>(C, m, Bt.rows, total, offsets.as<std::int64_t>(), st);
  if (total > 0) {
    spgemm::dot_compact_kernel<I, T><<<grid_for(m * 32, 256), 256, 0, st>>>(
        M.rp, M.ci, m, flag.as<unsigned char>(), val.as<T>(), C.rp.as<const I>(), C.ci.as<I>(),
        C.v.as<T>());
    SPINDLE_CUDA_CHECK_LAUNCH("mxm (sparse, CUDA): dot compaction");
  }
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace spgemm_run

template <class T, class I>
void spgemm_device(SpgemmKernel kernel, const SpgemmRowwiseConfig& config,
                   const RuntimeSemiring<T>& s, T identity, const DeviceCsr<I, T>& A,
                   const DeviceCsr<I, T>& B, const DeviceCsr<I, T>* Bt, const MaskView<I>& mask,
                   SpgemmDeviceResult& C, cudaStream_t stream, SpgemmRunInfo* info) {
  if (kernel == SpgemmKernel::CudaMaskedDot) {
    if (Bt == nullptr || mask.rp == nullptr || mask.complement) {
      throw InvalidArgument(
          "mxm (sparse, CUDA): the masked dot form needs B^T and a mask that is not complemented");
    }
    spgemm_run::masked_dot<T, I>(s, identity, A, *Bt, mask, C, stream);
    if (info != nullptr) *info = SpgemmRunInfo{};
    return;
  }
  if (kernel != SpgemmKernel::CudaRowwise) {
    throw InvalidArgument(std::string("mxm (sparse, CUDA): ") + to_string(kernel) +
                          " is not a CUDA kernel");
  }
  spgemm_run::rowwise<T, I>(config, s, identity, A, B, mask, C, stream, info);
}

/// Instantiates spgemm_device for one value and index type (spgemm_f32.cu, spgemm_f64.cu).
#define SPINDLE_INSTANTIATE_SPGEMM_DEVICE_(T, I)                                                  \
  template void spgemm_device<T, I>(                                                              \
      SpgemmKernel, const SpgemmRowwiseConfig&, const RuntimeSemiring<T>&, T,                     \
      const DeviceCsr<I, T>&, const DeviceCsr<I, T>&, const DeviceCsr<I, T>*, const MaskView<I>&, \
      SpgemmDeviceResult&, cudaStream_t, SpgemmRunInfo*);

}  // namespace spindle::detail::cuda
