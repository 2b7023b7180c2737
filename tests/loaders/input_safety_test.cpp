// SPDX-License-Identifier: Apache-2.0
// The shared mechanisms behind every reader and writer: AtomicFileWriter (links, FIFOs,
// devices, long names, permissions, signals), the stream reader (limits, NUL bytes, endless
// input, gzip), files that shrink while mapped, and what the readers make of empty input, header
// rows, ragged columns, zero-size arrays, dimensions and overflowing numbers.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "loader_test_util.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/npy.hpp"
#include "spindle/loaders/text_file.hpp"

namespace spindle_test {
namespace {

using namespace spindle;

bool has_temporary(const TempDir& dir) {
  for (const auto& f : dir.list()) {
    if (f.find("tmp") != std::string::npos) return true;
  }
  return false;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

/// Writes `text` into a FIFO from another thread.
class Feeder {
 public:
  Feeder(const std::string& path, std::string text) : path_(path) {
    // The reader may stop early (that is what is tested): a write then fails, not kills.
    ::signal(SIGPIPE, SIG_IGN);
    if (::mkfifo(path.c_str(), 0600) != 0) std::abort();
    t_ = std::thread([this, s = std::move(text)] {
      if (std::FILE* f = std::fopen(path_.c_str(), "wb")) {
        std::fwrite(s.data(), 1, s.size(), f);
        std::fclose(f);
      }
    });
  }
  ~Feeder() { t_.join(); }

 private:
  std::string path_;
  std::thread t_;
};

// ---- AtomicFileWriter ---------------------------------------------------------------------

TEST(AtomicOutput, SymbolicLinkTargetIsReplacedAndTheLinkKept) {
  TempDir dir;
  write_text(dir.file("target.txt"), "old");
  ASSERT_EQ(::symlink("target.txt", dir.file("link.txt").c_str()), 0);
  AtomicFileWriter w(dir.file("link.txt"));
  EXPECT_EQ(w.target(), dir.file("target.txt"));
  w.write("new");
  w.commit();
  struct stat st {};
  ASSERT_EQ(::lstat(dir.file("link.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(read_text(dir.file("target.txt")), "new");
  EXPECT_FALSE(has_temporary(dir));
}

TEST(AtomicOutput, FifoAndCharacterDevicesAreWrittenDirectly) {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_text(fifo); });
  {
    AtomicFileWriter w(fifo);
    EXPECT_TRUE(w.is_stream());
    w.write("through the pipe");
    w.commit();
  }
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  AtomicFileWriter null_out("/dev/null");
  EXPECT_TRUE(null_out.is_stream());
  null_out.write("x");
  null_out.commit();
  EXPECT_EQ(check_output_path("/dev/null"), OutputKind::Stream);
  EXPECT_EQ(check_output_path("-"), OutputKind::Stdout);
  EXPECT_EQ(check_output_path(dir.file("new.txt")), OutputKind::NewFile);
  EXPECT_THROW(check_output_path(dir.path()), Error);
  EXPECT_THROW(check_output_path(dir.file("missing/x.txt")), Error);
  EXPECT_THROW((void)AtomicFileWriter(dir.path()), Error);
  EXPECT_FALSE(has_temporary(dir));
}

TEST(AtomicOutput, A254CharacterNameWorksAndPermissionsAreKept) {
  TempDir dir;
  const std::string name = dir.file(std::string(254, 'n'));
  write_text(name, "old");
  ASSERT_EQ(::chmod(name.c_str(), 0640), 0);
  AtomicFileWriter w(name);
  w.write("new");
  w.commit();
  EXPECT_EQ(read_text(name), "new");
  struct stat st {};
  ASSERT_EQ(::stat(name.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_FALSE(has_temporary(dir));
}

TEST(AtomicOutput, TwoFilesAreFinishedBeforeEitherIsPublished) {
  TempDir dir;
  AtomicFileWriter a(dir.file("a.txt"));
  AtomicFileWriter b(dir.file("b.txt"));
  a.write("A");
  b.write("B");
  a.finish();
  b.finish();
  EXPECT_EQ(dir.list().size(), 2u);  // two temporaries, nothing at the paths yet
  b.publish();
  a.publish();
  EXPECT_EQ(read_text(dir.file("a.txt")), "A");
  EXPECT_EQ(read_text(dir.file("b.txt")), "B");
  EXPECT_FALSE(has_temporary(dir));
}

TEST(AtomicOutput, EveryFatalSignalRemovesTheLiveTemporaries) {
  for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGHUP, SIGALRM}) {
    TempDir dir;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::signal(sig, SIG_DFL);
      install_signal_cleanup();
      AtomicFileWriter w(dir.file("out.txt"));
      w.write("partial");
      ::raise(sig);
      ::_exit(0);  // not reached: the signal ends the process
    }
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig) << "signal " << sig;
    EXPECT_TRUE(dir.list().empty()) << "signal " << sig << " left " << dir.list().front();
  }
}

// ---- streams: limits, NUL bytes, endless input, gzip -----------------------------------------

TEST(StreamLimits, BinaryDataAndEndlessLinesAreRefusedFromStreams) {
  TempDir dir;
  {
    Feeder f(dir.file("nul"), std::string("1 2\n3\0 4\n", 9));
    const std::string m =
        message_of([&] { (void)load_graph<std::int32_t, Pattern>(dir.file("nul")); });
    EXPECT_NE(m.find("NUL"), std::string::npos) << m;
  }
  {
    Feeder f(dir.file("long"), std::string(3 << 20, 'a'));
    const std::string m = message_of([&] { (void)read_text_file(dir.file("long")); });
    EXPECT_NE(m.find("1.0 MiB"), std::string::npos) << m;
  }
  {
    Feeder f(dir.file("y"), std::string(200000, 'y').replace(1, 1, "\n"));
    const std::string m =
        message_of([&] { (void)load_graph<std::int32_t, Pattern>(dir.file("y")); });
    EXPECT_NE(m.find("missing destination column"), std::string::npos) << m;
  }
}

TEST(StreamLimits, TheSizeLimitIsEnforcedAndNamed) {
  TempDir dir;
  std::string edges;
  while (edges.size() < 300000) edges += "1 2\n";
  ::setenv("SPINDLE_STREAM_LIMIT", "100000", 1);
  {
    Feeder f(dir.file("e"), edges);
    const std::string m =
        message_of([&] { (void)load_graph<std::int32_t, Pattern>(dir.file("e")); });
    EXPECT_NE(m.find("100000 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("SPINDLE_STREAM_LIMIT"), std::string::npos) << m;
  }
  ::unsetenv("SPINDLE_STREAM_LIMIT");
}

TEST(StreamLimits, NpyStreamIsHeldToItsHeader) {
  TempDir dir;
  write_npy(dir.file("a.npy"), std::vector<double>{1, 2, 3});
  const std::string bytes = read_text(dir.file("a.npy"));
  {
    Feeder f(dir.file("ok"), bytes);
    EXPECT_EQ(read_npy_vector<double>(dir.file("ok")).size(), 3);
  }
  {
    Feeder f(dir.file("more"), bytes + std::string(1 << 20, '\0'));
    const std::string m = message_of([&] { (void)read_npy_vector<double>(dir.file("more")); });
    EXPECT_NE(m.find("trailing"), std::string::npos) << m;
  }
  {
    Feeder f(dir.file("zero"), std::string(1 << 16, '\0'));
    const std::string m = message_of([&] { (void)read_npy<float>(dir.file("zero")); });
    EXPECT_NE(m.find("magic"), std::string::npos) << m;
  }
}

#if SPINDLE_TEST_HAS_ZLIB
TEST(Gzip, CompressedFilesAndStreamsReadLikeTheirContent) {
  SPINDLE_REQUIRE_DATA();
  TempDir dir;
  const std::string plain = graphs_dir() + "/karate.mtx";
  ASSERT_EQ(std::system(("gzip -c '" + plain + "' > '" + dir.file("k.mtx.gz") + "'").c_str()), 0);
  // Two members, as `gzip -c a b` makes: read as one file.
  ASSERT_EQ(std::system(("printf '1 2\\n' | gzip -c > '" + dir.file("e.gz") +
                         "'; printf '2 3\\n'"
                         " | gzip -c >> '" +
                         dir.file("e.gz") + "'")
                            .c_str()),
            0);
  const auto a = read_matrix_market<std::int32_t, double>(plain);
  const auto b = read_matrix_market<std::int32_t, double>(dir.file("k.mtx.gz"));
  EXPECT_EQ(a.col_idx(), b.col_idx());
  EXPECT_EQ(a.values(), b.values());
  EXPECT_EQ(guess_graph_format(dir.file("k.mtx.gz")), GraphFileFormat::MatrixMarket);
  const auto e = load_graph<std::int32_t, Pattern>(dir.file("e.gz"));
  EXPECT_EQ(e.graph.nnz(), 2);
  const std::string gz = read_text(dir.file("k.mtx.gz"));
  {
    Feeder f(dir.file("fifo"), gz);
    EXPECT_EQ((load_graph<std::int32_t, Pattern>(dir.file("fifo")).graph.nnz()), a.nnz());
  }
  write_text(dir.file("cut.gz"), gz.substr(0, gz.size() / 2));
  EXPECT_NE(message_of([&] {
              (void)read_matrix_market<std::int32_t, double>(dir.file("cut.gz"));
            }).find("gzip"),
            std::string::npos);
  write_text(dir.file("junk.gz"), gz + "junk");
  EXPECT_NE(message_of([&] {
              (void)read_matrix_market<std::int32_t, double>(dir.file("junk.gz"));
            }).find("trailing"),
            std::string::npos);
}
#endif

// ---- a mapped file that shrinks ---------------------------------------------------------------

TEST(ShrinkingFile, TruncationDuringTheReadIsACleanErrorInEveryReader) {
  // Another process truncates the file while this one reads it: the read must end with an Error
  // that says so, never with SIGBUS. A child process reads (so that a SIGBUS could not take the
  // test runner with it); the parent truncates once the child says it is about to read.
  TempDir dir;
  const std::string g = dir.file("big.el");
  const auto make = [&] {
    std::ofstream f(g, std::ios::binary);
    for (std::int64_t i = 0; i < 4000000; ++i) f << i % 65521 << ' ' << (i * 31) % 65519 << '\n';
  };
  int clean = 0;
  for (int attempt = 0; attempt < 6 && clean == 0; ++attempt) {
    make();
    const auto full = static_cast<off_t>(read_text(g).size());
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(ready[0]);
      EdgeListOptions o;
      o.threads = 1;
      const char c = 'r';
      (void)!::write(ready[1], &c, 1);
      try {
        (void)read_edge_list<std::int32_t, Pattern>(g, o);
        ::_exit(0);
      } catch (const Error& e) {
        ::_exit(std::string(e.what()).find("while it was being read") != std::string::npos ? 3 : 4);
      }
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + 30 * attempt));
    ASSERT_EQ(::truncate(g.c_str(), full / 4), 0);
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    ASSERT_TRUE(WIFEXITED(st)) << "the reader died of signal " << WTERMSIG(st);
    EXPECT_NE(WEXITSTATUS(st), 4) << "an Error that does not say the file changed";
    if (WEXITSTATUS(st) == 3) ++clean;
  }
  EXPECT_GT(clean, 0) << "the truncation never landed inside the read";
}

// ---- what the readers make of their input ---------------------------------------------------

TEST(EdgeListInput, AnEmptyEdgeListIsRefusedUnlessAllowed) {
  TempDir dir;
  write_text(dir.file("e.txt"), "");
  write_text(dir.file("c.txt"), "# only a comment\n\n");
  for (const char* f : {"e.txt", "c.txt"}) {
    const std::string m =
        message_of([&] { (void)read_edge_list<std::int32_t, Pattern>(dir.file(f)); });
    EXPECT_NE(m.find("allow_empty"), std::string::npos) << m;
    EdgeListOptions o;
    o.allow_empty = true;
    EXPECT_EQ((read_edge_list<std::int32_t, Pattern>(dir.file(f), o).graph.rows()), 0);
  }
}

TEST(EdgeListInput, HeaderRowsAreRecognizedAndReported) {
  TempDir dir;
  struct Case {
    const char* text;
    bool header;
  };
  for (const Case& c :
       {Case{"source,target\n1,2\n", true}, Case{"Source Target\na b\n", true},
        Case{"from,to,weight\nx,y,1\n", true}, Case{"u,v\n1,2\n", true}, Case{"u,v\nw,x\n", false},
        Case{"a b 1\nb c 2\n", false}, Case{"alice bob\n", false}, Case{"1 2\n3 4\n", false}}) {
    write_text(dir.file("h.txt"), c.text);
    const auto r = read_edge_list_coo<std::int32_t>(dir.file("h.txt"));
    EXPECT_EQ(!r.header.empty(), c.header) << c.text;
    if (c.header) {
      EXPECT_EQ(r.header_line, 1);
      for (const auto& l : r.labels) EXPECT_NE(l, "source") << c.text;
    }
    // Told there is none, the first line is an edge (or, when its weight is a word, an error
    // naming it): never skipped.
    EdgeListOptions no;
    no.header = EdgeListHeader::Absent;
    try {
      EXPECT_TRUE(read_edge_list_coo<std::int32_t>(dir.file("h.txt"), no).header.empty());
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("h.txt:1"), std::string::npos) << e.what();
    }
  }
  // A header's line still counts: errors after it name the right line.
  write_text(dir.file("bad.txt"), "source,target\n1,2\n3\n");
  const std::string m =
      message_of([&] { (void)read_edge_list_coo<std::int32_t>(dir.file("bad.txt")); });
  EXPECT_NE(m.find("bad.txt:3"), std::string::npos) << m;
}

TEST(EdgeListInput, IgnoreExtraColumnsAcceptsAnyLineWithEnoughFields) {
  TempDir dir;
  write_text(dir.file("r.txt"), "1 2\n2 3 x y\n3 1 z\n");
  EXPECT_THROW((void)read_edge_list_coo<std::int32_t>(dir.file("r.txt")), ParseError);
  EdgeListOptions o;
  o.ignore_extra_columns = true;
  const auto r = read_edge_list_coo<std::int32_t>(dir.file("r.txt"), o);
  EXPECT_EQ(r.coo.size(), 3);
  EXPECT_FALSE(r.weighted);
  write_text(dir.file("w.txt"), "1 2 0.5 t\n2 3\n");
  const std::string m =
      message_of([&] { (void)read_edge_list_coo<std::int32_t>(dir.file("w.txt"), o); });
  EXPECT_NE(m.find("w.txt:2"), std::string::npos) << m;  // the weight column is missing there
}

TEST(EdgeListInput, NulBytesAreRefusedNamingTheLine) {
  TempDir dir;
  write_text(dir.file("n.txt"), std::string("1 2\n2 3\nx\0y z\n", 14));
  const std::string m =
      message_of([&] { (void)read_edge_list_coo<std::int32_t>(dir.file("n.txt")); });
  EXPECT_NE(m.find("n.txt:3"), std::string::npos) << m;
  EXPECT_NE(m.find("NUL"), std::string::npos) << m;
}

TEST(MatrixMarketInput, DimensionsBeyondTheBudgetNeedTrust) {
  TempDir dir;
  write_text(dir.file("big.mtx"),
             "%%MatrixMarket matrix coordinate pattern general\n100000000 100000000 1\n1 1\n");
  const std::string m =
      message_of([&] { (void)read_matrix_market<std::int32_t, Pattern>(dir.file("big.mtx")); });
  EXPECT_NE(m.find("big.mtx:2"), std::string::npos) << m;
  EXPECT_NE(m.find("trust_dimensions"), std::string::npos) << m;
  EXPECT_GE(matrix_market_dimension_budget(100), std::int64_t{1} << 20);
  EXPECT_EQ(matrix_market_dimension_budget(std::uint64_t{1} << 40) <= std::int64_t{1} << 43, true);
  // The raw reader allocates nothing per row: it keeps reading such files.
  EXPECT_EQ(read_matrix_market_coo<std::int32_t>(dir.file("big.mtx")).coo.rows, 100000000);
  // Within the budget nothing changes; with trust the size line is taken.
  write_text(dir.file("ok.mtx"),
             "%%MatrixMarket matrix coordinate pattern general\n1000000 1000000 1\n1 1\n");
  EXPECT_EQ((read_matrix_market<std::int32_t, Pattern>(dir.file("ok.mtx")).rows()), 1000000);
  MatrixMarketOptions trust;
  trust.trust_dimensions = true;
  write_text(dir.file("t.mtx"),
             "%%MatrixMarket matrix coordinate pattern general\n3000000 3000000 1\n1 1\n");
  EXPECT_EQ((read_matrix_market<std::int32_t, Pattern>(dir.file("t.mtx"), trust).rows()), 3000000);
  // Near 2^63 the memory estimate saturates instead of wrapping to a small number.
  write_text(dir.file("h.mtx"),
             "%%MatrixMarket matrix coordinate pattern general\n"
             "4611686018427387904 4611686018427387904 0\n");
  const std::string h = message_of(
      [&] { (void)read_matrix_market<std::int64_t, Pattern>(dir.file("h.mtx"), trust); });
  EXPECT_NE(h.find("h.mtx: building the graph needs"), std::string::npos) << h;
}

TEST(MatrixMarketInput, AnIntegerWrittenOutPastTheDoubleRangeIsAnOverflow) {
  TempDir dir;
  const std::string big = "1" + std::string(400, '0');
  write_text(dir.file("m.mtx"),
             "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 " + big + "\n");
  const std::string m =
      message_of([&] { (void)read_matrix_market<std::int32_t, double>(dir.file("m.mtx")); });
  EXPECT_NE(m.find("m.mtx:3"), std::string::npos) << m;
  EXPECT_NE(m.find("overflows"), std::string::npos) << m;
  write_text(dir.file("e.txt"), "a b " + big + "\n");
  const std::string e =
      message_of([&] { (void)read_edge_list_coo<std::int32_t>(dir.file("e.txt")); });
  EXPECT_NE(e.find("overflows"), std::string::npos) << e;
}

TEST(NpyInput, AnEmptyArrayCannotDeclareHugeOtherDimensions) {
  TempDir dir;
  const auto npy = [&](const std::string& shape) {
    std::string h = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    h.append(117 - h.size(), ' ');
    h += '\n';
    std::string f = std::string("\x93NUMPY\x01\x00", 8);
    f += static_cast<char>(h.size());
    f += '\0';
    return f + h;
  };
  write_text(dir.file("a.npy"), npy("(0, 1000000000000)"));
  const std::string m = message_of([&] { (void)read_npy<double>(dir.file("a.npy")); });
  EXPECT_NE(m.find("no element"), std::string::npos) << m;
  write_text(dir.file("b.npy"), npy("(1000000000000, 0)"));
  EXPECT_THROW((void)read_npy<double>(dir.file("b.npy")), ParseError);
  write_text(dir.file("c.npy"), npy("(0, 128)"));
  EXPECT_EQ(read_npy<double>(dir.file("c.npy")).cols(), 128);
}

// ---- duplicates ---------------------------------------------------------------------------------

TEST(Duplicates, EveryPolicyKeepsASymmetrizedGraphSymmetricAndReportsMerges) {
  Coo<std::int32_t> coo;
  coo.rows = coo.cols = 3;
  coo.row = {0, 1, 1};
  coo.col = {1, 0, 2};
  coo.val = {2.0, 5.0, 1.0};
  struct Case {
    DuplicatePolicy p;
    double want;
  };
  for (const Case& c : {Case{DuplicatePolicy::Sum, 7.0}, Case{DuplicatePolicy::KeepFirst, 2.0},
                        Case{DuplicatePolicy::KeepLast, 5.0}, Case{DuplicatePolicy::Max, 5.0},
                        Case{DuplicatePolicy::Min, 2.0}}) {
    BuildOptions o;
    o.symmetrize = true;
    o.duplicates = c.p;
    BuildReport report;
    o.report = &report;
    const auto g = build_graph<std::int32_t, double>(coo, o);
    ASSERT_EQ(g.nnz(), 4) << to_string(c.p);
    EXPECT_EQ(g.values()[0], c.want) << to_string(c.p);  // (0, 1)
    EXPECT_EQ(g.values()[1], c.want) << to_string(c.p);  // (1, 0)
    EXPECT_EQ(report.merged_duplicates, 2) << to_string(c.p);
  }
}

}  // namespace
}  // namespace spindle_test
