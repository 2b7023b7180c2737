// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the .npy reader (magic, version, header dictionary, shape, data size).
// On success: the shape matches the header, the values equal the file's bytes, float and double
// reads agree, and write -> read gives the same matrix back.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_common.hpp"
#include "spindle/loaders/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace spindle;
  static fuzz::TempFile file("in.npy");
  static fuzz::TempFile out("out.npy");
  const std::string& path = file.write(data, size);

  NpyHeader h;
  const bool header_ok = fuzz::expect_clean("read_npy_header", [&] { h = read_npy_header(path); });
  DenseMatrix<double> d;
  const bool dense_ok = fuzz::expect_clean("read_npy<double>", [&] { d = read_npy<double>(path); });
  DenseMatrix<float> f;
  const bool float_ok = fuzz::expect_clean("read_npy<float>", [&] { f = read_npy<float>(path); });
  fuzz::require(dense_ok == float_ok, "float and double reads accept the same files");
  fuzz::require(!dense_ok || header_ok, "data accepted although the header was refused");
  if (dense_ok) {
    fuzz::require(h.shape.size() == 1 || h.shape.size() == 2, "1-D or 2-D");
    const std::int64_t rows = h.shape[0];
    const std::int64_t cols = h.shape.size() == 2 ? h.shape[1] : 1;
    fuzz::require(d.rows() == rows && d.cols() == cols, "matrix shape equals the header's");
    fuzz::require(h.word_size == 4 || h.word_size == 8, "word size");
    fuzz::require(static_cast<std::uint64_t>(h.data_offset) +
                          static_cast<std::uint64_t>(rows * cols * h.word_size) ==
                      size,
                  "data fills the file exactly");
    // Oracle: decode the little-endian words at data_offset directly.
    for (std::int64_t k = 0; k < rows * cols; ++k) {
      double expect;
      const std::uint8_t* p = data + h.data_offset + k * h.word_size;
      if (h.word_size == 8) {
        std::memcpy(&expect, p, 8);
      } else {
        float x;
        std::memcpy(&x, p, 4);
        expect = x;
      }
      fuzz::require(fuzz::same_value(d.data()[k], expect), "value equals the file's bytes");
      fuzz::require(fuzz::same_value(f.data()[k], static_cast<float>(expect)),
                    "float read equals the file's bytes");
    }
    if (rows * cols <= 4096) {
      fuzz::require(fuzz::expect_clean("write_npy", [&] { write_npy(out.path(), d); }),
                    "a read array can be written");
      DenseMatrix<double> d2;
      fuzz::require(fuzz::expect_clean("read back", [&] { d2 = read_npy<double>(out.path()); }),
                    "a written array can be read back");
      fuzz::require(d2.rows() == d.rows() && d2.cols() == d.cols(), "round trip keeps the shape");
      fuzz::require(
          d.size() == 0 || std::memcmp(d2.data(), d.data(), sizeof(double) * d.size()) == 0,
          "round trip keeps the bits");
    }
  }
  fuzz::expect_clean("read_npy_vector<float>", [&] { (void)read_npy_vector<float>(path); });
  return 0;
}
