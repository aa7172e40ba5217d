#include "engine/contract_json.hpp"

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "results/capped_json.hpp"
#include "results/table_format.hpp"
#include "engine/stale_config.hpp"

namespace vktune {
namespace {

nlohmann::json size_to_json(const kernels::SizeRule& rule) {
  nlohmann::json terms = nlohmann::json::array();
  for (const auto& t : rule.terms) terms.push_back({{"coefficient", t.coefficient}, {"dims", t.dims}});
  return {{"terms", terms}, {"divisor", rule.divisor}, {"align", rule.align}};
}

// A push-constant word: its value as a size rule without alignment (always
// 1), or its expression; its type where it is not u32 (so a u32 polynomial
// word, all that older tables hold, is written as it always was).
nlohmann::json push_word_to_json(const kernels::PushWord& word) {
  nlohmann::json json = {{"name", word.name}};
  if (!word.expression.empty()) {
    json["expression"] = word.expression;
  } else {
    auto value = size_to_json(word.value);
    value.erase("align");
    json["value"] = std::move(value);
  }
  if (word.type != "u32") json["type"] = word.type;
  return json;
}

}  // namespace

nlohmann::json specialization_to_json(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& constants) {
  nlohmann::json object = nlohmann::json::object();
  // Values as the signed integers a spec's parameters are; readers take them as 32 bits.
  for (const auto& [id, value] : constants) object[std::to_string(id)] = static_cast<std::int32_t>(value);
  return object;
}

nlohmann::json dispatch_to_json(const kernels::DispatchRule& rule) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : rule) {
    nlohmann::json axis = {{"shape_dim", a.shape_dim}, {"divisor", a.divisor}};
    // Absent when unfolded, so that the contracts (and entry hashes) of
    // every table written before folds read as they always did.
    if (a.fold != 0) axis["fold"] = a.fold;
    axes.push_back(std::move(axis));
  }
  return axes;
}

nlohmann::json contract_to_json(const kernels::LaunchContract& contract,
                                const std::vector<std::string>& stage_spirv_hashes) {
  if (stage_spirv_hashes.size() != contract.stages.size()) {
    throw Error(ErrorKind::internal, "a contract of " + std::to_string(contract.stages.size()) + " stages with " +
                                         std::to_string(stage_spirv_hashes.size()) + " SPIR-V hashes");
  }
  nlohmann::json bounds = nlohmann::json::array();
  for (const auto& b : contract.shape_class) bounds.push_back({{"dim", b.dim}, {"min", b.min}, {"max", b.max}});
  nlohmann::json bindings = nlohmann::json::array();
  namespace format = results::table_format;
  for (const auto& b : contract.bindings) {
    nlohmann::json binding = {
        {"name", b.name}, {"role", std::string(kernels::to_string(b.role))}, {"size", size_to_json(b.size)}};
    // Each optional field absent where unused, so that the contracts (and
    // entry hashes) of every table written before them read as they did.
    if (b.alias_of >= 0) binding[std::string(format::binding_alias_field)] = b.alias_of;
    if (!b.members.empty()) {
      nlohmann::json members = nlohmann::json::array();
      for (const auto& m : b.members) {
        auto word = push_word_to_json(m.word);
        word[std::string(format::member_offset_field)] = m.offset;
        members.push_back(std::move(word));
      }
      binding[std::string(format::binding_members_field)] = std::move(members);
    }
    bindings.push_back(std::move(binding));
  }
  nlohmann::json stages = nlohmann::json::array();
  for (std::size_t i = 0; i < contract.stages.size(); ++i) {
    const auto& s = contract.stages[i];
    stages.push_back({{"spirv_hash", stage_spirv_hashes[i]},
                      {"specialization", specialization_to_json(s.specialization)},
                      {"local_size", s.local_size},
                      {"dispatch", dispatch_to_json(s.dispatch)},
                      {"required_subgroup_size", s.required_subgroup_size},
                      {"require_full_subgroups", s.require_full_subgroups},
                      {"shared_memory_bytes", s.shared_memory_bytes}});
  }
  nlohmann::json json = {{"space", contract.space},
                         {"path", contract.path},
                         {"shape_dims", contract.shape_dims},
                         {"shape_class", bounds},
                         {"specialized_dims", contract.specialized_dims},
                         {"bindings", bindings},
                         {"stages", stages}};
  // Absent = the shape, so the contracts of kernels that push the shape read
  // as they always did.
  if (!contract.push_constants.empty()) {
    nlohmann::json words = nlohmann::json::array();
    for (const auto& word : contract.push_constants) words.push_back(push_word_to_json(word));
    json["push_constants"] = std::move(words);
  }
  return json;
}

std::optional<std::string> winner_contract_json(const results::Winner& winner, std::string& why) {
  if (!winner.contract_json.empty()) return winner.contract_json;
  const auto* kernel = kernels::find_kernel_or_null(winner.kernel);
  if (kernel == nullptr) {
    why = "kernel '" + winner.kernel + "' is not known to this vktune";
    return std::nullopt;
  }
  try {
    const auto shape = kernels::parse_shape(winner.shape, kernel->shape_dims().size());
    const auto update = update_config(*kernel, shape, kernels::config_from_json(winner.config_json));
    if (!update.config) {
      why = update.note;
      return std::nullopt;
    }
    const auto contract = kernels::launch_contract(*kernel, *update.config, shape);
    if (contract.stages.size() != 1) {
      why = "its config now plans " + std::to_string(contract.stages.size()) + " stages; the winner holds one";
      return std::nullopt;
    }
    // The row's launch facts are what its SPIR-V was built with: they win
    // over today's plan (the kernel supplies bindings, shape class and the
    // dimensions the shader is specialised to).
    auto json = contract_to_json(contract, {winner.spirv_hash});
    auto& stage = json["stages"][0];
    stage["local_size"] = {winner.local_size[0], winner.local_size[1], winner.local_size[2]};
    stage["required_subgroup_size"] = winner.required_subgroup_size;
    const auto stored = [](const std::string& text, const char* what) {
      auto parsed = results::parse_capped_json(text);
      if (!parsed.error.empty()) {
        throw Error(ErrorKind::format, std::string("its stored ") + what + " is " + parsed.error);
      }
      return std::move(parsed.value);
    };
    if (!winner.dispatch_json.empty()) stage["dispatch"] = stored(winner.dispatch_json, "dispatch");
    if (!winner.specialization_json.empty()) {
      stage["specialization"] = stored(winner.specialization_json, "specialization");
    }
    return json.dump();
  } catch (const Error& e) {
    why = e.what();
  } catch (const nlohmann::json::exception& e) {
    why = std::string("its stored launch facts do not parse: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace vktune
