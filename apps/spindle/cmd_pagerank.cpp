// SPDX-License-Identifier: Apache-2.0
#include "args.hpp"
#include "commands.hpp"
#include "spindle/error.hpp"

namespace spindle::cli {

int cmd_pagerank(const std::vector<std::string>& args) {
  ArgParser p("pagerank", "[options]", "Not available yet in this build.");
  if (!p.parse(args)) return 0;
  throw Unsupported("pagerank: not available yet");
}

}  // namespace spindle::cli
