// SPDX-License-Identifier: Apache-2.0
// .npy: round trips, files whose bytes are written by hand here (the format spec is the oracle),
// and refusal of everything outside float32/float64, C order, 1-D/2-D.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "spindle/loaders/npy.hpp"

namespace {

using namespace spindle;

// A .npy file built byte by byte: magic, version, little-endian header length, dict, data.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string h = dict;
  const std::size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t n = h.size();
  out += static_cast<char>(n & 0xFF);
  out += static_cast<char>((n >> 8) & 0xFF);
  if (major != 1) {
    out += static_cast<char>((n >> 16) & 0xFF);
    out += static_cast<char>((n >> 24) & 0xFF);
  }
  return out + h + data;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

class Npy : public ::testing::Test {
 protected:
  spindle_test::TempDir dir;
  std::string put(const std::string& bytes) {
    const std::string p = dir.file("a.npy");
    spindle_test::write_text(p, bytes);
    return p;
  }
  void refuse(const std::string& bytes, const std::string& needle) {
    const std::string p = put(bytes);
    try {
      (void)read_npy<double>(p);
      ADD_FAILURE() << "accepted; expected '" << needle << "'";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("a.npy"), std::string::npos) << e.what();
    }
  }
};

TEST_F(Npy, ReadsHandWrittenFloat64MatrixInCOrder) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6};
  const auto m = read_npy<double>(
      put(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", raw(v))));
  ASSERT_EQ(m.rows(), 2);
  ASSERT_EQ(m.cols(), 3);
  EXPECT_EQ(m(0, 2), 3.0);
  EXPECT_EQ(m(1, 0), 4.0);
}

TEST_F(Npy, ReadsVersion2Float32VectorAndConverts) {
  const std::vector<float> v{0.5f, -1.25f, 3e-39f};
  const std::string p =
      put(npy_bytes("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<f4\"}", raw(v), 2));
  const auto d = read_npy<double>(p);
  ASSERT_EQ(d.rows(), 3);
  ASSERT_EQ(d.cols(), 1);
  EXPECT_EQ(d(2, 0), static_cast<double>(3e-39f));
  const Vector<float> f = read_npy_vector<float>(p);
  EXPECT_EQ(f.values(), v);
  EXPECT_EQ(read_npy_header(p).major_version, 2);
  EXPECT_EQ(read_npy_header(p).word_size, 4);
}

TEST_F(Npy, WriterMatchesTheSpecByteForByte) {
  DenseMatrix<float> m(2, 2, std::vector<float>{1, 2, 3, 4});
  write_npy(dir.file("w.npy"), m);
  EXPECT_EQ(spindle_test::read_text(dir.file("w.npy")),
            npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                      raw(std::vector<float>{1, 2, 3, 4})));
  write_npy(dir.file("v.npy"), std::vector<double>{7, 8});
  EXPECT_EQ(spindle_test::read_text(dir.file("v.npy")),
            npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                      raw(std::vector<double>{7, 8})));
}

template <class T>
void round_trip(const spindle_test::TempDir& dir) {
  std::mt19937 rng(5);
  for (auto [r, c] : std::vector<std::pair<int, int>>{{0, 0}, {0, 3}, {1, 1}, {17, 5}, {1, 64}}) {
    DenseMatrix<T> m(r, c);
    for (auto& x : m.storage()) x = static_cast<T>(static_cast<double>(rng()) / 7.0 - 3e8);
    write_npy(dir.file("r.npy"), m);
    const auto back = read_npy<T>(dir.file("r.npy"));
    EXPECT_EQ(back.rows(), r);
    EXPECT_EQ(back.cols(), c);
    EXPECT_EQ(back.storage(), m.storage());
  }
  Vector<T> v(std::vector<T>{1, -2, 3});
  write_npy(dir.file("v.npy"), v);
  EXPECT_EQ(read_npy_vector<T>(dir.file("v.npy")).values(), v.values());
  Vector<T> holes = Vector<T>::empty(3);
  EXPECT_THROW(write_npy(dir.file("h.npy"), holes), InvalidArgument);
}

TEST_F(Npy, RoundTripFloat) { round_trip<float>(dir); }
TEST_F(Npy, RoundTripDouble) { round_trip<double>(dir); }

TEST_F(Npy, RefusesWhatItCannotRepresent) {
  const std::string d8 = raw(std::vector<double>{1, 2, 3, 4});
  refuse(npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", d8), "Fortran");
  refuse(npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", d8),
         "big-endian");
  refuse(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", d8),
         "not supported");
  refuse(npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", d8),
         "not supported");
  refuse(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 2), }", d8),
         "3 dimensions");
  refuse(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", d8), "0 dimensions");
  refuse(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", d8),
         "truncated data");
  refuse(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", d8),
         "trailing bytes");
  refuse(npy_bytes("{'descr': '<f8', 'shape': (2, 2), }", d8), "lacks");
  refuse(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}", d8),
         "unexpected key");
  refuse("\x93NUMPX\x01\x00\x10\x00{}", "magic");
  refuse(std::string("\x93NUMPY\x04\x00\x10\x00", 10) + "{}", "version 4.0");
  refuse(std::string("\x93NUMPY\x01\x00\xff\x7f", 10) + "{", "truncated .npy header");
  refuse("\x93NU", "magic");
}

TEST_F(Npy, AbsurdShapeRefusedWithoutAllocating) {
  const std::string p = put(npy_bytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", "abc"));
  spindle_test::AllocationProbe probe;
  EXPECT_THROW(read_npy<double>(p), ParseError);
  const std::string q = put(npy_bytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", "abcdefgh"));
  EXPECT_THROW(read_npy<float>(q), ParseError);
  EXPECT_LT(probe.max_bytes(), std::size_t{1} << 20);
  const std::string r = put(npy_bytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999, 1), }", ""));
  EXPECT_THROW(read_npy<float>(r), ParseError);
}

TEST_F(Npy, MatrixIsNotAVector) {
  write_npy(dir.file("m.npy"), DenseMatrix<double>(2, 2));
  EXPECT_THROW(read_npy_vector<double>(dir.file("m.npy")), DimensionMismatch);
  write_npy(dir.file("c.npy"), DenseMatrix<double>(3, 1, 2.0));
  EXPECT_EQ(read_npy_vector<double>(dir.file("c.npy")).values(), (std::vector<double>{2, 2, 2}));
}

}  // namespace
