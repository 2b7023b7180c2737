# SPDX-License-Identifier: Apache-2.0
# Which built-in semirings get specialized CUDA kernels (the "precompiled" sets, per operation);
# every other one runs on CUDA through the generic kernels, which take the monoid and the
# multiply as run-time operator codes. The default sets are what the algorithms, the CLI and
# typical users run. mxv / vxm: plus_times (PageRank, power iteration), min_plus (SSSP),
# min_times and any_pair (BFS parents and levels), lor_land (reachability) and plus_pair (degree
# counts). mxm (SpMM) and sddmm: plus_times (GCN, and every graph-learning use): their kernels
# are the build's heaviest, and no algorithm runs another semiring through them.
# SPINDLE_CUDA_SEMIRINGS adds to every operation's set: a list of built-in names, or "all".
set(SPINDLE_ALL_SEMIRINGS plus_times min_plus max_plus max_times min_times plus_min lor_land
    any_pair plus_pair max_min)
set(SPINDLE_DEFAULT_CUDA_MXV_SEMIRINGS plus_times min_plus min_times lor_land any_pair plus_pair)
set(SPINDLE_DEFAULT_CUDA_MXM_SEMIRINGS plus_times)
set(SPINDLE_DEFAULT_CUDA_SDDMM_SEMIRINGS plus_times)
set(SPINDLE_CUDA_SEMIRINGS "" CACHE STRING
    "Built-in semirings to precompile for CUDA besides the default set (a list such as \
max_plus;max_min, or all); the others run through the generic kernels")

set(_extra "")
if(SPINDLE_CUDA_SEMIRINGS STREQUAL "all")
  set(_extra ${SPINDLE_ALL_SEMIRINGS})
else()
  foreach(_s IN LISTS SPINDLE_CUDA_SEMIRINGS)
    if(NOT _s IN_LIST SPINDLE_ALL_SEMIRINGS)
      string(REPLACE ";" ", " _names "${SPINDLE_ALL_SEMIRINGS}")
      message(FATAL_ERROR "SPINDLE_CUDA_SEMIRINGS: '${_s}' is not a built-in semiring "
                          "(one of ${_names}, or all)")
    endif()
    list(APPEND _extra ${_s})
  endforeach()
endif()

# spindle_cuda_semiring_set(OP): SPINDLE_CUDA_<OP>_PRECOMPILED (canonical order, each once), the
# X-macro text and the switch cases of the generated header.
function(spindle_cuda_semiring_set op)
  set(_wanted ${SPINDLE_DEFAULT_CUDA_${op}_SEMIRINGS} ${_extra})
  set(_list "")
  set(_x "")
  set(_kinds "")
  foreach(_s IN LISTS SPINDLE_ALL_SEMIRINGS)
    if(NOT _s IN_LIST _wanted)
      continue()
    endif()
    list(APPEND _list ${_s})
    # Pair semirings never read the matrix's values: their kernels exist for patterns only.
    if(_s MATCHES "_pair$")
      string(APPEND _x " X(::spindle::semiring::${_s}<T>, SPINDLE_VV_PATTERN)")
    else()
      string(APPEND _x " X(::spindle::semiring::${_s}<T>, SPINDLE_VV_BOTH)")
    endif()
    string(REPLACE "_" ";" _parts ${_s})
    set(_camel "")
    foreach(_p IN LISTS _parts)
      string(SUBSTRING ${_p} 0 1 _h)
      string(SUBSTRING ${_p} 1 -1 _t)
      string(TOUPPER ${_h} _h)
      string(APPEND _camel "${_h}${_t}")
    endforeach()
    string(APPEND _kinds "        case SemiringKind::${_camel}:\n")
  endforeach()
  string(REPLACE ";" ", " _text "${_list}")
  set(SPINDLE_CUDA_${op}_PRECOMPILED ${_list} PARENT_SCOPE)
  set(SPINDLE_CUDA_${op}_TEXT "${_text}" PARENT_SCOPE)
  set(SPINDLE_CUDA_${op}_X "${_x}" PARENT_SCOPE)
  string(REPLACE "\\n" "\n" _kinds "${_kinds}")
  set(SPINDLE_CUDA_${op}_CASES "${_kinds}" PARENT_SCOPE)
endfunction()
foreach(_op MXV MXM SDDMM)
  spindle_cuda_semiring_set(${_op})
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/cuda_semirings.hpp.in
               ${PROJECT_BINARY_DIR}/generated/include/spindle/detail/cuda_semirings.hpp @ONLY)
message(STATUS "spindle: CUDA semirings precompiled: mxv/vxm ${SPINDLE_CUDA_MXV_TEXT}; "
               "mxm ${SPINDLE_CUDA_MXM_TEXT}; sddmm ${SPINDLE_CUDA_SDDMM_TEXT}")
