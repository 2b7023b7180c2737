// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file output_file.hpp
/// @brief What every command checks about its output paths before it runs: each can be written
/// (spindle::check_output_path: symbolic links followed, directories, block devices and sockets
/// refused, the folder writable; nothing is created), and none is one of the command's inputs
/// (compared by device and inode, so another spelling, a hard link or a symbolic link to an
/// input is caught too). The files themselves are written by spindle::AtomicFileWriter
/// (spindle/loaders/atomic_file.hpp): a temporary renamed into place, removed on failure or on
/// a signal (main() installs the handlers before anything else).

#include <string>
#include <vector>

namespace spindle::cli {

/// A file a command reads or writes, and what it is for the messages ("the graph",
/// "--personalize", "-o").
struct NamedPath {
  std::string what;
  std::string path;
};

/// Checks every output with spindle::check_output_path (Error when it cannot be written) and
/// refuses one that is the same file as an input (UsageError: `pagerank g.csv -o g.csv` would
/// replace its own input). `-` is standard input / output. Empty paths are skipped.
void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

/// The path a command reads for an input operand: `-` means standard input (/dev/stdin).
std::string input_path(const std::string& operand);

/// Lower-cased extension of a path's last component including the dot (".mtx"), or "".
std::string extension_of(const std::string& path);

}  // namespace spindle::cli
