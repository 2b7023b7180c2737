// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense.hpp
/// @brief Row-major dense matrix (features, embeddings, SpMM operands and results).
///
/// Residency: as Vector (spindle/cuda/residency.hpp): CUDA operations keep a device copy and
/// leave results on the device; host accessors download lazily; host write access marks the
/// device copy stale.

#include <cstdint>
#include <vector>

#include "spindle/cuda/residency.hpp"
#include "spindle/error.hpp"
#include "spindle/types.hpp"

namespace spindle {

template <class T>
class DenseMatrix {
 public:
  using value_type = T;

  DenseMatrix() = default;
  /// Copies; a current device copy is copied on the device (no host traffic).
  DenseMatrix(const DenseMatrix& o) : rows_(o.rows_), cols_(o.cols_), data_(o.data_) {
    if (o.dev_) dev_.reset(detail::mirror_clone(*o.dev_));
  }
  DenseMatrix(DenseMatrix&&) noexcept = default;
  DenseMatrix& operator=(const DenseMatrix& o) {
    if (this != &o) {
      DenseMatrix tmp(o);
      *this = std::move(tmp);
    }
    return *this;
  }
  DenseMatrix& operator=(DenseMatrix&&) noexcept = default;
  /// rows x cols, every element `fill`. Throws InvalidArgument on negative or overflowing sizes.
  DenseMatrix(std::int64_t rows, std::int64_t cols, T fill = T{})
      : rows_(rows), cols_(cols), data_(checked_elems(rows, cols), fill) {}
  /// Adopts row-major data of rows*cols elements.
  DenseMatrix(std::int64_t rows, std::int64_t cols, std::vector<T> data)
      : rows_(rows), cols_(cols), data_(std::move(data)) {
    if (data_.size() != checked_elems(rows, cols)) {
      throw DimensionMismatch("DenseMatrix: " + std::to_string(data_.size()) +
                              " elements given for " + std::to_string(rows) + " x " +
                              std::to_string(cols));
    }
  }

  std::int64_t rows() const noexcept { return rows_; }
  std::int64_t cols() const noexcept { return cols_; }
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(data_.size()); }
  T& operator()(std::int64_t i, std::int64_t j) {
    written_();
    return data_[i * cols_ + j];
  }
  const T& operator()(std::int64_t i, std::int64_t j) const {
    sync_();
    return data_[i * cols_ + j];
  }
  T* row(std::int64_t i) {
    written_();
    return data_.data() + i * cols_;
  }
  const T* row(std::int64_t i) const {
    sync_();
    return data_.data() + i * cols_;
  }
  T* data() {
    written_();
    return data_.data();
  }
  const T* data() const {
    sync_();
    return data_.data();
  }
  const std::vector<T>& storage() const {
    sync_();
    return data_;
  }
  std::vector<T>& storage() {
    written_();
    return data_;
  }

  /// Where the current data lives (Host without CUDA or before any CUDA operation).
  Residency residency() const noexcept {
    return dev_ ? detail::mirror_residency(*dev_) : Residency::Host;
  }
  /// Downloads the device copy now if it is newer (what every host accessor does lazily).
  void sync_to_host() const { sync_(); }

 private:
  friend struct detail::ResidencyAccess;
  detail::HostArrays host_arrays_() const noexcept {
    return {const_cast<T*>(data_.data()), sizeof(T), size(), nullptr};
  }
  void sync_() const { detail::sync_host_if_needed(dev_, host_arrays_()); }
  void written_() {
    if (dev_) {
      sync_();
      detail::mirror_host_written(*dev_);
    }
  }
  static std::size_t checked_elems(std::int64_t rows, std::int64_t cols) {
    if (rows < 0 || cols < 0) {
      throw InvalidArgument("DenseMatrix: negative shape " + std::to_string(rows) + " x " +
                            std::to_string(cols));
    }
    return static_cast<std::size_t>(checked_mul(static_cast<std::uint64_t>(rows),
                                                static_cast<std::uint64_t>(cols),
                                                "DenseMatrix element count"));
  }
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  // mutable: a const accessor may refresh the host copy from the device (see residency.hpp).
  mutable std::vector<T> data_;
  mutable detail::DeviceMirrorPtr dev_;
};

}  // namespace spindle
