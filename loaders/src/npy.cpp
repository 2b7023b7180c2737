// SPDX-License-Identifier: Apache-2.0
// NumPy .npy reader and writer (float32 / float64, C order, 1-D and 2-D).
#include "spindle/loaders/npy.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "mapped_file.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "stream_checks.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy reader assumes a little-endian host"
#endif

namespace spindle {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

// A tiny parser for the Python dict literal of the header (only what numpy writes).
class DictParser {
 public:
  DictParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

  NpyHeader parse(NpyHeader h) {
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    for (;;) {
      ws();
      if (peek() == '}') break;
      const std::string key = str();
      ws();
      expect(':');
      ws();
      if (key == "descr") {
        if (have_descr) fail("duplicate key 'descr'");
        have_descr = true;
        const std::string d = str();
        if (d.size() < 3 || (d[1] != 'f')) {
          fail("dtype '" + d + "' is not supported: expected float32 ('<f4') or float64 ('<f8')");
        }
        if (d[0] == '>') fail("dtype '" + d + "' is big-endian: only little-endian is supported");
        if (d[0] != '<' && d[0] != '=' && d[0] != '|') fail("dtype '" + d + "': bad byte order");
        if (d.substr(2) == "4") {
          h.word_size = 4;
        } else if (d.substr(2) == "8") {
          h.word_size = 8;
        } else {
          fail("dtype '" + d + "' is not supported: expected float32 ('<f4') or float64 ('<f8')");
        }
      } else if (key == "fortran_order") {
        if (have_order) fail("duplicate key 'fortran_order'");
        have_order = true;
        if (word("True")) {
          h.fortran_order = true;
        } else if (word("False")) {
          h.fortran_order = false;
        } else {
          fail("fortran_order must be True or False");
        }
      } else if (key == "shape") {
        if (have_shape) fail("duplicate key 'shape'");
        have_shape = true;
        h.shape = tuple();
      } else {
        fail("unexpected key '" + key + "' (expected 'descr', 'fortran_order', 'shape')");
      }
      ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != '}') fail("expected ',' or '}' in the header dict");
    }
    if (!have_descr || !have_order || !have_shape) {
      fail("header dict lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError(path_, 0, ".npy header: " + what);
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n')) ++i_;
  }
  void expect(char c) {
    ws();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) == w) {
      i_ += w.size();
      return true;
    }
    return false;
  }
  std::string str() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const std::size_t b = ++i_;
    while (i_ < s_.size() && s_[i_] != q) ++i_;
    if (i_ >= s_.size()) fail("unterminated string");
    return std::string(s_.substr(b, i_++ - b));
  }
  std::vector<std::int64_t> tuple() {
    std::vector<std::int64_t> dims;
    expect('(');
    for (;;) {
      ws();
      if (peek() == ')') {
        ++i_;
        break;
      }
      if (dims.size() >= 32) fail("shape has too many dimensions");
      std::int64_t v = 0;
      const std::size_t b = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (v > (std::numeric_limits<std::int64_t>::max() - (s_[i_] - '0')) / 10) {
          fail("shape dimension is too large");
        }
        v = v * 10 + (s_[i_] - '0');
        ++i_;
      }
      if (i_ == b) fail("expected a non-negative integer in the shape tuple");
      if (peek() == 'L') ++i_;  // Python 2 long suffix
      dims.push_back(v);
      ws();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in the shape tuple");
      }
    }
    return dims;
  }

  std::string_view s_;
  const std::string& path_;
  std::size_t i_ = 0;
};

// An array without elements is a few header bytes whatever its other dimensions say; those
// dimensions still size what is made from it (a 0 x d feature matrix makes d-wide weights), so
// their product is held to this many elements.
constexpr std::uint64_t kMaxEmptyArrayCells = std::uint64_t{1} << 20;

// The header's fields, validated, without comparing the data size to the file (a stream's
// prefix); sets *data_bytes to the bytes the shape needs.
NpyHeader parse_header_fields(const char* data, std::size_t size, const std::string& path,
                              std::uint64_t* data_bytes) {
  if (size < kMagicLen || std::memcmp(data, kMagic, kMagicLen) != 0) {
    throw ParseError(path, 0, "not a .npy file (missing the \\x93NUMPY magic)");
  }
  if (size < kMagicLen + 4) throw ParseError(path, 0, "truncated .npy header");
  NpyHeader h;
  h.major_version = static_cast<unsigned char>(data[6]);
  h.minor_version = static_cast<unsigned char>(data[7]);
  std::size_t len = 0, start = 0;
  if (h.major_version == 1) {
    len = static_cast<unsigned char>(data[8]) |
          (static_cast<std::size_t>(static_cast<unsigned char>(data[9])) << 8);
    start = 10;
  } else if (h.major_version == 2 || h.major_version == 3) {
    if (size < 12) throw ParseError(path, 0, "truncated .npy header");
    for (int b = 3; b >= 0; --b) len = (len << 8) | static_cast<unsigned char>(data[8 + b]);
    start = 12;
  } else {
    throw ParseError(path, 0,
                     ".npy format version " + std::to_string(h.major_version) + "." +
                         std::to_string(h.minor_version) +
                         " is not supported (expected 1.0, 2.0 or 3.0)");
  }
  if (len > size - start) {
    throw ParseError(path, 0,
                     "truncated .npy header (" + std::to_string(len) +
                         " header bytes declared, file has " + std::to_string(size) + ")");
  }
  h = DictParser(std::string_view(data + start, len), path).parse(h);
  h.data_offset = static_cast<std::int64_t>(start + len);
  if (h.fortran_order) {
    throw ParseError(path, 0, "Fortran-order arrays are not supported (save with C order)");
  }
  if (h.shape.size() != 1 && h.shape.size() != 2) {
    throw ParseError(
        path, 0, "array has " + std::to_string(h.shape.size()) + " dimensions, expected 1 or 2");
  }
  std::uint64_t elems = 1, nonzero = 1;
  for (const std::int64_t d : h.shape) {
    elems = checked_mul(elems, static_cast<std::uint64_t>(d), ".npy element count");
    if (d != 0) nonzero = checked_mul(nonzero, static_cast<std::uint64_t>(d), ".npy shape");
  }
  if (elems == 0 && nonzero > kMaxEmptyArrayCells) {
    std::string shape;
    for (const std::int64_t d : h.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    throw ParseError(
        path, 0,
        "shape (" + shape + ") holds no element, but its other dimensions multiply to " +
            std::to_string(nonzero) + ", more than the " + std::to_string(kMaxEmptyArrayCells) +
            " accepted for an empty array (they would size what is made from it)");
  }
  *data_bytes = elems * static_cast<std::uint64_t>(h.word_size);
  if (elems > UINT64_MAX / static_cast<std::uint64_t>(h.word_size)) {
    throw ParseError(path, 0, "absurd shape: the data size overflows 64 bits");
  }
  return h;
}

NpyHeader parse_header(const char* data, std::size_t size, const std::string& path) {
  std::uint64_t need = 0;
  NpyHeader h = parse_header_fields(data, size, path, &need);
  const std::uint64_t elems = need / static_cast<std::uint64_t>(h.word_size);
  const std::uint64_t avail = size - static_cast<std::size_t>(h.data_offset);
  if (elems > avail / static_cast<std::uint64_t>(h.word_size) ||
      elems * static_cast<std::uint64_t>(h.word_size) != avail) {
    const bool short_file = elems > avail / static_cast<std::uint64_t>(h.word_size);
    throw ParseError(path, 0,
                     std::string(short_file ? "truncated data: " : "trailing bytes: ") +
                         "shape needs " + std::to_string(elems) + " elements of " +
                         std::to_string(h.word_size) + " bytes, the file holds " +
                         std::to_string(avail) + " data bytes");
  }
  return h;
}

NpyHeader parse_header_checked(const char* data, std::size_t size, const std::string& path) {
  try {
    return parse_header(data, size, path);
  } catch (const InvalidArgument& e) {  // checked_mul overflow
    throw ParseError(path, 0, std::string("absurd shape: ") + e.what());
  }
}

// A stream's .npy: refused at its first bytes unless they are a valid header, and held to the
// exact size that header declares.
detail::StreamCheck npy_stream_check(const std::string& path) {
  return [&path](const char* d, std::size_t n, bool eof) {
    return detail::check_npy_prefix(d, n, eof, path);
  };
}

template <class T>
std::vector<T> read_values(const detail::MappedFile& f, const NpyHeader& h) {
  std::uint64_t elems = 1;
  for (const std::int64_t d : h.shape) elems *= static_cast<std::uint64_t>(d);
  std::vector<T> out(static_cast<std::size_t>(elems));
  const char* src = f.data() + h.data_offset;
  if (h.word_size == static_cast<int>(sizeof(T))) {
    if (elems) std::memcpy(out.data(), src, elems * sizeof(T));
  } else if (h.word_size == 4) {
    for (std::uint64_t k = 0; k < elems; ++k) {
      float x;
      std::memcpy(&x, src + 4 * k, 4);
      out[k] = static_cast<T>(x);
    }
  } else {
    for (std::uint64_t k = 0; k < elems; ++k) {
      double x;
      std::memcpy(&x, src + 8 * k, 8);
      out[k] = static_cast<T>(x);
    }
  }
  return out;
}

template <class T>
void write_array(const std::string& path, const std::vector<std::int64_t>& shape, const T* data,
                 std::size_t count) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  std::string dict = std::string("{'descr': '<f") + (sizeof(T) == 4 ? "4" : "8") +
                     "', 'fortran_order': False, 'shape': (";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    dict += std::to_string(shape[d]);
    if (shape.size() == 1 || d + 1 < shape.size()) dict += ",";
    if (d + 1 < shape.size()) dict += " ";
  }
  dict += "), }";
  // Pad with spaces and a final newline so that the data starts on a 64-byte boundary.
  int major = 1;
  std::size_t pre = 10;
  if (dict.size() + 1 + 64 > 65535) {
    major = 2;
    pre = 12;
  }
  const std::size_t total = (pre + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - pre - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string head(kMagic, kMagicLen);
  head.push_back(static_cast<char>(major));
  head.push_back('\0');
  const std::size_t len = dict.size();
  for (std::size_t b = 0; b < (major == 1 ? 2u : 4u); ++b) {
    head.push_back(static_cast<char>((len >> (8 * b)) & 0xFF));
  }
  AtomicFileWriter file(path);
  file.write(head);
  file.write(dict);
  file.write(reinterpret_cast<const char*>(data), count * sizeof(T));
  file.commit();
}

}  // namespace

namespace detail {
std::uint64_t check_npy_prefix(const char* data, std::size_t size, bool eof,
                               const std::string& path) {
  (void)eof;
  std::uint64_t need = 0;
  NpyHeader h;
  try {
    h = parse_header_fields(data, size, path, &need);
  } catch (const InvalidArgument& e) {
    throw ParseError(path, 0, std::string("absurd shape: ") + e.what());
  }
  return static_cast<std::uint64_t>(h.data_offset) + need;
}
}  // namespace detail

NpyHeader read_npy_header(const std::string& path) {
  detail::MappedFile f(path, detail::Content::Binary, npy_stream_check(path));
  return detail::with_input_checks(f, path,
                                   [&] { return parse_header_checked(f.data(), f.size(), path); });
}

template <class T>
DenseMatrix<T> read_npy(const std::string& path) {
  detail::MappedFile f(path, detail::Content::Binary, npy_stream_check(path));
  return detail::with_input_checks(f, path, [&] {
    const NpyHeader h = parse_header_checked(f.data(), f.size(), path);
    const std::int64_t rows = h.shape[0];
    const std::int64_t cols = h.shape.size() == 2 ? h.shape[1] : 1;
    return DenseMatrix<T>(rows, cols, read_values<T>(f, h));
  });
}

template <class T>
Vector<T> read_npy_vector(const std::string& path) {
  detail::MappedFile f(path, detail::Content::Binary, npy_stream_check(path));
  return detail::with_input_checks(f, path, [&] {
    const NpyHeader h = parse_header_checked(f.data(), f.size(), path);
    if (h.shape.size() == 2 && h.shape[0] != 1 && h.shape[1] != 1) {
      throw DimensionMismatch(path + ": a " + std::to_string(h.shape[0]) + " x " +
                              std::to_string(h.shape[1]) +
                              " array is not a vector (expected 1-D, n x 1 or 1 x n)");
    }
    return Vector<T>(read_values<T>(f, h));
  });
}

template <class T>
void write_npy(const std::string& path, const DenseMatrix<T>& matrix) {
  write_array(path, {matrix.rows(), matrix.cols()}, matrix.data(),
              static_cast<std::size_t>(matrix.size()));
}

template <class T>
void write_npy(const std::string& path, const Vector<T>& vector) {
  if (!vector.is_full()) {
    throw InvalidArgument("write_npy: " + path + ": the vector has absent entries (" +
                          std::to_string(vector.size() - vector.nvals()) + " of " +
                          std::to_string(vector.size()) + "); .npy stores full arrays only");
  }
  write_array(path, {vector.size()}, vector.data(), static_cast<std::size_t>(vector.size()));
}

template <class T>
void write_npy(const std::string& path, const std::vector<T>& values) {
  write_array(path, {static_cast<std::int64_t>(values.size())}, values.data(), values.size());
}

#define SPINDLE_INSTANTIATE_NPY(T)                                       \
  template DenseMatrix<T> read_npy<T>(const std::string&);               \
  template Vector<T> read_npy_vector<T>(const std::string&);             \
  template void write_npy<T>(const std::string&, const DenseMatrix<T>&); \
  template void write_npy<T>(const std::string&, const Vector<T>&);      \
  template void write_npy<T>(const std::string&, const std::vector<T>&);
SPINDLE_INSTANTIATE_NPY(float)
SPINDLE_INSTANTIATE_NPY(double)
#undef SPINDLE_INSTANTIATE_NPY

}  // namespace spindle
