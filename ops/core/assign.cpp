// SPDX-License-Identifier: Apache-2.0
// Public assign: validate (sizes, index ranges) -> degenerate shapes -> device -> backend.
#include "spindle/ops/assign.hpp"

#include <string>

#include "ops/core/backend.hpp"
#include "ops/core/dispatch.hpp"
#include "ops/core/instantiate.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle {
namespace {

void check_indices(const std::vector<std::int64_t>& idx, std::int64_t n) {
  for (std::size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= n) {
      throw IndexOutOfBounds("assign: idx[" + std::to_string(k) + "] = " + std::to_string(idx[k]) +
                             " is outside [0, " + std::to_string(n) + ") of the output");
    }
  }
}

template <class T>
void check_mask(const Vector<T>& w, const Mask& mask) {
  if (!mask.empty()) {
    detail::check_dim("assign", "the mask", mask.size(), "entries", "w's size", w.size());
  }
}

}  // namespace

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, detail::type_identity_t<T> s,
            const Descriptor& desc) {
  check_mask(w, mask);
  if (w.size() == 0) return detail::check_device(desc);
  if (detail::runs_on_cuda(desc)) {
    detail::cuda::assign(w, mask, accum, s, desc.replace);
  } else {
    detail::cpu::assign(w, mask, accum, s, desc.replace);
  }
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, detail::type_identity_t<T> s,
            const std::vector<std::int64_t>& idx, const Descriptor& desc) {
  check_mask(w, mask);
  check_indices(idx, w.size());
  if (w.size() == 0) return detail::check_device(desc);
  if (detail::runs_on_cuda(desc)) {
    detail::cuda::assign(w, mask, accum, s, idx, desc.replace);
  } else {
    detail::cpu::assign(w, mask, accum, s, idx, desc.replace);
  }
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
            const std::vector<std::int64_t>& idx, const Descriptor& desc) {
  check_mask(w, mask);
  detail::check_dim("assign", "u", u.size(), "entries", "the index list's length",
                    static_cast<std::int64_t>(idx.size()));
  check_indices(idx, w.size());
  if (w.size() == 0) return detail::check_device(desc);
  if (detail::runs_on_cuda(desc)) {
    detail::cuda::assign(w, mask, accum, u, idx, desc.replace);
  } else {
    detail::cpu::assign(w, mask, accum, u, idx, desc.replace);
  }
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u,
            const Descriptor& desc) {
  const bool cuda = detail::runs_on_cuda(desc);  // Unsupported first, whatever the sizes
  if (!cuda) detail::host_inputs(u);
  auto out = detail::prepare_vector_output("assign", w, u.size(), mask, accum, "u's size", !cuda);
  if (u.size() > 0) {
    if (cuda) {
      detail::cuda::assign(out.get(), mask, accum, u, desc.replace);
    } else {
      detail::cpu::assign(out.get(), mask, accum, u, desc.replace);
    }
  }
  out.commit();
}

#define SPINDLE_INSTANTIATE_ASSIGN_(T)                                                         \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, const Descriptor&);               \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, const std::vector<std::int64_t>&, \
                          const Descriptor&);                                                  \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&,                    \
                          const std::vector<std::int64_t>&, const Descriptor&);                \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&, const Descriptor&);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_INSTANTIATE_ASSIGN_)

}  // namespace spindle
