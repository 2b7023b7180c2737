// SPDX-License-Identifier: Apache-2.0
// Deterministic R-MAT and uniform generators (counter-based random streams per edge).
#include "spindle/loaders/generate.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "spindle/error.hpp"

namespace spindle {
namespace {

// splitmix64's finalizer: a strong 64-bit mixer (Steele, Lea, Flood 2014).
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// The random stream of one edge: splitmix64 seeded from (seed, edge). Counter-based, so any
// thread can produce edge e without the others: output independent of the thread count.
struct EdgeStream {
  std::uint64_t state;
  EdgeStream(std::uint64_t seed, std::uint64_t edge)
      : state(mix64(seed ^ mix64(edge * kGolden + 0x2545F4914F6CDD1Dull))) {}
  std::uint64_t next() {
    state += kGolden;
    return mix64(state);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// A seeded bijection of [0, 2^scale): odd multiplies, adds and xor-shifts modulo 2^scale are
// each invertible, so their composition permutes the ids.
struct Scrambler {
  std::uint64_t mask, m1, k1, m2, k2;
  int shift;
  Scrambler(int scale, std::uint64_t seed)
      : mask(scale >= 64 ? ~0ull : (std::uint64_t{1} << scale) - 1),
        m1(mix64(seed ^ 0x5851F42D4C957F2Dull) | 1),
        k1(mix64(seed ^ 0x14057B7EF767814Full)),
        m2(mix64(seed ^ 0x7A646E4D8B1C3A5Bull) | 1),
        k2(mix64(seed ^ 0x3C6EF372FE94F82Bull)),
        shift(scale / 2 > 0 ? scale / 2 : 1) {}
  std::uint64_t operator()(std::uint64_t x) const {
    x = (x * m1 + k1) & mask;
    x ^= x >> shift;
    x = (x * m2 + k2) & mask;
    x ^= x >> shift;
    return x;
  }
};

template <class I>
std::int64_t check_size(int scale, std::int64_t edge_factor, const char* who) {
  const int max_scale = std::is_same_v<I, std::int32_t> ? 30 : 62;
  if (scale < 0 || scale > max_scale) {
    throw InvalidArgument(std::string(who) + ": scale " + std::to_string(scale) +
                          " is outside 0.." + std::to_string(max_scale) + " for " +
                          to_string(index_kind_of<I>()) + " indices");
  }
  if (edge_factor < 0) {
    throw InvalidArgument(std::string(who) + ": edge factor " + std::to_string(edge_factor) +
                          " is negative");
  }
  const std::uint64_t m =
      checked_mul(std::uint64_t{1} << scale, static_cast<std::uint64_t>(edge_factor), "edge count");
  if (m > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw InvalidArgument(std::string(who) + ": edge count overflows");
  }
  return static_cast<std::int64_t>(m);
}

}  // namespace

template <class I>
Coo<I> generate_rmat(int scale, std::int64_t edge_factor, std::uint64_t seed, const RmatParams& p) {
  const std::int64_t m = check_size<I>(scale, edge_factor, "generate_rmat");
  const bool finite = std::isfinite(p.a) && std::isfinite(p.b) && std::isfinite(p.c);
  if (!finite || p.a < 0 || p.b < 0 || p.c < 0 || p.a + p.b + p.c > 1.0 + 1e-12) {
    throw InvalidArgument("generate_rmat: probabilities a=" + std::to_string(p.a) +
                          " b=" + std::to_string(p.b) + " c=" + std::to_string(p.c) +
                          " must be >= 0 with a + b + c <= 1");
  }
  const double ab = p.a + p.b, abc = p.a + p.b + p.c;
  Coo<I> coo;
  coo.rows = coo.cols = static_cast<I>(std::int64_t{1} << scale);
  coo.row.resize(static_cast<std::size_t>(m));
  coo.col.resize(static_cast<std::size_t>(m));
  const Scrambler perm(scale, seed);
#pragma omp parallel for schedule(static) if (m > 65536)
  for (std::int64_t e = 0; e < m; ++e) {
    EdgeStream rng(seed, static_cast<std::uint64_t>(e));
    std::uint64_t r = 0, c = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = rng.uniform();
      const std::uint64_t rb = u >= ab ? 1 : 0;
      const std::uint64_t cb = (u >= p.a && u < ab) || u >= abc ? 1 : 0;
      r = (r << 1) | rb;
      c = (c << 1) | cb;
    }
    if (p.scramble) {
      r = perm(r);
      c = perm(c);
    }
    coo.row[e] = static_cast<I>(r);
    coo.col[e] = static_cast<I>(c);
  }
  return coo;
}

template <class I>
Coo<I> generate_rmat(int scale, std::int64_t edge_factor, std::uint64_t seed, double a, double b,
                     double c) {
  RmatParams p;
  p.a = a;
  p.b = b;
  p.c = c;
  return generate_rmat<I>(scale, edge_factor, seed, p);
}

template <class I>
Coo<I> generate_uniform(int scale, std::int64_t edge_factor, std::uint64_t seed) {
  const std::int64_t m = check_size<I>(scale, edge_factor, "generate_uniform");
  Coo<I> coo;
  coo.rows = coo.cols = static_cast<I>(std::int64_t{1} << scale);
  coo.row.resize(static_cast<std::size_t>(m));
  coo.col.resize(static_cast<std::size_t>(m));
  const int drop = 64 - scale;
#pragma omp parallel for schedule(static) if (m > 65536)
  for (std::int64_t e = 0; e < m; ++e) {
    EdgeStream rng(seed ^ 0xD1B54A32D192ED03ull, static_cast<std::uint64_t>(e));
    const std::uint64_t x = rng.next(), y = rng.next();
    coo.row[e] = static_cast<I>(scale == 0 ? 0 : x >> drop);
    coo.col[e] = static_cast<I>(scale == 0 ? 0 : y >> drop);
  }
  return coo;
}

template <class I, class V>
Graph<I, V> make_default_graph() {
  BuildOptions opts;
  opts.duplicates = DuplicatePolicy::Collapse;
  opts.self_loops = SelfLoopPolicy::Drop;
  return build_graph<I, V>(
      generate_rmat<I>(kDefaultGraphScale, kDefaultGraphEdgeFactor, kDefaultGraphSeed), opts);
}

#define SPINDLE_INSTANTIATE_GEN(I)                                                            \
  template Coo<I> generate_rmat<I>(int, std::int64_t, std::uint64_t, const RmatParams&);      \
  template Coo<I> generate_rmat<I>(int, std::int64_t, std::uint64_t, double, double, double); \
  template Coo<I> generate_uniform<I>(int, std::int64_t, std::uint64_t);                      \
  template Graph<I, float> make_default_graph<I, float>();                                    \
  template Graph<I, double> make_default_graph<I, double>();                                  \
  template Graph<I, Pattern> make_default_graph<I, Pattern>();
SPINDLE_INSTANTIATE_GEN(std::int32_t)
SPINDLE_INSTANTIATE_GEN(std::int64_t)
#undef SPINDLE_INSTANTIATE_GEN

}  // namespace spindle
