// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file plan.hpp
/// @brief Kernel identities and the planner's output.
///
/// Each operation has an `enum class` of kernels with a one-line origin per value. The planner
/// (ops/core) is a pure function from graph statistics, the call's arguments and the device's
/// capabilities to a Plan; it never runs a kernel. Kernels are never chosen by string compare;
/// the names below are for logs, the CLI and JSON only.

#include <cstdint>
#include <optional>
#include <string>

namespace spindle {

/// Where an operation runs.
enum class Device : std::uint8_t {
  Auto,  ///< CUDA when the build has it and a GPU is present, else CPU
  Cpu,   ///< OpenMP backend (the reference)
  Cuda,  ///< CUDA backend
};

/// Operations the planner knows.
enum class OpKind : std::uint8_t { Mxv, Vxm, Mxm, Sddmm };

/// SpMV kernels (mxv; vxm runs as mxv over the cached transpose, or as push_scatter).
enum class MxvKernel : std::uint8_t {
  Auto,               ///< let the planner decide
  CpuRowBalanced,     ///< CPU: OpenMP over nnz-balanced row blocks (merge-path split of rows)
  RowPerThread,       ///< one thread per row ("gbmv_s" of the CS/EE217 SpMV lecture; classical
                      ///< CSR in Load-balancing SpMV Kernels on GPUs, Anzt et al., §3.3)
  SubwarpPerRow,      ///< 2..32 lanes per row, shuffle reduction ("gbmv_w" of the CS/EE217 SpMV
                      ///< lecture; Load-balancing SpMV Kernels on GPUs, Anzt et al., Alg. 3/4)
  NnzSplitSegmented,  ///< fixed nnz chunks per warp, segmented reduction (Huang et al., Adaptive
                      ///< Workload-Balancing and Parallel-Reduction, §2.1.1; Anzt et al.,
                      ///< Load-balancing SpMV Kernels on GPUs, Alg. 1)
  MergePath,          ///< 2-D merge of row offsets and nnz (Merrill & Garland, Merge-based
                      ///< Parallel SpMV; Load-balancing SpMV Kernels on GPUs, Anzt et al., §3.3)
  RowBlock,           ///< blocks of whole rows <= 4 x threads entries, staged in shared memory
                      ///< (CSR-Stream of CSR-Adaptive; long rows split, fixed-order fix-up)
  SlicedCoo,          ///< small graphs: whole rows in slots at fixed offsets, entries stored with
                      ///< their rows (sliced COO), segmented scan; one level of loads fewer
  ColumnSegmented,    ///< graphs whose u outgrows L2: the columns cut into ranges whose slice of u
                      ///< fits L2, one pass over the rows per range (CSR segmenting: Zhang et
                      ///< al., Making Caches Work for Graph Analytics); plain calls only
  SellP,              ///< sliced ELL (Load-balancing SpMV Kernels on GPUs, Anzt et al., §3.5):
                      ///< not implemented; forcing it falls back, logged
  PushScatter,        ///< vxm as a push over the rows of A, no transpose: the input's present
                      ///< entries scatter with atomic min / max / or (exact monoids only)
  Cusparse,           ///< cuSPARSE cusparseSpMV (baseline, plus_times only)
  Generic,            ///< any semiring: run-time operators (the built-in semirings this build did
                      ///< not precompile) or a user's semiring; lanes per row, long rows a block
};

/// SpMM kernels (sparse x dense, N = dense width).
enum class MxmKernel : std::uint8_t {
  Auto,
  CpuRowBalanced,     ///< CPU: OpenMP over nnz-balanced row blocks, vectorized over N
  ParallelReduceVec,  ///< warp per row, vector loads of B rows, N <= 4 (Huang et al., Adaptive
                      ///< Workload-Balancing and Parallel-Reduction, §2.1.2)
  RowCacheSeq,        ///< coalesced sparse-row caching in shared memory (Huang et al., Adaptive
                      ///< Workload-Balancing and Parallel-Reduction, §2.1.3; GE-SpMM)
  NnzBalancedSeq,     ///< row caching with nnz-split work assignment (Huang et al., Adaptive
                      ///< Workload-Balancing and Parallel-Reduction, §2.2)
  AsptTiled,          ///< row panels + dense column tiles in shared memory (Hong et al.,
                      ///< Adaptive Sparse Tiling for Sparse Matrix Multiplication, §3-4)
  Cusparse,           ///< cuSPARSE cusparseSpMM (baseline)
  RowBlock,           ///< CSR-Stream blocks of whole rows, products in shared memory (narrow N)
  Spmv,               ///< N = 1 without epilogue: runs as an mxv, with the mxv planner's kernel
  Generic,            ///< any semiring: run-time operators or a user's semiring; a group of lanes
                      ///< per row owning its columns, long rows a block
};

/// SDDMM kernels (sampled dense-dense, K = inner dimension).
enum class SddmmKernel : std::uint8_t {
  Auto,
  CpuRowBalanced,  ///< CPU: OpenMP over nnz-balanced row blocks
  Vct,             ///< vectorized coarse 1-D tiling, 16 nonzeros per block (Yu et al.,
                   ///< Exploiting Online Locality and Reduction Parallelism, §III-A)
  Iir,             ///< integrated interleaving reduction, K <= 32 (Yu et al., Exploiting
                   ///< Online Locality and Reduction Parallelism, §III-B)
  Wmt,             ///< warp-merged tiling, K > 32 (Yu et al., Exploiting Online Locality and
                   ///< Reduction Parallelism, §III-C)
  AsptTiled,       ///< dense tiles in shared memory (Hong et al., Adaptive Sparse Tiling, §5)
  Cusparse,        ///< cuSPARSE cusparseSDDMM (baseline)
  Generic,         ///< any semiring: run-time operators or a user's semiring; lanes per entry
};

/// Sparse x sparse mxm kernels (SpGEMM, C<M> = A ⊕.⊗ B with sparse B and C). CPU only for now.
enum class SpgemmKernel : std::uint8_t {
  Auto,
  GustavsonDense,   ///< row-wise, a dense accumulator of cols(C) per thread (Gustavson, Two Fast
                    ///< Algorithms for Sparse Matrices: Multiplication and Permuted Transposition)
  GustavsonHash,    ///< row-wise, an open-addressing hash accumulator sized to the row's products
                    ///< (Nagasaka et al., High-performance sparse matrix-matrix products on Intel
                    ///< KNL and multicore architectures)
  MaskedGustavson,  ///< row-wise, products outside the mask's row skipped before accumulating
                    ///< (Davis, Algorithm 1000: SuiteSparse:GraphBLAS, masked saxpy)
  MaskedDot,        ///< C(i,j) = A(i,:)·B(:,j) for each entry of the mask, B^T cached (Davis,
                    ///< Algorithm 1000: SuiteSparse:GraphBLAS, dot-product method; Azad et al.,
                    ///< Parallel triangle counting and enumeration using matrix algebra)
  CudaRowwise,      ///< CUDA: rows binned by work; ESC in a warp for the shortest, shared-memory
                    ///< hash tables, then dense slabs (Nagasaka et al., High-performance and
                    ///< memory-saving sparse general matrix-matrix multiplication for NVIDIA
                    ///< Pascal GPU); symbolic then numeric phase
  CudaMaskedDot,    ///< CUDA: a thread per mask entry intersects A(i,:) with B^T(j,:)
};

const char* to_string(Device d);
const char* to_string(OpKind k);
const char* to_string(MxvKernel k);
const char* to_string(MxmKernel k);
const char* to_string(SddmmKernel k);
const char* to_string(SpgemmKernel k);
/// Parses a kernel name as printed by to_string (e.g. "merge_path"); nullopt if unknown.
std::optional<MxvKernel> parse_mxv_kernel(const std::string& name);
std::optional<MxmKernel> parse_mxm_kernel(const std::string& name);
std::optional<SddmmKernel> parse_sddmm_kernel(const std::string& name);
std::optional<SpgemmKernel> parse_spgemm_kernel(const std::string& name);
std::optional<Device> parse_device(const std::string& name);

/// The form a kernel runs in, where it has several (LaunchParams::form). The planner sets it;
/// the backend runs it as given.
enum class KernelForm : std::uint8_t {
  Default,            ///< the kernel's only form
  RowBlockSmall,      ///< mxv row_block, small graphs: one launch, short rows by segmented scan
  RowBlockL2,         ///< mxv row_block whose matrix streams fit L2: plain loads
  RowBlockStreaming,  ///< mxv row_block whose matrix streams outgrow L2: evict-first loads
  RowBlockWarp,       ///< mxv row_block's warp form: one warp per task on a persistent grid
  BalancedGroup,      ///< SpMM nnz_balanced_seq: a lane group per chunk, staged in shared memory
  BalancedWarp,       ///< SpMM nnz_balanced_seq: a warp per chunk
};

/// Launch parameters a kernel may use (meaning depends on the kernel; 0 = kernel default).
struct LaunchParams {
  int block_threads = 0;  ///< threads per block
  /// SubwarpPerRow: 2..32; SpMM ParallelReduceVec: lanes per row; SpMM RowCacheSeq: lanes per
  /// row (group) when more than its columns need: the extra lanes split the row's entries;
  /// Generic: lanes per row (per entry for sddmm).
  int lanes_per_row = 0;
  /// NnzSplit / MergePath: nnz (or merge items) per warp/thread; mxv RowBlock: entries per block
  /// (256 for the warp form, 512 or 1024); SpMM RowBlock: the longest row that shares a block;
  /// sliced_coo: entries per slot; Generic: the row length from which a row runs one block.
  std::int64_t items_per_worker = 0;
  /// Tiling width (SpMM column tile, SDDMM K chunk); for the mxv kernels 1 relabels the columns
  /// by in-degree (2 picks cuSPARSE's CSR_ALG2).
  int tile = 0;
  KernelForm form = KernelForm::Default;
  /// Elements per vector load of the dense operand (SpMM kernels): 1, or 16 bytes' worth.
  int vec = 0;
};

const char* to_string(KernelForm f);

/// The nonzero parameters as "block=256 lanes=4 items=1024 tile=1 form=warp vec=4" (empty when
/// all are the kernel defaults): the one format of logs, --explain and tuning summaries.
std::string to_string(const LaunchParams& p);

/// The planner's decision for one call.
struct Plan {
  OpKind op = OpKind::Mxv;
  Device device = Device::Cpu;
  MxvKernel mxv = MxvKernel::Auto;
  MxmKernel mxm = MxmKernel::Auto;
  SddmmKernel sddmm = SddmmKernel::Auto;
  /// Sparse x sparse mxm (op Mxm): the kernel; Auto for the SpMM plans, which use `mxm`.
  SpgemmKernel spgemm = SpgemmKernel::Auto;
  LaunchParams params;
  bool forced = false;  ///< chosen through the descriptor, not by rules
  bool tuned = false;   ///< chosen by timing candidates (tuning mode)
  std::string reason;   ///< one line: why this kernel
  /// The kernel's name for logs.
  std::string kernel_name() const;
  /// One-line description, the SPINDLE_LOG=plan format.
  std::string describe() const;
};

/// True when SPINDLE_LOG contains "plan" (read once).
bool plan_logging_enabled();
/// Prints plan.describe() to stderr when plan logging is on.
void log_plan(const Plan& plan);

}  // namespace spindle
