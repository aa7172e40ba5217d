#pragma once
// How `vktune step`'s chain (workloads/llm/model_step.cpp) chooses between
// two ways of running a part of it, one fused and one apart (a norm in its
// readers or before them, q/k/v's rope in their epilogues or after them, a
// layout twin or the GGUF product, ...), from the ops' stored winners: the
// rule is declared here once and every choice reads it.
#include <optional>

namespace vktune::step {

// What one way costs by its ops' stored winners: the sum of their medians
// (ns), unknown where one of them has none.
using WayNs = std::optional<double>;

// Adds an op's stored median, or its lack of one, to a way's sum.
void add_to(WayNs& sum, WayNs ns);

// Whether the fused way runs rather than the other: where both ways' costs
// are known, the faster (a tie to the other); where only one way's is, that
// way (an untuned fused kernel never replaces tuned ops, nor the reverse);
// where neither's is, the fused way.
bool fused_way_runs(WayNs fused, WayNs apart);

}  // namespace vktune::step
