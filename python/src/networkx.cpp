// SPDX-License-Identifier: Apache-2.0
/// @file networkx.cpp
/// @brief A networkx graph's adjacency (`G._adj`, a dict of dicts) read into the engine's CSR from
/// C: rows in the node order, columns sorted within each row, the values of one edge attribute.
///
/// Walking the dicts from Python (a generator step, a position lookup and a `get` per entry) took
/// longer than the PageRank it fed. Here the rows are walked with PyDict_Next straight into the
/// CSR arrays, and the cost left is memory latency: the keys, edge dicts and weights of a graph
/// of a million edges are scattered over a heap much larger than the caches, so the walk
/// gathers entries a chunk at a time and prefetches what it will read (RowWalker), reads no key
/// whose column its stored hash already tells, reads an undirected edge's weight once (for one
/// direction; the other copies it), and sorts the rows afterwards in parallel, without the GIL.
///
/// The walk never trusts the dicts to stay still: a key's __eq__ or a weight's __float__ may run
/// Python code, so before anything that may, what the walk still holds borrowed takes a strong
/// reference, and no row may yield more entries than it had when the arrays were sized.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "python/src/bind.hpp"
#include "python/src/networkx_csr.hpp"

namespace spindle::py {
namespace {

using detail::Csr;
using detail::mirror_values;
using detail::sort_rows;

// `m` as a dict: itself, or a dict copy of a Mapping (graph views hold FilterAdjacency and the
// like, whose rows are Mappings too).
nb::object as_dict(PyObject* m) {
  if (PyDict_Check(m)) return nb::borrow(m);
  nb::object d = nb::steal(PyDict_New());
  if (!d.is_valid() || PyDict_Merge(d.ptr(), m, 1) != 0) throw nb::python_error();
  return d;
}

// m[key] as a new reference, or null when m has no such key (any other error propagates).
nb::object lookup(PyObject* m, PyObject* key) {
  if (PyDict_Check(m)) {
    PyObject* v = PyDict_GetItemWithError(m, key);
    if (v == nullptr && PyErr_Occurred()) throw nb::python_error();
    return nb::borrow(v);
  }
  PyObject* v = PyObject_GetItem(m, key);
  if (v == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_KeyError)) throw nb::python_error();
    PyErr_Clear();
  }
  return nb::steal(v);
}

// What the walk needs besides the arrays it fills.
struct Walk {
  PyObject* weight = nullptr;  // the attribute name; null: no values
  double default_weight = 1.0;
  bool multigraph = false;
  bool identity = false;           // nodes are exactly the ints 0..n-1 in order
  bool columns_from_hash = false;  // identity, and every neighbour is one of the nodes
  // An undirected networkx Graph's dicts (not a view's): entry (i, j), j < i, shares its edge dict
  // with (j, i), read earlier, so its value is copied from there (mirror_values).
  bool mirror = false;
  std::int64_t n = 0;
  nb::object position;  // node -> row; built on first need when `identity`
  const std::vector<nb::object>* nodes = nullptr;
};

// The position dict (node -> its row); for nodes that are 0..n-1 only when a neighbour is not an
// exact int (a bool or an integral float equal to one).
PyObject* position_dict(Walk& w) {
  if (w.position.is_valid()) return w.position.ptr();
  w.position = nb::steal(PyDict_New());
  if (!w.position.is_valid()) throw nb::python_error();
  for (std::int64_t i = 0; i < w.n; ++i) {
    nb::object row = nb::steal(PyLong_FromLongLong(i));
    if (!row.is_valid() || PyDict_SetItem(w.position.ptr(), (*w.nodes)[i].ptr(), row.ptr()) != 0) {
      throw nb::python_error();
    }
  }
  return w.position.ptr();
}

[[noreturn]] void not_a_number(PyObject* u, PyObject* v, PyObject* weight, PyObject* value) {
  nb::python_error why;  // the conversion's own error (TypeError, ValueError, OverflowError)
  nb::object message = nb::steal(
      PyUnicode_FromFormat("edge (%R, %R): attribute %R is %R, which is not a number (%S)", u, v,
                           weight, value, why.value().ptr()));
  if (!message.is_valid()) throw nb::python_error();
  const char* text = PyUnicode_AsUTF8(message.ptr());
  if (text == nullptr) throw nb::python_error();
  throw InvalidArgument(text);
}

// `value` (held by the caller) as a double: bool, int (too large for a double is an error), numpy
// scalars, anything with __float__ or __index__; not str or None (float() would parse a string,
// numpy made None a NaN). An error raised here, or one already pending (PyLong_AsDouble's
// OverflowError), becomes InvalidArgument naming edge (u, v).
double number(PyObject* value, PyObject* u, PyObject* v, PyObject* weight) {
  const double x = PyErr_Occurred() ? -1.0 : PyFloat_AsDouble(value);
  if (x == -1.0 && PyErr_Occurred()) not_a_number(u, v, weight, value);
  return x;
}

// The weight of one edge: data[weight] as a float, the default where data lacks it.
double weight_of(const Walk& w, PyObject* data, PyObject* u, PyObject* v) {
  nb::object value;
  if (PyDict_Check(data)) {
    PyObject* x = PyDict_GetItemWithError(data, w.weight);  // borrowed
    if (x == nullptr) {
      if (PyErr_Occurred()) throw nb::python_error();
      return w.default_weight;
    }
    // Nothing below runs Python code until x is read.
    if (PyFloat_CheckExact(x)) return PyFloat_AS_DOUBLE(x);
    value = nb::borrow(x);
  } else {
    value = lookup(data, w.weight);
    if (!value.is_valid()) return w.default_weight;
  }
  return number(value.ptr(), u, v, w.weight);
}

// The value of entry u -> v: one edge's weight, or the sum over a multigraph's parallel edges
// (networkx.to_scipy_sparse_array's rule).
double value_of(const Walk& w, PyObject* edge, PyObject* u, PyObject* v) {
  if (!w.multigraph) return weight_of(w, edge, u, v);
  nb::object keys = as_dict(edge);  // {key: data}
  double sum = 0.0;
  Py_ssize_t pos = 0;
  PyObject *key = nullptr, *data = nullptr;
  while (PyDict_Next(keys.ptr(), &pos, &key, &data)) {
    nb::object keep = nb::borrow(data);  // weight_of may run Python code
    sum += weight_of(w, data, u, v);
  }
  return sum;
}

// Entries gathered (and their memory prefetched) before any is read. R-MAT 16 (1 M edges) as an
// undirected Graph, converted: 90 ms a chunk of one entry, 52 a chunk of 64; 250 and 130 with a
// weight on every edge (32 to 256 alike).
constexpr std::size_t kChunk = 64;

// CPython before 3.13 exports _PyDict_Next, which also gives the hash stored with each key.
#if !defined(Py_LIMITED_API) && !defined(PYPY_VERSION) && PY_VERSION_HEX < 0x030D0000
#define SPINDLE_DICT_HASHES 1
#else
#define SPINDLE_DICT_HASHES 0
#endif

// PyDict_Next, and the key's hash where the dict's stored one can be read (else -1).
inline int dict_next(PyObject* d, Py_ssize_t* pos, PyObject** key, PyObject** value,
                     Py_hash_t* hash) {
#if SPINDLE_DICT_HASHES
  return _PyDict_Next(d, pos, key, value, hash);
#else
  *hash = -1;
  return PyDict_Next(d, pos, key, value);
#endif
}

inline void prefetch(const void* p) {
#if defined(__GNUC__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

// An exact int's value when it fits 64 bits. Runs no Python code.
inline bool exact_int_value(PyObject* v, std::int64_t* out) {
  if (!PyLong_CheckExact(v)) return false;
  int overflow = 0;
  *out = PyLong_AsLongLongAndOverflow(v, &overflow);  // cannot fail on an int
  return overflow == 0;
}

// Reads the rows into CSR (rows unsorted), a chunk of entries at a time: gather() takes each
// entry's key, edge dict and weight borrowed, prefetching them, and run() reads them. gather()
// runs no Python code, so the borrowed pointers stay valid up to the first step of run() that may
// (a lookup in the position dict or an edge dict, a weight that is not a float or an int, an
// error message); before it, hold_rest() gives the chunk's remaining entries references.
template <class I>
class RowWalker {
 public:
  RowWalker(Walk& w, const std::vector<nb::object>& rows, const std::vector<std::int64_t>& lengths)
      : w_(w), rows_(rows), lengths_(lengths) {}
  RowWalker(const RowWalker&) = delete;
  RowWalker& operator=(const RowWalker&) = delete;
  ~RowWalker() {
    for (std::size_t q = std::max(next_, held_from_); q < count_; ++q) release(entry_[q]);
  }

  Csr<I> run(std::int64_t nnz_bound) {
    Csr<I> out;
    out.row_ptr.assign(static_cast<std::size_t>(w_.n) + 1, 0);
    out.col_idx.resize(static_cast<std::size_t>(nnz_bound));
    if (weighted()) out.values.resize(static_cast<std::size_t>(nnz_bound));
    std::int64_t k = 0;
    std::int64_t closed = 0;  // rows whose end offset is written
    while (gather()) {
      for (; next_ < count_; ++next_) {
        const Entry& e = entry_[next_];
        for (; closed < e.row; ++closed) out.row_ptr[closed + 1] = static_cast<I>(k);
        const std::int64_t j = e.column != kUnknown ? e.column : column(e.key);
        if (j >= 0) {
          out.col_idx[k] = static_cast<I>(j);
          if (weighted()) {
            if (e.weight == Weight::Mirror || (w_.mirror && j < e.row)) {
              out.values[k] = 0.0;  // mirror_values fills it
            } else {
              const double x = value(e);
              out.values[k] = x;
              out.all_ones = out.all_ones && x == 1.0;
            }
          }
          ++k;
        }
        if (next_ >= held_from_) release(e);
      }
    }
    for (; closed < w_.n; ++closed) out.row_ptr[closed + 1] = static_cast<I>(k);
    out.col_idx.resize(static_cast<std::size_t>(k));
    if (weighted()) out.values.resize(static_cast<std::size_t>(k));
    return out;
  }

 private:
  static constexpr std::int64_t kUnknown = -2;
  // Edge dicts with more attributes than this are searched by a dict lookup (after holding the
  // chunk), not scanned for the weight while gathering.
  static constexpr Py_ssize_t kScanAttributes = 8;

  // What gathering found of an entry's weight.
  enum class Weight : unsigned char {
    Default,  // the edge has no such attribute
    Found,    // `value` is the attribute's value
    Lookup,   // not known yet: a lookup that may run Python code (a multigraph, a non-dict, a
              // key that is not a str, many attributes)
    Mirror,   // copied from the entry of the other direction (Walk::mirror); the edge is unused
  };

  struct Entry {
    PyObject* key;  // null when the column is known without it
    PyObject* edge;
    PyObject* value;
    std::int64_t row;
    std::int64_t column;  // kUnknown: from the key
    Weight weight;
  };

  bool weighted() const { return w_.weight != nullptr; }

  // The next chunk, borrowed and prefetched; false at the end. Runs no Python code.
  bool gather() {
    count_ = next_ = 0;
    held_from_ = kChunk;
    while (count_ < kChunk && row_ < w_.n) {
      PyObject *key = nullptr, *edge = nullptr;
      Py_hash_t hash = -1;
      if (!dict_next(rows_[row_].ptr(), &pos_, &key, &edge, &hash)) {
        ++row_;
        pos_ = 0;
        gathered_ = 0;
        continue;
      }
      // A row longer than when the arrays were sized: Python code run for an earlier entry (a
      // key's __eq__, a weight's __float__) changed the graph.
      if (++gathered_ > lengths_[row_]) {
        throw InvalidArgument("the networkx graph changed while it was converted");
      }
      if (w_.columns_from_hash && hash >= 0 && hash < w_.n) {
        // The key equals node `hash` (it is one of the nodes 0..n-1, and equal numbers hash
        // alike), so it is never read: half the cache misses of a walk without attributes.
        const bool mirrored = w_.mirror && hash < row_;  // neither is the edge then
        if (weighted() && !mirrored) prefetch(edge);
        entry_[count_++] = Entry{nullptr,
                                 edge,
                                 nullptr,
                                 row_,
                                 static_cast<std::int64_t>(hash),
                                 mirrored ? Weight::Mirror : Weight::Lookup};
        continue;
      }
      prefetch(key);
      if (weighted()) prefetch(edge);
      entry_[count_++] = Entry{key, edge, nullptr, row_, kUnknown, Weight::Lookup};
    }
    if (w_.identity && !w_.columns_from_hash) int_columns();
    if (weighted()) find_weights();
    return count_ > 0;
  }

  // The columns of the chunk's neighbours that are exact ints, when the nodes are 0..n-1 (their
  // keys were prefetched while gathering), so that mirrored entries read no edge either.
  void int_columns() {
    for (std::size_t q = 0; q < count_; ++q) {
      Entry& e = entry_[q];
      std::int64_t j = 0;
      if (e.column != kUnknown || !exact_int_value(e.key, &j)) continue;
      e.column = j >= 0 && j < w_.n ? j : -1;  // an int outside 0..n-1 is not a node
      if (w_.mirror && e.column >= 0 && e.column < e.row) e.weight = Weight::Mirror;
    }
  }

  // The chunk's weights, in two passes so that each waits on no cache miss the other has not
  // asked for: the edge dicts' key tables are prefetched (the dicts arrived meanwhile), then
  // scanned for the attribute, whose value is prefetched. Runs no Python code: only dicts whose
  // keys are all exact str are scanned (a str compares without running any).
  void find_weights() {
    for (std::size_t q = 0; q < count_; ++q) {
      Entry& e = entry_[q];
      if (e.weight == Weight::Mirror) continue;
      if (w_.multigraph || !PyDict_CheckExact(e.edge)) continue;  // Lookup
      const Py_ssize_t size = PyDict_GET_SIZE(e.edge);
      if (size == 0) {
        e.weight = Weight::Default;  // most graphs: no attributes
      } else if (size <= kScanAttributes) {
        e.weight = Weight::Found;  // to be scanned
#ifndef Py_LIMITED_API
        const auto* keys =
            reinterpret_cast<const char*>(reinterpret_cast<PyDictObject*>(e.edge)->ma_keys);
        prefetch(keys);
        prefetch(keys + 64);
#endif
      }
    }
    const bool str_weight = PyUnicode_CheckExact(w_.weight);
    for (std::size_t q = 0; q < count_; ++q) {
      Entry& e = entry_[q];
      if (e.weight != Weight::Found) continue;
      e.weight = Weight::Default;
      Py_ssize_t pos = 0;
      PyObject *name = nullptr, *value = nullptr;
      while (PyDict_Next(e.edge, &pos, &name, &value)) {
        if (name != w_.weight) {
          if (!str_weight || !PyUnicode_CheckExact(name)) {
            e.weight = Weight::Lookup;
            break;
          }
          if (PyUnicode_Compare(name, w_.weight) != 0) continue;
        }
        e.weight = Weight::Found;
        e.value = value;
        prefetch(value);
        break;
      }
    }
  }

  // References for the entries from the current one on, before Python code may run.
  void hold_rest() {
    for (std::size_t q = next_; q < held_from_ && q < count_; ++q) {
      Py_XINCREF(entry_[q].key);
      if (holds_edge(entry_[q])) Py_INCREF(entry_[q].edge);
      Py_XINCREF(entry_[q].value);
    }
    held_from_ = std::min(held_from_, next_);
  }

  void release(const Entry& e) {
    Py_XDECREF(e.key);
    if (holds_edge(e)) Py_DECREF(e.edge);
    Py_XDECREF(e.value);
  }

  bool holds_edge(const Entry& e) const { return weighted() && e.weight != Weight::Mirror; }

  // The column of neighbour `key`, or -1 when it is not one of the nodes (a nodelist that leaves
  // it out drops the edge).
  std::int64_t column(PyObject* key) {
    std::int64_t j = 0;
    if (w_.identity && exact_int_value(key, &j)) return j >= 0 && j < w_.n ? j : -1;
    hold_rest();
    nb::object row = lookup(position_dict(w_), key);
    if (!row.is_valid()) return -1;
    const long long p = PyLong_AsLongLong(row.ptr());
    if (p == -1 && PyErr_Occurred()) throw nb::python_error();
    return p;
  }

  double value(const Entry& e) {
    if (e.weight == Weight::Default) return w_.default_weight;
    if (e.weight == Weight::Found) {
      if (PyFloat_CheckExact(e.value)) return PyFloat_AS_DOUBLE(e.value);
      if (PyLong_CheckExact(e.value)) {
        const double x = PyLong_AsDouble(e.value);  // exact, or OverflowError
        if (!(x == -1.0 && PyErr_Occurred())) return x;
      }
    }
    hold_rest();  // __float__, a lookup or the error message may run Python code
    PyObject* u = (*w_.nodes)[e.row].ptr();
    PyObject* v = e.key != nullptr ? e.key : (*w_.nodes)[e.column].ptr();  // for messages
    if (e.weight == Weight::Lookup) return value_of(w_, e.edge, u, v);
    return number(e.value, u, v, w_.weight);
  }

  Walk& w_;
  const std::vector<nb::object>& rows_;
  const std::vector<std::int64_t>& lengths_;
  std::int64_t row_ = 0;  // the row being gathered, from position pos_
  Py_ssize_t pos_ = 0;
  std::int64_t gathered_ = 0;  // entries of that row so far
  Entry entry_[kChunk];
  std::size_t count_ = 0;
  std::size_t next_ = 0;            // the entry being read
  std::size_t held_from_ = kChunk;  // entries from here on hold references
};

template <class I, class V>
PyGraph to_graph(Csr<I>&& c, std::int64_t n) {
  using G = Graph<I, V>;
  std::vector<typename G::stored_value_type> values;
  if constexpr (std::is_same_v<V, double>) {
    values = std::move(c.values);
    if (values.empty()) values.assign(c.col_idx.size(), 1.0);
  } else if constexpr (std::is_same_v<V, float>) {
    if (c.values.empty()) {
      values.assign(c.col_idx.size(), 1.0f);
    } else {
      values.assign(c.values.begin(), c.values.end());
    }
  }
  const I rows = static_cast<I>(n);
  return PyGraph{G(rows, rows, std::move(c.row_ptr), std::move(c.col_idx), std::move(values))};
}

struct Converted {
  PyGraph graph;
  nb::object labels;  // None when the nodes are 0..n-1 in order
};

// The engine graph, or nothing when Walk::mirror must be turned off (mirror_values).
template <class I>
std::optional<PyGraph> build(Walk& w, const std::vector<nb::object>& rows,
                             const std::vector<std::int64_t>& lengths, std::int64_t nnz_bound,
                             const std::optional<std::string>& value_dtype, bool ones_as_pattern) {
  Csr<I> c = RowWalker<I>(w, rows, lengths).run(nnz_bound);
  std::string vname = value_dtype.value_or(w.weight == nullptr ? "pattern" : "float64");
  if (!value_dtype && ones_as_pattern && c.all_ones) vname = "pattern";
  nb::gil_scoped_release release;
  if (vname == "pattern") c.values = {};  // sorted without them
  sort_rows(c);
  if (w.mirror && !c.values.empty() && !mirror_values(c)) return std::nullopt;
  return visit_value(vname, [&](auto v) { return to_graph<I, decltype(v)>(std::move(c), w.n); });
}

Converted convert(const nb::handle& adj_in, const nb::handle& nodelist, const nb::handle& weight,
                  double default_weight, bool multigraph, bool undirected,
                  const std::optional<std::string>& index_dtype,
                  const std::optional<std::string>& value_dtype, bool ones_as_pattern) {
  Walk w;
  w.weight =
      weight.is_none() || (value_dtype && *value_dtype == "pattern") ? nullptr : weight.ptr();
  w.default_weight = default_weight;
  w.multigraph = multigraph;
  nb::object adj = as_dict(adj_in.ptr());

  // The nodes and their rows, held by strong references for the whole walk.
  std::vector<nb::object> nodes;
  std::vector<nb::object> rows;
  if (nodelist.is_none()) {
    nodes.reserve(PyDict_GET_SIZE(adj.ptr()));
    rows.reserve(PyDict_GET_SIZE(adj.ptr()));
    Py_ssize_t pos = 0;
    PyObject *node = nullptr, *row = nullptr;
    while (PyDict_Next(adj.ptr(), &pos, &node, &row)) {
      nodes.push_back(nb::borrow(node));
      rows.push_back(nb::borrow(row));
    }
  } else {
    nb::object seq = nb::steal(PySequence_List(nodelist.ptr()));
    if (!seq.is_valid()) throw nb::python_error();
    const Py_ssize_t count = PyList_GET_SIZE(seq.ptr());
    nodes.reserve(count);
    for (Py_ssize_t i = 0; i < count; ++i)
      nodes.push_back(nb::borrow(PyList_GET_ITEM(seq.ptr(), i)));
  }
  w.n = static_cast<std::int64_t>(nodes.size());
  w.nodes = &nodes;
  w.identity = true;
  for (std::int64_t i = 0; i < w.n && w.identity; ++i) {
    PyObject* v = nodes[i].ptr();
    int overflow = 0;
    w.identity =
        PyLong_CheckExact(v) && PyLong_AsLongLongAndOverflow(v, &overflow) == i && overflow == 0;
  }
  // Without a nodelist every neighbour is a node (networkx's invariant).
  w.columns_from_hash = SPINDLE_DICT_HASHES && w.identity && nodelist.is_none();
  if (!w.identity) {
    position_dict(w);
    if (PyDict_GET_SIZE(w.position.ptr()) != w.n) {
      throw InvalidArgument("nodelist has repeated nodes");
    }
  }
  if (!nodelist.is_none()) {
    rows.reserve(nodes.size());
    for (const nb::object& node : nodes) {
      nb::object row = lookup(adj.ptr(), node.ptr());
      if (!row.is_valid()) {
        nb::object cls = nb::module_::import_("spindle._errors").attr("VertexNotFound");
        PyErr_Format(cls.ptr(), "nodelist names %R, which is not in the graph", node.ptr());
        throw nb::python_error();
      }
      rows.push_back(std::move(row));
    }
  }
  // networkx's own dicts: each undirected edge's dict is in both rows (a view's rows may filter
  // either direction alone, a custom mapping may hold anything).
  w.mirror = undirected && !multigraph && w.weight != nullptr && PyDict_CheckExact(adj_in.ptr());
  std::int64_t nnz_bound = 0;
  std::vector<std::int64_t> lengths;
  lengths.reserve(rows.size());
  for (nb::object& row : rows) {
    w.mirror = w.mirror && PyDict_CheckExact(row.ptr());
    row = as_dict(row.ptr());
    lengths.push_back(PyDict_GET_SIZE(row.ptr()));
    nnz_bound += lengths.back();
  }

  const bool big = w.n > kInt32Max || nnz_bound > kInt32Max;
  const std::string iname = index_dtype.value_or(big ? "int64" : "int32");
  if (iname == "int32" && big) {
    throw InvalidArgument("a graph of " + std::to_string(w.n) + " nodes and up to " +
                          std::to_string(nnz_bound) + " entries needs int64 indices");
  }
  Converted out;
  for (;;) {
    std::optional<PyGraph> g = visit_index(iname, [&](auto i) {
      return build<decltype(i)>(w, rows, lengths, nnz_bound, value_dtype, ones_as_pattern);
    });
    if (g) {
      out.graph = std::move(*g);
      break;
    }
    w.mirror = false;
  }
  if (w.identity) {
    out.labels = nb::none();
  } else {
    nb::list labels;
    for (const nb::object& node : nodes) labels.append(node);
    out.labels = std::move(labels);
  }
  return out;
}

}  // namespace

void bind_networkx(nb::module_& m) {
  m.def(
      "from_networkx_adjacency",
      [](const nb::handle& adj, const nb::handle& nodelist, const nb::handle& weight,
         double default_weight, bool multigraph, bool undirected,
         const std::optional<std::string>& index_dtype,
         const std::optional<std::string>& value_dtype, bool ones_as_pattern) {
        Converted c = convert(adj, nodelist, weight, default_weight, multigraph, undirected,
                              index_dtype, value_dtype, ones_as_pattern);
        return nb::make_tuple(nb::cast(std::move(c.graph)), c.labels);
      },
      nb::arg("adj"), nb::arg("nodelist").none(), nb::arg("weight").none(),
      nb::arg("default_weight"), nb::arg("multigraph"), nb::arg("undirected"),
      nb::arg("index_dtype").none(), nb::arg("value_dtype").none(), nb::arg("ones_as_pattern"),
      "(graph, labels) for a networkx adjacency G._adj: rows in its node order (or nodelist's, "
      "dropping edges to nodes outside it), the values of edge attribute `weight` "
      "(default_weight where an edge lacks it; parallel edges of a multigraph add up; None: "
      "pattern), pattern also when ones_as_pattern and every value is 1 (value_dtype None). "
      "labels is None when the nodes are exactly 0..n-1 in order, else the list of nodes.");
}

}  // namespace spindle::py
