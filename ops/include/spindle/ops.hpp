// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file ops.hpp
/// @brief Every Spindle operation.
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxm_sparse.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/rank.hpp"
#include "spindle/ops/reduce.hpp"
#include "spindle/ops/sddmm.hpp"
