// SPDX-License-Identifier: Apache-2.0
/// @file ops.cpp
/// @brief The operations (mxv, vxm, mxm, sddmm, element-wise, apply, reduce, assign) and the
/// planner's what-if queries, in GraphBLAS argument order. The Python layer (spindle/_ops.py)
/// turns its arguments into engine vectors and contiguous arrays of the right dtype first.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

template <class T>
Vector<T>& vector_as(PyVector& v, const char* what) {
  if (auto* p = std::get_if<Vector<T>>(&v.v)) return *p;
  throw InvalidArgument(std::string(what) + " must have dtype " + dtype_name<T>());
}

template <class T>
const Vector<T>& vector_as(const PyVector& v, const char* what) {
  return vector_as<T>(const_cast<PyVector&>(v), what);
}

// Calls f(T{}) with the element type of `v`, restricted to float / double.
template <class F>
decltype(auto) visit_real_vector(const PyVector& v, const char* what, F&& f) {
  if (std::holds_alternative<Vector<float>>(v.v)) return f(float{});
  if (std::holds_alternative<Vector<double>>(v.v)) return f(double{});
  throw InvalidArgument(std::string(what) + " must have dtype float32 or float64");
}

// Calls f(T{}) with the element type of `v` (any vector type).
template <class F>
decltype(auto) visit_vector_type(const PyVector& v, F&& f) {
  return std::visit(
      [&](const auto& x) {
        using T = typename std::decay_t<decltype(x)>::value_type;
        return f(T{});
      },
      v.v);
}

template <class T>
Unary<T> unary(const std::string& op, double scalar) {
  return Unary<T>::make(parse_unary(op), static_cast<T>(scalar));
}

struct MaskArgs {
  const PyVector* vector = nullptr;
  bool structural = false;
  bool complement = false;
  Mask make() const { return make_mask(vector, structural, complement); }
};

// The what-if plan of one operation for graph g.
template <class S, class G>
Plan plan_typed(const std::string& op, const G& A, const Mask& mask, Accum accum,
                const Descriptor& desc, std::int64_t width,
                const std::optional<DeviceCaps>& target) {
  if (op == "mxv") {
    return target ? plan_for_mxv<S>(A, mask, accum, desc, *target)
                  : plan_for_mxv<S>(A, mask, accum, desc);
  }
  if (op == "vxm") {
    return target ? plan_for_vxm<S>(A, mask, accum, desc, *target)
                  : plan_for_vxm<S>(A, mask, accum, desc);
  }
  if (op == "mxm") {
    return target ? plan_for_mxm<S>(A, width, desc, *target) : plan_for_mxm<S>(A, width, desc);
  }
  if (op == "sddmm") {
    return target ? plan_for_sddmm<S>(A, width, desc, *target) : plan_for_sddmm<S>(A, width, desc);
  }
  throw InvalidArgument("plan: unknown operation '" + op + "' (mxv, vxm, mxm, sddmm)");
}

}  // namespace

void bind_ops(nb::module_& m) {
  m.def(
      "_mxv",
      [](PyVector& w, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const std::string& semiring, const PyGraph& A, const PyVector& u,
         const Descriptor& desc, bool vxm_form) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        const SemiringKind kind = parse_semiring(semiring);
        visit_real_vector(u, "the input vector", [&](auto t) {
          using T = decltype(t);
          Vector<T>& out = vector_as<T>(w, "the output vector (the input's dtype)");
          const Vector<T>& in = vector_as<T>(u, "the input vector");
          nb::gil_scoped_release release;
          visit_semiring<T>(kind, [&](auto s) {
            std::visit(
                [&](const auto& g) {
                  if (vxm_form) {
                    vxm(out, mk, acc, s, in, g, desc);
                  } else {
                    mxv(out, mk, acc, s, g, in, desc);
                  }
                },
                A.g);
          });
        });
      },
      nb::arg("w"), nb::arg("mask").none(), nb::arg("structural"), nb::arg("complement"),
      nb::arg("accum").none(), nb::arg("semiring"), nb::arg("A"), nb::arg("u"), nb::arg("desc"),
      nb::arg("vxm"));

  m.def(
      "_mxm",
      [](const std::optional<Array2>& C, const nb::handle& accum, const std::string& semiring,
         const PyGraph& A, const nb::handle& B, const Descriptor& desc,
         const std::optional<Array1>& bias, const std::optional<std::string>& act,
         double act_scalar, const std::string& dtype) {
        const Accum acc = parse_accum(accum);
        const SemiringKind kind = parse_semiring(semiring);
        return visit_real(dtype, [&](auto t) -> nb::object {
          using T = decltype(t);
          DenseMatrix<T> out = C ? to_dense<T>(*C, "C") : DenseMatrix<T>();
          const DenseMatrix<T> b = dense_arg<T>(B, "B");
          Vector<T> bias_v;
          MxmEpilogue<T> ep;
          const bool fused = bias.has_value() || act.has_value();
          if (bias) {
            bias_v = Vector<T>(to_std<T>(*bias, "bias"));
            ep.bias = &bias_v;
          }
          if (act) ep.act = parse_unary(*act);
          ep.act_scalar = static_cast<T>(act_scalar);
          {
            nb::gil_scoped_release release;
            visit_semiring<T>(kind, [&](auto s) {
              std::visit(
                  [&](const auto& g) {
                    if (fused) {
                      mxm(out, acc, s, g, b, ep, desc);
                    } else {
                      mxm(out, acc, s, g, b, desc);
                    }
                  },
                  A.g);
            });
          }
          // A CUDA operand gives a CUDA result (unless it goes into a host C).
          return dense_result(std::move(out), is_capsule(B) && !C);
        });
      },
      nb::arg("C").none(), nb::arg("accum").none(), nb::arg("semiring"), nb::arg("A"), nb::arg("B"),
      nb::arg("desc"), nb::arg("bias").none(), nb::arg("act").none(), nb::arg("act_scalar"),
      nb::arg("dtype"));

  m.def(
      "_sddmm",
      [](const std::optional<Array1>& out, const nb::handle& accum, const std::string& semiring,
         const PyGraph& S, const nb::handle& X, const nb::handle& Y, const Descriptor& desc,
         const std::string& dtype) {
        const Accum acc = parse_accum(accum);
        const SemiringKind kind = parse_semiring(semiring);
        return visit_real(dtype, [&](auto t) -> nb::object {
          using T = decltype(t);
          std::vector<T> values = out ? to_std<T>(*out, "out") : std::vector<T>();
          const DenseMatrix<T> x = dense_arg<T>(X, "X");
          const DenseMatrix<T> y = dense_arg<T>(Y, "Y");
          {
            nb::gil_scoped_release release;
            visit_semiring<T>(kind, [&](auto s) {
              std::visit([&](const auto& g) { sddmm(values, acc, s, g, x, y, desc); }, S.g);
            });
          }
          return numpy_from(std::move(values));
        });
      },
      nb::arg("out").none(), nb::arg("accum").none(), nb::arg("semiring"), nb::arg("S"),
      nb::arg("X"), nb::arg("Y"), nb::arg("desc"), nb::arg("dtype"));

  m.def(
      "_ewise",
      [](PyVector& w, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const std::string& op, const PyVector& u, const PyVector& v,
         const Descriptor& desc, bool mult) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        const BinaryOp bop = parse_binary(op);
        visit_vector_type(u, [&](auto t) {
          using T = decltype(t);
          Vector<T>& out = vector_as<T>(w, "the output vector (the inputs' dtype)");
          const Vector<T>& a = vector_as<T>(u, "u");
          const Vector<T>& b = vector_as<T>(v, "v (u's dtype)");
          nb::gil_scoped_release release;
          if (mult) {
            ewise_mult(out, mk, acc, bop, a, b, desc);
          } else {
            ewise_add(out, mk, acc, bop, a, b, desc);
          }
        });
      },
      nb::arg("w"), nb::arg("mask").none(), nb::arg("structural"), nb::arg("complement"),
      nb::arg("accum").none(), nb::arg("op"), nb::arg("u"), nb::arg("v"), nb::arg("desc"),
      nb::arg("mult"));

  m.def(
      "_ewise_dense",
      [](const std::optional<Array2>& C, const nb::handle& accum, const std::string& op,
         const nb::handle& A, const nb::handle& B, const Descriptor& desc,
         const std::string& dtype) {
        const Accum acc = parse_accum(accum);
        const BinaryOp bop = parse_binary(op);
        return visit_real(dtype, [&](auto t) -> nb::object {
          using T = decltype(t);
          DenseMatrix<T> out = C ? to_dense<T>(*C, "C") : DenseMatrix<T>();
          const DenseMatrix<T> a = dense_arg<T>(A, "A");
          const DenseMatrix<T> b = dense_arg<T>(B, "B");
          {
            nb::gil_scoped_release release;
            ewise(out, acc, bop, a, b, desc);
          }
          return dense_result(std::move(out), (is_capsule(A) || is_capsule(B)) && !C);
        });
      },
      nb::arg("C").none(), nb::arg("accum").none(), nb::arg("op"), nb::arg("A"), nb::arg("B"),
      nb::arg("desc"), nb::arg("dtype"));

  m.def(
      "_apply",
      [](PyVector& w, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const std::string& op, double scalar, const PyVector& u,
         const Descriptor& desc) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        visit_vector_type(u, [&](auto t) {
          using T = decltype(t);
          Vector<T>& out = vector_as<T>(w, "the output vector (the input's dtype)");
          const Vector<T>& in = vector_as<T>(u, "u");
          const bool index = op == "rowindex";
          const Unary<T> f = index ? Unary<T>{} : unary<T>(op, scalar);
          nb::gil_scoped_release release;
          if (index) {
            apply_index(out, mk, acc, in, static_cast<T>(scalar), desc);
          } else {
            apply(out, mk, acc, f, in, desc);
          }
        });
      },
      nb::arg("w"), nb::arg("mask").none(), nb::arg("structural"), nb::arg("complement"),
      nb::arg("accum").none(), nb::arg("op"), nb::arg("scalar"), nb::arg("u"), nb::arg("desc"));

  m.def(
      "_apply_dense",
      [](const std::optional<Array2>& C, const nb::handle& accum, const std::string& op,
         double scalar, const nb::handle& A, const Descriptor& desc, const std::string& dtype) {
        const Accum acc = parse_accum(accum);
        return visit_real(dtype, [&](auto t) -> nb::object {
          using T = decltype(t);
          DenseMatrix<T> out = C ? to_dense<T>(*C, "C") : DenseMatrix<T>();
          const DenseMatrix<T> a = dense_arg<T>(A, "A");
          const Unary<T> f = unary<T>(op, scalar);
          {
            nb::gil_scoped_release release;
            apply(out, acc, f, a, desc);
          }
          return dense_result(std::move(out), is_capsule(A) && !C);
        });
      },
      nb::arg("C").none(), nb::arg("accum").none(), nb::arg("op"), nb::arg("scalar"), nb::arg("A"),
      nb::arg("desc"), nb::arg("dtype"));

  m.def(
      "_apply_graph",
      [](const std::string& op, double scalar, const PyGraph& A, const Descriptor& desc,
         const std::string& dtype) {
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          const Unary<T> f = unary<T>(op, scalar);
          nb::gil_scoped_release release;
          return std::visit([&](const auto& g) { return PyGraph{apply(f, g, desc)}; }, A.g);
        });
      },
      nb::arg("op"), nb::arg("scalar"), nb::arg("A"), nb::arg("desc"), nb::arg("dtype"));

  m.def(
      "_scale",
      [](const PyVector* left, const PyGraph& A, const PyVector* right, const Descriptor& desc,
         const std::string& dtype) {
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          const Vector<T> none;
          const Vector<T>& l = left ? vector_as<T>(*left, "left") : none;
          const Vector<T>& r = right ? vector_as<T>(*right, "right") : none;
          nb::gil_scoped_release release;
          return std::visit([&](const auto& g) { return PyGraph{scale(l, g, r, desc)}; }, A.g);
        });
      },
      nb::arg("left").none(), nb::arg("A"), nb::arg("right").none(), nb::arg("desc"),
      nb::arg("dtype"));

  m.def(
      "_reduce",
      [](const std::string& monoid, const PyVector& u, const Descriptor& desc) {
        const MonoidKind mk = parse_monoid(monoid);
        return visit_vector_type(u, [&](auto t) -> nb::object {
          using T = decltype(t);
          const Vector<T>& in = vector_as<T>(u, "u");
          T r;
          {
            nb::gil_scoped_release release;
            r = reduce(mk, in, desc);
          }
          return nb::cast(r);
        });
      },
      nb::arg("monoid"), nb::arg("u"), nb::arg("desc"));

  m.def(
      "_l1_distance",
      [](const PyVector& u, const PyVector& v, const Descriptor& desc) {
        return visit_vector_type(u, [&](auto t) -> nb::object {
          using T = decltype(t);
          const Vector<T>& a = vector_as<T>(u, "u");
          const Vector<T>& b = vector_as<T>(v, "v (u's dtype)");
          T r;
          {
            nb::gil_scoped_release release;
            r = l1_distance(a, b, desc);
          }
          return nb::cast(r);
        });
      },
      nb::arg("u"), nb::arg("v"), nb::arg("desc"));

  m.def(
      "_reduce_rows",
      [](PyVector& w, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const std::string& monoid, const PyGraph& A,
         const Descriptor& desc) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        const MonoidKind mo = parse_monoid(monoid);
        visit_real_vector(w, "the output vector", [&](auto t) {
          using T = decltype(t);
          Vector<T>& out = vector_as<T>(w, "w");
          nb::gil_scoped_release release;
          std::visit([&](const auto& g) { reduce_rows(out, mk, acc, mo, g, desc); }, A.g);
        });
      },
      nb::arg("w"), nb::arg("mask").none(), nb::arg("structural"), nb::arg("complement"),
      nb::arg("accum").none(), nb::arg("monoid"), nb::arg("A"), nb::arg("desc"));

  m.def(
      "_assign_scalar",
      [](PyVector& w, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const nb::handle& value, const std::optional<Array1>& idx,
         const Descriptor& desc) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        std::optional<std::vector<std::int64_t>> indices;
        if (idx) indices = to_std<std::int64_t>(*idx, "indices");
        visit_vector_type(w, [&](auto t) {
          using T = decltype(t);
          Vector<T>& out = vector_as<T>(w, "w");
          T s;
          if constexpr (std::is_floating_point_v<T>) {
            s = static_cast<T>(nb::cast<double>(value));
          } else {
            s = static_cast<T>(nb::cast<std::int64_t>(value));
          }
          nb::gil_scoped_release release;
          if (indices) {
            assign(out, mk, acc, s, *indices, desc);
          } else {
            assign(out, mk, acc, s, desc);
          }
        });
      },
      nb::arg("w"), nb::arg("mask").none(), nb::arg("structural"), nb::arg("complement"),
      nb::arg("accum").none(), nb::arg("value"), nb::arg("indices").none(), nb::arg("desc"));

  m.def(
      "_assign_vector",
      [](PyVector& w, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const PyVector& u, const std::optional<Array1>& idx,
         const Descriptor& desc) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        std::optional<std::vector<std::int64_t>> indices;
        if (idx) indices = to_std<std::int64_t>(*idx, "indices");
        visit_vector_type(u, [&](auto t) {
          using T = decltype(t);
          Vector<T>& out = vector_as<T>(w, "w (u's dtype)");
          const Vector<T>& in = vector_as<T>(u, "u");
          nb::gil_scoped_release release;
          if (indices) {
            assign(out, mk, acc, in, *indices, desc);
          } else {
            assign(out, mk, acc, in, desc);
          }
        });
      },
      nb::arg("w"), nb::arg("mask").none(), nb::arg("structural"), nb::arg("complement"),
      nb::arg("accum").none(), nb::arg("u"), nb::arg("indices").none(), nb::arg("desc"));

  m.def(
      "_plan",
      [](const std::string& op, const PyGraph& A, const std::string& semiring,
         const std::string& dtype, const PyVector* mask, bool structural, bool complement,
         const nb::handle& accum, const Descriptor& desc, std::int64_t width,
         const std::optional<DeviceCaps>& target) {
        const Mask mk = make_mask(mask, structural, complement);
        const Accum acc = parse_accum(accum);
        const SemiringKind kind = parse_semiring(semiring);
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          nb::gil_scoped_release release;
          return visit_semiring<T>(kind, [&](auto s) {
            using S = decltype(s);
            return std::visit(
                [&](const auto& g) { return plan_typed<S>(op, g, mk, acc, desc, width, target); },
                A.g);
          });
        });
      },
      nb::arg("op"), nb::arg("A"), nb::arg("semiring"), nb::arg("dtype"), nb::arg("mask").none(),
      nb::arg("structural"), nb::arg("complement"), nb::arg("accum").none(), nb::arg("desc"),
      nb::arg("width"), nb::arg("target").none());
}

}  // namespace spindle::py
