// SPDX-License-Identifier: Apache-2.0
#include "spindle/loaders/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "spindle/error.hpp"

namespace spindle {

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), temp_(path_ + ".tmp." + std::to_string(::getpid())) {
  // A folder in the way would only show at the final rename, after all the work.
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error(path_ + ": cannot write: is a directory");
  }
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) {
    throw Error(path_ + ": cannot create output file (" + temp_ + "): " + std::strerror(errno));
  }
  // Large buffer: writers emit many small pieces.
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicFileWriter::write(const char* data, std::size_t size) {
  if (!file_) throw Error(path_ + ": write after commit");
  if (size != 0 && std::fwrite(data, 1, size, file_) != size) {
    throw Error(path_ + ": write failed: " + std::strerror(errno));
  }
}

void AtomicFileWriter::commit() {
  if (!file_) throw Error(path_ + ": commit called twice");
  std::FILE* f = file_;
  file_ = nullptr;
  const bool flushed = std::fflush(f) == 0;
  const int flush_err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!flushed || !closed) {
    throw Error(path_ + ": write failed: " + std::strerror(flushed ? errno : flush_err));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    throw Error(path_ + ": cannot move " + temp_ + " into place: " + std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace spindle
