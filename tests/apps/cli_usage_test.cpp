// SPDX-License-Identifier: Apache-2.0
// The CLI's contract with users and scripts: help and version, exit codes (0 ok, 1 failure,
// 2 usage), one-line errors on stderr, and no half-written output files.
#include <algorithm>
#include <filesystem>

#include "cli_harness.hpp"

namespace spindle::test {
namespace {

const std::vector<std::string> kCommands = {
    "info", "convert", "generate",    "pagerank",   "power-iteration", "gcn",
    "bfs",  "sssp",    "triangles",   "components", "kcore",           "ktruss",
    "hits", "katz",    "betweenness", "jaccard"};

using CliUsage = CliTest;

TEST_F(CliUsage, HelpListsEverySubcommandAndExitsZero) {
  RunResult r = run("--help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_TRUE(r.err.empty()) << r.err;
  for (const auto& c : kCommands) EXPECT_NE(r.out.find("  " + c + " "), std::string::npos) << c;
}

TEST_F(CliUsage, VersionPrintsTheVersionAndExitsZero) {
  RunResult r = run("--version");
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.rfind("spindle ", 0), 0u) << r.out;
  EXPECT_EQ(lines_of(r.out).size(), 1u);
}

TEST_F(CliUsage, EverySubcommandHasHelpWithUsageLineAndExitsZero) {
  for (const auto& c : kCommands) {
    RunResult r = run(c + " --help");
    EXPECT_EQ(r.rc, 0) << c;
    EXPECT_EQ(r.out.rfind("usage: spindle " + c, 0), 0u) << c << ": " << r.out;
    EXPECT_TRUE(r.err.empty()) << c << ": " << r.err;
  }
  // `spindle help CMD` is the same text.
  EXPECT_EQ(run("help bfs").out, run("bfs --help").out);
}

TEST_F(CliUsage, PagerankHelpStatesTheConventions) {
  const std::string h = run("pagerank --help").out;
  for (const char* needle : {"--alpha",
                             "0.85",
                             "(1-alpha)/n",
                             "dangling",
                             "L1",
                             "--tol",
                             "1e-6",
                             "--max-iter",
                             "100",
                             "networkx",
                             "gap",
                             "boost",
                             "--personalize",
                             "--weighted",
                             "--top",
                             "--output",
                             "--device",
                             "--precision",
                             "--fail-on-nonconvergence",
                             "Exit status",
                             "--kernel",
                             "--tune",
                             "--plan-cache",
                             "--threads",
                             "--undirected"}) {
    EXPECT_NE(h.find(needle), std::string::npos) << "pagerank --help lacks " << needle;
  }
}

TEST_F(CliUsage, UnknownSubcommandIsAUsageErrorOnOneLine) {
  RunResult r = run("pagernk");
  EXPECT_EQ(r.rc, 2);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("spindle: error: ", 0), 0u);
  EXPECT_NE(r.err.find("pagerank"), std::string::npos) << "suggests the near miss: " << r.err;
  EXPECT_NE(r.err.find("--help"), std::string::npos);
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliUsage, BadFlagsAreUsageErrorsOnOneLine) {
  const std::vector<std::string> cases = {
      "pagerank --alhpa 0.9",                 // unknown flag
      "pagerank --alpha 0.85x",               // trailing garbage in a number
      "pagerank --alpha",                     // missing value
      "pagerank --alpha 1.5",                 // out of range
      "pagerank --max-iter 2.5",              // not an integer
      "pagerank --preset igraph",             // not a preset
      "pagerank --top=-1",                    // negative count
      "pagerank --device gpu",                // not a device
      "pagerank --kernel fastest",            // not a kernel
      "pagerank --tune --kernel merge_path",  // tuning and a forced kernel
      "pagerank --plan-cache=",               // no file name
      "gcn --tune --kernel row_cache_seq",
      "gcn --plan-cache p.txt",       // mxm tuning has no plan cache
      "pagerank a.mtx b.mtx",         // extra operand
      "info",                         // missing operand
      "bfs g.mtx",                    // missing --source
      "generate rmat",                // missing -o
      "generate kronecker -o g.mtx",  // unknown generator
      "generate rmat -o g.xyz",       // unknown output extension
      "generate rmat --scale 99 -o g.mtx",
      "convert a.mtx b.unknown",
      "gcn --layers 128,,32",
      "pagerank --json",  // a flag of another subcommand
  };
  for (const auto& c : cases) {
    RunResult r = run(c);
    EXPECT_EQ(r.rc, 2) << c << ": " << r.err;
    EXPECT_EQ(r.err_lines().size(), 1u) << c << ": " << r.err;
    EXPECT_EQ(r.err.rfind("spindle: error: ", 0), 0u) << c << ": " << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << c << ": " << r.err;
  }
}

TEST_F(CliUsage, ExecutionFlagsMayPrecedeTheCommand) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("--threads 1 pagerank " + q(graph_path("karate.mtx")) + " --top 1");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("(1 thread)"), std::string::npos) << r.out;
  // A command without that flag refuses it like any unknown flag.
  r = run("--precision float generate rmat -o " + q(path("g.mtx")));
  EXPECT_EQ(r.rc, 2);
  EXPECT_FALSE(std::filesystem::exists(path("g.mtx")));
}

// --tune on the CPU backend: one warning line, then the normal run and exit status; the plan
// cache file is not created.
TEST_F(CliUsage, TuneOnTheCpuBackendWarnsAndRuns) {
  for (const std::string& cmd :
       {std::string("pagerank --device cpu --tune --top 1"),
        "pagerank --device cpu --plan-cache " + q(path("plans.txt")) + " --top 1",
        std::string("gcn --device cpu --tune --layers 4")}) {
    RunResult r = run(cmd);
    EXPECT_EQ(r.rc, 0) << cmd << ": " << r.err;
    ASSERT_GE(r.err_lines().size(), 1u) << cmd;
    EXPECT_NE(r.err.find("nothing to tune"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_EQ(r.out.find("tuned"), std::string::npos) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("device cpu"), std::string::npos) << cmd << ": " << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(path("plans.txt")));
}

TEST_F(CliUsage, MissingInputFileIsAFailureNamingTheFile) {
  RunResult r = run("info " + q(path("nope.mtx")));
  EXPECT_EQ(r.rc, 1);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("nope.mtx"), std::string::npos) << r.err;
}

TEST_F(CliUsage, EveryBadFileFailsWithOneLineNamingTheFile) {
  if (!std::filesystem::is_directory(data_dir() + "/bad")) GTEST_SKIP() << "no " << data_dir();
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(data_dir() + "/bad")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".mtx") continue;
    ++seen;
    RunResult r = run("info " + q(e.path().string()));
    EXPECT_EQ(r.rc, 1) << name << ": " << r.err;
    EXPECT_EQ(r.err_lines().size(), 1u) << name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("spindle: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(name), std::string::npos)
        << "error does not name " << name << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << name;
  }
  EXPECT_GT(seen, 0);
}

TEST_F(CliUsage, FailedRunLeavesNoOutputFile) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string out = path("ranks.csv");
  RunResult r = run("pagerank " + q(data_dir() + "/bad/mangled1.mtx") + " -o " + q(out));
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // A rectangular matrix fails after loading; a bad personalization file fails before ranking.
  r = run("pagerank " + q(graph_path("lp_afiro.mtx")) + " -o " + q(out));
  EXPECT_EQ(r.rc, 1) << r.err;
  r = run("convert " + q(data_dir() + "/bad/mangled2.mtx") + " " + q(path("g.el")));
  EXPECT_EQ(r.rc, 1) << r.err;
  std::vector<std::string> left = files();
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
}

TEST_F(CliUsage, UnwritableOutputFailsBeforeComputing) {
  RunResult r = run("generate rmat --scale 4 -o " + q(path("no/such/dir/g.mtx")));
  EXPECT_EQ(r.rc, 1);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("no/such/dir/g.mtx"), std::string::npos) << r.err;
}

TEST_F(CliUsage, StdoutCarriesNoProgressWhenStderrIsNotATerminal) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "stderr must stay quiet in pipes: " << r.err;
}

// ---- found by a user review: streams, stdout failures, flag precedence, clear refusals ----

TEST_F(CliUsage, AFailedWriteToStdoutIsAFailure) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string err = path("err.txt");
  const std::string cmd = q(spindle_binary()) + " info " + q(graph_path("karate.mtx")) +
                          " --json >/dev/full 2>" + q(err);
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string text = slurp(err);
  EXPECT_NE(text.find("spindle: error: cannot write to standard output"), std::string::npos)
      << text;
}

TEST_F(CliUsage, TheCommandsOwnFlagWinsOverTheSameFlagBeforeIt) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("--threads 2 pagerank " + q(graph_path("karate.mtx")) + " --threads 1 --top 1");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("(1 thread)"), std::string::npos) << r.out;
  r = run("--precision float pagerank " + q(graph_path("karate.mtx")) + " --precision double");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("precision double"), std::string::npos) << r.out;
}

TEST_F(CliUsage, GraphsCanComeThroughAPipe) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string out = path("piped.txt");  // run() below uses stdout.txt itself
  for (const char* name : {"karate.mtx", "karate.csv"}) {
    const std::string cmd = "cat " + q(graph_path(name)) + " | " + q(spindle_binary()) +
                            " pagerank /dev/stdin --top 3 >" + q(out) + " 2>&1";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << name << ": " << slurp(out);
    RunResult direct = run("pagerank " + q(graph_path(name)) + " --top 3");
    ASSERT_EQ(direct.rc, 0) << direct.err;
    // Same table of ranks (the first line names the input path, which differs).
    const auto piped = lines_of(slurp(out));
    const auto file = lines_of(direct.out);
    ASSERT_EQ(piped.size(), file.size()) << slurp(out);
    for (std::size_t i = 2; i + 1 < file.size(); ++i) EXPECT_EQ(piped[i], file[i]) << name;
  }
}

TEST_F(CliUsage, CompressedInputIsRefusedSayingHowToReadIt) {
  {
    std::ofstream f(path("g.mtx"), std::ios::binary);
    f << std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03junk", 15);
  }
  RunResult r = run("info " + q(path("g.mtx")));
  EXPECT_EQ(r.rc, 1);
  ASSERT_EQ(r.err_lines().size(), 1u) << r.err;
#if SPINDLE_TEST_HAS_ZLIB
  // gzip is read directly: these bytes are a gzip header and then no valid data.
  EXPECT_NE(r.err.find("gzip data"), std::string::npos) << r.err;
#else
  EXPECT_NE(r.err.find("gzip-compressed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("<(zcat "), std::string::npos) << r.err;
#endif
  // Formats that are not decompressed say how to read them.
  {
    std::ofstream f(path("x.mtx"), std::ios::binary);
    f << std::string(
        "\xfd"
        "7zXZ\x00\x00junk",
        11);
  }
  RunResult x = run("info " + q(path("x.mtx")));
  EXPECT_EQ(x.rc, 1);
  EXPECT_NE(x.err.find("xz-compressed"), std::string::npos) << x.err;
  EXPECT_NE(x.err.find("<(xzcat "), std::string::npos) << x.err;
}

TEST_F(CliUsage, AnOutputPathThatIsAFolderFailsBeforeComputing) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  std::filesystem::create_directories(path("ranks.csv"));
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")) + " -o " + q(path("ranks.csv")));
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(r.out.empty()) << "computed before failing: " << r.out;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  r = run("generate rmat --scale 4 -o " + q(path("ranks.csv")));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

TEST_F(CliUsage, PowerIterationRefusesAnIterateThatVanished) {
  {
    std::ofstream f(path("dag.el"));
    f << "1 2\n2 3\n3 4\n";
  }
  RunResult r = run("power-iteration " + q(path("dag.el")) + " -o " + q(path("x.csv")));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("iterate became zero"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("x.csv")));
  // The shift it suggests works.
  r = run("power-iteration " + q(path("dag.el")) + " --shift 1 --max-iter 3");
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST_F(CliUsage, NonconvergenceUnderFailOnNonconvergenceIsAnError) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  RunResult r = run("pagerank " + q(graph_path("karate.mtx")) +
                    " --max-iter 2 --fail-on-nonconvergence -o " + q(path("r.csv")));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.rfind("spindle: error: PageRank did not converge", 0), 0u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("r.csv")));
}

TEST_F(CliUsage, ConvertWarnsWhenAnEdgeListDropsIsolatedVertices) {
  {
    std::ofstream f(path("iso.mtx"));
    f << "%%MatrixMarket matrix coordinate pattern general\n5 5 1\n1 2\n";
  }
  RunResult r = run("convert " + q(path("iso.mtx")) + " " + q(path("iso.el")));
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("warning: 3 of 5 vertices have no edges"), std::string::npos) << r.err;
}

TEST_F(CliUsage, EveryGraphCommandReadsHeaderlessFiles) {
  if (!have_data()) GTEST_SKIP() << "no " << data_dir();
  const std::string file = q(graph_path("west0067_noheader.mtx"));
  RunResult r = run("pagerank " + file);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("--headerless"), std::string::npos) << r.err;
  const std::pair<const char*, const char*> commands[] = {
      {"pagerank", ""}, {"bfs", " --source 1"}, {"power-iteration", " --max-iter 2"}, {"info", ""}};
  for (const auto& [cmd, extra] : commands) {
    r = run(std::string(cmd) + " " + file + " --headerless" + extra);
    EXPECT_EQ(r.rc, 0) << cmd << ": " << r.err;
  }
}

}  // namespace
}  // namespace spindle::test
