// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs the built `spindle` binary as a user would and captures exit status, stdout and stderr;
// a minimal JSON reader to check `--json` output independently of the CLI's own writer.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace spindle::test {

/// The CLI under test: the build's, or SPINDLE_TEST_BINARY (to run the tests against another
/// build, e.g. an older one, to see which of them fail there).
inline std::string spindle_binary() {
  if (const char* other = std::getenv("SPINDLE_TEST_BINARY")) return other;
  return std::string(SPINDLE_BINARY_DIR) + "/bin/spindle";
}
inline std::string data_dir() { return SPINDLE_DATA_DIR; }
inline bool have_data() { return std::filesystem::is_directory(data_dir() + "/graphs"); }
inline std::string graph_path(const std::string& name) { return data_dir() + "/graphs/" + name; }

/// Single-quotes a word for /bin/sh.
inline std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

struct RunResult {
  int rc = -1;
  std::string out;
  std::string err;
  std::vector<std::string> err_lines() const { return lines_of(err); }
};

/// A scratch folder per test, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("spindle_cli_" + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// Runs `spindle <args>` (args already shell-quoted where needed), stdin from /dev/null.
  RunResult run(const std::string& args) const { return run_env("", args); }

  /// As run(), with shell variable assignments `env` (e.g. "SPINDLE_LOG=time") before it.
  RunResult run_env(const std::string& env, const std::string& args) const {
    const std::string out = path("stdout.txt"), err = path("stderr.txt");
    const std::string cmd = (env.empty() ? "" : env + " ") + q(spindle_binary()) + " " + args +
                            " >" + q(out) + " 2>" + q(err) + " </dev/null";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    std::filesystem::remove(out);
    std::filesystem::remove(err);
    return r;
  }

  /// Files in the scratch folder (to prove nothing stray was left behind).
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      names.push_back(e.path().filename().string());
    }
    return names;
  }

  std::filesystem::path dir_;
};

// ---- a deliberately small JSON reader (objects, arrays, strings, numbers, literals) ----------

struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;
  bool has(const std::string& k) const { return kind == Object && obj.count(k) != 0; }
  const Json& at(const std::string& k) const { return obj.at(k); }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}
  /// Parses one value and requires only whitespace after it; throws std::runtime_error.
  Json parse_document() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string string_body() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) fail("bad escape");
        char e = s_[i_++];
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'u':
            if (i_ + 4 > s_.size()) fail("bad \\u escape");
            out += static_cast<char>(std::stoi(s_.substr(i_, 4), nullptr, 16));
            i_ += 4;
            break;
          default:
            out += e;
        }
      } else {
        if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
        out += c;
      }
    }
    expect('"');
    return out;
  }
  Json value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Json::Object;
      if (eat('}')) return v;
      do {
        ws();
        std::string k = string_body();
        expect(':');
        if (v.obj.count(k)) fail("duplicate key " + k);
        v.obj[k] = value();
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Json::Array;
      if (eat(']')) return v;
      do {
        v.arr.push_back(value());
      } while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::String;
      v.str = string_body();
    } else if (s_.compare(i_, 4, "true") == 0) {
      v.kind = Json::Bool;
      v.b = true;
      i_ += 4;
    } else if (s_.compare(i_, 5, "false") == 0) {
      v.kind = Json::Bool;
      i_ += 5;
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else {
      std::size_t end = i_;
      while (end < s_.size() && std::strchr("+-0123456789.eE", s_[end])) ++end;
      if (end == i_) fail("unexpected character");
      v.kind = Json::Number;
      v.num = std::strtod(s_.substr(i_, end - i_).c_str(), nullptr);
      i_ = end;
    }
    return v;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace spindle::test
