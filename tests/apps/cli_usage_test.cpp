// SPDX-License-Identifier: Apache-2.0
// The CLI's contract with users and scripts: help and version, exit codes (0 ok, 1 failure,
// 2 usage), one-line errors on stderr, and no half-written output files.
#include <algorithm>
#include <filesystem>

#include "cli_harness.hpp"

namespace spindle::test {
namespace {

const std::vector<std::string> kCommands = {
    "info", "convert", "generate", "pagerank", "power-iteration", "gcn", "bfs", "sssp"};

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
      "pagerank --alhpa 0.9",         // unknown flag
      "pagerank --alpha 0.85x",       // trailing garbage in a number
      "pagerank --alpha",             // missing value
      "pagerank --alpha 1.5",         // out of range
      "pagerank --max-iter 2.5",      // not an integer
      "pagerank --preset igraph",     // not a preset
      "pagerank --top=-1",            // negative count
      "pagerank --device gpu",        // not a device
      "pagerank --kernel fastest",    // not a kernel
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

}  // namespace
}  // namespace spindle::test
