#pragma once
// Measurements in the T4 open auto-tuning results format (schema 1.0.0 of the
// auto-tuning community's "T4" results schema, which Kernel Tuner reads and
// writes): {"schema_version": "1.0.0", "results": [...]}, one result per
// measurement row (search rows only: the confirmation pass re-times the
// same configs), each with its configuration (the config's parameters),
// objectives ["time"], times (compilation_time, runtimes, validation; ms),
// invalidity ("correct", "compile", "runtime", "correctness", "timeout",
// "constraints"), correctness (1 or 0) and measurements (time, p10, p90 in
// ms; GB/s and GFLOP/s). What T4 has no field for rides in a "vktune" object
// beside them, per result (kernel, shape, cache mode, variant hash, status,
// reason) and at the top (format version, device, driver), so that other
// tools can read vktune's measurements and vktune can tell its own apart.
#include <nlohmann/json.hpp>

#include "results/export.hpp"

namespace vktune::results {

inline constexpr const char* kT4SchemaVersion = "1.0.0";
// The version of the "vktune" extension objects.
inline constexpr int kT4ExtensionVersion = 1;

// T4's invalidity for a measurement status.
const char* t4_invalidity(Status status);

nlohmann::json export_t4(const Store& store, const ExportFilter& filter = {});

}  // namespace vktune::results
