// SPDX-License-Identifier: Apache-2.0
#include "args.hpp"
#include "commands.hpp"
#include "spindle/error.hpp"

namespace spindle::cli {

int cmd_sssp(const std::vector<std::string>& args) {
  ArgParser p("sssp", "[options]", "Not available yet in this build.");
  if (!p.parse(args)) return 0;
  throw Unsupported("sssp: not available yet");
}

}  // namespace spindle::cli
