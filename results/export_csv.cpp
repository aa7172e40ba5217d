#include "results/export_csv.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace vktune::results {
namespace {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace

std::vector<MeasurementRow> measurement_rows(const Store& store, const Selection& selection) {
  std::vector<MeasurementRow> rows;
  for (auto& found : store.all_measurements()) {
    const auto device_row = found.measurement.device_id;
    if (!selection.has_device(device_row) || !selection.has_kernel(found.kernel)) continue;
    MeasurementRow row;
    row.device_row = device_row;
    row.device = selection.devices[selection.device_rank(device_row)].second;
    row.kernel = std::move(found.kernel);
    row.config_json = std::move(found.config_json);
    row.is_winner = found.is_winner;
    row.measurement = std::move(found.measurement);
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const MeasurementRow& a, const MeasurementRow& b) {
    const auto& ma = a.measurement;
    const auto& mb = b.measurement;
    const auto ra = selection.device_rank(a.device_row), rb = selection.device_rank(b.device_row);
    if (ra != rb) return ra < rb;
    if (a.kernel != b.kernel) return a.kernel < b.kernel;
    if (ma.shape != mb.shape) return shape_less(ma.shape, mb.shape);
    const bool fa = ma.status != Status::ok, fb = mb.status != Status::ok;
    return std::tie(ma.cache_mode, ma.phase, fa, ma.median_ns, ma.variant_hash) <
           std::tie(mb.cache_mode, mb.phase, fb, mb.median_ns, mb.variant_hash);
  });
  return rows;
}

void write_measurements_csv(std::ostream& out, std::span<const MeasurementRow> rows) {
  out << "device_row,vendor_id,device_id,driver_version,device_name,driver_version_text,kernel,shape,cache_mode,"
         "variant_hash,config,winner,status,reason,median_ns,min_ns,p10_ns,p90_ns,mad_ns,repetitions,"
         "rel_l2_error,max_abs_error,gbps,gflops,created_at,phase,compile_ms,pipeline_ms,validation_ms,warmup_ms,"
         "timing_ms,pipeline_statistics\n";
  for (const auto& row : rows) {
    const auto& m = row.measurement;
    out << row.device_row << ',' << row.device.vendor_id << ',' << row.device.device_id << ','
        << row.device.driver_version << ',' << csv_field(row.device.name) << ','
        << csv_field(row.device.driver_version_text) << ',' << csv_field(row.kernel) << ',' << csv_field(m.shape)
        << ',' << csv_field(m.cache_mode) << ',' << csv_field(m.variant_hash) << ',' << csv_field(row.config_json)
        << ',' << (row.is_winner ? 1 : 0) << ',' << to_string(m.status) << ',' << csv_field(m.reason);
    for (const double v : {m.median_ns, m.min_ns, m.p10_ns, m.p90_ns, m.mad_ns}) out << ',' << shortest(v);
    out << ',' << m.repetitions;
    for (const double v : {m.rel_l2_error, m.max_abs_error, m.gbps, m.gflops}) out << ',' << shortest(v);
    out << ',' << csv_field(m.created_at) << ',' << to_string(m.phase);
    const auto& d = m.durations;
    for (const double v : {d.compile_ms, d.pipeline_ms, d.validation_ms, d.warmup_ms, d.timing_ms}) {
      out << ',' << shortest(v);
    }
    out << ',' << csv_field(m.statistics_json) << '\n';
  }
}

void export_csv(std::ostream& out, const Store& store, const ExportFilter& filter) {
  const auto selection = select(store, filter);
  write_measurements_csv(out, measurement_rows(store, selection));
}

}  // namespace vktune::results
