// SPDX-License-Identifier: Apache-2.0
// Seeded mutations of real files (truncate, flip bytes, insert tokens) never crash a reader:
// each either parses or throws a spindle::Error. Plus: results and the reported first error do
// not depend on the thread count, progress stays silent off a terminal, and AtomicFileWriter
// leaves either the complete file or nothing.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "loader_test_util.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/npy.hpp"

namespace {

using namespace spindle;

const char* const kTokens[] = {"-1",
                               "0",
                               "18446744073709551615",
                               "99999999999999999999999",
                               "nan",
                               "-inf",
                               "1e999",
                               "%",
                               "\n",
                               "\r",
                               " ",
                               "\t",
                               ",",
                               "#",
                               "abc",
                               "%%MatrixMarket",
                               "1.5",
                               "+",
                               "symmetric",
                               "\x00",
                               "\xff",
                               "2147483648",
                               "9223372036854775808",
                               "."};

std::string mutate(const std::string& in, std::mt19937_64& rng) {
  std::string s = in;
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0:  // truncate
        s.resize(at);
        break;
      case 1:  // flip a byte
        if (!s.empty()) s[at % s.size()] = static_cast<char>(rng() & 0xFF);
        break;
      case 2: {  // insert a token
        const std::string tok(kTokens[rng() % (sizeof(kTokens) / sizeof(kTokens[0]))]);
        s.insert(at, tok.empty() ? std::string(1, '\0') : tok);
        break;
      }
      default: {  // delete a run
        const std::size_t n = rng() % 8;
        if (at < s.size()) s.erase(at, n);
      }
    }
  }
  return s;
}

// Runs f; passes when it returns or throws spindle::Error, fails on any other exception.
template <class F>
void survives(F&& f, const std::string& what) {
  try {
    f();
  } catch (const Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": non-spindle exception " << typeid(e).name() << ": " << e.what();
  }
}

TEST(Corruption, MutatedMatrixMarketAndEdgeListFilesNeverCrash) {
  SPINDLE_REQUIRE_DATA();
  const std::vector<std::string> seeds = {
      "karate.mtx", "west0067_jumbled.mtx", "skew_fp64.mtx", "lp_afiro.mtx",
      "full.mtx",   "matrix_int32.mtx",     "karate.csv",    "as20graph.txt"};
  spindle_test::TempDir dir;
  // Robustness, not parallelism, is under test here (thread independence has its own test):
  // one thread keeps thousands of tiny reads fast on a busy 2-core machine.
  const int saved_threads = omp_get_max_threads();
  omp_set_num_threads(1);
  std::mt19937_64 rng(20240611);
  int parsed = 0, refused = 0;
  for (const std::string& name : seeds) {
    std::string text = spindle_test::read_text(spindle_test::graphs_dir() + "/" + name);
    if (text.size() > 8000) text.resize(8000);  // keep the suite fast; truncation is a mutation
    for (int k = 0; k < 60; ++k) {
      const std::string p = dir.file("m_" + std::to_string(k));
      spindle_test::write_text(p, mutate(text, rng));
      const std::string what = name + " mutation " + std::to_string(k);
      MatrixMarketOptions o;
      o.allow_nonfinite = k % 2 == 0;
      o.build.duplicates = k % 3 == 0 ? DuplicatePolicy::Error : DuplicatePolicy::Default;
      try {
        (void)read_matrix_market<std::int32_t, double>(p, o);
        ++parsed;
      } catch (const Error&) {
        ++refused;
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
      }
      survives([&] { (void)read_matrix_market<std::int64_t, Pattern>(p); }, what);
      survives([&] { (void)read_matrix_market_dense<float>(p); }, what);
      survives([&] { (void)read_matrix_market_header(p, k % 2 == 1); }, what);
      survives([&] { (void)read_edge_list<std::int32_t, float>(p); }, what);
    }
  }
  omp_set_num_threads(saved_threads);
  // The mutations must exercise both outcomes.
  EXPECT_GT(parsed, 10);
  EXPECT_GT(refused, 100);
}

TEST(Corruption, MutatedNpyFilesNeverCrash) {
  spindle_test::TempDir dir;
  DenseMatrix<double> m(5, 3, 1.5);
  write_npy(dir.file("seed.npy"), m);
  const std::string bytes = spindle_test::read_text(dir.file("seed.npy"));
  std::mt19937_64 rng(7);
  for (int k = 0; k < 200; ++k) {
    const std::string p = dir.file("n.npy");
    spindle_test::write_text(p, mutate(bytes, rng));
    survives([&] { (void)read_npy<float>(p); }, "npy mutation " + std::to_string(k));
    survives([&] { (void)read_npy_vector<double>(p); }, "npy mutation " + std::to_string(k));
  }
}

// A ~1.5 MB file with errors planted in several chunks: the reported error is the first one by
// line for every thread count, and a clean file reads the same for every thread count.
TEST(Determinism, FirstErrorAndResultIndependentOfThreadCount) {
  spindle_test::TempDir dir;
  Coo<std::int32_t> coo = generate_uniform<std::int32_t>(14, 5, 3);
  std::string body;
  for (std::int64_t k = 0; k < coo.size(); ++k) {
    body += std::to_string(coo.row[k] + 1) + " " + std::to_string(coo.col[k] + 1) + " " +
            std::to_string(static_cast<double>(k % 977) / 13.0) + "\n";
  }
  const std::string head = "%%MatrixMarket matrix coordinate real general\n16384 16384 " +
                           std::to_string(coo.size()) + "\n";
  const std::string clean = dir.file("clean.mtx");
  spindle_test::write_text(clean, head + body);
  const auto ref = read_matrix_market<std::int32_t, double>(clean, [] {
    MatrixMarketOptions o;
    o.threads = 1;
    return o;
  }());
  // Plant errors near 30%, 60% and 90% of the body (data line numbers start at 3).
  std::vector<std::string> lines;
  for (std::size_t b = 0, e; b < body.size(); b = e + 1) {
    e = body.find('\n', b);
    lines.push_back(body.substr(b, e - b));
  }
  const std::size_t n = lines.size();
  lines[n * 3 / 10] = "1 1 oops";
  lines[n * 6 / 10] = "0 1 1";
  lines[n * 9 / 10] = "1";
  std::string bad_body;
  for (const auto& l : lines) bad_body += l + "\n";
  const std::string bad = dir.file("bad.mtx");
  spindle_test::write_text(bad, head + bad_body);
  for (int t : {1, 2, 3, 4, 8}) {
    MatrixMarketOptions o;
    o.threads = t;
    const auto g = read_matrix_market<std::int32_t, double>(clean, o);
    EXPECT_EQ(g.col_idx(), ref.col_idx()) << t;
    EXPECT_EQ(g.values(), ref.values()) << t;
    try {
      (void)read_matrix_market<std::int32_t, double>(bad, o);
      ADD_FAILURE() << "bad file accepted with " << t << " threads";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), static_cast<std::int64_t>(n * 3 / 10) + 3) << t << ": " << e.what();
    }
  }
}

TEST(Progress, SilentWhenStderrIsNotATerminal) {
  spindle_test::TempDir dir;
  const auto g = make_default_graph<std::int32_t, Pattern>();
  write_matrix_market(dir.file("g.mtx"), g);
  ::testing::internal::CaptureStderr();
  MatrixMarketOptions o;
  o.progress = true;
  (void)read_matrix_market<std::int32_t, Pattern>(dir.file("g.mtx"), o);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(AtomicFile, CompleteFileOrNothing) {
  spindle_test::TempDir dir;
  const std::string p = dir.file("out.txt");
  {
    AtomicFileWriter w(p);
    w.write("partial");
    // destroyed without commit: as if an exception had left the writer
  }
  EXPECT_TRUE(dir.list().empty());
  spindle_test::write_text(p, "old");
  {
    AtomicFileWriter w(p);
    w.write("new content");
    EXPECT_EQ(spindle_test::read_text(p), "old");  // not visible before commit
    w.commit();
  }
  EXPECT_EQ(spindle_test::read_text(p), "new content");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"out.txt"}));
  EXPECT_THROW(AtomicFileWriter(dir.file("missing/x.txt")), Error);
}

}  // namespace
