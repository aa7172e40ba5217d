#include "results/browse.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <tuple>
#include <utility>

#include "common/error.hpp"
#include "common/lowercase.hpp"
#include "results/export.hpp"

namespace vktune::results {
namespace {

bool device_matches(const BrowseFilter& filter, std::int64_t id, const DeviceIdentity& identity) {
  if (filter.device.empty()) return true;
  const bool by_id =
      std::all_of(filter.device.begin(), filter.device.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (by_id) return std::to_string(id) == filter.device;
  return lowercase(identity.name).find(lowercase(filter.device)) != std::string::npos;
}

// The filter's shape as numbers, so that "1, 64" finds the stored "1,64".
std::optional<std::vector<std::uint32_t>> wanted_shape(const BrowseFilter& filter) {
  if (filter.shape.empty()) return std::nullopt;
  std::string compact;
  for (char c : filter.shape)
    if (c != ' ') compact += c;
  auto dims = shape_dims(compact);
  if (!dims) {
    throw Error(ErrorKind::usage, "--shape '" + filter.shape + "' is not a shape (whole numbers separated by "
                                  "commas, e.g. 1,4096,4096)");
  }
  return dims;
}

bool shape_matches(const std::optional<std::vector<std::uint32_t>>& wanted, const std::string& shape) {
  return !wanted || shape_dims(shape) == wanted;
}

// Successes fastest first, then failures by status: the order of
// Store::measurements(), with ties broken by config so the order is stable.
bool per_variant_less(const StoredRow& a, const StoredRow& b) {
  if (a.ok() != b.ok()) return a.ok();
  if (a.ok() && a.median_ns != b.median_ns) return a.median_ns < b.median_ns;
  return std::tie(a.status, a.config_json, a.variant_hash) < std::tie(b.status, b.config_json, b.variant_hash);
}

void choose_per_variant(ShapeRecord& record, const std::vector<StoredRow>& confirm_rows) {
  std::map<std::string, StoredRow> chosen;
  for (const auto& row : record.search_order) chosen.emplace(row.variant_hash, row);
  // A confirmation row is the better evidence: it replaces the search row.
  for (const auto& row : confirm_rows) chosen.insert_or_assign(row.variant_hash, row);
  for (auto& [hash, row] : chosen) record.per_variant.push_back(std::move(row));
  std::sort(record.per_variant.begin(), record.per_variant.end(), per_variant_less);
}

}  // namespace

double percent_of_compute(double gflops, double fp32_gflops, double tensor_gflops, bool tensor_cores) {
  if (fp32_gflops <= 0) return 0;
  if ((tensor_cores || gflops > fp32_gflops) && tensor_gflops > 0) return 100.0 * gflops / tensor_gflops;
  return 100.0 * gflops / fp32_gflops;
}

std::optional<double> StoredDevice::percent_of_ceiling(double gbps, double gflops, bool tensor_cores) const {
  std::optional<double> percent;
  if (read_gbps && *read_gbps > 0) percent = 100.0 * gbps / *read_gbps;
  if (fp32_gflops && *fp32_gflops > 0) {
    percent = std::max(percent.value_or(0.0), percent_of_compute(gflops, *fp32_gflops, tensor_gflops.value_or(0), tensor_cores));
  }
  return percent;
}

std::optional<double> StoredWinner::speedup() const {
  if (median_ns <= 0 || baseline_median_ns <= 0) return std::nullopt;
  return baseline_median_ns / median_ns;
}

std::map<std::string, std::size_t> ShapeRecord::status_counts() const {
  std::map<std::string, std::size_t> counts;
  for (const auto& row : per_variant) ++counts[row.status];
  return counts;
}

std::size_t ShapeRecord::failures() const {
  return static_cast<std::size_t>(
      std::count_if(per_variant.begin(), per_variant.end(), [](const StoredRow& row) { return !row.ok(); }));
}

std::vector<StoredDevice> stored_devices(const Store& store) {
  std::vector<StoredDevice> devices;
  for (auto& [id, identity] : store.devices()) {
    StoredDevice device{id, std::move(identity), {}, {}, {}, {}, {}};
    for (const auto& ceiling : store.ceilings(id)) {
      if (ceiling.name == kReadBandwidthCeiling) device.read_gbps = ceiling.value;
      if (ceiling.name == kFp32FmaCeiling) device.fp32_gflops = ceiling.value;
      if (ceiling.name == kDispatchFloorCeiling) device.dispatch_floor_ns = ceiling.value;
      if (ceiling.name == kTensorCeiling) device.tensor_gflops = ceiling.value;
      if (ceiling.name == kTensorSharedCeiling) device.tensor_shared_gflops = ceiling.value;
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

BrowseResult browse(const Store& store, const BrowseFilter& filter) {
  const auto shape = wanted_shape(filter);
  BrowseResult result;
  for (auto& device : stored_devices(store)) {
    if (device_matches(filter, device.id, device.identity)) result.devices.push_back(std::move(device));
  }
  const auto selected = [&](std::int64_t device_id) {
    return std::any_of(result.devices.begin(), result.devices.end(),
                       [&](const StoredDevice& d) { return d.id == device_id; });
  };

  // A connection of its own, read-only, for the summaries the Store's methods
  // do not offer; WAL lets it read beside any other connection.
  const auto connection = sqlite::Connection::open(store.path(), sqlite::Connection::Mode::read_only);
  std::map<ShapeKey, ShapeRecord> records;
  std::map<ShapeKey, std::vector<StoredRow>> confirm_rows;
  // A row's (device, kernel, shape, cache mode), from its first four
  // columns, when the filters select it.
  auto selected_key = [&](sqlite::Statement& row) -> std::optional<ShapeKey> {
    ShapeKey key{row.column_int64(0), row.column_text(1), row.column_text(2), row.column_text(3)};
    if (!selected(key.device_id) || !shape_matches(shape, key.shape)) return std::nullopt;
    return key;
  };
  {
    // created_at has millisecond resolution; rowid breaks ties in the order
    // rows were first written (an attempt row keeps its rowid when its result
    // replaces it).
    sqlite::Statement rows(connection,
                           "SELECT m.device, v.kernel, m.shape, m.cache_mode, m.variant, v.config_json, m.status, "
                           "m.reason, m.phase, m.median_ns, m.p10_ns, m.p90_ns, m.gbps, m.gflops, m.created_at "
                           "FROM measurements m JOIN variants v ON v.hash = m.variant "
                           "WHERE ?1 = '' OR v.kernel = ?1 ORDER BY m.created_at, m.rowid");
    rows.bind_all(filter.kernel);
    while (rows.step()) {
      const auto found = selected_key(rows);
      if (!found) continue;
      const ShapeKey& key = *found;
      StoredRow row;
      row.variant_hash = rows.column_text(4);
      row.config_json = rows.column_text(5);
      row.status = rows.column_text(6);
      row.reason = rows.column_text(7);
      // The schema's CHECK keeps phase to the two names; anything else reads as search.
      row.phase = rows.column_text(8) == "confirm" ? Phase::confirm : Phase::search;
      row.median_ns = rows.column_double(9);
      row.p10_ns = rows.column_double(10);
      row.p90_ns = rows.column_double(11);
      row.gbps = rows.column_double(12);
      row.gflops = rows.column_double(13);
      row.created_at = rows.column_text(14);
      auto& record = records[key];
      record.key = key;
      if (row.phase == Phase::confirm) {
        ++record.confirm_rows;
        confirm_rows[key].push_back(std::move(row));
      } else {
        record.search_order.push_back(std::move(row));
      }
    }
  }
  {
    sqlite::Statement winners(connection,
                              "SELECT device, kernel, shape, cache_mode, variant, config_json, median_ns, gbps, "
                              "gflops, baseline_variant, baseline_median_ns, updated_at FROM winners "
                              "WHERE ?1 = '' OR kernel = ?1");
    winners.bind_all(filter.kernel);
    while (winners.step()) {
      const auto found = selected_key(winners);
      if (!found) continue;
      const ShapeKey& key = *found;
      StoredWinner w;
      w.variant_hash = winners.column_text(4);
      w.config_json = winners.column_text(5);
      w.median_ns = winners.column_double(6);
      w.gbps = winners.column_double(7);
      w.gflops = winners.column_double(8);
      w.baseline_variant_hash = winners.column_text(9);
      w.baseline_median_ns = winners.column_double(10);
      w.updated_at = winners.column_text(11);
      auto& record = records[key];  // an imported winner may have no measurements beside it
      record.key = key;
      record.winner = std::move(w);
    }
  }
  for (auto& [key, record] : records) {
    choose_per_variant(record, confirm_rows[key]);
    result.shapes.push_back(std::move(record));
  }
  std::stable_sort(result.shapes.begin(), result.shapes.end(), [](const ShapeRecord& a, const ShapeRecord& b) {
    const auto& x = a.key;
    const auto& y = b.key;
    if (x.device_id != y.device_id) return x.device_id < y.device_id;
    if (x.kernel != y.kernel) return x.kernel < y.kernel;
    if (x.shape != y.shape) return shape_less(x.shape, y.shape);
    return x.cache_mode < y.cache_mode;
  });
  return result;
}

}  // namespace vktune::results
