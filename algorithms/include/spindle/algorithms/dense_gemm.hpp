// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense_gemm.hpp
/// @brief Kept for code written before the dense products became operations: include
/// spindle/ops/gemm.hpp instead.

#include "spindle/ops/gemm.hpp"
