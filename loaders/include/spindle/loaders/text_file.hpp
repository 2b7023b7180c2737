// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file text_file.hpp
/// @brief Small text inputs (vertex lists, label files) read under the same rules as the graph
/// readers.

#include <string>

namespace spindle {

/// Reads a whole text input: a regular file, a stream (/dev/stdin, a pipe, a process
/// substitution) or gzip data (when built with zlib). Like the graph readers it refuses a NUL
/// byte (binary data) and holds a stream or a decompressor to at most the stream limit (half the
/// available memory; SPINDLE_STREAM_LIMIT) and lines of at most 1 MiB, saying which limit.
/// @throws Error (cannot read, too large) / ParseError (binary data, line too long) naming path.
std::string read_text_file(const std::string& path);

}  // namespace spindle
