// SPDX-License-Identifier: Apache-2.0
// spindle: command-line front end. Subcommands live in their own files (cmd_*.cpp) and register
// in commands.hpp; this file only parses the first word and maps exceptions to exit codes.
#include <cstdio>
#include <cstring>
#include <string>

#include "spindle/graph.hpp"
#include "spindle/version.hpp"

int main(int argc, char** argv) {
  if (argc >= 2 && (std::strcmp(argv[1], "--version") == 0)) {
    std::printf("spindle %s\n", spindle::version());
    return 0;
  }
  std::printf("usage: spindle <command> [options]\n");
  return argc >= 2 ? 2 : 0;
}
