// SPDX-License-Identifier: Apache-2.0
#include "ops/cuda/cusparse/handle.hpp"

#include <mutex>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"

namespace spindle::detail::cuda {
namespace {

cusparseHandle_t g_handle = nullptr;

void destroy_handle() noexcept {
  if (g_handle != nullptr) cusparseDestroy(g_handle);
  g_handle = nullptr;
}

}  // namespace

cusparseHandle_t cusparse_handle() {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  if (g_handle == nullptr) {
    cusparseHandle_t x = nullptr;
    SPINDLE_CUSPARSE_CHECK(cusparseCreate(&x));
    if (cusparseSetStream(x, context().stream) != CUSPARSE_STATUS_SUCCESS) {
      cusparseDestroy(x);
      SPINDLE_CUSPARSE_CHECK(CUSPARSE_STATUS_INTERNAL_ERROR);
    }
    g_handle = x;
    on_release(&destroy_handle);
  }
  return g_handle;
}

}  // namespace spindle::detail::cuda
