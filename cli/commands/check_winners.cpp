#include "cli/commands/check_winners.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "engine/stale_config.hpp"

namespace vktune::cli {

namespace {

constexpr const char* kPlanned = "planned";
constexpr const char* kPassed = "passed";
constexpr const char* kFailed = "failed";
constexpr const char* kNotChecked = "not checked";

// The stored rows of this GPU: the same model (vendor, device id, name) and,
// where both know it, the same UUID, whatever driver it was tuned with; a
// driver update is exactly when its winners are worth checking again.
std::vector<std::pair<std::int64_t, results::DeviceIdentity>> rows_of_this_gpu(const results::Store& store,
                                                                             const vk::DeviceInfo& info) {
  std::vector<std::pair<std::int64_t, results::DeviceIdentity>> rows;
  for (auto& [row, id] : store.devices()) {
    const bool same_uuid = id.device_uuid.empty() || info.device_uuid.empty() || id.device_uuid == info.device_uuid;
    if (id.vendor_id == info.vendor_id && id.device_id == info.device_id && id.name == info.name && same_uuid) {
      rows.emplace_back(row, id);
    }
  }
  return rows;
}

// Plans one winner at its tuned shape and at `extra_shapes`.
WinnerCheck plan_one(const kernels::Kernel& kernel, const results::Winner& stored, const std::string& driver,
                     const vk::DeviceInfo& info, const std::vector<kernels::Shape>& extra_shapes,
                     WinnerChecks& checks) {
  WinnerCheck w;
  w.kernel = stored.kernel;
  w.tuned_shape = stored.shape;
  w.cache_mode = stored.cache_mode;
  w.driver_version = driver;
  w.config = kernels::config_from_json(stored.config_json);
  kernels::Shape tuned;
  try {
    tuned = kernels::parse_shape(stored.shape, kernel.shape_dims().size());
    kernel.validate_shape(tuned);
  } catch (const Error& e) {
    w.at.push_back({stored.shape, kNotChecked, std::string("its stored shape is not valid here: ") + e.what()});
    return w;
  }
  const auto update = update_config(kernel, tuned, w.config);
  if (!update.config) {
    w.at.push_back({stored.shape, kNotChecked, "stale config: " + update.note});
    return w;
  }
  w.config = *update.config;
  const auto space = kernel.space_index(tuned);
  auto plan_at = [&](const kernels::Shape& shape) {
    const auto text = kernels::shape_to_string(shape);
    if (kernel.space_index(shape) != space) {
      w.at.push_back({text, kNotChecked,
                      "a " + kernel.spaces()[kernel.space_index(shape)].name + " shape; this winner was tuned for " +
                          kernel.spaces()[space].name + " shapes"});
      return;
    }
    if (const auto why = kernel.constraint_violation(w.config, shape, info); !why.empty()) {
      w.at.push_back({text, kNotChecked,
                      (shape == tuned ? "not legal on this device: " : "not legal at this shape on this device: ") +
                          why.detail});
      return;
    }
    w.at.push_back({text, kPlanned, ""});
    auto& configs = checks.to_check[{kernel.name(), shape}];
    if (std::find(configs.begin(), configs.end(), w.config) == configs.end()) configs.push_back(w.config);
  };
  plan_at(tuned);
  for (const auto& shape : extra_shapes) {
    if (shape != tuned) plan_at(shape);
  }
  return w;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& p : parts) text += (text.empty() ? "" : "; ") + p;
  return text;
}

}  // namespace

bool WinnerCheck::checked_somewhere() const {
  return std::any_of(at.begin(), at.end(), [](const At& a) { return a.status == kPassed || a.status == kFailed; });
}

WinnerChecks plan_winner_checks(const results::Store& store, const vk::DeviceInfo& info,
                                const std::vector<const kernels::Kernel*>& kernels,
                                const std::vector<kernels::Shape>& extra_shapes) {
  WinnerChecks checks;
  checks.device = info.name;
  checks.database = store.path().string();
  const auto mine = rows_of_this_gpu(store, info);
  auto is_mine = [&](std::int64_t row) {
    return std::any_of(mine.begin(), mine.end(), [&](const auto& m) { return m.first == row; });
  };
  for (const auto* kernel : kernels) {
    std::size_t found = 0;
    for (const auto& [row, id] : mine) {
      for (const auto& stored : store.winners(row, kernel->name())) {
        checks.winners.push_back(plan_one(*kernel, stored, id.driver_version_text, info, extra_shapes, checks));
        ++found;
      }
    }
    if (found > 0) continue;
    std::size_t elsewhere = 0;
    for (const auto& [row, id] : store.devices()) {
      if (!is_mine(row)) elsewhere += store.winners(row, kernel->name()).size();
    }
    checks.kernels_without_winners.emplace_back(kernel->name(), elsewhere);
  }
  return checks;
}

void record_winner_outcomes(WinnerChecks& checks, const std::string& kernel, const kernels::Shape& shape,
                            const std::vector<Outcome>& outcomes) {
  const auto text = kernels::shape_to_string(shape);
  for (auto& w : checks.winners) {
    if (w.kernel != kernel) continue;
    for (auto& at : w.at) {
      if (at.shape != text || at.status != kPlanned) continue;
      const auto o = std::find_if(outcomes.begin(), outcomes.end(), [&](const Outcome& o) { return o.config == w.config; });
      if (o == outcomes.end()) {
        at.status = kNotChecked;
        at.reason = "the check gave no outcome for it";
      } else if (o->status == results::Status::ok) {
        at.status = kPassed;
      } else {
        at.status = kFailed;
        at.reason = std::string(results::to_string(o->status)) + ": " + o->reason;
      }
    }
  }
}

void print_winner_checks(std::ostream& out, const WinnerChecks& checks) {
  for (const auto& w : checks.winners) {
    std::vector<std::string> passed, others;
    for (const auto& at : w.at) {
      if (at.status == kPassed) {
        passed.push_back(at.shape);
      } else {
        others.push_back((at.status == kFailed ? "FAILED at " : at.status + " at ") + at.shape + ": " + at.reason);
      }
    }
    std::string result;
    if (!passed.empty()) {
      std::string shapes;
      for (const auto& s : passed) shapes += (shapes.empty() ? "" : ", ") + s;
      result = "passed at " + shapes;
    }
    if (!others.empty()) result += (result.empty() ? "" : "; ") + joined(others);
    out << "winner " << w.kernel << " " << w.tuned_shape << " (" << w.cache_mode << ", driver " << w.driver_version
        << ") [" << kernels::config_to_string(w.config) << "]: " << result << "\n";
  }
  for (const auto& [kernel, elsewhere] : checks.kernels_without_winners) {
    out << "no stored winner of " << kernel << " for " << checks.device << " in " << checks.database
        << ": nothing checked";
    if (elsewhere > 0) {
      out << " (" << elsewhere << " for other devices: `vktune export` them and check with --table)";
    }
    out << "\n";
  }
}

nlohmann::json winner_checks_json(const WinnerChecks& checks) {
  nlohmann::json winners = nlohmann::json::array();
  for (const auto& w : checks.winners) {
    nlohmann::json at = nlohmann::json::array();
    for (const auto& a : w.at) {
      nlohmann::json j = {{"shape", a.shape}, {"status", a.status}};
      if (!a.reason.empty()) j["reason"] = a.reason;
      at.push_back(j);
    }
    winners.push_back({{"kernel", w.kernel},
                       {"shape", w.tuned_shape},
                       {"cache", w.cache_mode},
                       {"driver_version", w.driver_version},
                       {"config", w.config},
                       {"checks", at}});
  }
  nlohmann::json without = nlohmann::json::array();
  for (const auto& [kernel, elsewhere] : checks.kernels_without_winners) {
    without.push_back({{"kernel", kernel}, {"winners_for_other_devices", elsewhere}});
  }
  return {{"winners", winners}, {"kernels_without_winners", without}};
}

}  // namespace vktune::cli
