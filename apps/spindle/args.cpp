// SPDX-License-Identifier: Apache-2.0
#include "args.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace spindle::cli {

namespace {

constexpr std::size_t kHelpWidth = 79;   // fits an 80-column terminal
constexpr std::size_t kFlagColumn = 24;  // where flag descriptions start
constexpr double kUnbounded = 1e9;       // range ends beyond this are not worth printing

// Wraps `text` to kHelpWidth, first line continuing at column `start`, later lines indented by
// `indent`. Explicit newlines in `text` are kept (used for small tables).
std::string wrap(const std::string& text, std::size_t start, std::size_t indent) {
  std::string out;
  std::size_t col = start;
  std::istringstream lines(text);
  std::string line;
  bool first_line = true;
  while (std::getline(lines, line)) {
    if (!first_line) {
      out += '\n' + std::string(indent, ' ');
      col = indent;
    }
    first_line = false;
    std::istringstream words(line);
    std::string word;
    bool first_word = true;
    while (words >> word) {
      if (!first_word && col + 1 + word.size() > kHelpWidth) {
        out += '\n' + std::string(indent, ' ');
        col = indent;
      } else if (!first_word) {
        out += ' ';
        ++col;
      }
      out += word;
      col += word.size();
      first_word = false;
    }
  }
  return out;
}

}  // namespace

NumberStatus parse_number(const std::string& text, double& out) {
  double v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;  // from_chars refuses a leading '+', people write it
  if (b == e) return NumberStatus::Malformed;
  auto [p, ec] = std::from_chars(b, e, v);
  if (p != e) return NumberStatus::Malformed;
  if (ec == std::errc::result_out_of_range) {
    // Too large, or too small: strtod tells which (inf, or a denormal / zero, which is fine).
    v = std::strtod(std::string(b, e).c_str(), nullptr);
    if (std::isinf(v)) return NumberStatus::Overflow;
  } else if (ec != std::errc()) {
    return NumberStatus::Malformed;
  }
  if (!std::isfinite(v)) return NumberStatus::NonFinite;
  out = v;
  return NumberStatus::Ok;
}

std::optional<double> parse_double(const std::string& text) {
  double v = 0;
  if (parse_number(text, v) != NumberStatus::Ok) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(const std::string& text) {
  std::int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || b == e) return std::nullopt;
  return v;
}

std::optional<std::vector<std::int64_t>> parse_int_list(const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    auto item = parse_int(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (!item) return std::nullopt;
    out.push_back(*item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

ArgParser::ArgParser(std::string command, std::string synopsis, std::string summary)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), summary_(std::move(summary)) {}

ArgParser& ArgParser::flag(const std::string& name, const std::string& help) {
  specs_.push_back({name, "", "", help, 0, groups_.size() - 1});
  return *this;
}

ArgParser& ArgParser::option(const std::string& name, const std::string& metavar,
                             const std::string& default_text, const std::string& help,
                             char short_name) {
  specs_.push_back({name, metavar, default_text, help, short_name, groups_.size() - 1});
  return *this;
}

ArgParser& ArgParser::operand(const std::string& name, const std::string& help, bool required) {
  operands_.push_back({name, help, required});
  return *this;
}

ArgParser& ArgParser::section(const std::string& title, const std::string& text) {
  sections_.emplace_back(title, text);
  return *this;
}

ArgParser& ArgParser::group(const std::string& title) {
  if (groups_.back() == title) return *this;
  if (specs_.empty() || specs_.back().group != groups_.size() - 1) {
    groups_.back() = title;  // the previous group is still empty: rename it
  } else {
    groups_.push_back(title);
  }
  return *this;
}

const ArgParser::Spec* ArgParser::find(const std::string& name) const {
  for (const auto& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const ArgParser::Spec* ArgParser::find_short(char c) const {
  for (const auto& s : specs_) {
    if (s.short_name == c) return &s;
  }
  return nullptr;
}

std::string ArgParser::suggest(const std::string& word) const {
  std::string best;
  std::size_t best_d = 3;  // farther than 2 edits is a different word, not a typo
  for (const auto& s : specs_) {
    std::size_t d = edit_distance(word, s.name);
    if (d < best_d) {
      best_d = d;
      best = s.name;
    }
  }
  return best.empty() ? "" : " (did you mean --" + best + "?)";
}

void ArgParser::fail(const std::string& message) const {
  throw UsageError(command_ + ": " + message + "; see 'spindle " + command_ + " --help'");
}

bool ArgParser::parse(const std::vector<std::string>& argv) {
  bool only_operands = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (only_operands || word == "-" || word.empty() || word[0] != '-') {
      if (positionals_.size() >= operands_.size()) {
        fail(operands_.empty() ? "takes no operands, got '" + word + "'"
                               : "unexpected extra operand '" + word + "'");
      }
      positionals_.push_back(word);
      continue;
    }
    if (word == "--") {
      only_operands = true;
      continue;
    }
    if (word == "--help" || word == "-h") {
      std::fputs(help().c_str(), stdout);
      return false;
    }
    const Spec* spec = nullptr;
    std::optional<std::string> inline_value;
    std::string shown = word;
    if (word.size() > 2 && word[0] == '-' && word[1] == '-') {
      std::string name = word.substr(2);
      std::size_t eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
        shown = "--" + name;
      }
      spec = find(name);
      if (!spec) fail("unknown flag '--" + name + "'" + suggest(name));
    } else if (word.size() == 2) {
      spec = find_short(word[1]);
      if (!spec) fail("unknown flag '" + word + "'");
    } else {
      // A negative number where an operand is expected reads as a flag; say so plainly.
      fail("unknown flag '" + word + "' (flags are spelled --name)");
    }
    if (spec->metavar.empty()) {
      if (inline_value) fail(shown + " takes no value");
      values_[spec->name] = "";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argv.size()) fail(shown + " needs a value (" + spec->metavar + ")");
      inline_value = argv[++i];
    }
    values_[spec->name] = *inline_value;
  }
  std::size_t required = 0;
  for (const auto& op : operands_) required += op.required ? 1 : 0;
  if (positionals_.size() < required) {
    fail("missing operand " + operands_[positionals_.size()].name);
  }
  return true;
}

std::string ArgParser::help() const {
  std::string out = "usage: spindle " + command_ + (synopsis_.empty() ? "" : " " + synopsis_);
  out += "\n\n" + wrap(summary_, 0, 0) + "\n";
  if (!operands_.empty()) {
    out += "\nOperands:\n";
    for (const auto& op : operands_) {
      std::string left = "  " + op.name;
      left.resize(std::max(left.size() + 2, kFlagColumn), ' ');
      out += left + wrap(op.help, left.size(), kFlagColumn) + "\n";
    }
  }
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    bool any =
        std::any_of(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.group == g; });
    if (!any && g != 0) continue;
    out += "\n" + groups_[g] + ":\n";
    for (const auto& s : specs_) {
      if (s.group != g) continue;
      std::string left = "  ";
      left += s.short_name ? std::string("-") + s.short_name + ", " : "";
      left += "--" + s.name + (s.metavar.empty() ? "" : " " + s.metavar);
      std::string text = s.help;
      if (!s.default_text.empty()) text += " [default: " + s.default_text + "]";
      if (left.size() + 2 > kFlagColumn) {
        out += left + "\n" + std::string(kFlagColumn, ' ');
        out += wrap(text, kFlagColumn, kFlagColumn) + "\n";
      } else {
        left.resize(kFlagColumn, ' ');
        out += left + wrap(text, kFlagColumn, kFlagColumn) + "\n";
      }
    }
  }
  out += "  -h, --help            print this help and exit\n";
  // Examples come last, whatever order the sections were declared in: the end of the help is
  // where people look for them.
  for (int examples = 0; examples < 2; ++examples) {
    for (const auto& [title, text] : sections_) {
      if ((title == "Examples") != (examples == 1)) continue;
      out += "\n" + title + ":\n" + text;
      if (!text.empty() && text.back() != '\n') out += '\n';
    }
  }
  return out;
}

bool ArgParser::has(const std::string& name) const { return values_.count(name) != 0; }

std::optional<std::string> ArgParser::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string ArgParser::get_or(const std::string& name, const std::string& fallback) const {
  auto v = get(name);
  return v ? *v : fallback;
}

std::optional<std::string> ArgParser::operand_value(std::size_t i) const {
  if (i >= positionals_.size()) return std::nullopt;
  return positionals_[i];
}

double ArgParser::number(const std::string& name, double fallback, double lo, double hi) const {
  auto raw = get(name);
  if (!raw) return fallback;
  double parsed = 0;
  const NumberStatus st = parse_number(*raw, parsed);
  if (st == NumberStatus::Overflow) fail("--" + name + " " + *raw + " overflows a double");
  if (st != NumberStatus::Ok) fail("--" + name + " expects a finite number, got '" + *raw + "'");
  const std::optional<double> v = parsed;
  if (*v < lo || *v > hi) {
    std::ostringstream range;
    if (hi >= kUnbounded) {
      range << "be >= " << lo;  // an upper bound nobody would type is noise in the message
    } else {
      range << "lie in [" << lo << ", " << hi << "]";
    }
    fail("--" + name + " must " + range.str() + ", got " + *raw);
  }
  return *v;
}

std::int64_t ArgParser::integer(const std::string& name, std::int64_t fallback, std::int64_t lo,
                                std::int64_t hi) const {
  auto raw = get(name);
  if (!raw) return fallback;
  auto v = parse_int(*raw);
  if (!v) fail("--" + name + " expects an integer, got '" + *raw + "'");
  if (*v < lo || *v > hi) {
    fail("--" + name + " must " +
         (hi >= static_cast<std::int64_t>(kUnbounded)
              ? "be >= " + std::to_string(lo)
              : "lie in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]") +
         ", got " + *raw);
  }
  return *v;
}

std::string ArgParser::choice(const std::string& name, const std::string& fallback,
                              const std::vector<std::string>& choices) const {
  auto raw = get(name);
  if (!raw) return fallback;
  if (std::find(choices.begin(), choices.end(), *raw) != choices.end()) return *raw;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : "|") + c;
  fail("--" + name + " must be one of " + list + ", got '" + *raw + "'");
}

}  // namespace spindle::cli
