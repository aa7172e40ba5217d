// `vktune results`: what a database holds, for a person (a few tables) or a
// script (--json, "format": "vktune-results"): the devices with their
// measured ceilings, each kernel and shape with its counts of variants by
// status and its winner's speedup over the baseline and share of the
// ceiling, and with --failures every failed variant with its config and
// reason. Only reads: the database is opened read-only, as export does.
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "kernels/registry.hpp"
#include "results/browse.hpp"
#include "results/capped_json.hpp"
#include "results/export.hpp"
#include "cli/commands/browse_options.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"

namespace vktune::cli {
namespace {

// The version of `vktune results --json` (docs/JSON_OUTPUT.md).
constexpr int kResultsJsonVersion = 1;

struct ResultsOptions {
  results::BrowseFilter filter;
  std::string db;
  bool failures = false;
  bool json = false;
};

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// A stored config as JSON; text that is not JSON stays a string.
nlohmann::json config_json(const std::string& text) {
  auto parsed = results::parse_capped_json(text);
  return parsed.error.empty() ? std::move(parsed.value) : nlohmann::json(text);
}

const results::StoredDevice* device_of(const results::BrowseResult& result, std::int64_t id) {
  for (const auto& d : result.devices)
    if (d.id == id) return &d;
  return nullptr;
}

nlohmann::json device_json(const results::StoredDevice& d) {
  nlohmann::json j = results::to_json(d.identity);
  j["id"] = d.id;
  nlohmann::json ceilings = nlohmann::json::object();
  if (d.read_gbps) ceilings["read_gbps"] = *d.read_gbps;
  if (d.fp32_gflops) ceilings["fp32_gflops"] = *d.fp32_gflops;
  if (d.dispatch_floor_ns) ceilings["dependent_dispatch_us"] = *d.dispatch_floor_ns / 1e3;
  if (d.tensor_gflops) ceilings["tensor_fp16_gflops"] = *d.tensor_gflops;
  if (d.tensor_shared_gflops) ceilings["tensor_fp16_shared_gflops"] = *d.tensor_shared_gflops;
  j["ceilings"] = ceilings;
  return j;
}

nlohmann::json winner_json(const results::ShapeKey& key, const results::StoredWinner& w,
                           const results::StoredDevice* device) {
  nlohmann::json j = {{"variant", w.variant_hash},
                      {"config", config_json(w.config_json)},
                      {"median_us", w.median_ns / 1e3},
                      {"gbps", w.gbps},
                      {"gflops", w.gflops},
                      {"baseline_variant", w.baseline_variant_hash},
                      {"baseline_median_us", w.baseline_median_ns / 1e3},
                      {"updated_at", w.updated_at}};
  j["speedup"] = w.speedup() ? nlohmann::json(*w.speedup()) : nlohmann::json(nullptr);
  const auto pct = device ? device->percent_of_ceiling(w.gbps, w.gflops,
                                                      kernels::on_tensor_cores(key.kernel, key.shape, w.config_json))
                          : std::nullopt;
  j["pct_of_ceiling"] = pct ? nlohmann::json(*pct) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json failure_json(const results::StoredRow& row) {
  return {{"variant", row.variant_hash}, {"config", config_json(row.config_json)}, {"status", row.status},
          {"reason", row.reason}, {"phase", std::string(results::to_string(row.phase))}};
}

nlohmann::json results_json(const results::Store& store, const results::BrowseResult& result, bool failures) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : result.devices) devices.push_back(device_json(d));
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : result.shapes) {
    nlohmann::json j = {{"device", s.key.device_id},
                        {"kernel", s.key.kernel},
                        {"shape", s.key.shape},
                        {"cache_mode", s.key.cache_mode},
                        {"variants", s.per_variant.size()},
                        {"failures", s.failures()},
                        {"rows", {{"search", s.search_order.size()}, {"confirm", s.confirm_rows}}},
                        {"status_counts", s.status_counts()}};
    j["winner"] = s.winner ? winner_json(s.key, *s.winner, device_of(result, s.key.device_id)) : nlohmann::json(nullptr);
    if (failures) {
      nlohmann::json failed = nlohmann::json::array();
      for (const auto& row : s.per_variant)
        if (!row.ok()) failed.push_back(failure_json(row));
      j["failed_variants"] = failed;
    }
    shapes.push_back(std::move(j));
  }
  return {{"format", "vktune-results"}, {"version", kResultsJsonVersion}, {"database", store.path().string()},
          {"devices", devices},         {"shapes", shapes}};
}

std::string ceilings_text(const results::StoredDevice& d) {
  std::string text;
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (d.read_gbps) add("read " + fixed(*d.read_gbps, 1) + " GB/s");
  if (d.fp32_gflops) add("fp32 " + fixed(*d.fp32_gflops, 1) + " GFLOP/s");
  if (d.dispatch_floor_ns) add("dependent dispatch " + fixed(*d.dispatch_floor_ns / 1e3, 2) + " us");
  if (d.tensor_gflops && *d.tensor_gflops > 0) {
    add("fp16 tensor cores " + fixed(*d.tensor_gflops, 1) + " GFLOP/s (" + fixed(d.tensor_shared_gflops.value_or(0), 1) +
        " with matrices from shared memory)");
  }
  return text.empty() ? "no ceilings measured" : text;
}

std::string counts_text(const results::ShapeRecord& s) {
  std::string text;
  for (const auto& [status, count] : s.status_counts()) {
    text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + escape_text(status);
  }
  return text.empty() ? "no measurements" : text;
}

void print_text(std::ostream& out, const results::Store& store, const results::BrowseResult& result,
                const ResultsOptions& options) {
  out << "results database " << store.path().string() << "\n";
  if (result.devices.empty() && !options.filter.device.empty()) {
    std::string known;
    for (const auto& d : results::stored_devices(store))
      known += (known.empty() ? "" : ", ") + std::to_string(d.id) + " " + escape_text(d.identity.name);
    out << "no stored device matches --device '" << escape_text(options.filter.device)
        << "' (stored: " << (known.empty() ? "none" : known) << ")\n";
    return;
  }
  if (!result.devices.empty()) out << "\ndevices\n";
  for (const auto& d : result.devices) {
    std::string driver = d.identity.driver_name;
    if (!d.identity.driver_version_text.empty()) driver += (driver.empty() ? "" : " ") + d.identity.driver_version_text;
    // Several GPUs of one model differ only in their UUID: its start tells them apart.
    const std::string uuid = d.identity.device_uuid.substr(0, 8);
    out << "  " << d.id << "  " << escape_text(d.identity.name)
        << (driver.empty() ? std::string() : " (" + escape_text(driver) + ")")
        << (uuid.empty() ? std::string() : " uuid " + escape_text(uuid) + "...") << ": " << ceilings_text(d) << "\n";
  }
  if (result.shapes.empty()) {
    out << "\nno measurements or winners match";
    if (!options.filter.kernel.empty()) out << " --kernel '" << escape_text(options.filter.kernel) << "'";
    if (!options.filter.shape.empty()) out << " --shape '" << escape_text(options.filter.shape) << "'";
    out << (options.filter.kernel.empty() && options.filter.shape.empty() ? " (the database holds none)" : "") << "\n";
    return;
  }
  out << "\nshapes (variants by status; winner against the baseline; % of the device's measured ceiling)\n";
  for (const auto& s : result.shapes) {
    out << "  " << escape_text(s.key.kernel) << " " << escape_text(s.key.shape) << " (" << escape_text(s.key.cache_mode)
        << ") on device " << s.key.device_id << ": ";
    if (s.per_variant.empty()) {
      out << "no measurements stored (an imported winner)\n";
    } else {
      out << s.per_variant.size() << " variants (" << counts_text(s) << "), " << s.search_order.size()
          << " search and " << s.confirm_rows << " confirmation rows\n";
    }
    if (!s.winner) {
      out << "      no winner stored\n";
      continue;
    }
    const auto& w = *s.winner;
    out << "      winner " << fixed(w.median_ns / 1e3, 2) << " us";
    if (const auto speedup = w.speedup()) {
      out << ", " << fixed(*speedup, 2) << "x over the baseline (" << fixed(w.baseline_median_ns / 1e3, 2) << " us)";
    }
    out << ", " << fixed(w.gbps, 1) << " GB/s, " << fixed(w.gflops, 1) << " GFLOP/s";
    const auto* device = device_of(result, s.key.device_id);
    const bool tensor_cores = kernels::on_tensor_cores(s.key.kernel, s.key.shape, w.config_json);
    if (const auto pct = device ? device->percent_of_ceiling(w.gbps, w.gflops, tensor_cores) : std::nullopt) {
      out << ", " << fixed(*pct, 1) << "% of ceiling";
    }
    out << "\n      config " << escape_text(w.config_json) << "\n";
  }
  if (!options.failures) return;
  out << "\nfailed variants\n";
  bool any = false;
  for (const auto& s : result.shapes) {
    for (const auto& row : s.per_variant) {
      if (row.ok()) continue;
      any = true;
      out << "  " << escape_text(s.key.kernel) << " " << escape_text(s.key.shape) << " (" << escape_text(s.key.cache_mode)
          << ") device " << s.key.device_id << "  " << escape_text(row.status) << "  " << escape_text(row.config_json)
          << (row.reason.empty() ? "" : "  " + escape_text(row.reason)) << "\n";
    }
  }
  if (!any) out << "  none\n";
}

}  // namespace

void add_results_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand(
      "results", "What a results database holds: devices and their ceilings, kernels and shapes, winners with "
                 "their speedup over the baseline, variants by status, and (--failures) each failed variant");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Shows what a database holds: the devices with their measured ceilings (read
GB/s, fp32 GFLOP/s, dependent-dispatch floor, fp16 tensor-core GFLOP/s), every
kernel and shape with its variants counted by status, its winner's speedup
over the baseline and % of the ceiling, and with --failures each failed
variant with its config and reason.

Read-only: a missing --db is an error (exit 2) and creates nothing, and so is
a --kernel that is neither a registered kernel nor stored; filters that match
nothing say so and exit 0. --json prints {"format": "vktune-results",
"version": 1, ...} (docs/JSON_OUTPUT.md).

See docs/RESULTS_DATABASE.md, "Browsing results".
)vkt");
  auto options = std::make_shared<ResultsOptions>();
  add_browse_filter_options(*cmd, options->filter);
  cmd->add_flag("--failures", options->failures, "List every failed variant with its config and reason");
  cmd->add_flag("--json", options->json, "Print JSON ({\"format\": \"vktune-results\", \"version\": 1, ...})");
  cmd->add_option("--db", options->db, "Results database (default: $VKTUNE_DB, else ~/.local/share/vktune/vktune.db)")
      ->check(database_validator());
  cmd->callback([options, &result_code] {
    const auto store = open_existing_store(options->db);
    check_kernel_filter(store, options->filter.kernel);
    const auto result = results::browse(store, options->filter);
    if (options->json) {
      std::cout << results_json(store, result, options->failures).dump(2) << "\n";
    } else {
      std::ostringstream text;
      print_text(text, store, result, *options);
      std::cout << text.str();
    }
    std::cout << std::flush;
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
