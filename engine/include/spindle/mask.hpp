// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mask.hpp
/// @brief Write masks on vector outputs.
///
/// A mask selects which output entries an operation may write. Built from a vector m:
///   - value mask: selected where m(i) is present and m(i) != 0,
///   - structural mask: selected where m(i) is present (its value is ignored),
///   - complement: selects exactly the entries the mask would not.
/// Entries not selected keep their old value, or are removed when the descriptor says replace.
/// `Mask` is a non-owning view; the vector must outlive the call.

#include <cstdint>

#include "spindle/vector.hpp"

namespace spindle {

enum class MaskKind : std::uint8_t { Value, Structural };

/// Type-erased view of a mask vector (any of the element types below).
class Mask {
 public:
  enum class Elem : std::uint8_t { U8, I32, I64, F32, F64 };

  /// No mask: every entry selected (unless complemented, which selects none).
  Mask() = default;

  template <class M>
  static Mask value(const Vector<M>& m, bool complement = false) {
    return Mask(m, MaskKind::Value, complement);
  }
  template <class M>
  static Mask structural(const Vector<M>& m, bool complement = false) {
    return Mask(m, MaskKind::Structural, complement);
  }

  bool empty() const noexcept { return data_ == nullptr; }
  std::int64_t size() const noexcept { return size_; }
  MaskKind kind() const noexcept { return kind_; }
  bool complemented() const noexcept { return complement_; }
  const void* data() const noexcept { return data_; }
  const std::uint8_t* bitmap() const noexcept { return bitmap_; }
  Elem elem() const noexcept { return elem_; }

  /// True when output entry i may be written.
  bool selects(std::int64_t i) const {
    if (data_ == nullptr) return !complement_;
    bool s = bitmap_ == nullptr || bitmap_[i] != 0;
    if (s && kind_ == MaskKind::Value) s = value_nonzero(i);
    return s != complement_;
  }

 private:
  template <class M>
  Mask(const Vector<M>& m, MaskKind kind, bool complement)
      : data_(m.data()),
        bitmap_(m.bitmap_ptr()),
        size_(m.size()),
        kind_(kind),
        complement_(complement),
        elem_(elem_of<M>()) {
    if (m.size() > 0 && data_ == nullptr) data_ = &kNonNull;
  }
  template <class M>
  static constexpr Elem elem_of() {
    if constexpr (std::is_same_v<M, std::uint8_t> || std::is_same_v<M, bool> ||
                  std::is_same_v<M, std::int8_t>) {
      return Elem::U8;
    } else if constexpr (std::is_same_v<M, std::int32_t>) {
      return Elem::I32;
    } else if constexpr (std::is_same_v<M, std::int64_t>) {
      return Elem::I64;
    } else if constexpr (std::is_same_v<M, float>) {
      return Elem::F32;
    } else {
      static_assert(std::is_same_v<M, double>, "unsupported mask element type");
      return Elem::F64;
    }
  }
  bool value_nonzero(std::int64_t i) const {
    switch (elem_) {
      case Elem::U8:
        return static_cast<const std::uint8_t*>(data_)[i] != 0;
      case Elem::I32:
        return static_cast<const std::int32_t*>(data_)[i] != 0;
      case Elem::I64:
        return static_cast<const std::int64_t*>(data_)[i] != 0;
      case Elem::F32:
        return static_cast<const float*>(data_)[i] != 0;
      case Elem::F64:
        return static_cast<const double*>(data_)[i] != 0;
    }
    return false;
  }
  static inline const char kNonNull = 0;

  const void* data_ = nullptr;
  const std::uint8_t* bitmap_ = nullptr;
  std::int64_t size_ = 0;
  MaskKind kind_ = MaskKind::Value;
  bool complement_ = false;
  Elem elem_ = Elem::U8;
};

}  // namespace spindle
