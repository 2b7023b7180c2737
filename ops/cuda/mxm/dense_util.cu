// SPDX-License-Identifier: Apache-2.0
// The dense passes of dense_util.hpp for float and double.
#include "ops/cuda/mxm/dense_util.cuh"

namespace spindle::detail::cuda {

#define SPINDLE_DENSE_UTIL_(T)                                                                  \
  template void launch_transpose<T>(const T*, std::int64_t, std::int64_t, T*, cudaStream_t);    \
  template void launch_epilogue_pass<T>(const T*, std::int64_t, std::int64_t, T*, std::int64_t, \
                                        const DenseEpilogue<T>&, cudaStream_t);                 \
  template void launch_fill_random<T>(T*, std::int64_t, std::uint64_t, cudaStream_t);
SPINDLE_DENSE_UTIL_(float)
SPINDLE_DENSE_UTIL_(double)
#undef SPINDLE_DENSE_UTIL_

}  // namespace spindle::detail::cuda
