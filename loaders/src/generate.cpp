// SPDX-License-Identifier: Apache-2.0
// Deterministic R-MAT, uniform, mesh, power-law and bipartite generators (counter-based random
// streams per edge), and the benchmarks' graph names.
#include "spindle/loaders/generate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "spindle/detail/mix.hpp"
#include "spindle/error.hpp"

namespace spindle {
namespace {

using detail::kGolden;
using detail::mix64;

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
  double uniform() { return detail::unit_interval(next()); }
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

// Inverse CDF of the continuous weights w(t) = (t + 1)^-beta on [0, n): the id whose cumulative
// weight is the fraction u of the total. beta = 1 / (exponent - 1) is in [0.1, 2) (exponent in
// (1.5, 10]); beta = 1 has the logarithmic form.
struct PowerLawIds {
  double n, beta, span;
  PowerLawIds(std::uint64_t count, double exponent)
      : n(static_cast<double>(count)), beta(1.0 / (exponent - 1.0)) {
    span = std::fabs(beta - 1.0) < 1e-12 ? std::log(n + 1.0) : std::pow(n + 1.0, 1.0 - beta) - 1.0;
  }
  std::uint64_t operator()(double u) const {
    const double t = std::fabs(beta - 1.0) < 1e-12
                         ? std::exp(u * span) - 1.0
                         : std::pow(1.0 + u * span, 1.0 / (1.0 - beta)) - 1.0;
    const double c = std::min(std::max(std::floor(t), 0.0), n - 1.0);
    return static_cast<std::uint64_t>(c);
  }
};

void check_exponent(double exponent, const char* who) {
  if (!(exponent > 1.5 && exponent <= 10.0)) {
    throw InvalidArgument(std::string(who) + ": exponent " + std::to_string(exponent) +
                          " is outside (1.5, 10]");
  }
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

template <class I>
Coo<I> generate_mesh(int scale, std::uint64_t seed, bool scramble) {
  check_size<I>(scale, 4, "generate_mesh");
  const std::int64_t w = std::int64_t{1} << ((scale + 1) / 2);
  const std::int64_t h = std::int64_t{1} << (scale / 2);
  const std::int64_t n = w * h;
  // Entries: 2 per horizontal edge (h rows of w - 1) and 2 per vertical one (w columns of h - 1).
  const std::int64_t m = 2 * (h * (w - 1) + w * (h - 1));
  Coo<I> coo;
  coo.rows = coo.cols = static_cast<I>(n);
  coo.row.resize(static_cast<std::size_t>(m));
  coo.col.resize(static_cast<std::size_t>(m));
  const Scrambler perm(scale, seed ^ 0x6A09E667F3BCC909ull);
  auto id = [&](std::int64_t v) {
    return static_cast<I>(scramble ? perm(static_cast<std::uint64_t>(v)) : v);
  };
  // Vertex v = y * w + x owns the entries of its right and lower edges, at offsets fixed by v
  // alone (so any thread writes them): horizontal edges first, then vertical ones.
  const std::int64_t horizontal = 2 * h * (w - 1);
#pragma omp parallel for schedule(static) if (n > 65536)
  for (std::int64_t v = 0; v < n; ++v) {
    const std::int64_t y = v / w, x = v % w;
    if (x + 1 < w) {
      const std::size_t e = static_cast<std::size_t>(2 * (y * (w - 1) + x));
      coo.row[e] = id(v);
      coo.col[e] = id(v + 1);
      coo.row[e + 1] = id(v + 1);
      coo.col[e + 1] = id(v);
    }
    if (y + 1 < h) {
      const std::size_t e = static_cast<std::size_t>(horizontal + 2 * v);
      coo.row[e] = id(v);
      coo.col[e] = id(v + w);
      coo.row[e + 1] = id(v + w);
      coo.col[e + 1] = id(v);
    }
  }
  return coo;
}

template <class I>
Coo<I> generate_powerlaw(int scale, std::int64_t edge_factor, double exponent, std::uint64_t seed,
                         bool scramble) {
  const std::int64_t m = check_size<I>(scale, edge_factor, "generate_powerlaw");
  check_exponent(exponent, "generate_powerlaw");
  const std::uint64_t n = std::uint64_t{1} << scale;
  const PowerLawIds ids(n, exponent);
  const Scrambler perm(scale, seed ^ 0xBB67AE8584CAA73Bull);
  Coo<I> coo;
  coo.rows = coo.cols = static_cast<I>(n);
  coo.row.resize(static_cast<std::size_t>(m));
  coo.col.resize(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if (m > 65536)
  for (std::int64_t e = 0; e < m; ++e) {
    EdgeStream rng(seed ^ 0x3C6EF372FE94F82Bull, static_cast<std::uint64_t>(e));
    std::uint64_t r = ids(rng.uniform()), c = ids(rng.uniform());
    if (scramble) {
      r = perm(r);
      c = perm(c);
    }
    coo.row[e] = static_cast<I>(r);
    coo.col[e] = static_cast<I>(c);
  }
  return coo;
}

template <class I>
Coo<I> generate_bipartite(int row_scale, int col_scale, std::int64_t edge_factor, double exponent,
                          std::uint64_t seed) {
  const std::int64_t m = check_size<I>(row_scale, edge_factor, "generate_bipartite");
  check_size<I>(col_scale, 0, "generate_bipartite");
  check_exponent(exponent, "generate_bipartite");
  const PowerLawIds items(std::uint64_t{1} << col_scale, exponent);
  const Scrambler perm(col_scale, seed ^ 0xA54FF53A5F1D36F1ull);
  const int drop = 64 - row_scale;
  Coo<I> coo;
  coo.rows = static_cast<I>(std::int64_t{1} << row_scale);
  coo.cols = static_cast<I>(std::int64_t{1} << col_scale);
  coo.row.resize(static_cast<std::size_t>(m));
  coo.col.resize(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if (m > 65536)
  for (std::int64_t e = 0; e < m; ++e) {
    EdgeStream rng(seed ^ 0x510E527FADE682D1ull, static_cast<std::uint64_t>(e));
    const std::uint64_t x = rng.next();
    coo.row[e] = static_cast<I>(row_scale == 0 ? 0 : x >> drop);
    coo.col[e] = static_cast<I>(perm(items(rng.uniform())));
  }
  return coo;
}

namespace {

// "22" -> 22; anything else (empty, signs, other characters, over 62) -> -1.
int parse_scale(const std::string& s) {
  if (s.empty() || s.size() > 2 || s.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  const int v = std::stoi(s);
  return v <= 62 ? v : -1;
}

}  // namespace

template <class I>
Coo<I> generate_named(const std::string& name, std::int64_t edge_factor, std::uint64_t seed) {
  auto bad = [&]() {
    return InvalidArgument(
        "graph name '" + name +
        "' is not one of rmatS, uniformS, meshS, meshS-r, plawS-gX, plawS-gX-o, bipS, bipsymS "
        "(S a scale such as 22, X a power-law exponent such as 2.1)");
  };
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("rmat") || starts("uniform")) {
    const bool rmat = starts("rmat");
    const int s = parse_scale(name.substr(rmat ? 4 : 7));
    if (s < 0) throw bad();
    return rmat ? generate_rmat<I>(s, edge_factor, seed)
                : generate_uniform<I>(s, edge_factor, seed);
  }
  if (starts("mesh")) {
    const std::string rest = name.substr(4);
    const bool scrambled = rest.size() > 2 && rest.compare(rest.size() - 2, 2, "-r") == 0;
    const int s = parse_scale(scrambled ? rest.substr(0, rest.size() - 2) : rest);
    if (s < 0) throw bad();
    return generate_mesh<I>(s, seed, scrambled);
  }
  if (starts("plaw")) {
    std::string rest = name.substr(4);
    const bool ordered = rest.size() > 2 && rest.compare(rest.size() - 2, 2, "-o") == 0;
    if (ordered) rest.resize(rest.size() - 2);
    const std::size_t g = rest.find("-g");
    if (g == std::string::npos) throw bad();
    const int s = parse_scale(rest.substr(0, g));
    const std::string ex = rest.substr(g + 2);
    std::size_t used = 0;
    double exponent = 0;
    try {
      exponent = std::stod(ex, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (s < 0 || ex.empty() || used != ex.size() ||
        ex.find_first_of("+-eExXnN") != std::string::npos)
      throw bad();
    return generate_powerlaw<I>(s, edge_factor, exponent, seed, !ordered);
  }
  if (starts("bipsym") || starts("bip")) {
    const bool sym = starts("bipsym");
    const int s = parse_scale(name.substr(sym ? 6 : 3));
    if (s < 2) throw bad();
    Coo<I> b = generate_bipartite<I>(s, s - 2, edge_factor, 2.2, seed);
    if (!sym) return b;
    // Users 0..2^S-1, items after them; each user-item entry in both directions.
    const I users = b.rows;
    const std::int64_t total =
        static_cast<std::int64_t>(b.rows) + static_cast<std::int64_t>(b.cols);
    if (total > static_cast<std::int64_t>(std::numeric_limits<I>::max())) throw bad();
    const std::size_t m = b.row.size();
    Coo<I> u;
    u.rows = u.cols = static_cast<I>(total);
    u.row.resize(2 * m);
    u.col.resize(2 * m);
#pragma omp parallel for schedule(static) if (m > 65536)
    for (std::int64_t e = 0; e < static_cast<std::int64_t>(m); ++e) {
      const std::size_t k = static_cast<std::size_t>(e);
      const I item = static_cast<I>(users + b.col[k]);
      u.row[2 * k] = b.row[k];
      u.col[2 * k] = item;
      u.row[2 * k + 1] = item;
      u.col[2 * k + 1] = b.row[k];
    }
    return u;
  }
  throw bad();
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
  template Coo<I> generate_mesh<I>(int, std::uint64_t, bool);                                 \
  template Coo<I> generate_powerlaw<I>(int, std::int64_t, double, std::uint64_t, bool);       \
  template Coo<I> generate_bipartite<I>(int, int, std::int64_t, double, std::uint64_t);       \
  template Coo<I> generate_named<I>(const std::string&, std::int64_t, std::uint64_t);         \
  template Graph<I, float> make_default_graph<I, float>();                                    \
  template Graph<I, double> make_default_graph<I, double>();                                  \
  template Graph<I, Pattern> make_default_graph<I, Pattern>();
SPINDLE_INSTANTIATE_GEN(std::int32_t)
SPINDLE_INSTANTIATE_GEN(std::int64_t)
#undef SPINDLE_INSTANTIATE_GEN

}  // namespace spindle
