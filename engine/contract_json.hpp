#pragma once
// A variant's launch contract as the JSON a winner stores and a version-2
// table carries (docs/TABLE_FORMAT.md, "contract"); the runtime library
// reads it back (runtime/src/contract_fields.cpp).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/variant_contract.hpp"
#include "results/records.hpp"

namespace vktune {

// `stage_spirv_hashes`: the content hash of each stage's SPIR-V, in order.
nlohmann::json contract_to_json(const kernels::LaunchContract& contract,
                                const std::vector<std::string>& stage_spirv_hashes);

// The JSON of kernels::DispatchRule: [{"divisor": q, "shape_dim": d} × 3],
// with "fold": F on an axis that folds (absent otherwise).
nlohmann::json dispatch_to_json(const kernels::DispatchRule& rule);
// {"constant_id": value, ...}: a stage's specialization constants.
nlohmann::json specialization_to_json(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& constants);

// A stored winner's contract: as stored, or for a winner from before
// contracts (schema < 4, table version 1) rebuilt from its kernel — its
// config completed as engine/stale_config.hpp does, its one stage's SPIR-V the
// winner's. nullopt with `why` set when that cannot be done (an unknown
// kernel, a stale config, a kernel whose variants now have several stages).
std::optional<std::string> winner_contract_json(const results::Winner& winner, std::string& why);

}  // namespace vktune
