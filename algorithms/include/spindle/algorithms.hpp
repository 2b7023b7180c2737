// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file algorithms.hpp
/// @brief Every Spindle algorithm (each written only against the ops/ API).
#include "spindle/algorithms/betweenness.hpp"
#include "spindle/algorithms/bfs.hpp"
#include "spindle/algorithms/components.hpp"
#include "spindle/algorithms/gcn.hpp"
#include "spindle/algorithms/hits.hpp"
#include "spindle/algorithms/jaccard.hpp"
#include "spindle/algorithms/katz.hpp"
#include "spindle/algorithms/kcore.hpp"
#include "spindle/algorithms/ktruss.hpp"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/algorithms/power_iteration.hpp"
#include "spindle/algorithms/sssp.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/ops/gemm.hpp"
