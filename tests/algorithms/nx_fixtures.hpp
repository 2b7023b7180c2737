// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file nx_fixtures.hpp
/// @brief The graph algorithms' networkx fixtures (tests/fixtures/make_networkx_refs.py): which
/// graphs have a measure, and their values by vertex name.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "alg_test_utils.hpp"

namespace spindle::test {

/// The data files (karate.mtx, email-Eu-core.csv, ...) that have a fixture for `measure`.
inline std::vector<std::string> nx_graphs_with(const std::string& measure) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const std::string dir = fixture_path("networkx");
  if (!fs::is_directory(dir)) return out;
  const std::string suffix = "." + measure + ".csv";
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    const std::string stem = name.substr(0, name.size() - suffix.size());
    for (const char* ext : {".mtx", ".txt", ".csv"}) {
      if (fs::exists(graph_path(stem + ext))) {
        out.push_back(stem + ext);
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// vertex name -> value text, as networkx's script wrote it.
inline std::map<std::string, std::string> nx_values(const std::string& file,
                                                    const std::string& measure) {
  const std::string stem = file.substr(0, file.rfind('.'));
  std::ifstream in(fixture_path("networkx/" + stem + "." + measure + ".csv"));
  std::string line;
  std::getline(in, line);  // header
  std::map<std::string, std::string> m;
  while (std::getline(in, line)) {
    const auto comma = line.rfind(',');
    if (comma == std::string::npos) continue;
    m[line.substr(0, comma)] = line.substr(comma + 1);
  }
  return m;
}

/// A data graph with the fixtures' conventions (structure only; .mtx ids 1-based).
inline DataGraph<Pattern> nx_load(const std::string& file) {
  DataGraph<Pattern> g;
  g.file = file;
  const std::string path = graph_path(file);
  if (file.size() > 4 && file.substr(file.size() - 4) == ".mtx") {
    g.graph = read_matrix_market<std::int32_t, Pattern>(path);
    for (std::int32_t i = 0; i < g.graph.rows(); ++i) g.names.push_back(std::to_string(i + 1));
  } else {
    auto r = read_edge_list<std::int32_t, Pattern>(path);
    g.graph = r.graph;
    g.names = r.labels;
  }
  return g;
}

/// Whether a data file is a symmetric Matrix Market file (an undirected graph: the script uses
/// an nx.Graph for it where that matters).
inline bool nx_symmetric_mtx(const std::string& file) {
  if (file.size() < 4 || file.substr(file.size() - 4) != ".mtx") return false;
  std::ifstream in(graph_path(file));
  std::string banner;
  std::getline(in, banner);
  return banner.find("symmetric") != std::string::npos;
}

}  // namespace spindle::test
