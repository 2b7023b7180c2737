// SPDX-License-Identifier: Apache-2.0
// CUDA vxm as a push (ops/cuda/mxv/push_scatter.cuh) for T = float: every built-in semiring x I x
// V, and the input count the planner reads. Split by T over two files for CI's 2 cores.
#include "ops/core/instantiate.hpp"
#include "ops/cuda/mxv/push_scatter.cuh"

SPINDLE_FOR_EACH_SEMIRING_OF_T(SPINDLE_CUDA_PUSH_INSTANTIATE, float)

#define SPINDLE_CUDA_PUSH_INPUT_INSTANTIATE(I, V)                                           \
  template ::spindle::detail::PushInput spindle::detail::cuda::vxm_push_input<float, I, V>( \
      const ::spindle::Vector<float>&, const ::spindle::Graph<I, V>&);
SPINDLE_FOR_EACH_GRAPH(SPINDLE_CUDA_PUSH_INPUT_INSTANTIATE)
#undef SPINDLE_CUDA_PUSH_INPUT_INSTANTIATE
