// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense.hpp
/// @brief Row-major dense matrix (features, embeddings, SpMM operands and results).

#include <cstdint>
#include <vector>

#include "spindle/error.hpp"
#include "spindle/types.hpp"

namespace spindle {

template <class T>
class DenseMatrix {
 public:
  using value_type = T;

  DenseMatrix() = default;
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
  T& operator()(std::int64_t i, std::int64_t j) { return data_[i * cols_ + j]; }
  const T& operator()(std::int64_t i, std::int64_t j) const { return data_[i * cols_ + j]; }
  T* row(std::int64_t i) { return data_.data() + i * cols_; }
  const T* row(std::int64_t i) const { return data_.data() + i * cols_; }
  T* data() noexcept { return data_.data(); }
  const T* data() const noexcept { return data_.data(); }
  const std::vector<T>& storage() const noexcept { return data_; }
  std::vector<T>& storage() noexcept { return data_; }

 private:
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
  std::vector<T> data_;
};

}  // namespace spindle
