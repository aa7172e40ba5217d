#pragma once
// What a results database holds, for people browsing it (`vktune results`,
// `vktune report`): the devices with their measured ceilings, every
// (device, kernel, shape, cache mode) with its counts of measurements by
// status and its winner's speedup over the baseline, the failed variants,
// and the rows of one shape in the order they were measured. Only reads.
//
// Statuses are kept as the text stored, so a row this vktune does not know
// is still counted (under its own name) instead of hiding part of the file.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/records.hpp"
#include "results/store.hpp"

namespace vktune::results {

// The names the tuner stores its ceilings under (engine/ceilings.hpp; a test
// checks that the two agree): streaming read bandwidth in GB/s, fp32 FMA rate
// in GFLOP/s, the dependent-dispatch floor in ns.
inline constexpr std::string_view kReadBandwidthCeiling = "read_bandwidth";
inline constexpr std::string_view kFp32FmaCeiling = "fp32_fma";
inline constexpr std::string_view kDispatchFloorCeiling = "dependent_dispatch";
inline constexpr std::string_view kTensorCeiling = "fp16_tensor_mma";  // 0 = the device has none
inline constexpr std::string_view kTensorSharedCeiling = "fp16_tensor_mma_shared";

// The share of the compute ceiling a FLOP rate reaches, in percent: of the
// tensor-core ceiling where one was measured (> 0) for a variant whose path
// runs on the tensor cores (`tensor_cores`, kernels::on_tensor_cores) or
// whose rate is above the FMA ceiling (which only the tensor cores give: a
// spec kernel's paths do not say); else of the fp32 FMA ceiling. 0 without
// an FMA ceiling.
double percent_of_compute(double gflops, double fp32_gflops, double tensor_gflops, bool tensor_cores = false);

// What a browse selects. Every field "" selects all.
struct BrowseFilter {
  std::string device;  // all digits: the device row id; else a case-insensitive part of its name
  std::string kernel;  // the exact kernel name
  std::string shape;   // "M,N,K": compared as numbers (" 1, 64" is "1,64")
};

struct StoredDevice {
  std::int64_t id = 0;
  DeviceIdentity identity;
  std::optional<double> read_gbps, fp32_gflops, dispatch_floor_ns;
  std::optional<double> tensor_gflops, tensor_shared_gflops;  // 0 = no tensor cores

  // The share of the device's measured ceiling a result reaches, in percent:
  // the larger of its bandwidth over the read ceiling and its FLOP rate over
  // the compute ceiling (percent_of_compute; a kernel is bound by one of
  // them). nullopt without ceilings.
  std::optional<double> percent_of_ceiling(double gbps, double gflops, bool tensor_cores = false) const;
};

// The stored winner of a shape, without its SPIR-V (browsing never needs it).
struct StoredWinner {
  std::string variant_hash, config_json;
  double median_ns = 0, gbps = 0, gflops = 0;
  std::string baseline_variant_hash;
  double baseline_median_ns = 0;
  std::string updated_at;

  // Baseline time over the winner's; nullopt when either is not stored.
  std::optional<double> speedup() const;
};

// One measurement row with its variant's config.
struct StoredRow {
  std::string variant_hash, config_json;
  std::string status;  // as stored: "ok", "wrong_result", ...
  std::string reason;
  Phase phase = Phase::search;
  double median_ns = 0, p10_ns = 0, p90_ns = 0, gbps = 0, gflops = 0;
  std::string created_at;

  bool ok() const { return status == "ok"; }
};

struct ShapeKey {
  std::int64_t device_id = 0;
  std::string kernel, shape, cache_mode;

  auto operator<=>(const ShapeKey&) const = default;
};

// Everything stored for one shape.
struct ShapeRecord {
  ShapeKey key;
  // Search rows in the order they were measured (by completion time, then by
  // when the row was first written): the search's evaluations, for a
  // best-so-far curve. Confirmation rows are left out.
  std::vector<StoredRow> search_order;
  // One row per variant, the one a winner is chosen from (its confirmation
  // row where it has one, else its search row), as Store::measurements()
  // picks it: successes fastest first, then failures by status and config.
  std::vector<StoredRow> per_variant;
  std::size_t confirm_rows = 0;
  std::optional<StoredWinner> winner;

  // Variants per status (of their per_variant row).
  std::map<std::string, std::size_t> status_counts() const;
  std::size_t failures() const;  // variants whose status is not "ok"
};

struct BrowseResult {
  std::vector<StoredDevice> devices;  // the selected devices, by row id
  std::vector<ShapeRecord> shapes;    // by device, kernel, shape (as numbers), cache mode
};

// Reads what the filter selects. A filter that matches nothing gives an empty
// result (the caller says so); a --shape that is not numbers separated by
// commas is Error(usage).
BrowseResult browse(const Store& store, const BrowseFilter& filter);

// Every device of the store with its ceilings (for saying what a --device
// filter could have matched).
std::vector<StoredDevice> stored_devices(const Store& store);

}  // namespace vktune::results
