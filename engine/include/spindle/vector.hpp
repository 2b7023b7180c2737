// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file vector.hpp
/// @brief Dense vector with an optional presence bitmap (GraphBLAS "bitmap" storage).
///
/// Every index has a value slot; `present(i)` says whether the entry exists. A vector with no
/// bitmap is *full*: every entry is present (the common case: ranks, features, distances).
/// Operations follow GraphBLAS semantics on presence: absent inputs do not take part, and an
/// output entry computed from no terms is absent. Absent slots hold an unspecified value.
///
/// Residency: CUDA operations keep a device copy next to the host arrays and leave their results
/// on the device; host accessors download lazily (or call sync_to_host() explicitly), and host
/// write access marks the device copy stale. See spindle/cuda/residency.hpp for the rules and
/// the transfer counters.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/cuda/residency.hpp"
#include "spindle/error.hpp"

namespace spindle {

template <class T>
class Vector {
 public:
  using value_type = T;

  Vector() = default;
  /// Copies; a current device copy is copied on the device (no host traffic).
  Vector(const Vector& o) : values_(o.values_), present_(o.present_) {
    if (o.dev_) dev_.reset(detail::mirror_clone(*o.dev_));
  }
  Vector(Vector&&) noexcept = default;
  Vector& operator=(const Vector& o) {
    if (this != &o) {
      Vector tmp(o);
      *this = std::move(tmp);
    }
    return *this;
  }
  Vector& operator=(Vector&&) noexcept = default;
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
  bool is_full() const {
    // Answered from the device copy's state when that is newer: no download.
    if (dev_ && detail::mirror_device_newer(*dev_)) return detail::mirror_device_full(*dev_);
    return present_.empty();
  }
  bool present(std::int64_t i) const {
    sync_();
    return present_.empty() || present_[i] != 0;
  }
  /// Number of present entries.
  std::int64_t nvals() const {
    sync_();
    if (present_.empty()) return size();
    return static_cast<std::int64_t>(std::count(present_.begin(), present_.end(), 1));
  }

  T& operator[](std::int64_t i) {
    written_();
    return values_[i];
  }
  const T& operator[](std::int64_t i) const {
    sync_();
    return values_[i];
  }
  T* data() {
    written_();
    return values_.data();
  }
  const T* data() const {
    sync_();
    return values_.data();
  }
  const std::vector<T>& values() const {
    sync_();
    return values_;
  }
  std::vector<T>& values() {
    written_();
    return values_;
  }

  /// The bitmap (1 = present); empty for a full vector.
  const std::vector<std::uint8_t>& bitmap() const {
    sync_();
    return present_;
  }
  std::vector<std::uint8_t>& bitmap() {
    written_();
    return present_;
  }
  /// Pointer to the bitmap or nullptr when full.
  const std::uint8_t* bitmap_ptr() const {
    sync_();
    return present_.empty() ? nullptr : present_.data();
  }

  /// Sets entry i (making it present).
  void set(std::int64_t i, T v) {
    written_();
    values_[i] = v;
    if (!present_.empty()) present_[i] = 1;
  }
  /// Removes entry i (switching to bitmap storage if needed).
  void remove(std::int64_t i) {
    written_();
    if (present_.empty()) present_.assign(values_.size(), 1);
    present_[i] = 0;
  }
  /// Makes every entry present with value `v`.
  void fill(T v) {
    overwritten_();
    std::fill(values_.begin(), values_.end(), v);
    present_.clear();
  }
  /// Removes every entry.
  void clear() {
    overwritten_();
    present_.assign(values_.size(), 0);
  }
  /// Drops the bitmap if every entry is present (keeps the fast full path).
  void compact() {
    written_();
    if (!present_.empty() &&
        std::all_of(present_.begin(), present_.end(), [](std::uint8_t p) { return p != 0; })) {
      present_.clear();
    }
  }
  /// Resizes to n entries, all absent.
  void resize_empty(std::int64_t n) {
    overwritten_();
    values_.assign(checked_size(n), T{});
    present_.assign(static_cast<std::size_t>(n), 0);
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
    return {const_cast<T*>(values_.data()), sizeof(T), size(), &present_};
  }
  void sync_() const { detail::sync_host_if_needed(dev_, host_arrays_()); }
  // Host write access: bring the host copy up to date, then the device copy is stale.
  void written_() {
    if (dev_) {
      sync_();
      detail::mirror_host_written(*dev_);
    }
  }
  // The whole content is replaced: no download needed, the device copy is stale.
  void overwritten_() {
    if (dev_) detail::mirror_host_written(*dev_);
  }
  static std::size_t checked_size(std::int64_t n) {
    if (n < 0) throw InvalidArgument("Vector: negative size " + std::to_string(n));
    return static_cast<std::size_t>(n);
  }
  // mutable: a const accessor may refresh the host copy from the device (see residency.hpp).
  mutable std::vector<T> values_;
  mutable std::vector<std::uint8_t> present_;
  mutable detail::DeviceMirrorPtr dev_;
};

}  // namespace spindle
