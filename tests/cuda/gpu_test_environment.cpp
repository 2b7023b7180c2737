// SPDX-License-Identifier: Apache-2.0
// Linked into every `gpu` test executable: after the last test, frees the process-wide CUDA
// resources (scratch workspace, cuBLAS / cuSPARSE handles) so that compute-sanitizer's leak check
// reports only what a test itself leaked.
#include <gtest/gtest.h>

#include "spindle/executor.hpp"

namespace {

class ReleaseDeviceResources : public ::testing::Environment {
 public:
  void TearDown() override { spindle::release_device_resources(); }
};

[[maybe_unused]] ::testing::Environment* const g_env =
    ::testing::AddGlobalTestEnvironment(new ReleaseDeviceResources);

}  // namespace
