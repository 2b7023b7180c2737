// SPDX-License-Identifier: Apache-2.0
// Graph inputs that are not regular files (pipes, /dev/stdin, process substitutions) and
// compressed files: the readers open a path more than once (format sniffing, header, body), so a
// stream must be captured once; compressed data must be refused with what to do.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "loader_test_util.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle_test {
namespace {

const char* kTriangle =
    "%%MatrixMarket matrix coordinate real general\n"
    "3 3 3\n"
    "1 2 0.5\n"
    "2 3 1.5\n"
    "3 1 2.5\n";

/// Writes `text` into a FIFO from another thread (the open blocks until the reader comes).
class FifoWriter {
 public:
  FifoWriter(const std::string& path, std::string text) : path_(path) {
    if (::mkfifo(path.c_str(), 0600) != 0) std::abort();
    writer_ = std::thread([this, t = std::move(text)] {
      if (std::FILE* f = std::fopen(path_.c_str(), "wb")) {
        std::fwrite(t.data(), 1, t.size(), f);
        std::fclose(f);
      }
    });
  }
  ~FifoWriter() { writer_.join(); }

 private:
  std::string path_;
  std::thread writer_;
};

TEST(StreamInput, MatrixMarketFromAFifoIsReadOnceAndWhole) {
  TempDir dir;
  const std::string fifo = dir.file("g.fifo");  // no .mtx: the format is sniffed from the bytes
  FifoWriter w(fifo, kTriangle);
  const auto g = spindle::load_graph<std::int32_t, double>(fifo);
  EXPECT_EQ(g.format, spindle::GraphFileFormat::MatrixMarket);
  ASSERT_EQ(g.graph.rows(), 3);
  ASSERT_EQ(g.graph.nnz(), 3);
  EXPECT_EQ(g.graph.col_idx()[0], 1);
  EXPECT_DOUBLE_EQ(g.graph.values()[0], 0.5);
  EXPECT_DOUBLE_EQ(g.graph.values()[2], 2.5);
}

TEST(StreamInput, SpgFromAFifoAndFromGzipWithItsLabels) {
  TempDir dir;
  const spindle::Graph<std::int32_t, double> g(3, 3, {0, 1, 2, 3}, {1, 2, 0}, {0.5, 1.5, 2.5});
  const std::vector<std::string> labels = {"x", "y", "z"};
  spindle::write_spg(dir.file("g.spg"), g, labels);
  const std::string bytes = read_text(dir.file("g.spg"));
  {
    const std::string fifo = dir.file("g.fifo");  // binary through a pipe: found by its magic
    FifoWriter w(fifo, bytes);
    const auto l = spindle::load_graph<std::int32_t, double>(fifo);
    EXPECT_EQ(l.format, spindle::GraphFileFormat::Spg);
    EXPECT_EQ(l.graph.col_idx(), g.col_idx());
    EXPECT_EQ(l.graph.values(), g.values());
    EXPECT_EQ(l.labels, labels);
  }
  {
    // A stream longer than its header declares is refused.
    const std::string fifo = dir.file("long.fifo");
    FifoWriter w(fifo, bytes + std::string(64, '\0'));
    EXPECT_THROW((spindle::load_graph<std::int32_t, double>(fifo)), spindle::ParseError);
  }
#if SPINDLE_TEST_HAS_ZLIB
  ASSERT_EQ(std::system(("gzip -k '" + dir.file("g.spg") + "'").c_str()), 0);
  const auto z = spindle::load_graph<std::int32_t, double>(dir.file("g.spg.gz"));
  EXPECT_EQ(z.format, spindle::GraphFileFormat::Spg);
  EXPECT_EQ(z.graph.values(), g.values());
  EXPECT_EQ(z.labels, labels);
#endif
}

TEST(StreamInput, EdgeListFromAFifo) {
  TempDir dir;
  const std::string fifo = dir.file("g.el");
  FifoWriter w(fifo, "a b\nb c\nc a\nc d\n");
  const auto g = spindle::load_graph<std::int32_t, spindle::Pattern>(fifo);
  EXPECT_EQ(g.format, spindle::GraphFileFormat::EdgeList);
  EXPECT_EQ(g.graph.rows(), 4);
  EXPECT_EQ(g.graph.nnz(), 4);
  ASSERT_EQ(g.labels.size(), 4u);
  EXPECT_EQ(g.labels[3], "d");
}

TEST(StreamInput, CaptureHoldsTheBytesOnlyWhileAlive) {
  TempDir dir;
  const std::string fifo = dir.file("g.mtx");
  FifoWriter w(fifo, kTriangle);
  {
    const spindle::InputStreamCapture capture(fifo);
    EXPECT_TRUE(capture.active());
    EXPECT_EQ(capture.bytes(), static_cast<std::int64_t>(std::string(kTriangle).size()));
    // Header and body readers each open the path: both see the captured bytes.
    const auto h = spindle::read_matrix_market_header(fifo);
    EXPECT_EQ(h.entries, 3);
    const auto g = spindle::read_matrix_market<std::int64_t, double>(fifo);
    EXPECT_EQ(g.nnz(), 3);
  }
  // A regular file is left alone.
  write_text(dir.file("r.mtx"), kTriangle);
  const spindle::InputStreamCapture regular(dir.file("r.mtx"));
  EXPECT_FALSE(regular.active());
}

TEST(StreamInput, CompressedFilesAreRefusedSayingWhatToDo) {
  TempDir dir;
  const std::string gz = dir.file("g.mtx");
  // The first bytes of `gzip -c`: magic 1f 8b, method 8, then anything.
  write_text(gz, std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage", 18));
  try {
    spindle::read_matrix_market<std::int32_t, double>(gz);
    FAIL() << "gzip data was parsed";
  } catch (const spindle::ParseError& e) {
    const std::string what = e.what();
#if SPINDLE_TEST_HAS_ZLIB
    // gzip is decompressed: a gzip header followed by garbage is corrupt gzip data.
    EXPECT_NE(what.find("gzip data"), std::string::npos) << what;
#else
    EXPECT_NE(what.find("gzip-compressed"), std::string::npos) << what;
    EXPECT_NE(what.find("zcat " + gz), std::string::npos) << what;
#endif
  }
  const std::string xz = dir.file("g.el");
  write_text(xz, std::string("\xfd"
                             "7zXZ\x00\x00garbage",
                             13));
  try {
    spindle::load_graph<std::int32_t, spindle::Pattern>(xz);
    FAIL() << "xz data was parsed";
  } catch (const spindle::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("xz-compressed"), std::string::npos) << e.what();
  }
  // Text that merely starts like a bzip2 header is still an edge list, and so is one whose
  // first label is zstd's magic (labels are any bytes; Spindle may have written the file
  // itself): the hint is given only when the bytes do not parse (found by the edge-list fuzzer).
  write_text(dir.file("b.el"), "BZh9 x\nx y\n");
  const auto b = spindle::load_graph<std::int32_t, spindle::Pattern>(dir.file("b.el"));
  EXPECT_EQ(b.graph.nnz(), 2);
  write_text(dir.file("z.el"), std::string("\x28\xb5\x2f\xfd x\nx y\n"));
  const auto z = spindle::load_graph<std::int32_t, spindle::Pattern>(dir.file("z.el"));
  EXPECT_EQ(z.graph.nnz(), 2);
}

}  // namespace
}  // namespace spindle_test
