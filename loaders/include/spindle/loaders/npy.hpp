// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file npy.hpp
/// @brief NumPy `.npy` reader and writer for dense float32 / float64 matrices and vectors.
///
/// Supported: format versions 1.0, 2.0 and 3.0; dtype `<f4` / `<f8` (`=` and `|` byte-order
/// marks read as little-endian); C order; 1-D and 2-D shapes. Everything else (Fortran order,
/// big-endian, other dtypes, 0-D or 3-D and up, truncated data, trailing bytes, shapes whose
/// byte count overflows or exceeds the file) is refused with a ParseError naming the file
/// (line 0: binary files have no lines) before anything is allocated from the header.

#include <cstdint>
#include <string>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// What the header of a .npy file says.
struct NpyHeader {
  int major_version = 1;
  int minor_version = 0;
  /// Bytes per element: 4 (float32) or 8 (float64).
  int word_size = 8;
  bool fortran_order = false;
  /// 1 or 2 dimensions.
  std::vector<std::int64_t> shape;
  /// Byte offset of the first element.
  std::int64_t data_offset = 0;
};

/// Reads and validates the header only (also checks that the file holds exactly the data the
/// shape needs). @throws ParseError as described in the file comment; Error if unreadable.
NpyHeader read_npy_header(const std::string& path);

/// Reads a 1-D or 2-D array into a row-major matrix, converting float32 <-> float64 as needed.
/// A 1-D array of n elements becomes n x 1.
/// @tparam T float or double. @throws ParseError (see file comment).
template <class T>
DenseMatrix<T> read_npy(const std::string& path);

/// Reads a 1-D array, or a 2-D array with one row or one column, into a full Vector.
/// @throws ParseError (see file comment); DimensionMismatch for a 2-D array with several rows
///         and columns.
template <class T>
Vector<T> read_npy_vector(const std::string& path);

/// Writes a 2-D array (`<f4` for float, `<f8` for double, C order; version 1.0, or 2.0 when the
/// header needs it). Atomic: temporary file renamed into place, removed on error.
/// @throws Error when writing fails.
template <class T>
void write_npy(const std::string& path, const DenseMatrix<T>& matrix);

/// Writes a 1-D array. @throws InvalidArgument when the vector has absent entries (not full).
template <class T>
void write_npy(const std::string& path, const Vector<T>& vector);

/// Writes a 1-D array from plain data.
template <class T>
void write_npy(const std::string& path, const std::vector<T>& values);

}  // namespace spindle
