#include "results/import_t4.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "results/capped_json.hpp"

namespace vktune::results {

namespace {

// The largest T4 file read: a replay's measurements, not a dataset dump.
constexpr std::uintmax_t kMaxT4Bytes = std::uintmax_t{512} << 20;

Status status_of_invalidity(const std::string& invalidity, const std::string& where) {
  if (invalidity == "correct") return Status::ok;
  if (invalidity == "compile") return Status::compile_error;
  if (invalidity == "runtime") return Status::pipeline_error;
  if (invalidity == "correctness") return Status::wrong_result;
  if (invalidity == "timeout") return Status::timeout;
  if (invalidity == "constraints") return Status::device_limit;
  throw Error(ErrorKind::format, where + ": invalidity '" + invalidity +
                                     "' is none of correct, compile, runtime, correctness, timeout, constraints");
}

double nanoseconds(double value, const std::string& unit, const std::string& where) {
  if (unit == "s") return value * 1e9;
  if (unit == "ms" || unit.empty()) return value * 1e6;
  if (unit == "us") return value * 1e3;
  if (unit == "ns") return value;
  throw Error(ErrorKind::format, where + ": time unit '" + unit + "' is none of s, ms, us, ns");
}

double number(const nlohmann::json& j, const std::string& where) {
  if (!j.is_number() || !std::isfinite(j.get<double>()) || j.get<double>() < 0) {
    throw Error(ErrorKind::format, where + " is not a finite number of at least 0");
  }
  return j.get<double>();
}

}  // namespace

std::vector<MeasurementRow> read_measurements_t4(const std::filesystem::path& path, const T4Defaults& defaults) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) throw Error(ErrorKind::format, path.string() + ": cannot read it (" + ec.message() + ")");
  if (bytes > kMaxT4Bytes) throw Error(ErrorKind::format, path.string() + ": larger than 512 MiB");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = parse_capped_json(text.str());
  if (!parsed.error.empty()) throw Error(ErrorKind::format, path.string() + ": " + parsed.error);
  const auto& doc = parsed.value;
  if (!doc.is_object() || !doc.contains("results") || !doc.at("results").is_array()) {
    throw Error(ErrorKind::format, path.string() + ": not a T4 results file (no \"results\" array)");
  }
  std::map<std::int64_t, DeviceIdentity> devices;
  if (doc.contains("vktune") && doc.at("vktune").is_object()) {
    for (const auto& d : doc.at("vktune").value("devices", nlohmann::json::array())) {
      if (!d.is_object()) continue;
      DeviceIdentity id;
      id.name = d.value("name", std::string());
      id.vendor_id = d.value("vendor_id", 0u);
      id.device_id = d.value("device_id", 0u);
      id.driver_version = d.value("driver_version", 0u);
      id.driver_version_text = d.value("driver_version_text", std::string());
      id.device_uuid = d.value("device_uuid", std::string());
      devices[d.value("row", std::int64_t{0})] = id;
    }
  }
  std::vector<MeasurementRow> rows;
  const auto& results = doc.at("results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto where = path.string() + ": results[" + std::to_string(i) + "]";
    const auto& r = results[i];
    if (!r.is_object()) throw Error(ErrorKind::format, where + " is not an object");
    for (const char* field : {"configuration", "times", "invalidity", "correctness"}) {
      if (!r.contains(field)) throw Error(ErrorKind::format, where + " has no \"" + field + "\" (T4 requires it)");
    }
    if (!r.at("configuration").is_object()) throw Error(ErrorKind::format, where + ": configuration is not an object");
    nlohmann::json config = nlohmann::json::object();
    for (const auto& [name, value] : r.at("configuration").items()) {
      if (!value.is_number_integer()) {
        throw Error(ErrorKind::format, where + ": configuration parameter '" + name +
                                           "' is not a whole number (vktune's parameters are integers)");
      }
      config[name] = value;
    }
    const nlohmann::json ext = r.contains("vktune") && r.at("vktune").is_object() ? r.at("vktune") : nlohmann::json::object();
    MeasurementRow row;
    row.kernel = ext.value("kernel", defaults.kernel);
    row.config_json = config.dump();
    row.is_winner = ext.value("winner", false);
    row.device_row = ext.value("device_row", std::int64_t{1});
    row.device = devices.count(row.device_row) ? devices.at(row.device_row) : DeviceIdentity{};
    if (row.device.name.empty()) row.device.name = "the T4 file's device";
    auto& m = row.measurement;
    m.device_id = row.device_row;
    m.shape = ext.value("shape", defaults.shape);
    if (m.shape.empty()) {
      throw Error(ErrorKind::format, where + " names no shape (another tool's file): give the shape with --shape");
    }
    m.cache_mode = ext.value("cache_mode", std::string("cold"));
    m.variant_hash = ext.value("variant_hash", std::string("t4:") + std::to_string(i));
    m.status = ext.contains("status") ? status_from_string(ext.at("status").get<std::string>())
                                      : status_of_invalidity(r.at("invalidity").get<std::string>(), where);
    m.reason = ext.value("reason", m.status == Status::ok ? std::string() : "T4: " + r.at("invalidity").get<std::string>());
    m.created_at = r.value("timestamp", std::string());
    const auto& times = r.at("times");
    if (times.is_object()) {
      if (times.contains("compilation_time")) m.durations.compile_ms = number(times.at("compilation_time"), where + ": compilation_time");
      if (times.contains("validation")) m.durations.validation_ms = number(times.at("validation"), where + ": validation");
    }
    if (m.status == Status::ok) {
      bool timed = false;
      if (r.contains("measurements") && r.at("measurements").is_array()) {
        for (const auto& measured : r.at("measurements")) {
          if (!measured.is_object() || !measured.contains("value")) continue;
          const auto name = measured.value("name", std::string());
          const auto unit = measured.value("unit", std::string());
          if (name == "time") {
            m.median_ns = nanoseconds(number(measured.at("value"), where + ": the time"), unit, where);
            timed = true;
          } else if (name == "time_p10") {
            m.p10_ns = nanoseconds(number(measured.at("value"), where + ": time_p10"), unit, where);
          } else if (name == "time_p90") {
            m.p90_ns = nanoseconds(number(measured.at("value"), where + ": time_p90"), unit, where);
          } else if (name == "bandwidth" && unit == "GB/s") {
            m.gbps = number(measured.at("value"), where + ": bandwidth");
          } else if (name == "throughput" && unit == "GFLOP/s") {
            m.gflops = number(measured.at("value"), where + ": throughput");
          }
        }
      }
      if (!timed && times.is_object() && times.contains("runtimes") && times.at("runtimes").is_array() &&
          !times.at("runtimes").empty()) {
        std::vector<double> runtimes;
        for (const auto& t : times.at("runtimes")) runtimes.push_back(number(t, where + ": a runtime"));
        std::sort(runtimes.begin(), runtimes.end());
        m.median_ns = runtimes[runtimes.size() / 2] * 1e6;
        timed = true;
      }
      if (!timed || !(m.median_ns > 0)) {
        throw Error(ErrorKind::format, where + " is correct but has no time (a \"time\" measurement or runtimes)");
      }
      m.min_ns = m.p10_ns > 0 ? std::min(m.p10_ns, m.median_ns) : m.median_ns;
      if (!(m.p10_ns > 0)) m.p10_ns = m.median_ns;
      if (!(m.p90_ns > 0)) m.p90_ns = m.median_ns;
      m.repetitions = 1;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace vktune::results
