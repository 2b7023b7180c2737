// SPDX-License-Identifier: Apache-2.0
// The .spg binary format: round trips for every index and value type (labels, empty rows,
// empty and rectangular graphs), the same graph as the text path, and every class of damage
// (each header byte, each section, truncation at each boundary, huge declared sizes) refused
// with a ParseError that says what is wrong, without out-of-bounds reads or large allocations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"

namespace {

using namespace spindle;

// Header field offsets (docs/design/spg_format.md).
constexpr std::size_t kOffVersion = 8, kOffByteOrder = 12, kOffIndex = 16, kOffValue = 17,
                      kOffReserved = 18, kOffFlags = 20, kOffRows = 24, kOffCols = 32, kOffNnz = 40,
                      kOffFileBytes = 48, kOffSections = 56, kOffChecksum = 120;
constexpr std::size_t kHeader = 128;

std::uint64_t get64(const std::string& s, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}
void put64(std::string& s, std::size_t at, std::uint64_t v) { std::memcpy(&s[at], &v, 8); }
// Makes the checksum right again, so a test reaches the checks behind it.
void reseal(std::string& s) { put64(s, kOffChecksum, spg_checksum(s.data(), s.size())); }

class Spg : public ::testing::Test {
 public:
  spindle_test::TempDir dir;
  std::string put(const std::string& bytes, const std::string& name = "g.spg") {
    const std::string p = dir.file(name);
    spindle_test::write_text(p, bytes);
    return p;
  }
};

template <class I, class V>
Graph<I, V> random_graph(std::int64_t rows, std::int64_t cols, std::int64_t entries,
                         unsigned seed) {
  auto coo = spindle_test::random_coo<I>(rows, cols, entries, seed, std::is_same_v<V, float>);
  return build_graph<I, V>(std::move(coo));
}

template <class I, class V, class J, class W>
void expect_same(const Graph<I, V>& a, const Graph<J, W>& b, const std::string& what) {
  ASSERT_EQ(static_cast<std::int64_t>(a.rows()), static_cast<std::int64_t>(b.rows())) << what;
  ASSERT_EQ(static_cast<std::int64_t>(a.cols()), static_cast<std::int64_t>(b.cols())) << what;
  ASSERT_EQ(static_cast<std::int64_t>(a.nnz()), static_cast<std::int64_t>(b.nnz())) << what;
  for (std::size_t i = 0; i < a.row_ptr().size(); ++i) {
    ASSERT_EQ(static_cast<std::int64_t>(a.row_ptr()[i]), static_cast<std::int64_t>(b.row_ptr()[i]))
        << what << " row_ptr " << i;
  }
  for (std::size_t k = 0; k < a.col_idx().size(); ++k) {
    ASSERT_EQ(static_cast<std::int64_t>(a.col_idx()[k]), static_cast<std::int64_t>(b.col_idx()[k]))
        << what << " col " << k;
    if constexpr (!is_pattern_v<V> && !is_pattern_v<W>) {
      ASSERT_EQ(static_cast<double>(static_cast<W>(a.values()[k])),
                static_cast<double>(b.values()[k]))
          << what << " value " << k;
    }
  }
}

TEST_F(Spg, RoundTripsEveryIndexAndValueTypeWithLabelsAndEmptyRows) {
  for_each_graph_type([&](auto i_tag, auto v_tag) {
    using I = decltype(i_tag);
    using V = decltype(v_tag);
    const std::string what =
        std::string(sizeof(I) == 4 ? "int32 " : "int64 ") + to_string(value_kind_of<V>());
    const Graph<I, V> g = random_graph<I, V>(300, 300, 4000, 7);
    ASSERT_GT(g.stats().empty_rows, 0) << what;
    std::vector<std::string> labels;
    for (int v = 0; v < 300; ++v) labels.push_back(v % 3 ? "v" + std::to_string(v) : "");
    const std::string p = dir.file("r.spg");
    write_spg(p, g, labels);
    SpgResult<I, V> r = read_spg<I, V>(p);
    expect_same(g, r.graph, what);
    EXPECT_EQ(r.labels, labels) << what;
    EXPECT_FALSE(r.header.labels_are_integers) << what;
    EXPECT_EQ(r.header.index, index_kind_of<I>()) << what;
    EXPECT_EQ(r.header.values, value_kind_of<V>()) << what;
    // Without labels, and the bytes are deterministic.
    write_spg(p, g);
    const std::string once = spindle_test::read_text(p);
    write_spg(p, g, {}, SpgWriteOptions{false, 1});
    EXPECT_EQ(spindle_test::read_text(p), once) << what << ": the thread count changed the bytes";
    r = read_spg<I, V>(p);
    expect_same(g, r.graph, what);
    EXPECT_TRUE(r.labels.empty());
    EXPECT_FALSE(r.header.has_labels);
    EXPECT_EQ(once.size() % 64, 0u);
  });
}

TEST_F(Spg, RoundTripsEmptyAndRectangularGraphsAndIntegerLabels) {
  const std::string p = dir.file("e.spg");
  write_spg(p, Graph<std::int32_t, float>());
  EXPECT_EQ((read_spg<std::int32_t, float>(p).graph.rows()), 0);
  const Graph<std::int64_t, double> none(5, 5, std::vector<std::int64_t>(6, 0), {}, {});
  write_spg(p, none, {"10", "-2", "3", "4", "5"});
  auto r = read_spg<std::int64_t, double>(p);
  EXPECT_EQ(r.graph.rows(), 5);
  EXPECT_EQ(r.graph.nnz(), 0);
  EXPECT_TRUE(r.header.labels_are_integers);
  EXPECT_EQ(r.labels[1], "-2");
  const auto rect = random_graph<std::int32_t, double>(40, 7, 100, 3);
  write_spg(p, rect);
  expect_same(rect, read_spg<std::int32_t, double>(p).graph, "rectangular");
  EXPECT_THROW(write_spg(p, rect, std::vector<std::string>(40, "x")), InvalidArgument);
  EXPECT_THROW(write_spg(p, none, {"a"}), InvalidArgument);
}

TEST_F(Spg, ReadsAcrossTypes) {
  const auto g = random_graph<std::int32_t, double>(200, 200, 3000, 11);
  const std::string p = dir.file("x.spg");
  write_spg(p, g);
  expect_same(g, read_spg<std::int64_t, double>(p).graph, "int32 file as int64");
  expect_same(g, read_spg<std::int32_t, float>(p).graph, "double file as float");
  expect_same(g, read_spg<std::int64_t, Pattern>(p).graph, "double file as pattern");
  const auto p64 = random_graph<std::int64_t, Pattern>(100, 100, 800, 5);
  write_spg(p, p64);
  const auto ones = read_spg<std::int32_t, double>(p).graph;
  expect_same(p64, ones, "int64 pattern file as int32 double");
  for (const double v : ones.values()) ASSERT_EQ(v, 1.0);
}

TEST_F(Spg, SameGraphAsTheTextPathAndFoundByMagicWhateverTheName) {
  SPINDLE_REQUIRE_DATA();
  for (const char* name : {"karate.mtx", "west0067.mtx", "skew_int32.mtx", "lp_afiro.mtx"}) {
    const std::string mtx = spindle_test::graphs_dir() + "/" + name;
    const auto g = read_matrix_market<std::int32_t, double>(mtx);
    const std::string p = dir.file("copy.bin");  // no .spg extension: the magic tells
    write_spg(p, g);
    EXPECT_EQ(guess_graph_format(p), GraphFileFormat::Spg) << name;
    const LoadedGraph<std::int32_t, double> l = load_graph<std::int32_t, double>(p);
    EXPECT_EQ(l.format, GraphFileFormat::Spg) << name;
    expect_same(g, l.graph, name);
  }
  // An edge list's labels survive the trip.
  const auto el = read_edge_list<std::int32_t, Pattern>(spindle_test::graphs_dir() + "/karate.csv");
  const std::string p = dir.file("k.spg");
  save_graph(p, el.graph, GraphFileFormat::Spg, el.labels);
  const auto back = load_graph<std::int32_t, Pattern>(p);
  expect_same(el.graph, back.graph, "karate.csv");
  EXPECT_EQ(back.labels, el.labels);
  EXPECT_EQ(back.labels_are_integers, el.labels_are_integers);
  EXPECT_EQ(guess_graph_format(dir.file("new.spg")), GraphFileFormat::Spg);
}

// A small graph with values and labels: every section present.
std::string sample(const spindle_test::TempDir& dir) {
  const auto g = random_graph<std::int32_t, float>(50, 50, 400, 9);
  std::vector<std::string> labels;
  for (int v = 0; v < 50; ++v) labels.push_back("n" + std::to_string(v));
  write_spg(dir.file("s.spg"), g, labels);
  return spindle_test::read_text(dir.file("s.spg"));
}

// Reads bytes as a .spg file and returns the ParseError's message ("" when it read).
std::string refusal(Spg& t, const std::string& bytes, const SpgReadOptions& o = {}) {
  const std::string p = t.put(bytes, "bad.spg");
  try {
    read_spg<std::int32_t, float>(p, o);
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), p);
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ParseError: " << e.what();
    return "?";
  }
  return "";
}

#define EXPECT_REFUSED(bytes, words) \
  EXPECT_NE(refusal(*this, bytes).find(words), std::string::npos) << refusal(*this, bytes)

TEST_F(Spg, EveryHeaderByteIsChecked) {
  const std::string good = sample(dir);
  ASSERT_EQ(refusal(*this, good), "");
  for (std::size_t at = 0; at < kHeader; ++at) {
    std::string s = good;
    s[at] = static_cast<char>(s[at] ^ 0x5A);
    EXPECT_NE(refusal(*this, s), "") << "byte " << at << " of the header was not checked";
  }
  std::string s = good;
  s[3] = 'X';
  EXPECT_REFUSED(s, "bad magic");
  s = good;
  s[kOffVersion] = 2;
  EXPECT_REFUSED(s, "unsupported version 2");
  s = good;
  std::reverse(&s[kOffByteOrder], &s[kOffByteOrder + 4]);
  EXPECT_REFUSED(s, "big-endian");
  s = good;
  s[kOffIndex] = 2;
  EXPECT_REFUSED(s, "unsupported index type");
  s = good;
  s[kOffValue] = 7;
  EXPECT_REFUSED(s, "unsupported value type");
  s = good;
  s[kOffReserved] = 1;
  EXPECT_REFUSED(s, "reserved");
  s = good;
  s[kOffFlags + 2] = 1;
  EXPECT_REFUSED(s, "unknown flags");
  s = good;
  put64(s, kOffRows, get64(s, kOffRows) + 1);
  EXPECT_REFUSED(s, "size mismatch");
  s = good;
  put64(s, kOffCols, std::uint64_t{1} << 40);
  EXPECT_REFUSED(s, "does not fit");
  s = good;
  put64(s, kOffNnz, get64(s, kOffNnz) - 1);
  EXPECT_REFUSED(s, "size mismatch");
  s = good;
  put64(s, kOffFileBytes, get64(s, kOffFileBytes) + 64);
  EXPECT_REFUSED(s, "size mismatch");
  s = good;
  put64(s, kOffSections + 16, get64(s, kOffSections + 16) + 64);
  EXPECT_REFUSED(s, "column indices section starts at");
  s = good;
  s[kOffChecksum] = static_cast<char>(s[kOffChecksum] ^ 1);
  EXPECT_REFUSED(s, "checksum mismatch");
}

TEST_F(Spg, EverySectionIsCoveredByTheChecksum) {
  const std::string good = sample(dir);
  // A byte inside each section and in the padding after it.
  for (int sec = 0; sec < 4; ++sec) {
    const std::uint64_t off = get64(good, kOffSections + 16 * sec);
    const std::uint64_t size = get64(good, kOffSections + 16 * sec + 8);
    ASSERT_GT(size, 0u);
    for (const std::uint64_t at : {off, off + size / 2, off + size - 1}) {
      std::string s = good;
      s[at] = static_cast<char>(s[at] ^ 0x10);
      EXPECT_REFUSED(s, "checksum mismatch");
    }
  }
  std::string s = good;
  s[s.size() - 1] = 1;  // padding after the labels
  EXPECT_REFUSED(s, "checksum mismatch");
}

TEST_F(Spg, DamagedStructureBehindAValidChecksumIsRefused) {
  const std::string good = sample(dir);
  const std::uint64_t rp = get64(good, kOffSections), ci = get64(good, kOffSections + 16),
                      lab = get64(good, kOffSections + 48);
  std::int32_t v;
  std::string s = good;
  v = 1 << 20;  // an offset that jumps past nnz, then comes back
  std::memcpy(&s[rp + 4 * 10], &v, 4);
  reseal(s);
  EXPECT_REFUSED(s, "row offsets not monotone");
  s = good;
  v = 3;
  std::memcpy(&s[rp], &v, 4);
  reseal(s);
  EXPECT_REFUSED(s, "must start at 0");
  s = good;
  v = 50;
  std::memcpy(&s[ci + 4 * 5], &v, 4);
  reseal(s);
  EXPECT_REFUSED(s, "column out of range");
  s = good;
  v = -1;
  std::memcpy(&s[ci], &v, 4);
  reseal(s);
  EXPECT_REFUSED(s, "column out of range");
  s = good;
  std::int32_t a, b;  // swap the first two columns of row 0 (it holds several)
  std::memcpy(&a, &s[ci], 4);
  std::memcpy(&b, &s[ci + 4], 4);
  std::memcpy(&s[ci], &b, 4);
  std::memcpy(&s[ci + 4], &a, 4);
  reseal(s);
  EXPECT_REFUSED(s, "not strictly increasing");
  s = good;
  put64(s, lab, 49);  // label count
  reseal(s);
  EXPECT_REFUSED(s, "labels");
  s = good;
  put64(s, lab + 8 + 8 * 10, 1u << 30);  // a label offset far past the text
  reseal(s);
  EXPECT_REFUSED(s, "label offsets");
  // The checksum is skippable; the structure checks are not.
  s = good;
  v = 50;
  std::memcpy(&s[ci + 4 * 5], &v, 4);
  SpgReadOptions fast;
  fast.verify_checksum = false;
  EXPECT_NE(refusal(*this, s, fast).find("column out of range"), std::string::npos);
}

TEST_F(Spg, TruncatedAtEverySectionBoundaryOrByteOfTheHeader) {
  const std::string good = sample(dir);
  std::vector<std::size_t> cuts = {0, 1, 7, 8, 64, 127, 128, good.size() - 1};
  for (int sec = 0; sec < 4; ++sec) {
    const std::uint64_t off = get64(good, kOffSections + 16 * sec);
    const std::uint64_t size = get64(good, kOffSections + 16 * sec + 8);
    cuts.push_back(static_cast<std::size_t>(off));
    cuts.push_back(static_cast<std::size_t>(off + size));
    cuts.push_back(static_cast<std::size_t>(off + size / 2));
  }
  for (const std::size_t cut : cuts) {
    if (cut >= good.size()) continue;
    const std::string msg = refusal(*this, good.substr(0, cut));
    EXPECT_TRUE(msg.find("truncated") != std::string::npos ||
                msg.find("bad magic") != std::string::npos)
        << "cut at " << cut << ": " << msg;
  }
  EXPECT_REFUSED(good + std::string(64, '\0'), "trailing bytes");
}

TEST_F(Spg, HugeDeclaredSizesAreRefusedBeforeAnyAllocation) {
  const std::string good = sample(dir);
  spindle_test::AllocationProbe probe;
  for (const std::uint64_t big :
       {std::uint64_t{1} << 31, std::uint64_t{1} << 40, std::uint64_t{1} << 62,
        std::numeric_limits<std::uint64_t>::max()}) {
    for (const std::size_t field : {kOffRows, kOffNnz, kOffFileBytes, kOffSections + 8,
                                    kOffSections + 24, kOffSections + 56}) {
      std::string s = good;
      put64(s, field, big);
      EXPECT_NE(refusal(*this, s), "") << "field " << field << " = " << big;
    }
  }
  // A consistent int64 file whose sections would need 2^40 bytes: refused by size.
  std::string s = good;
  s[kOffIndex] = 8;
  put64(s, kOffRows, std::uint64_t{1} << 37);
  EXPECT_REFUSED(s, "size mismatch");
  EXPECT_LT(probe.max_bytes(), std::size_t{1} << 20);
}

TEST_F(Spg, ColumnsFarBeyondTheFileNeedTrustDimensions) {
  // One row, no entries, 2^40 columns: a valid file of 192 bytes whose column count would size
  // every vertex array of an algorithm.
  const Graph<std::int64_t, Pattern> g(1, std::int64_t{1} << 40, {0, 0}, {});
  const std::string p = dir.file("wide.spg");
  write_spg(p, g);
  try {
    read_spg<std::int64_t, Pattern>(p);
    ADD_FAILURE() << "read";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("trust_dimensions"), std::string::npos) << e.what();
  }
  SpgReadOptions o;
  o.trust_dimensions = true;
  EXPECT_EQ((read_spg<std::int64_t, Pattern>(p, o).graph.cols()), std::int64_t{1} << 40);
  EXPECT_THROW((read_spg<std::int32_t, Pattern>(p, o)), InvalidArgument);
}

TEST_F(Spg, NonFiniteValuesAreRefusedUnlessAllowed) {
  const Graph<std::int32_t, double> g(2, 2, {0, 1, 2}, {1, 0},
                                      {1.0, std::numeric_limits<double>::quiet_NaN()});
  const std::string p = dir.file("nan.spg");
  write_spg(p, g);
  try {
    read_spg<std::int32_t, double>(p);
    ADD_FAILURE() << "read";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("entry 1 is NaN"), std::string::npos) << e.what();
  }
  SpgReadOptions o;
  o.allow_nonfinite = true;
  EXPECT_TRUE(std::isnan(read_spg<std::int32_t, double>(p, o).graph.values()[1]));
}

TEST_F(Spg, WriterIsAtomicAndLeavesNothingBehind) {
  const auto g = random_graph<std::int32_t, double>(30, 30, 100, 2);
  const std::string p = dir.file("a.spg");
  write_spg(p, g);
  const std::string before = spindle_test::read_text(p);
  // A failing write (labels of the wrong count) leaves the old file and no temporary.
  EXPECT_THROW(write_spg(p, g, {"x"}), InvalidArgument);
  EXPECT_EQ(spindle_test::read_text(p), before);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"a.spg"});
  EXPECT_EQ(read_spg_header(p).nnz, g.nnz());
}

}  // namespace
