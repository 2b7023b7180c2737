// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spindle.hpp
/// @brief Umbrella header (the top layer, beside the algorithms): the engine, every operation,
/// loaders and algorithms (everything but
/// the Boost.Graph adapter, spindle/loaders/boost_graph.hpp, which needs Boost).
#include "spindle/algorithms.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/cuda/external.hpp"
#include "spindle/cuda/tune.hpp"
#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/loaders.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"
#include "spindle/types.hpp"
#include "spindle/vector.hpp"
#include "spindle/version.hpp"
