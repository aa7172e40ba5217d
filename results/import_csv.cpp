#include "results/import_csv.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "results/capped_json.hpp"

namespace vktune::results {
namespace {

// One RFC 4180 record starting at `pos` (quoted fields may span lines);
// advances `pos` past it. False at the end of the text.
bool next_record(const std::string& text, std::size_t& pos, std::vector<std::string>& fields) {
  fields.clear();
  if (pos >= text.size()) return false;
  std::string field;
  bool quoted = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"') {
        if (pos < text.size() && text[pos] == '"') {
          field += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
      break;
    } else {
      field += c;
    }
  }
  if (quoted) throw Error(ErrorKind::format, "unterminated quoted field");
  fields.push_back(std::move(field));
  return true;
}

double number(const std::string& text, const char* column) {
  if (text.empty()) return 0;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size()) throw Error(ErrorKind::format, std::string(column) + " is not a number: '" + text + "'");
  return v;
}

// A count or an id: a number that is whole and not negative.
// A whole number in [0, max]; the range is checked before any cast (a cast
// of an out-of-range double is undefined; the fuzzer found one).
double whole(const std::string& text, const char* column, double max = 9007199254740992.0 /* 2^53 */) {
  const double v = number(text, column);
  if (!(v >= 0 && v <= max) || v != std::floor(v)) {
    throw Error(ErrorKind::format, std::string(column) + " is not a whole number up to " +
                                       std::to_string(static_cast<std::uint64_t>(max)) + ": '" + text + "'");
  }
  return v;
}

constexpr double kMaxU32 = 4294967295.0;

}  // namespace

std::vector<MeasurementRow> read_measurements_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::io, "cannot read " + path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::size_t pos = 0;
  std::vector<std::string> fields;
  if (!next_record(text, pos, fields)) throw Error(ErrorKind::format, path.string() + ": empty file");
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
  for (const char* required : {"kernel", "shape", "cache_mode", "config", "status", "median_ns"}) {
    if (!column.count(required)) {
      throw Error(ErrorKind::format, path.string() + ": not a vktune measurements CSV (no column '" +
                                         std::string(required) + "')");
    }
  }
  auto field = [&](const char* name) -> const std::string& {
    static const std::string none;
    const auto it = column.find(name);
    return it == column.end() || it->second >= fields.size() ? none : fields[it->second];
  };
  std::vector<MeasurementRow> rows;
  std::size_t line = 1;
  while (next_record(text, pos, fields)) {
    ++line;
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    try {
      if (fields.size() != column.size()) {
        throw Error(ErrorKind::format, std::to_string(fields.size()) + " fields, the header has " +
                                           std::to_string(column.size()));
      }
      MeasurementRow row;
      row.device_row = static_cast<std::int64_t>(whole(field("device_row"), "device_row"));
      row.device.vendor_id = static_cast<std::uint32_t>(whole(field("vendor_id"), "vendor_id", kMaxU32));
      row.device.device_id = static_cast<std::uint32_t>(whole(field("device_id"), "device_id", kMaxU32));
      row.device.driver_version = static_cast<std::uint32_t>(whole(field("driver_version"), "driver_version", kMaxU32));
      row.device.name = field("device_name");
      row.device.driver_version_text = field("driver_version_text");
      row.kernel = field("kernel");
      row.config_json = field("config");
      row.is_winner = field("winner") == "1";
      auto& m = row.measurement;
      m.device_id = row.device_row;
      m.variant_hash = field("variant_hash");
      m.shape = field("shape");
      m.cache_mode = field("cache_mode");
      m.status = status_from_string(field("status"));
      m.reason = field("reason");
      m.median_ns = number(field("median_ns"), "median_ns");
      if (m.status == Status::ok && !(m.median_ns > 0)) throw Error(ErrorKind::format, "an ok row without a time");
      m.min_ns = number(field("min_ns"), "min_ns");
      m.p10_ns = number(field("p10_ns"), "p10_ns");
      m.p90_ns = number(field("p90_ns"), "p90_ns");
      m.mad_ns = number(field("mad_ns"), "mad_ns");
      m.repetitions = static_cast<int>(whole(field("repetitions"), "repetitions", 2147483647.0));
      m.rel_l2_error = number(field("rel_l2_error"), "rel_l2_error");
      m.max_abs_error = number(field("max_abs_error"), "max_abs_error");
      m.gbps = number(field("gbps"), "gbps");
      m.gflops = number(field("gflops"), "gflops");
      m.created_at = field("created_at");
      // Exports from before schema version 3 have neither the phase nor the
      // durations: every row of them is a search row (a confirmation
      // overwrote the search row then), and its durations are unknown (0).
      if (!field("phase").empty()) m.phase = phase_from_string(field("phase"));
      m.durations.compile_ms = number(field("compile_ms"), "compile_ms");
      m.durations.pipeline_ms = number(field("pipeline_ms"), "pipeline_ms");
      m.durations.validation_ms = number(field("validation_ms"), "validation_ms");
      m.durations.warmup_ms = number(field("warmup_ms"), "warmup_ms");
      m.durations.timing_ms = number(field("timing_ms"), "timing_ms");
      m.statistics_json = field("pipeline_statistics");  // absent from exports before schema version 6
      if (!m.statistics_json.empty()) {
        const auto parsed = parse_capped_json(m.statistics_json);
        bool numbers = parsed.error.empty() && parsed.value.is_object();
        if (numbers)
          for (const auto& [name, value] : parsed.value.items()) numbers = numbers && value.is_number();
        if (!numbers) throw Error(ErrorKind::format, "pipeline_statistics is not a JSON object of numbers");
      }
      rows.push_back(std::move(row));
    } catch (const Error& e) {
      throw Error(ErrorKind::format, path.string() + ":" + std::to_string(line) + ": " + e.what());
    }
  }
  return rows;
}

}  // namespace vktune::results
