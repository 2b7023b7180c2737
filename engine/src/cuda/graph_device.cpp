// SPDX-License-Identifier: Apache-2.0
// Cached device copies of graphs (see graph_device.hpp).
#include "engine/src/cuda/graph_device.hpp"

#include <string>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device_adopt.hpp"
#include "engine/src/cuda/transfer.hpp"

namespace spindle::detail::cuda {
namespace {

template <class I>
struct StructureSlot : ExtensionSlot {
  DeviceBuffer row_ptr;
  DeviceBuffer col_idx;
};

struct ValuesSlot : ExtensionSlot {
  DeviceBuffer values;
};

const char* const kStructureKey = "cuda.structure";

template <class T>
std::string values_key() {
  return std::string("cuda.values.") + to_string(value_kind_of<T>());
}

template <class I>
std::uint64_t structure_bytes(std::int64_t rows, std::int64_t nnz) {
  return (static_cast<std::uint64_t>(rows) + 1 + static_cast<std::uint64_t>(nnz)) * sizeof(I);
}

std::string upload_what(const char* part, std::int64_t rows, std::int64_t nnz) {
  return std::string("uploading a graph's ") + part + " (" + std::to_string(rows) + " rows, " +
         std::to_string(nnz) + " entries)";
}

template <class I, class V>
const StructureSlot<I>& structure(const Graph<I, V>& A) {
  return A.template extension<StructureSlot<I>>(kStructureKey, [&] {
    const std::int64_t rows = A.rows(), nnz = A.nnz();
    const std::string what = upload_what("structure", rows, nnz);
    check_device_memory(structure_bytes<I>(rows, nnz), what.c_str());
    auto slot = std::make_unique<StructureSlot<I>>();
    Context& ctx = context();
    slot->row_ptr = DeviceBuffer((static_cast<std::size_t>(rows) + 1) * sizeof(I), what.c_str());
    slot->col_idx = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(I), what.c_str());
    copy_to_device(slot->row_ptr.get(), A.row_ptr().data(), slot->row_ptr.bytes(), ctx.stream);
    if (nnz > 0) {
      copy_to_device(slot->col_idx.get(), A.col_idx().data(), slot->col_idx.bytes(), ctx.stream);
    }
    count_graph_upload(structure_bytes<I>(rows, nnz));
    return slot;
  });
}

}  // namespace

template <class T, class I, class V>
DeviceCsr<I, T> device_csr(const Graph<I, V>& A) {
  static_assert(!is_pattern_v<T>, "device_csr needs a value type; use device_pattern");
  const StructureSlot<I>& s = structure(A);
  const ValuesSlot& v = A.template extension<ValuesSlot>(values_key<T>(), [&] {
    const std::int64_t nnz = A.nnz();
    const std::string what = upload_what("values", A.rows(), nnz);
    auto slot = std::make_unique<ValuesSlot>();
    slot->values = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(T), what.c_str());
    if (nnz > 0) {
      Context& ctx = context();
      if constexpr (std::is_same_v<V, T>) {
        copy_to_device(slot->values.get(), A.values().data(), slot->values.bytes(), ctx.stream);
      } else {
        // Convert on the host once (float <-> double, or 1 for pattern graphs), then upload.
        std::vector<T> converted(static_cast<std::size_t>(nnz));
        const V* vp = A.value_ptr();
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < nnz; ++k) converted[k] = entry_value<T, V>(vp, k);
        copy_to_device(slot->values.get(), converted.data(), slot->values.bytes(), ctx.stream);
        // The staging vector dies here: make sure the copy has read it.
        ctx.synchronize();
      }
    }
    count_graph_upload(static_cast<std::uint64_t>(nnz) * sizeof(T));
    return slot;
  });
  DeviceCsr<I, T> d;
  d.rows = A.rows();
  d.cols = A.cols();
  d.nnz = A.nnz();
  d.row_ptr = s.row_ptr.template as<const I>();
  d.col_idx = s.col_idx.template as<const I>();
  d.values = v.values.template as<const T>();
  return d;
}

template <class I, class V>
DeviceCsr<I, Pattern> device_pattern(const Graph<I, V>& A) {
  const StructureSlot<I>& s = structure(A);
  DeviceCsr<I, Pattern> d;
  d.rows = A.rows();
  d.cols = A.cols();
  d.nnz = A.nnz();
  d.row_ptr = s.row_ptr.template as<const I>();
  d.col_idx = s.col_idx.template as<const I>();
  return d;
}

template <class I>
AdoptedExtension adopted_structure(DeviceBuffer row_ptr, DeviceBuffer col_idx) {
  auto slot = std::make_unique<StructureSlot<I>>();
  slot->row_ptr = std::move(row_ptr);
  slot->col_idx = std::move(col_idx);
  return {kStructureKey, std::move(slot)};
}

template <class T>
AdoptedExtension adopted_values(DeviceBuffer values) {
  auto slot = std::make_unique<ValuesSlot>();
  slot->values = std::move(values);
  return {values_key<T>(), std::move(slot)};
}

template AdoptedExtension adopted_structure<std::int32_t>(DeviceBuffer, DeviceBuffer);
template AdoptedExtension adopted_structure<std::int64_t>(DeviceBuffer, DeviceBuffer);
template AdoptedExtension adopted_values<float>(DeviceBuffer);
template AdoptedExtension adopted_values<double>(DeviceBuffer);

#define SPINDLE_GRAPH_DEVICE_(I, V)                                           \
  template DeviceCsr<I, float> device_csr<float, I, V>(const Graph<I, V>&);   \
  template DeviceCsr<I, double> device_csr<double, I, V>(const Graph<I, V>&); \
  template DeviceCsr<I, Pattern> device_pattern<I, V>(const Graph<I, V>&);

SPINDLE_GRAPH_DEVICE_(std::int32_t, float)
SPINDLE_GRAPH_DEVICE_(std::int32_t, double)
SPINDLE_GRAPH_DEVICE_(std::int32_t, Pattern)
SPINDLE_GRAPH_DEVICE_(std::int64_t, float)
SPINDLE_GRAPH_DEVICE_(std::int64_t, double)
SPINDLE_GRAPH_DEVICE_(std::int64_t, Pattern)

}  // namespace spindle::detail::cuda
