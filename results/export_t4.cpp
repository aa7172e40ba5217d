#include "results/export_t4.hpp"

#include "results/capped_json.hpp"
#include "results/export_csv.hpp"

namespace vktune::results {

const char* t4_invalidity(Status status) {
  switch (status) {
    case Status::ok: return "correct";
    case Status::compile_error:
    case Status::compile_timeout:
    case Status::compile_crash:
    case Status::compile_memory: return "compile";
    case Status::wrong_result:
    case Status::out_of_bounds:
    case Status::nondeterministic: return "correctness";
    case Status::timeout:
    case Status::pipeline_timeout: return "timeout";
    case Status::device_limit: return "constraints";
    case Status::pipeline_error:
    case Status::pipeline_crash:
    case Status::pipeline_memory:
    case Status::device_lost:
    case Status::error:
    case Status::attempt:
    case Status::crashed: break;
  }
  return "runtime";
}

nlohmann::json export_t4(const Store& store, const ExportFilter& filter) {
  const auto selection = select(store, filter);
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& [row, identity] : selection.devices) {
    devices.push_back({{"row", row},
                       {"name", identity.name},
                       {"vendor_id", identity.vendor_id},
                       {"device_id", identity.device_id},
                       {"driver_version", identity.driver_version},
                       {"driver_version_text", identity.driver_version_text},
                       {"device_uuid", identity.device_uuid}});
  }
  for (const auto& row : measurement_rows(store, selection)) {
    const auto& m = row.measurement;
    if (m.phase != Phase::search) continue;
    const bool ok = m.status == Status::ok;
    const double ms = m.median_ns / 1e6;
    // A stored config that does not parse (a damaged row) is kept as its text.
    auto parsed = parse_capped_json(row.config_json);
    const nlohmann::json configuration = parsed.error.empty() && parsed.value.is_object()
                                             ? std::move(parsed.value)
                                             : nlohmann::json{{"vktune_config_text", row.config_json}};
    nlohmann::json result = {
        {"timestamp", m.created_at},
        {"configuration", configuration},
        {"objectives", {"time"}},
        {"times",
         {{"compilation_time", m.durations.compile_ms + m.durations.pipeline_ms},
          {"runtimes", ok ? nlohmann::json::array({ms}) : nlohmann::json::array()},
          {"validation", m.durations.validation_ms}}},
        {"invalidity", t4_invalidity(m.status)},
        {"correctness", ok ? 1 : 0},
        {"measurements", nlohmann::json::array()},
        {"vktune",
         {{"kernel", row.kernel},
          {"shape", m.shape},
          {"cache_mode", m.cache_mode},
          {"variant_hash", m.variant_hash},
          {"device_row", row.device_row},
          {"status", std::string(to_string(m.status))},
          {"reason", m.reason},
          {"winner", row.is_winner}}}};
    if (ok) {
      auto& measured = result["measurements"];
      measured.push_back({{"name", "time"}, {"value", ms}, {"unit", "ms"}});
      measured.push_back({{"name", "time_p10"}, {"value", m.p10_ns / 1e6}, {"unit", "ms"}});
      measured.push_back({{"name", "time_p90"}, {"value", m.p90_ns / 1e6}, {"unit", "ms"}});
      measured.push_back({{"name", "bandwidth"}, {"value", m.gbps}, {"unit", "GB/s"}});
      measured.push_back({{"name", "throughput"}, {"value", m.gflops}, {"unit", "GFLOP/s"}});
    }
    results.push_back(std::move(result));
  }
  return {{"schema_version", kT4SchemaVersion},
          {"results", std::move(results)},
          {"vktune", {{"extension_version", kT4ExtensionVersion}, {"devices", std::move(devices)}}}};
}

}  // namespace vktune::results
