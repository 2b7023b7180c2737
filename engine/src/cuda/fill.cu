// SPDX-License-Identifier: Apache-2.0
// Device fill of a mirror with one value (a Vector whose host array was never made).
#include <algorithm>
#include <cstring>
#include <string>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/fill.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {

template <class W>
__global__ void fill_kernel(W* __restrict__ out, std::int64_t n, W value) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    out[i] = value;
  }
}

template <class W>
void launch(void* out, std::int64_t n, const void* value, cudaStream_t stream) {
  W v;
  std::memcpy(&v, value, sizeof(W));
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((n + threads - 1) / threads, 65536);
  fill_kernel<W><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(static_cast<W*>(out), n, v);
  SPINDLE_CUDA_CHECK_LAUNCH("fill_kernel");
}

}  // namespace

void fill_elements(void* out, std::int64_t n, std::size_t elem_bytes, const void* value,
                   cudaStream_t stream) {
  if (n <= 0) return;
  const auto* b = static_cast<const unsigned char*>(value);
  bool one_byte = true;
  for (std::size_t k = 1; k < elem_bytes; ++k) one_byte = one_byte && b[k] == b[0];
  if (one_byte) {  // zeros, and any value whose bytes are all equal: a memset
    SPINDLE_CUDA_CHECK(
        cudaMemsetAsync(out, b[0], static_cast<std::size_t>(n) * elem_bytes, stream));
    return;
  }
  switch (elem_bytes) {
    case 2:
      launch<std::uint16_t>(out, n, value, stream);
      break;
    case 4:
      launch<std::uint32_t>(out, n, value, stream);
      break;
    case 8:
      launch<unsigned long long>(out, n, value, stream);
      break;
    default:
      throw Unsupported("device fill of " + std::to_string(elem_bytes) + "-byte elements");
  }
}

}  // namespace spindle::detail::cuda
