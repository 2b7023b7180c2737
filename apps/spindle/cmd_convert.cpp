// SPDX-License-Identifier: Apache-2.0
#include "args.hpp"
#include "commands.hpp"
#include "spindle/error.hpp"

namespace spindle::cli {

int cmd_convert(const std::vector<std::string>& args) {
  ArgParser p("convert", "[options]", "Not available yet in this build.");
  if (!p.parse(args)) return 0;
  throw Unsupported("convert: not available yet");
}

}  // namespace spindle::cli
