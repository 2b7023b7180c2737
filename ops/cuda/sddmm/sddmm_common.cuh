// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sddmm_common.cuh
/// @brief Shared pieces of the SDDMM kernels: out[e] = accum(out[e], S(i,j) ⊗ (X(i,:) ⊕.⊗ Y(j,:)))
/// for every stored entry e = (i, j) of S, in S's storage order. X is rows(S) x K and Y is
/// cols(S) x K, both row-major. Every kernel walks the nonzeros in storage order (1-D tiling,
/// Exploiting Online Locality and Reduction Parallelism, Yu et al., §III-A), so it needs each
/// entry's row: a COO row array expanded once per graph from
/// the CSR offsets (spmm-independent, cached by the backend).

#include "ops/cuda/mxm/spmm_common.cuh"

namespace spindle::detail::cuda {

/// Raw device view of one SDDMM call. `vals` is nullptr for pattern S (every entry is 1).
template <class I, class V, class T>
struct SddmmArgs {
  std::int64_t nnz = 0;
  std::int64_t k = 0;                       ///< inner dimension K
  const I* __restrict__ row_idx = nullptr;  ///< COO rows (nnz)
  const I* __restrict__ col_idx = nullptr;
  const V* __restrict__ vals = nullptr;
  const T* __restrict__ x = nullptr;  ///< rows(S) x ldx
  std::int64_t ldx = 0;
  const T* __restrict__ y = nullptr;  ///< cols(S) x ldy
  std::int64_t ldy = 0;
  T* __restrict__ out = nullptr;  ///< nnz
  Accum accum{};
  T identity{};  ///< S::identity(), computed on the host
};

/// Writes the finished dot product d of entry e: out[e] = accum(out[e], S(i,j) ⊗ d).
template <class S, class I, class V, class T>
__device__ __forceinline__ void sddmm_store(const SddmmArgs<I, V, T>& a, std::int64_t e, T d) {
  T t = S::mul(a_value<T, V>(a.vals, e), d);
  if (a.accum.enabled) t = apply_binary(a.accum.op, a.out[e], t);
  a.out[e] = t;
}

/// sum ⊕= X(i, kk..kk+VEC) ⊗ Y(j, kk..kk+VEC), the VEC products added in k order.
template <class S, class T, int VEC>
__device__ __forceinline__ T dot_frag(const Frag<T, VEC>& xf, const Frag<T, VEC>& yf, T sum) {
#pragma unroll
  for (int v = 0; v < VEC; ++v) sum = S::add(sum, S::mul(xf.v[v], yf.v[v]));
  return sum;
}

/// Reduces M partial sums at once over groups of `width` lanes (IIR of Exploiting Online Locality
/// and Reduction Parallelism, Yu et al., §III-B): at each
/// butterfly step a lane keeps half of its sums and sends the other half to its partner, so
/// M sums over w lanes cost M-1 + log2(w/M) shuffles per lane instead of M·log2(w). On return
/// lane l of a group holds, in v[0..M/width) (M/width ≥ 1 only if width < M), the sums with
/// indices `which`, which+1, ...; `held` says how many (1 when width ≥ M).
template <class S, class T, int M>
__device__ __forceinline__ void multi_reduce(T* v, int lane, int off, int& which, int& held) {
  if constexpr (M == 1) {
    for (; off > 0; off >>= 1) v[0] = S::add(v[0], __shfl_xor_sync(kFullMask, v[0], off));
    held = 1;
  } else {
    if (off == 0) {
      held = M;
      return;
    }
    const bool upper = (lane & off) != 0;
#pragma unroll
    for (int i = 0; i < M / 2; ++i) {
      const T send = upper ? v[i] : v[i + M / 2];
      const T keep = upper ? v[i + M / 2] : v[i];
      const T recv = __shfl_xor_sync(kFullMask, send, off);
      v[i] = upper ? S::add(recv, keep) : S::add(keep, recv);  // lower lane's partial first
    }
    if (upper) which += M / 2;
    multi_reduce<S, T, M / 2>(v, lane, off >> 1, which, held);
  }
}

/// Loads 4 consecutive indices starting at e (e multiple of 4, e + 4 <= nnz) with one vector
/// access (int4 / two longlong2), the "vector loads of ids" of VCT.
template <class I>
__device__ __forceinline__ void load_ids4(const I* __restrict__ p, std::int64_t e, I (&out)[4]) {
  if constexpr (sizeof(I) == 4) {
    const int4 q = __ldg(reinterpret_cast<const int4*>(p + e));
    out[0] = q.x;
    out[1] = q.y;
    out[2] = q.z;
    out[3] = q.w;
  } else {
    const longlong2 q0 = __ldg(reinterpret_cast<const longlong2*>(p + e));
    const longlong2 q1 = __ldg(reinterpret_cast<const longlong2*>(p + e) + 1);
    out[0] = static_cast<I>(q0.x);
    out[1] = static_cast<I>(q0.y);
    out[2] = static_cast<I>(q1.x);
    out[3] = static_cast<I>(q1.y);
  }
}

/// Vector width for X and Y rows of length K.
template <class I, class V, class T>
int sddmm_vec_for(const SddmmArgs<I, V, T>& a) {
  const int vx = max_vec_for(a.x, a.ldx);
  const int vy = max_vec_for(a.y, a.ldy);
  int v = vx < vy ? vx : vy;
  while (v > 1 && a.k % v != 0) v /= 2;
  return v;
}

}  // namespace spindle::detail::cuda
