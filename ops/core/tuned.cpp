// SPDX-License-Identifier: Apache-2.0
#include "ops/core/tuned.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "ops/core/instantiate.hpp"

namespace spindle::detail {
namespace {

struct TunedSlot : ExtensionSlot {
  std::mutex mutex;
  std::map<std::string, Plan> plans;
};

template <class I, class V>
TunedSlot& slot_of(const Graph<I, V>& G, const char* name) {
  return G.template extension<TunedSlot>(name, [] { return std::make_unique<TunedSlot>(); });
}

std::string mxv_key(SemiringKind s, ValueKind t) {
  return std::string(to_string(s)) + "/" + to_string(t);
}

}  // namespace

template <class I, class V>
std::optional<Plan> tuned_mxv_plan(const Graph<I, V>& M, SemiringKind s, ValueKind t) {
  TunedSlot& slot = slot_of(M, "tuned.mxv");
  std::lock_guard<std::mutex> lock(slot.mutex);
  const auto it = slot.plans.find(mxv_key(s, t));
  if (it == slot.plans.end()) return std::nullopt;
  return it->second;
}

template <class I, class V>
void set_tuned_mxv_plan(const Graph<I, V>& M, SemiringKind s, ValueKind t, const Plan& p) {
  TunedSlot& slot = slot_of(M, "tuned.mxv");
  std::lock_guard<std::mutex> lock(slot.mutex);
  slot.plans[mxv_key(s, t)] = p;
}

std::string tuned_key(const char* op, std::int64_t width, SemiringKind s, ValueKind t,
                      bool pattern) {
  return std::string(op) + "/" + std::to_string(width) + "/" + to_string(s) + "/" + to_string(t) +
         (pattern ? "/pattern" : "/values");
}

template <class I, class V>
std::optional<Plan> find_tuned(const Graph<I, V>& G, const std::string& key) {
  TunedSlot& slot = slot_of(G, "tuned.mxm");
  std::lock_guard<std::mutex> lock(slot.mutex);
  const auto it = slot.plans.find(key);
  if (it == slot.plans.end()) return std::nullopt;
  return it->second;
}

template <class I, class V>
void store_tuned(const Graph<I, V>& G, const std::string& key, const Plan& p) {
  TunedSlot& slot = slot_of(G, "tuned.mxm");
  std::lock_guard<std::mutex> lock(slot.mutex);
  slot.plans[key] = p;
}

#define SPINDLE_TUNED_(I, V)                                                                      \
  template std::optional<Plan> tuned_mxv_plan<I, V>(const Graph<I, V>&, SemiringKind, ValueKind); \
  template void set_tuned_mxv_plan<I, V>(const Graph<I, V>&, SemiringKind, ValueKind,             \
                                         const Plan&);                                            \
  template std::optional<Plan> find_tuned<I, V>(const Graph<I, V>&, const std::string&);          \
  template void store_tuned<I, V>(const Graph<I, V>&, const std::string&, const Plan&);
SPINDLE_FOR_EACH_GRAPH(SPINDLE_TUNED_)
#undef SPINDLE_TUNED_

}  // namespace spindle::detail
