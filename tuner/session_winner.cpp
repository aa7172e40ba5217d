// Storing a shape's winner with its launch contract: the end of a tune.
#include <optional>
#include <string>
#include <vector>

#include "kernels/variant_contract.hpp"
#include "results/spirv_bytes.hpp"
#include "engine/contract_json.hpp"
#include "engine/interface_check.hpp"
#include "tuner/session.hpp"
#include "engine/variant.hpp"

namespace vktune {

void TuneSession::store_winner(const kernels::Kernel& kernel, const kernels::Shape& shape,
                               const std::string& shape_text, const TuneOptions& options, ShapeResult& result) {
  // The stored winner is replaced only by a faster variant (or re-measured
  // itself): a short or restricted run (--budget, --only) must not undo what a
  // longer one found.
  std::optional<results::Winner> stored;
  if (store_ && options.time_variants && result.winner) {
    stored = store_->find_winner(*device_row_, kernel.name(), shape_text, options.cache_mode);
    const auto& w = result.outcomes[*result.winner];
    if (stored && stored->variant_hash != w.variant_hash && stored->median_ns < w.timing.median) {
      result.kept_stored_winner_ns = stored->median_ns;
    }
  }
  // A winner without a launch contract would read, to the runtime library,
  // as one from before contracts (which pushes the shape): not stored.
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  if (store_ && options.time_variants && result.winner && !space.contract_unfit.empty()) {
    result.winner_not_stored = space.contract_unfit;
    return;
  }
  if (store_ && options.time_variants && result.winner && !result.kept_stored_winner_ns) {
    const auto& w = result.outcomes[*result.winner];
    auto variant = describe_variant(kernel, w.config, shape, templates_);
    load_cached_spirv(variant, *store_);
    compile_variant(variant, templates_);  // the stages the cache lacks
    // Stage 0's launch facts in the winner's columns (readers of schema 1..3);
    // the contract holds every stage.
    const auto& plan = variant.stages[0].plan;
    results::Winner winner;
    winner.device_id = *device_row_;
    winner.kernel = kernel.name();
    winner.shape = shape_text;
    winner.cache_mode = to_string(options.cache_mode);
    winner.variant_hash = w.variant_hash;
    winner.config_json = kernels::config_to_json(w.config);
    winner.spirv = variant.stages[0].spirv;
    for (int i = 0; i < 3; ++i) winner.local_size[i] = plan.local_size[i];
    winner.dispatch_json = dispatch_to_json(plan.dispatch).dump();
    winner.required_subgroup_size = plan.required_subgroup_size;
    winner.median_ns = w.timing.median;
    winner.gbps = w.gbps;
    winner.gflops = w.gflops;
    winner.rel_l2_error = w.validation.rel_l2;
    if (result.baseline) {
      winner.baseline_variant_hash = result.outcomes[*result.baseline].variant_hash;
      winner.baseline_median_ns = result.outcomes[*result.baseline].timing.median;
    }
    // The contract names every stage's SPIR-V by content hash; the stages
    // after the first are stored beside the winner's own.
    auto contract = kernels::launch_contract(kernel, w.config, shape);
    // The contract carries the words the pipeline was given: a float
    // constant's bits, not the parameter's integer.
    for (std::size_t s = 0; s < contract.stages.size() && s < variant.stages.size(); ++s) {
      typed_stage_specialization(variant.stages[s].spirv, contract.stages[s].specialization);
    }
    winner.specialization_json = specialization_to_json(contract.stages[0].specialization).dump();
    std::vector<std::string> hashes;
    for (std::size_t s = 0; s < variant.stages.size(); ++s) {
      hashes.push_back(results::spirv_content_hash(variant.stages[s].spirv));
      if (s > 0) winner.later_stage_spirv.push_back(variant.stages[s].spirv);
    }
    winner.contract_json = contract_to_json(contract, hashes).dump();
    store_->set_winner(winner);
  }
}

}  // namespace vktune
