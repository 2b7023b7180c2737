// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file transpose_builder.hpp
/// @brief Who builds Graph::transpose(): the host by default, a backend while one is installed
/// on the calling thread.
///
/// A CUDA operation that needs A^T (vxm's pull, a transposed mxv) on a graph without a cached
/// transpose would otherwise wait for the host's build (R-MAT 22: 65 M entries, 139-164 ms on 16
/// cores) and then upload it. While its operation runs, the CUDA backend installs a builder that
/// sorts the entries on the device instead (50-57 ms on an H200 with A already there, 55-65 ms
/// with its upload; the download included), downloads the arrays the graph caches, and hands over
/// the device copy it already has (ops/cuda/transpose.cu). The result is the same graph either
/// way: the same arrays, element for element. The library installs a builder only around work it
/// runs on CUDA (mxv and vxm, PageRank's tuning); mxv and vxm on the CPU install none (hiding one
/// a caller may have installed), so they never touch a GPU.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spindle/graph.hpp"

namespace spindle::detail {

/// The arrays of a transpose built elsewhere, and derived data to attach to it (under their keys,
/// as Graph::extension would store them).
template <class I, class V>
struct TransposeParts {
  std::vector<I> row_ptr;
  std::vector<I> col_idx;
  std::vector<typename Graph<I, V>::stored_value_type> values;
  std::vector<std::pair<std::string, std::unique_ptr<ExtensionSlot>>> extensions;
};

/// Builds transposes for Graph::transpose(). build() fills `out` with A^T's CSR arrays (rows
/// sorted, the order a stable counting sort by column gives) and returns true, or returns false
/// and leaves the build to the host (a graph too small to gain, not enough device memory, a type
/// the builder does not handle: the defaults here build nothing).
class TransposeBuilder {
 public:
  virtual ~TransposeBuilder() = default;
  virtual bool build(const Graph<std::int32_t, float>&, TransposeParts<std::int32_t, float>&) {
    return false;
  }
  virtual bool build(const Graph<std::int32_t, double>&, TransposeParts<std::int32_t, double>&) {
    return false;
  }
  virtual bool build(const Graph<std::int32_t, Pattern>&, TransposeParts<std::int32_t, Pattern>&) {
    return false;
  }
  virtual bool build(const Graph<std::int64_t, float>&, TransposeParts<std::int64_t, float>&) {
    return false;
  }
  virtual bool build(const Graph<std::int64_t, double>&, TransposeParts<std::int64_t, double>&) {
    return false;
  }
  virtual bool build(const Graph<std::int64_t, Pattern>&, TransposeParts<std::int64_t, Pattern>&) {
    return false;
  }
};

/// The builder installed on the calling thread, or nullptr (the host builds).
TransposeBuilder* current_transpose_builder() noexcept;

/// Installs `builder` (nullptr: none) on the calling thread for its lifetime, then puts back the
/// one installed before.
class ScopedTransposeBuilder {
 public:
  explicit ScopedTransposeBuilder(TransposeBuilder* builder) noexcept;
  ~ScopedTransposeBuilder();
  ScopedTransposeBuilder(const ScopedTransposeBuilder&) = delete;
  ScopedTransposeBuilder& operator=(const ScopedTransposeBuilder&) = delete;

 private:
  TransposeBuilder* previous_;
};

/// The CUDA backend's builder (nullptr in builds without CUDA). Operations install it while they
/// run on CUDA.
TransposeBuilder* cuda_transpose_builder() noexcept;

}  // namespace spindle::detail
