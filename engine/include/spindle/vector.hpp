// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file vector.hpp
/// @brief Dense vector with an optional presence bitmap (GraphBLAS "bitmap" storage).
///
/// Every index has a value slot; `present(i)` says whether the entry exists. A vector with no
/// bitmap is *full*: every entry is present (the common case: ranks, features, distances).
/// Operations follow GraphBLAS semantics on presence: absent inputs do not take part, and an
/// output entry computed from no terms is absent. Absent slots hold an unspecified value.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/error.hpp"

namespace spindle {

template <class T>
class Vector {
 public:
  using value_type = T;

  Vector() = default;
  /// A full vector of n entries, all equal to `fill`.
  explicit Vector(std::int64_t n, T fill = T{}) : values_(checked_size(n), fill) {}
  /// A full vector adopting `values`.
  explicit Vector(std::vector<T> values) : values_(std::move(values)) {}
  /// A vector of n absent entries (an empty GraphBLAS vector).
  static Vector empty(std::int64_t n) {
    Vector v(n);
    v.present_.assign(static_cast<std::size_t>(n), 0);
    return v;
  }

  std::int64_t size() const noexcept { return static_cast<std::int64_t>(values_.size()); }
  /// True when every entry is present (no bitmap).
  bool is_full() const noexcept { return present_.empty(); }
  bool present(std::int64_t i) const { return present_.empty() || present_[i] != 0; }
  /// Number of present entries.
  std::int64_t nvals() const {
    if (present_.empty()) return size();
    return static_cast<std::int64_t>(std::count(present_.begin(), present_.end(), 1));
  }

  T& operator[](std::int64_t i) { return values_[i]; }
  const T& operator[](std::int64_t i) const { return values_[i]; }
  T* data() noexcept { return values_.data(); }
  const T* data() const noexcept { return values_.data(); }
  const std::vector<T>& values() const noexcept { return values_; }
  std::vector<T>& values() noexcept { return values_; }

  /// The bitmap (1 = present); empty for a full vector.
  const std::vector<std::uint8_t>& bitmap() const noexcept { return present_; }
  std::vector<std::uint8_t>& bitmap() noexcept { return present_; }
  /// Pointer to the bitmap or nullptr when full.
  const std::uint8_t* bitmap_ptr() const noexcept {
    return present_.empty() ? nullptr : present_.data();
  }

  /// Sets entry i (making it present).
  void set(std::int64_t i, T v) {
    values_[i] = v;
    if (!present_.empty()) present_[i] = 1;
  }
  /// Removes entry i (switching to bitmap storage if needed).
  void remove(std::int64_t i) {
    if (present_.empty()) present_.assign(values_.size(), 1);
    present_[i] = 0;
  }
  /// Makes every entry present with value `v`.
  void fill(T v) {
    std::fill(values_.begin(), values_.end(), v);
    present_.clear();
  }
  /// Removes every entry.
  void clear() { present_.assign(values_.size(), 0); }
  /// Drops the bitmap if every entry is present (keeps the fast full path).
  void compact() {
    if (!present_.empty() &&
        std::all_of(present_.begin(), present_.end(), [](std::uint8_t p) { return p != 0; })) {
      present_.clear();
    }
  }
  /// Resizes to n entries, all absent.
  void resize_empty(std::int64_t n) {
    values_.assign(checked_size(n), T{});
    present_.assign(static_cast<std::size_t>(n), 0);
  }

 private:
  static std::size_t checked_size(std::int64_t n) {
    if (n < 0) throw InvalidArgument("Vector: negative size " + std::to_string(n));
    return static_cast<std::size_t>(n);
  }
  std::vector<T> values_;
  std::vector<std::uint8_t> present_;
};

}  // namespace spindle
