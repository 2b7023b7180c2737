// SPDX-License-Identifier: Apache-2.0
// The .spg writer: the checksum is computed over the image the sections make (without
// assembling it), then header and sections go out through AtomicFileWriter.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "mapped_file.hpp"
#include "spg_layout.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle {
namespace {

using namespace detail::spg;

// One section of the image: `size` bytes at file offset `offset` from `data`.
struct Piece {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  const char* data = nullptr;
};

// Bytes [lo, hi) of the image the pieces make (zeros between them) into out.
void gather(const Piece* pieces, int n, std::uint64_t lo, std::uint64_t hi, char* out) {
  std::memset(out, 0, static_cast<std::size_t>(hi - lo));
  for (int s = 0; s < n; ++s) {
    const std::uint64_t a = std::max(lo, pieces[s].offset);
    const std::uint64_t b = std::min(hi, pieces[s].offset + pieces[s].size);
    if (a < b) {
      std::memcpy(out + (a - lo), pieces[s].data + (a - pieces[s].offset),
                  static_cast<std::size_t>(b - a));
    }
  }
}

std::string labels_section(const std::vector<std::string>& labels) {
  std::string sec;
  std::uint64_t text = 0;
  for (const std::string& l : labels) text += l.size();
  sec.resize(16 + 8 * labels.size());
  store64(sec.data(), labels.size());
  std::uint64_t at = 0;
  store64(sec.data() + 8, 0);
  for (std::size_t v = 0; v < labels.size(); ++v) {
    at += labels[v].size();
    store64(sec.data() + 16 + 8 * v, at);
  }
  sec.reserve(sec.size() + static_cast<std::size_t>(text));
  for (const std::string& l : labels) sec += l;
  return sec;
}

}  // namespace

template <class I, class V>
void write_spg(AtomicFileWriter& out, const Graph<I, V>& g, const std::vector<std::string>& labels,
               const SpgWriteOptions& o) {
  if (!labels.empty() &&
      (g.rows() != g.cols() || labels.size() != static_cast<std::size_t>(g.rows()))) {
    throw InvalidArgument(out.path() + ": " + std::to_string(labels.size()) +
                          " vertex labels for a " + std::to_string(g.rows()) + " x " +
                          std::to_string(g.cols()) +
                          " graph (a .spg file keeps one label per vertex of a square graph)");
  }
  const std::string lab = labels.empty() ? std::string() : labels_section(labels);
  Piece pieces[kSections];
  pieces[kRowPtr] = {0, g.row_ptr().size() * sizeof(I),
                     reinterpret_cast<const char*>(g.row_ptr().data())};
  pieces[kColIdx] = {0, g.col_idx().size() * sizeof(I),
                     reinterpret_cast<const char*>(g.col_idx().data())};
  if constexpr (is_pattern_v<V>) {
    pieces[kValues] = {0, 0, nullptr};
  } else {
    pieces[kValues] = {0, g.values().size() * sizeof(V),
                       reinterpret_cast<const char*>(g.values().data())};
  }
  pieces[kLabels] = {0, lab.size(), lab.data()};
  std::uint64_t at = kHeaderBytes;
  for (Piece& p : pieces) {
    p.offset = at;
    at = align_up(at + p.size);
  }
  const std::uint64_t file_bytes = at;

  char header[kHeaderBytes] = {};
  std::memcpy(header + kOffMagic, kMagic, sizeof kMagic);
  store32(header + kOffVersion, kSpgVersion);
  store32(header + kOffByteOrder, kByteOrderMark);
  header[kOffIndexBytes] = static_cast<char>(sizeof(I));
  header[kOffValueCode] = static_cast<char>(is_pattern_v<V>            ? kValuePattern
                                            : std::is_same_v<V, float> ? kValueFloat
                                                                       : kValueDouble);
  bool integers = !labels.empty();
  for (const std::string& l : labels) {
    std::size_t i = !l.empty() && l[0] == '-' ? 1 : 0;
    if (i == l.size()) integers = false;
    for (; i < l.size() && integers; ++i) integers = l[i] >= '0' && l[i] <= '9';
    if (!integers) break;
  }
  store32(header + kOffFlags,
          (o.symmetric ? kFlagSymmetric : 0u) | (integers ? kFlagIntegerLabels : 0u));
  store64(header + kOffRows, static_cast<std::uint64_t>(g.rows()));
  store64(header + kOffCols, static_cast<std::uint64_t>(g.cols()));
  store64(header + kOffNnz, static_cast<std::uint64_t>(g.nnz()));
  store64(header + kOffFileBytes, file_bytes);
  for (int s = 0; s < kSections; ++s) {
    store64(header + kOffSections + 16 * s, pieces[s].offset);
    store64(header + kOffSections + 16 * s + 8, pieces[s].size);
  }

  // The checksum over the image the pieces make, block by block as the reader hashes it.
  const std::uint64_t body = file_bytes - kHeaderBytes;
  const auto blocks = static_cast<std::int64_t>((body + kHashBlock - 1) / kHashBlock);
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(blocks));
  const int threads = detail::resolve_threads(o.threads);
  // One staging block per thread, allocated here: nothing may allocate (and throw) inside the
  // parallel region.
  std::vector<char> bufs(static_cast<std::size_t>(threads) * kHashBlock);
#pragma omp parallel num_threads(threads)
  {
    char* buf = bufs.data() + static_cast<std::size_t>(omp_get_thread_num()) * kHashBlock;
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint64_t lo = kHeaderBytes + static_cast<std::uint64_t>(b) * kHashBlock;
      const std::uint64_t hi = std::min<std::uint64_t>(lo + kHashBlock, file_bytes);
      gather(pieces, kSections, lo, hi, buf);
      hashes[static_cast<std::size_t>(b)] =
          block_hash(buf, static_cast<std::size_t>(hi - lo), static_cast<std::uint64_t>(b));
    }
  }
  std::uint64_t sum = fold_start(header);
  for (const std::uint64_t x : hashes) sum = fold(sum, x);
  store64(header + kOffChecksum, sum);

  out.write(header, kHeaderBytes);
  static const char kZeros[kAlign] = {};
  for (const Piece& p : pieces) {
    if (p.size) out.write(p.data, static_cast<std::size_t>(p.size));
    const std::uint64_t pad = align_up(p.offset + p.size) - (p.offset + p.size);
    if (pad) out.write(kZeros, static_cast<std::size_t>(pad));
  }
}

template <class I, class V>
void write_spg(const std::string& path, const Graph<I, V>& g,
               const std::vector<std::string>& labels, const SpgWriteOptions& o) {
  AtomicFileWriter out(path);
  write_spg(out, g, labels, o);
  out.commit();
}

#define SPINDLE_INSTANTIATE_SPG_WRITE(I, V)                                               \
  template void write_spg<I, V>(AtomicFileWriter&, const Graph<I, V>&,                    \
                                const std::vector<std::string>&, const SpgWriteOptions&); \
  template void write_spg<I, V>(const std::string&, const Graph<I, V>&,                   \
                                const std::vector<std::string>&, const SpgWriteOptions&);
SPINDLE_INSTANTIATE_SPG_WRITE(std::int32_t, float)
SPINDLE_INSTANTIATE_SPG_WRITE(std::int32_t, double)
SPINDLE_INSTANTIATE_SPG_WRITE(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_SPG_WRITE(std::int64_t, float)
SPINDLE_INSTANTIATE_SPG_WRITE(std::int64_t, double)
SPINDLE_INSTANTIATE_SPG_WRITE(std::int64_t, Pattern)
#undef SPINDLE_INSTANTIATE_SPG_WRITE

}  // namespace spindle
