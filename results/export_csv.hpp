#pragma once
// Measurements as CSV (RFC 4180): one header line, then one line per
// measurement row (search and confirmation rows alike) of the selected
// devices and kernels, for spreadsheets and plotting. Rows come in table
// order (device, kernel, shape, cache mode), then the search rows before the
// confirmation rows, each successes fastest first, then failures. Numbers are
// written in their shortest exact form; text fields with a comma, quote or
// line break are quoted, with quotes doubled.
//
// Columns: device_row, vendor_id, device_id, driver_version, device_name,
// driver_version_text, kernel, shape, cache_mode, variant_hash, config,
// winner (1 on the row the stored winner of its key was chosen from), status,
// reason, median_ns, min_ns, p10_ns, p90_ns, mad_ns, repetitions,
// rel_l2_error, max_abs_error, gbps, gflops, created_at, then (added with
// schema version 3, after the older columns so that their positions hold)
// phase, compile_ms, pipeline_ms, validation_ms, warmup_ms, timing_ms.
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "results/export.hpp"

namespace vktune::results {

struct MeasurementRow {
  std::int64_t device_row = 0;
  DeviceIdentity device;
  std::string kernel, config_json;
  bool is_winner = false;
  Measurement measurement;
};

// The selected measurements in CSV order.
std::vector<MeasurementRow> measurement_rows(const Store& store, const Selection& selection);

void write_measurements_csv(std::ostream& out, std::span<const MeasurementRow> rows);
void export_csv(std::ostream& out, const Store& store, const ExportFilter& filter = {});

}  // namespace vktune::results
