// SPDX-License-Identifier: Apache-2.0
#include "args.hpp"
#include "commands.hpp"
#include "spindle/error.hpp"

namespace spindle::cli {

int cmd_bfs(const std::vector<std::string>& args) {
  ArgParser p("bfs", "[options]", "Not available yet in this build.");
  if (!p.parse(args)) return 0;
  throw Unsupported("bfs: not available yet");
}

}  // namespace spindle::cli
