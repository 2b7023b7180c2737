// SPDX-License-Identifier: Apache-2.0
#include "output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "args.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"

namespace spindle::cli {

namespace {

// The file behind a path (symbolic links followed), or behind standard input / output for `-`.
bool identity(const std::string& path, bool output, struct stat& st) {
  if (path == "-") return ::fstat(output ? STDOUT_FILENO : STDIN_FILENO, &st) == 0;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::string input_path(const std::string& operand) {
  return operand == "-" ? "/dev/stdin" : operand;
}

void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::size_t stdin_readers = 0;
  std::string first_stdin;
  for (const NamedPath& in : inputs) {
    if (in.path == "-" || in.path == "/dev/stdin") {
      if (stdin_readers++ == 0) {
        first_stdin = in.what;
      } else {
        throw UsageError(in.what + " and " + first_stdin +
                         " both read standard input, which can be read only once");
      }
    }
  }
  std::size_t stdout_writers = 0;
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;
    if (out.path == "-" && stdout_writers++ > 0) {
      throw UsageError(out.what + ": standard output already carries another output");
    }
    (void)check_output_path(out.path);
    struct stat os {};
    if (out.path == "-" || !identity(out.path, true, os)) continue;  // not there yet: no clash
    if (!S_ISREG(os.st_mode)) continue;  // a stream (/dev/null, a FIFO) replaces nothing
    for (const NamedPath& in : inputs) {
      if (in.path.empty()) continue;
      struct stat is {};
      if (!identity(in.path, false, is)) continue;
      if (is.st_dev == os.st_dev && is.st_ino == os.st_ino) {
        throw UsageError(out.what + " " + out.path + " is the same file as " + in.what + " " +
                         in.path +
                         ": writing it would destroy the input before it is read; "
                         "choose another output path");
      }
    }
  }
}

std::string extension_of(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace spindle::cli
