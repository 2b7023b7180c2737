// SPDX-License-Identifier: Apache-2.0
// The CLI never loses or corrupts a user's files: outputs that name an input are refused, links
// and special files are written through, temporaries never outlive the process (whatever signal
// ends it), and the labels kept beside a matrix travel with it. Every test runs the real binary
// (SPINDLE_TEST_BINARY runs them against another build).
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_harness.hpp"
#include "cli_process.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/npy.hpp"

namespace spindle::test {
namespace {

namespace fs = std::filesystem;
using CliSafety = CliTest;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool is_temporary(const std::string& name) { return name.find("tmp") != std::string::npos; }

std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (is_temporary(name)) out.push_back(name);
  }
  return out;
}

// ---- an output that names an input is refused before anything runs ------------------------

TEST_F(CliSafety, OutputThatIsAnInputIsRefusedAndTheInputKept) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string g = path("g.csv"), v = path("v.mtx"), p = path("p.csv");
  write_file(g, slurp(graph_path("karate.csv")));
  write_file(v, slurp(graph_path("karate.mtx")));
  write_file(p, "0,1\n");
  fs::create_symlink(g, path("link.csv"));
  fs::create_hard_link(g, path("hard.csv"));
  const std::string g0 = slurp(g), v0 = slurp(v), p0 = slurp(p);
  struct Case {
    std::string args;
    std::string kept;
  };
  const std::vector<Case> cases = {
      {"pagerank " + q(g) + " -o " + q(g), g},
      {"pagerank " + q(path("./g.csv")) + " -o " +
           q(path("../" + dir_.filename().string() + "/g.csv")),
       g},
      {"pagerank " + q(g) + " -o " + q(path("link.csv")), g},  // a symbolic link to the input
      {"pagerank " + q(g) + " -o " + q(path("hard.csv")), g},  // a hard link: same inode
      {"pagerank " + q(g) + " --personalize " + q(p) + " -o " + q(p), p},
      {"power-iteration " + q(g) + " -o " + q(g), g},
      {"bfs " + q(g) + " --source 0 -o " + q(g), g},
      {"sssp " + q(g) + " --source 0 -o " + q(g), g},
      {"convert " + q(v) + " " + q(v), v},
      {"convert " + q(g) + " " + q(path("g.csv")), g},
  };
  for (const auto& c : cases) {
    RunResult r = run(c.args);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("same file"), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(slurp(g), g0) << c.args;
    EXPECT_EQ(slurp(v), v0) << c.args;
    EXPECT_EQ(slurp(p), p0) << c.args;
    EXPECT_TRUE(fs::is_symlink(path("link.csv")));
  }
}

TEST_F(CliSafety, GcnOutputThatIsItsFeaturesOrWeightsIsRefused) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string x = path("x.npy");
  write_npy(x, DenseMatrix<float>(34, 4, std::vector<float>(34 * 4, 0.5f)));
  fs::create_directories(path("model"));
  const std::string w = path("model/layer0_W.npy");
  write_npy(w, DenseMatrix<float>(4, 2, std::vector<float>(8, 0.25f)));
  const std::string x0 = slurp(x), w0 = slurp(w);
  RunResult a = run("gcn " + q(graph_path("karate.mtx")) + " --features " + q(x) + " -o " + q(x));
  EXPECT_EQ(a.rc, 2) << a.err;
  RunResult b = run("gcn " + q(graph_path("karate.mtx")) + " --features " + q(x) + " --weights " +
                    q(path("model")) + " -o " + q(w));
  EXPECT_EQ(b.rc, 2) << b.err;
  EXPECT_EQ(slurp(x), x0);
  EXPECT_EQ(slurp(w), w0);
  // The same command to a new file works.
  RunResult c = run("gcn " + q(graph_path("karate.mtx")) + " --features " + q(x) + " --weights " +
                    q(path("model")) + " -o " + q(path("h.npy")));
  ASSERT_EQ(c.rc, 0) << c.err;
  EXPECT_EQ(read_npy<float>(path("h.npy")).rows(), 34);
}

// ---- symbolic links, FIFOs and devices ------------------------------------------------------

TEST_F(CliSafety, OutputThroughASymbolicLinkReplacesItsTargetAndKeepsTheLink) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  fs::create_directories(path("real"));
  write_file(path("real/ranks.csv"), "old\n");
  fs::create_symlink("real/ranks.csv", path("ranks.csv"));  // relative, as people make them
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " -o " + q(path("ranks.csv")));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("ranks.csv")));
  EXPECT_EQ(slurp(path("real/ranks.csv")).rfind("vertex,rank\n", 0), 0u);
  EXPECT_TRUE(temporaries_in(dir_).empty());
  EXPECT_TRUE(temporaries_in(path("real")).empty());
}

TEST_F(CliSafety, OutputToAFifoIsWrittenThroughAndStaysAFifo) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string fifo = path("ranks.csv");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    got = ss.str();
  });
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " -o " + q(fifo));
  reader.join();
  ASSERT_EQ(r.rc, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
  EXPECT_EQ(got.rfind("vertex,rank\n", 0), 0u) << got.substr(0, 100);
  EXPECT_EQ(lines_of(got).size(), 35u);
}

TEST_F(CliSafety, DevNullIsAnOutputAndADirectoryIsRefused) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult ok = run("pagerank " + q(graph_path("karate.mtx")) + " -o /dev/null --format csv");
  EXPECT_EQ(ok.rc, 0) << ok.err;
  RunResult dir =
      run("pagerank " + q(graph_path("karate.mtx")) + " -o " + q(path("")) + " --format csv");
  EXPECT_EQ(dir.rc, 1) << dir.err;
  EXPECT_NE(dir.err.find("directory"), std::string::npos) << dir.err;
}

// ---- temporaries never outlive the process ------------------------------------------------

class CliSignals : public CliTest {
 protected:
  static void SetUpTestSuite() {
    input_dir_ = fs::path(::testing::TempDir()) / ("spindle_signals_" + std::to_string(::getpid()));
    fs::create_directories(input_dir_);
    const std::string g = (input_dir_ / "g.mtx").string();
    const std::string cmd = q(spindle_binary()) + " generate rmat --scale 17 --seed 2 -o " + q(g) +
                            " >/dev/null 2>&1 </dev/null";
    if (std::system(cmd.c_str()) != 0) input_dir_.clear();
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    if (!input_dir_.empty()) fs::remove_all(input_dir_, ec);
  }
  static std::string input() { return (input_dir_ / "g.mtx").string(); }

  // Starts `args`, waits until it has a temporary in the scratch folder, stops it there, sends
  // `sig`, lets it go on, and checks that it died of the signal and left no temporary behind.
  void expect_clean_death(const std::vector<std::string>& args, int sig) {
    SCOPED_TRACE(args[0] + " with signal " + std::to_string(sig));
    SpindleProcess p(args, path("out.txt"), path("err.txt"));
    ASSERT_GT(p.pid(), 0);
    bool caught = false;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < give_up) {
      if (!temporaries_in(dir_).empty()) {
        ::kill(p.pid(), SIGSTOP);
        // Still there once stopped: the signal arrives while the output is being written.
        caught = !temporaries_in(dir_).empty() && p.running();
        if (!caught) ::kill(p.pid(), SIGCONT);
        break;
      }
      if (!p.running()) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ASSERT_TRUE(caught) << "the command ended before it was seen writing; err: "
                        << slurp(path("err.txt"));
    ::kill(p.pid(), sig);
    ::kill(p.pid(), SIGCONT);
    const int st = p.wait();
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == sig)
        << "status " << st << "; err: " << slurp(path("err.txt"));
    EXPECT_EQ(temporaries_in(dir_), std::vector<std::string>{}) << "left behind";
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name != "out.txt" && name != "err.txt") fs::remove(e.path());
    }
  }

  static fs::path input_dir_;
};
fs::path CliSignals::input_dir_;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGUSR1, SIGHUP};

TEST_F(CliSignals, PagerankLeavesNoTemporaryWhateverSignalEndsIt) {
  ASSERT_FALSE(input_dir_.empty()) << "could not generate the input";
  for (int sig : kSignals) {
    expect_clean_death({"pagerank", input(), "--threads", "1", "-o", path("r.csv")}, sig);
  }
}

TEST_F(CliSignals, ConvertLeavesNoTemporaryWhateverSignalEndsIt) {
  ASSERT_FALSE(input_dir_.empty()) << "could not generate the input";
  for (int sig : kSignals) expect_clean_death({"convert", input(), path("c.el")}, sig);
}

TEST_F(CliSignals, GenerateLeavesNoTemporaryWhateverSignalEndsIt) {
  for (int sig : kSignals) {
    expect_clean_death({"generate", "rmat", "--scale", "17", "-o", path("g.mtx")}, sig);
  }
}

TEST_F(CliSignals, GcnLeavesNoTemporaryWhateverSignalEndsIt) {
  ASSERT_FALSE(input_dir_.empty()) << "could not generate the input";
  for (int sig : kSignals) {
    expect_clean_death({"gcn", input(), "--layers", "64", "-o", path("h.npy")}, sig);
  }
}

TEST_F(CliSafety, AnOutputNameOf254CharactersWorks) {
  const std::string name = std::string(250, 'a') + ".mtx";  // 254 characters
  RunResult r = run("generate rmat --scale 4 -o " + q(path(name)));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(path(name)));
  EXPECT_TRUE(temporaries_in(dir_).empty());
  RunResult pr =
      run("pagerank " + q(path(name)) + " -o " + q(path(std::string(250, 'b') + ".csv")));
  ASSERT_EQ(pr.rc, 0) << pr.err;
}

TEST_F(CliSafety, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  // /dev/full takes nothing: the write fails; the target is a stream, so nothing is replaced.
  RunResult full = run("convert " + q(graph_path("karate.mtx")) + " /dev/full --format mtx");
  EXPECT_EQ(full.rc, 1) << full.err;
  EXPECT_EQ(full.err_lines().size(), 1u) << full.err;
}

// ---- labels travel with the matrix ---------------------------------------------------------

TEST_F(CliSafety, LabelsOfAConvertedEdgeListAreReadBackWithTheMatrix) {
  write_file(path("edges.txt"), "701 702\n702 703\n703 701\n701 9000\n");
  const std::string m = path("g.mtx");
  RunResult c = run("convert " + q(path("edges.txt")) + " " + q(m));
  ASSERT_EQ(c.rc, 0) << c.err;
  ASSERT_TRUE(fs::exists(m + ".labels"));
  RunResult pr = run("pagerank " + q(m) + " -o " + q(path("r.csv")));
  ASSERT_EQ(pr.rc, 0) << pr.err;
  std::set<std::string> ids;
  for (const auto& line : lines_of(slurp(path("r.csv"))))
    ids.insert(line.substr(0, line.find(',')));
  EXPECT_EQ(ids, (std::set<std::string>{"vertex", "701", "702", "703", "9000"}));
  // The table speaks the same ids, and --source takes them.
  EXPECT_NE(pr.out.find("9000"), std::string::npos) << pr.out;
  RunResult b = run("bfs " + q(m) + " --source 9000");
  EXPECT_EQ(b.rc, 0) << b.err;
  RunResult info = run("info --json " + q(m));
  ASSERT_EQ(info.rc, 0) << info.err;
  EXPECT_EQ(JsonReader(info.out).parse_document().at("labels_file").str, m + ".labels");
  // Converting back gives the original labels.
  RunResult back = run("convert " + q(m) + " " + q(path("back.txt")));
  ASSERT_EQ(back.rc, 0) << back.err;
  EXPECT_NE(slurp(path("back.txt")).find("701 9000"), std::string::npos) << slurp(path("back.txt"));
}

TEST_F(CliSafety, AMatrixWrittenWithoutLabelsRemovesTheStaleLabelsFile) {
  write_file(path("edges.txt"), "a b\nb c\n");
  const std::string m = path("g.mtx");
  ASSERT_EQ(run("convert " + q(path("edges.txt")) + " " + q(m)).rc, 0);
  ASSERT_TRUE(fs::exists(m + ".labels"));
  // The same path now gets a matrix whose vertices are 1..n: the old labels must go.
  ASSERT_EQ(run("generate rmat --scale 3 -o " + q(m)).rc, 0);
  EXPECT_FALSE(fs::exists(m + ".labels"));
  RunResult pr = run("pagerank " + q(m) + " --top 3");
  ASSERT_EQ(pr.rc, 0) << pr.err;
  EXPECT_EQ(pr.out.find(" a "), std::string::npos) << pr.out;
}

TEST_F(CliSafety, ALabelsFileThatNoLongerMatchesItsMatrixIsAnError) {
  write_file(path("edges.txt"), "x y\ny z\n");
  const std::string m = path("g.mtx");
  ASSERT_EQ(run("convert " + q(path("edges.txt")) + " " + q(m)).rc, 0);
  write_file(m + ".labels", "x\nz\ny\n");  // edited: the ids would silently mean other vertices
  RunResult r = run("pagerank " + q(m));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.err.find("g.mtx.labels"), std::string::npos) << r.err;
  fs::remove(m + ".labels");  // missing: a warning, and 1-based ids
  RunResult w = run("pagerank " + q(m));
  EXPECT_EQ(w.rc, 0) << w.err;
  EXPECT_NE(w.err.find("missing"), std::string::npos) << w.err;
}

}  // namespace
}  // namespace spindle::test
