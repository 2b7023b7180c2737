// SPDX-License-Identifier: Apache-2.0
// CPU builds: the CUDA backend's projected SpMM (ops/cuda/mxm/mxm_project.hpp) exists so call
// sites need no #ifdef, and says clearly that this build cannot run it.
#include <cstdint>

#include "ops/cuda/mxm/mxm_project.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {

template <class T, class I>
bool mxm_relu_project(DenseMatrix<T>&, const Graph<I, T>&, const DenseMatrix<T>&, const Vector<T>&,
                      const DenseMatrix<T>&, const Descriptor&) {
  throw Unsupported("spindle was built without CUDA: the projected SpMM needs a GPU");
}

void debug_mxm_project_force(bool) noexcept {}

template bool mxm_relu_project<float, std::int32_t>(DenseMatrix<float>&,
                                                    const Graph<std::int32_t, float>&,
                                                    const DenseMatrix<float>&, const Vector<float>&,
                                                    const DenseMatrix<float>&, const Descriptor&);
template bool mxm_relu_project<float, std::int64_t>(DenseMatrix<float>&,
                                                    const Graph<std::int64_t, float>&,
                                                    const DenseMatrix<float>&, const Vector<float>&,
                                                    const DenseMatrix<float>&, const Descriptor&);
template bool mxm_relu_project<double, std::int32_t>(DenseMatrix<double>&,
                                                     const Graph<std::int32_t, double>&,
                                                     const DenseMatrix<double>&,
                                                     const Vector<double>&,
                                                     const DenseMatrix<double>&, const Descriptor&);
template bool mxm_relu_project<double, std::int64_t>(DenseMatrix<double>&,
                                                     const Graph<std::int64_t, double>&,
                                                     const DenseMatrix<double>&,
                                                     const Vector<double>&,
                                                     const DenseMatrix<double>&, const Descriptor&);

}  // namespace spindle::detail::cuda
