// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file loaders.hpp
/// @brief Every file reader, writer and generator (not the Boost adapter: include
/// spindle/loaders/boost_graph.hpp for it, which needs the Boost headers).

#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/npy.hpp"
#include "spindle/loaders/spg.hpp"
