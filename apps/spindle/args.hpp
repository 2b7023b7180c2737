// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file args.hpp
/// @brief The CLI's flag parser: each subcommand declares its flags (name, value, default, help)
/// once; the same declaration drives parsing, strict value checks and the `--help` text, so the
/// help can never drift from what the parser accepts.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace spindle::cli {

/// A mistake in how the command was called (unknown flag, missing or malformed value, unknown
/// subcommand). main() prints it as one line and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Declares, parses and documents one subcommand's arguments.
class ArgParser {
 public:
  /// @param command  subcommand name ("pagerank"), used in messages and the usage line
  /// @param synopsis operands after the name in the usage line ("[FILE] [options]")
  /// @param summary  one paragraph: what the command does
  ArgParser(std::string command, std::string synopsis, std::string summary);

  /// A switch without a value (`--json`).
  ArgParser& flag(const std::string& name, const std::string& help);
  /// A flag with a value (`--alpha 0.85` or `--alpha=0.85`). `default_text` is shown in the
  /// help as "[default: ...]"; leave it empty when there is no default.
  ArgParser& option(const std::string& name, const std::string& metavar,
                    const std::string& default_text, const std::string& help, char short_name = 0);
  /// A positional operand; `required` operands missing are a usage error.
  ArgParser& operand(const std::string& name, const std::string& help, bool required);
  /// A titled block of free text printed after the flags (semantics, tables, exit status).
  ArgParser& section(const std::string& title, const std::string& text);
  /// Starts a new titled group of flags in the help ("Input", "Output", ...).
  ArgParser& group(const std::string& title);

  /// Parses argv (the words after the subcommand name). Returns false when `--help`/`-h` was
  /// given: the help has been printed on stdout and the command should exit 0.
  /// @throws UsageError naming the offending word and suggesting a fix.
  bool parse(const std::vector<std::string>& argv);

  /// The full help text.
  std::string help() const;
  const std::string& command() const { return command_; }

  bool has(const std::string& name) const;
  /// Raw value of an option, or nullopt when it was not given.
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  /// Positional operand i (in declaration order), or nullopt.
  std::optional<std::string> operand_value(std::size_t i) const;

  /// A floating value parsed strictly (whole word, finite) within [lo, hi].
  double number(const std::string& name, double fallback, double lo, double hi) const;
  /// An integer parsed strictly within [lo, hi].
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi) const;
  /// One of `choices`; anything else is a usage error listing them.
  std::string choice(const std::string& name, const std::string& fallback,
                     const std::vector<std::string>& choices) const;

  /// Throws a UsageError for this command with the standard "see --help" tail.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  struct Spec {
    std::string name;
    std::string metavar;  // empty: a switch
    std::string default_text;
    std::string help;
    char short_name = 0;
    std::size_t group = 0;
  };
  struct Operand {
    std::string name;
    std::string help;
    bool required = false;
  };
  const Spec* find(const std::string& name) const;
  const Spec* find_short(char c) const;
  std::string suggest(const std::string& word) const;

  std::string command_;
  std::string synopsis_;
  std::string summary_;
  std::vector<Spec> specs_;
  std::vector<std::string> groups_{"Options"};
  std::vector<Operand> operands_;
  std::vector<std::pair<std::string, std::string>> sections_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
};

/// How a number written as text fared.
enum class NumberStatus : std::uint8_t {
  Ok,         ///< a finite double
  Malformed,  ///< not a number at all
  NonFinite,  ///< written as nan or inf
  Overflow,   ///< a number too large for a double ("1e400", or "1" and 400 zeros)
};

/// Strict parse of a finite double: the whole of `text` must be the number ('+' allowed). `out`
/// is set when Ok.
NumberStatus parse_number(const std::string& text, double& out);

/// Strict numeric parsing shared by flags and files: the whole of `text` must be the number.
std::optional<double> parse_double(const std::string& text);
std::optional<std::int64_t> parse_int(const std::string& text);

/// Splits "128,128,32" into integers (each strictly parsed); nullopt on any bad item.
std::optional<std::vector<std::int64_t>> parse_int_list(const std::string& text);

/// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace spindle::cli
