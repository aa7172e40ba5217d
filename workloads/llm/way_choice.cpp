#include "workloads/llm/way_choice.hpp"

namespace vktune::step {

void add_to(WayNs& sum, WayNs ns) { sum = sum && ns ? WayNs(*sum + *ns) : std::nullopt; }

bool fused_way_runs(WayNs fused, WayNs apart) {
  if (fused && apart) return *fused < *apart;
  return fused.has_value() || !apart.has_value();
}

}  // namespace vktune::step
