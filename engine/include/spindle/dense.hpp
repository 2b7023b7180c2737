// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense.hpp
/// @brief Row-major dense matrix (features, embeddings, SpMM operands and results).
///
/// Residency: as Vector (spindle/cuda/residency.hpp): CUDA operations keep a device copy and
/// leave results on the device; host accessors download lazily; host write access marks the
/// device copy stale. As for Vector, `DenseMatrix(rows, cols, fill)` allocates no host array
/// until the host first needs one (spindle/detail/deferred_array.hpp): a CUDA operation reading it
/// fills its device copy on the device, and an operation's output (or a GCN layer's features)
/// that lives on the device costs no host memory and no host page faults.

#include <cstdint>
#include <string>
#include <vector>

#include "spindle/cuda/residency.hpp"
#include "spindle/detail/deferred_array.hpp"
#include "spindle/error.hpp"
#include "spindle/types.hpp"

namespace spindle {

template <class T>
class DenseMatrix {
 public:
  using value_type = T;

  DenseMatrix() = default;
  /// Copies; a current device copy is copied on the device (no host traffic), and a host array
  /// not made yet is not made for the copy either.
  DenseMatrix(const DenseMatrix& o) : rows_(o.rows_), cols_(o.cols_) {
    // The device copy first, as for Vector: a concurrent download into o happens either before
    // the clone or leaves the host array copied below stale.
    if (o.dev_) dev_.reset(detail::mirror_clone(*o.dev_));
    data_ = o.data_;
  }
  /// Moves; the moved-from matrix is 0 x 0.
  DenseMatrix(DenseMatrix&& o) noexcept
      : rows_(o.rows_), cols_(o.cols_), data_(std::move(o.data_)), dev_(std::move(o.dev_)) {
    o.rows_ = 0;
    o.cols_ = 0;
  }
  DenseMatrix& operator=(const DenseMatrix& o) {
    if (this != &o) {
      DenseMatrix tmp(o);
      *this = std::move(tmp);
    }
    return *this;
  }
  DenseMatrix& operator=(DenseMatrix&& o) noexcept {
    if (this != &o) {
      rows_ = o.rows_;
      cols_ = o.cols_;
      data_ = std::move(o.data_);
      dev_ = std::move(o.dev_);
      o.rows_ = 0;
      o.cols_ = 0;
    }
    return *this;
  }
  /// rows x cols, every element `fill` (the host array is made at first host use). Throws
  /// InvalidArgument on negative or overflowing sizes.
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
    return data_.made()[i * cols_ + j];
  }
  const T& operator()(std::int64_t i, std::int64_t j) const {
    sync_();
    return data_.made()[i * cols_ + j];
  }
  T* row(std::int64_t i) {
    written_();
    return data_.made().data() + i * cols_;
  }
  const T* row(std::int64_t i) const {
    sync_();
    return data_.made().data() + i * cols_;
  }
  T* data() {
    written_();
    return data_.made().data();
  }
  const T* data() const {
    sync_();
    return data_.made().data();
  }
  const std::vector<T>& storage() const {
    sync_();
    return data_.made();
  }
  std::vector<T>& storage() {
    written_();
    return data_.made();
  }

  /// Where the current data lives (Host without CUDA or before any CUDA operation).
  Residency residency() const noexcept {
    return dev_ ? detail::mirror_residency(*dev_) : Residency::Host;
  }
  /// Downloads the device copy now if it is newer (what every host accessor does lazily).
  void sync_to_host() const { sync_(); }

 private:
  friend struct detail::ResidencyAccess;
  detail::HostArrays host_arrays_() const noexcept { return data_.view(nullptr); }
  // The host copy current: the array made if it was deferred (value-initialised when a newer
  // device copy is about to be downloaded into it), then the download if one is due.
  void sync_() const {
    data_.make(dev_ && detail::mirror_device_newer(*dev_), "dense matrix host array");
    detail::sync_host_if_needed(dev_, host_arrays_());
  }
  // Host write access: the host copy up to date (made if needed), then the device copy is stale.
  void written_() {
    sync_();
    if (dev_) detail::mirror_host_written(*dev_);
  }
  static std::size_t checked_elems(std::int64_t rows, std::int64_t cols) {
    if (rows < 0 || cols < 0) {
      throw InvalidArgument("DenseMatrix: negative shape " + std::to_string(rows) + " x " +
                            std::to_string(cols));
    }
    const std::uint64_t n =
        checked_mul(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols),
                    "DenseMatrix element count");
    if (n > static_cast<std::uint64_t>(INT64_MAX)) {
      throw InvalidArgument("DenseMatrix: " + std::to_string(rows) + " x " + std::to_string(cols) +
                            " elements do not fit a 64-bit signed count");
    }
    return static_cast<std::size_t>(n);
  }
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  // Made when the host first needs it; a const accessor may refresh it from the device (see
  // residency.hpp).
  detail::DeferredArray<T> data_;
  mutable detail::DeviceMirrorPtr dev_;
};

}  // namespace spindle
