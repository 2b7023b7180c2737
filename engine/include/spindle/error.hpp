// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file error.hpp
/// @brief Spindle's exception hierarchy. Library code never calls exit(); every failure is one of
/// these types with a message a person can act on.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace spindle {

/// Base of every exception Spindle throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument has a value the operation cannot accept (bad option, NaN where refused, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Operand shapes do not agree (e.g. mxv with u.size() != A.cols()).
class DimensionMismatch : public Error {
 public:
  using Error::Error;
};

/// An index lies outside [0, n).
class IndexOutOfBounds : public Error {
 public:
  using Error::Error;
};

/// A file could not be parsed. The message names the file, the 1-based line and what was
/// expected; file() and line() return them separately (line 0: the error has no line).
class ParseError : public Error {
 public:
  ParseError(std::string file, std::int64_t line, const std::string& what)
      : Error(format(file, line, what)), file_(std::move(file)), line_(line) {}
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }

 private:
  static std::string format(const std::string& file, std::int64_t line, const std::string& what) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what;
  }
  std::string file_;
  std::int64_t line_;
};

/// The request is valid but this build, backend or format does not support it
/// (complex Matrix Market files, CUDA entry points in a build without CUDA, ...).
class Unsupported : public Error {
 public:
  using Error::Error;
};

/// Not enough host or device memory; the message says how much was needed and how much is free.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// A running call was stopped on request: an algorithm's `cancel` hook (PageRankOptions::cancel,
/// ...) returned true between two iterations. Nothing the call would have returned is kept.
class Cancelled : public Error {
 public:
  using Error::Error;
};

/// A CUDA runtime, cuBLAS or cuSPARSE call failed. code() keeps the library's status value.
class DeviceError : public Error {
 public:
  DeviceError(const std::string& what, int code) : Error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

}  // namespace spindle
