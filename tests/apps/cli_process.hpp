// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running the CLI as a process the test controls: started with every signal at its default
// disposition (a shell leaves SIGINT and SIGQUIT ignored in background jobs), so that a test can
// send it signals while it works; and on a pseudo-terminal, to see what a person at a terminal
// sees on stderr.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli_harness.hpp"

extern char** environ;

namespace spindle::test {

/// A running `spindle` with stdout and stderr redirected to files and stdin from /dev/null.
class SpindleProcess {
 public:
  SpindleProcess(const std::vector<std::string>& args, const std::string& out,
                 const std::string& err) {
    std::vector<std::string> words{spindle_binary()};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (posix_spawn(&pid_, argv[0], &fa, &at, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
  }
  ~SpindleProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  bool running() {
    if (reaped_) return false;
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      status_ = st;
      return false;
    }
    return true;
  }
  /// The raw wait status.
  int wait() {
    if (!reaped_) {
      ::waitpid(pid_, &status_, 0);
      reaped_ = true;
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

/// Output of a command run with stderr on a pseudo-terminal.
struct PtyRun {
  int rc = -1;
  std::string out;  ///< stdout (a file)
  std::string tty;  ///< everything written to the terminal (stderr)
};

/// Runs `spindle args` with stderr (only) on a new pseudo-terminal, stdout to `out_file`, extra
/// environment `env` ("NAME=value" words).
inline PtyRun run_on_pty(const std::vector<std::string>& args, const std::string& out_file,
                         const std::vector<std::string>& env = {}) {
  PtyRun r;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(in, 0);
    ::dup2(out, 1);
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<std::string> words{spindle_binary()};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (pid < 0) return r;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      r.tty.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EIO once the child and its terminal are gone
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  ::close(master);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(out_file);
  return r;
}

}  // namespace spindle::test
