// SPDX-License-Identifier: Apache-2.0
// Inputs that never end, that end at once, that lie about their size or that change while they
// are read: each is refused with one line naming the limit or the flag, quickly, and the process
// never dies of a signal. `-` and .gz inputs, `-o -` outputs.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_harness.hpp"
#include "spindle/loaders/npy.hpp"

namespace spindle::test {
namespace {

namespace fs = std::filesystem;

class CliLimits : public CliTest {
 protected:
  void write_file(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  /// Runs an sh script in which $SPINDLE is the binary; stdout / stderr captured, seconds taken.
  RunResult sh(const std::string& script, double* seconds = nullptr) const {
    const std::string out = path("sh_out.txt"), err = path("sh_err.txt");
    const std::string cmd = "SPINDLE=" + q(spindle_binary()) + "; export SPINDLE; { " + script +
                            "; } >" + q(out) + " 2>" + q(err) + " </dev/null";
    const auto t0 = std::chrono::steady_clock::now();
    const int status = std::system(cmd.c_str());
    if (seconds) {
      *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    RunResult r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return r;
  }
};

// ---- streams that never end ---------------------------------------------------------------

TEST_F(CliLimits, EndlessStreamsAreRefusedEarlyNamingTheLimit) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string k = q(graph_path("karate.mtx"));
  struct Case {
    std::string script;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"timeout 60 $SPINDLE pagerank /dev/zero", "NUL"},
      {"timeout 60 $SPINDLE pagerank /dev/urandom", "binary"},
      {"timeout 60 $SPINDLE pagerank - < /dev/zero", "NUL"},
      // Text without a line break: the longest line is the limit.
      {"tr '\\0' a < /dev/zero | timeout 60 $SPINDLE pagerank -", "line break"},
      // Lines that are no edges: refused at the first one, not at the end of memory.
      {"yes | timeout 60 $SPINDLE pagerank -", "missing destination column"},
      {"yes | timeout 60 $SPINDLE info -", "missing destination column"},
      {"timeout 60 $SPINDLE pagerank " + k + " --personalize /dev/zero", "NUL"},
      {"timeout 60 $SPINDLE pagerank " + k + " --personalize /dev/urandom", "binary"},
      {"tr '\\0' 1 < /dev/zero | timeout 60 $SPINDLE pagerank " + k + " --personalize -",
       "line break"},
      {"timeout 60 $SPINDLE gcn " + k + " --features /dev/zero", ".npy"},
      {"timeout 60 $SPINDLE gcn " + k + " --features /dev/urandom", ".npy"},
  };
  for (const auto& c : cases) {
    double seconds = 0;
    RunResult r = sh(c.script, &seconds);
    EXPECT_EQ(r.rc, 1) << c.script << "\n" << r.err;
    EXPECT_EQ(r.err_lines().size(), 1u) << c.script << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.script << "\n" << r.err;
    EXPECT_LT(seconds, 30) << c.script;
  }
}

TEST_F(CliLimits, AStreamLongerThanTheLimitIsRefusedSayingTheLimit) {
  // A valid, endless edge list: only the size limit stops it (set small for the test).
  RunResult r = sh("yes '1 2' | SPINDLE_STREAM_LIMIT=2000000 timeout 60 $SPINDLE pagerank -");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("1.9 MiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SPINDLE_STREAM_LIMIT"), std::string::npos) << r.err;
}

// ---- streams that end at once --------------------------------------------------------------

TEST_F(CliLimits, EmptyInputsAreAnErrorUnlessAllowed) {
  for (const char* script : {"$SPINDLE pagerank /dev/null", "true | $SPINDLE pagerank -",
                             "$SPINDLE info /dev/null --json", "$SPINDLE pagerank <(true)"}) {
    RunResult r = sh(std::string("exec bash -c ") + q(script));
    EXPECT_EQ(r.rc, 1) << script << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--allow-empty"), std::string::npos) << script << "\n" << r.err;
  }
  write_file("comments.txt", "# nothing but comments\n\n");
  RunResult c = run("pagerank " + q(path("comments.txt")));
  EXPECT_EQ(c.rc, 1) << c.out;
  RunResult ok = run("info --json --allow-empty /dev/null");
  ASSERT_EQ(ok.rc, 0) << ok.err;
  EXPECT_EQ(JsonReader(ok.out).parse_document().at("rows").num, 0);
}

TEST_F(CliLimits, PowerIterationOnAnEmptyGraphIsNotAConvergedEigenpair) {
  write_file("empty.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n");
  RunResult r = run("power-iteration " + q(path("empty.mtx")));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_EQ(r.out.find("converged yes"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no vertices"), std::string::npos) << r.err;
}

// ---- sizes from headers are not trusted ----------------------------------------------------

TEST_F(CliLimits, AHugeDeclaredShapeNeedsAFlagAndAllocatesNothing) {
  write_file("big.mtx",
             "%%MatrixMarket matrix coordinate pattern general\n100000000 100000000 0\n");
  double seconds = 0;
  RunResult r = sh("$SPINDLE pagerank " + q(path("big.mtx")) + " --top 1", &seconds);
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("--trust-dimensions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("big.mtx:2"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 5);
  // A size line near 2^61..2^63 must not overflow the memory estimate into a small number.
  for (const char* n : {"2305843009213693952", "4611686018427387904", "9223372036854775807"}) {
    write_file("huge.mtx", std::string("%%MatrixMarket matrix coordinate pattern general\n") + n +
                               " " + n + " 0\n");
    RunResult h = run("pagerank " + q(path("huge.mtx")) + " --trust-dimensions --top 1");
    EXPECT_EQ(h.rc, 1) << n << "\n" << h.out;
    EXPECT_NE(h.err.find("huge.mtx: building the graph needs"), std::string::npos) << n << "\n"
                                                                                   << h.err;
  }
}

TEST_F(CliLimits, AnEmptyNpyArrayCannotDeclareHugeOtherDimensions) {
  // (0, 10^15): no data, but 10^15 columns would size the weights made from it.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1000000000000000), }";
  header.append(118 - header.size(), ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xFF);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  write_file("x.npy", file);
  write_file("empty.mtx", "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n");
  RunResult r = run("gcn " + q(path("empty.mtx")) + " --features " + q(path("x.npy")));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("x.npy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no element"), std::string::npos) << r.err;
}

TEST_F(CliLimits, AnOverflowWrittenAsDigitsIsAnOverflow) {
  const std::string big = "1" + std::string(400, '0');
  write_file("w.txt", "a b " + big + "\n");
  RunResult el = run("info " + q(path("w.txt")));
  EXPECT_EQ(el.rc, 1);
  EXPECT_NE(el.err.find("overflows"), std::string::npos) << el.err;
  write_file("w.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 " + big + "\n");
  RunResult mm = run("info " + q(path("w.mtx")));
  EXPECT_EQ(mm.rc, 1);
  EXPECT_NE(mm.err.find("overflows"), std::string::npos) << mm.err;
  EXPECT_NE(mm.err.find("w.mtx:3"), std::string::npos) << mm.err;
  write_file("p.csv", "1," + big + "\n");
  if (have_data()) {
    RunResult pr =
        run("pagerank " + q(graph_path("karate.mtx")) + " --personalize " + q(path("p.csv")));
    EXPECT_EQ(pr.rc, 1);
    EXPECT_NE(pr.err.find("overflows"), std::string::npos) << pr.err;
  }
  RunResult flag = run("pagerank --alpha " + big);
  EXPECT_EQ(flag.rc, 2);
  EXPECT_NE(flag.err.find("overflows"), std::string::npos) << flag.err;
}

// ---- a file that shrinks while it is read --------------------------------------------------

TEST_F(CliLimits, AFileTruncatedWhileItIsReadIsACleanErrorNotSigbus) {
  // A large edge list; another process truncates it while spindle reads it. Repeated, because
  // the truncation must land inside the read: the outcome is never a signal.
  const std::string g = path("big.el");
  const auto write_big = [&] {
    std::ofstream f(g, std::ios::binary);
    for (std::int64_t i = 0; i < 6000000; ++i) {
      f << i % 100003 << ' ' << (i * 7919) % 100019 << '\n';
    }
  };
  write_big();
  const auto full = fs::file_size(g);
  bool clean_error_seen = false;
  for (int attempt = 0; attempt < 8 && !clean_error_seen; ++attempt) {
    if (fs::file_size(g) != full) write_big();
    const std::string out = path("o.txt"), err = path("e.txt");
    const pid_t pid = ::fork();
    if (pid == 0) {
      const std::string cmd = q(spindle_binary()) + " info --threads 1 " + q(g) + " >" + q(out) +
                              " 2>" + q(err) + " </dev/null";
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + 100 * attempt));
    ASSERT_EQ(::truncate(g.c_str(), static_cast<off_t>(full / 3)), 0);
    int st = 0;
    ::waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFEXITED(st)) << "killed by a signal";
    const int rc = WEXITSTATUS(st);
    ASSERT_LT(rc, 128) << "the shell reports a death by signal " << rc - 128 << ": " << slurp(err);
    if (rc == 1) {
      const std::string e = slurp(err);
      EXPECT_EQ(lines_of(e).size(), 1u) << e;
      if (e.find("while it was being read") != std::string::npos) clean_error_seen = true;
    }
  }
  EXPECT_TRUE(clean_error_seen) << "the truncation never landed inside the read";
}

// ---- `-`, .gz, -o - ---------------------------------------------------------------------------

TEST_F(CliLimits, DashIsStandardInputAndOutput) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string k = q(graph_path("karate.mtx"));
  RunResult r = sh("cat " + k + " | $SPINDLE pagerank - -o - --format csv");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 35u) << r.out;  // the CSV alone: no report on standard output
  EXPECT_EQ(lines[0], "vertex,rank");
  RunResult j = sh("$SPINDLE pagerank " + k + " -o - --format json");
  ASSERT_EQ(j.rc, 0) << j.err;
  EXPECT_EQ(JsonReader(j.out).parse_document().at("n").num, 34);
  RunResult needs = run("pagerank " + k + " -o -");
  EXPECT_EQ(needs.rc, 2);
  EXPECT_NE(needs.err.find("--format"), std::string::npos) << needs.err;
  RunResult conv = sh("$SPINDLE convert " + k + " - --format tsv | $SPINDLE info - --json");
  ASSERT_EQ(conv.rc, 0) << conv.err;
  EXPECT_EQ(JsonReader(conv.out).parse_document().at("nnz").num, 156);
  write_file("p.csv", "1,1\n");
  RunResult pers = sh("$SPINDLE pagerank " + k + " --personalize - < " + q(path("p.csv")));
  EXPECT_EQ(pers.rc, 0) << pers.err;
  RunResult twice = sh("$SPINDLE pagerank - --personalize - < " + q(path("p.csv")));
  EXPECT_EQ(twice.rc, 2) << twice.err;
}

TEST_F(CliLimits, GzipInputsAreReadDirectly) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
#ifndef SPINDLE_TEST_HAS_ZLIB
  GTEST_SKIP() << "built without zlib";
#endif
  const std::string k = graph_path("karate.mtx");
  RunResult plain = run("pagerank " + q(k) + " -o " + q(path("a.csv")));
  ASSERT_EQ(plain.rc, 0) << plain.err;
  ASSERT_EQ(sh("gzip -c " + q(k) + " > " + q(path("k.mtx.gz"))).rc, 0);
  ASSERT_EQ(sh("gzip -c " + q(graph_path("karate.csv")) + " > " + q(path("e.gz"))).rc, 0);
  RunResult gz = run("pagerank " + q(path("k.mtx.gz")) + " -o " + q(path("b.csv")));
  ASSERT_EQ(gz.rc, 0) << gz.err;
  EXPECT_EQ(slurp(path("a.csv")), slurp(path("b.csv")));
  RunResult pipe = sh("$SPINDLE info - --json < " + q(path("k.mtx.gz")));
  ASSERT_EQ(pipe.rc, 0) << pipe.err;
  EXPECT_EQ(JsonReader(pipe.out).parse_document().at("nnz").num, 156);
  RunResult el = run("info --json " + q(path("e.gz")));
  ASSERT_EQ(el.rc, 0) << el.err;
  // Corrupt data is a clean error.
  std::string bytes = slurp(path("k.mtx.gz"));
  bytes.resize(bytes.size() / 2);
  write_file("cut.mtx.gz", bytes);
  RunResult cut = run("info " + q(path("cut.mtx.gz")));
  EXPECT_EQ(cut.rc, 1);
  EXPECT_NE(cut.err.find("gzip"), std::string::npos) << cut.err;
}

}  // namespace
}  // namespace spindle::test
