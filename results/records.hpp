#pragma once
// The plain records the results store keeps. They know nothing of Vulkan or
// the harness: the tuner fills them from its own types.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vktune::results {

// A device as DESIGN.md keys it: vendor id, device id, driver version, name
// and UUID together are its identity; the other fields are descriptive.
struct DeviceIdentity {
  std::uint32_t vendor_id = 0, device_id = 0, driver_version = 0;
  std::string name, driver_name, driver_version_text;
  std::string device_uuid;  // lowercase hex, "" when unknown
  std::string api_version_text;

  bool operator==(const DeviceIdentity&) const = default;
};

// One compiled variant of a kernel: its identity is variant_hash.
struct VariantRecord {
  std::string variant_hash;   // stable identity (hex)
  std::string kernel;         // e.g. "matmul_q4k"
  std::string template_name;  // e.g. "matvec_q4k.comp"
  std::string config_json;    // canonical JSON of parameter values, sorted keys
  std::string template_hash, compiler_version;

  bool operator==(const VariantRecord&) const = default;
};

// The outcome of evaluating a variant; stored as the text of to_string().
// `attempt` marks a variant whose pipeline creation or dispatch has begun
// without a result yet; an attempt found by a later run becomes `crashed`
// (engine/attempt_log.hpp).
enum class Status {
  ok,
  compile_error,
  pipeline_error,
  device_limit,
  wrong_result,
  timeout,
  device_lost,
  error,
  out_of_bounds,     // wrote into a guard band around a buffer
  nondeterministic,  // output changed between runs on the same input
  attempt,
  crashed,
  // The isolated worker that compiled the variant or created its pipeline
  // passed its deadline, crashed, or passed its memory cap.
  compile_timeout,
  compile_crash,
  compile_memory,
  pipeline_timeout,
  pipeline_crash,
  pipeline_memory
};

std::string_view to_string(Status status);
// Throws Error(ErrorKind::database) for text that names no Status.
Status status_from_string(std::string_view text);

// Which pass of a tune a measurement comes from. The search measures each
// variant once; the confirmation pass re-times the finalists interleaved with
// the baseline and stores its own row beside the search row, so the search's
// numbers (what a replay scores strategies on) are never overwritten.
enum class Phase { search, confirm };

std::string_view to_string(Phase phase);
// Throws Error(ErrorKind::database) for text that names no Phase.
Phase phase_from_string(std::string_view text);

// Wall time, in milliseconds, that producing one measurement spent in each
// step: compiling with shaderc (0 when the SPIR-V was cached), creating the
// pipeline, validating against the CPU reference, warming the GPU up, and
// the timed samples. Rows from before schema version 3 hold zeros.
struct PhaseDurations {
  double compile_ms = 0, pipeline_ms = 0, validation_ms = 0, warmup_ms = 0, timing_ms = 0;

  double total_ms() const { return compile_ms + pipeline_ms + validation_ms + warmup_ms + timing_ms; }
  // What it cost before the variant could run: its compile and pipeline.
  double preparation_ms() const { return compile_ms + pipeline_ms; }
  PhaseDurations& operator+=(const PhaseDurations& other) {
    compile_ms += other.compile_ms;
    pipeline_ms += other.pipeline_ms;
    validation_ms += other.validation_ms;
    warmup_ms += other.warmup_ms;
    timing_ms += other.timing_ms;
    return *this;
  }
  bool operator==(const PhaseDurations&) const = default;
};

// One (device, variant, shape, cache mode, phase) evaluation, successful or not.
struct Measurement {
  std::int64_t device_id = 0;  // row id from Store::upsert_device
  std::string variant_hash;
  std::string shape;       // "M,N,K"
  std::string cache_mode;  // "cold" | "hot"
  Status status = Status::ok;
  std::string reason;  // why it failed; "" when ok
  double median_ns = 0, min_ns = 0, p10_ns = 0, p90_ns = 0, mad_ns = 0;
  int repetitions = 0;
  double rel_l2_error = 0, max_abs_error = 0;
  double gbps = 0, gflops = 0;
  std::string created_at;  // ISO-8601 UTC ("2024-05-01T12:00:00.000Z"), filled by the store
  Phase phase = Phase::search;
  PhaseDurations durations;
  // What the driver made of the variant's pipeline: a JSON object of its
  // statistics by the driver's names ({"Register Count": 40, ...}); "" where
  // the driver gives none (VK_KHR_pipeline_executable_properties).
  std::string statistics_json;

  bool operator==(const Measurement&) const = default;
};

// A measured device ceiling, e.g. "read_bandwidth" in "GB/s".
struct Ceiling {
  std::string name;
  double value = 0;
  std::string unit;
  std::string measured_at;  // ISO-8601 UTC, filled by the store

  bool operator==(const Ceiling&) const = default;
};

// The best variant per (device, kernel, shape, cache mode), with everything a
// runtime needs to run it: SPIR-V, specialization constants, local size,
// dispatch rule and required subgroup size.
struct Winner {
  std::int64_t device_id = 0;
  std::string kernel, shape, cache_mode, variant_hash, config_json;
  std::string spirv_hash;  // "" on set_winner: the store hashes the words
  std::vector<std::uint32_t> spirv;
  std::string specialization_json;  // {"constant_id": value, ...}
  std::uint32_t local_size[3] = {1, 1, 1};
  std::string dispatch_json;  // kernel-defined rule for workgroup counts of a shape
  std::uint32_t required_subgroup_size = 0;  // 0 = none
  double median_ns = 0, gbps = 0, gflops = 0, rel_l2_error = 0;
  std::string baseline_variant_hash;
  double baseline_median_ns = 0;
  std::string updated_at;  // ISO-8601 UTC; set_winner keeps a given one, else fills in now
  // The launch contract (kernels/variant_contract.hpp) as JSON: stages with
  // their SPIR-V hashes, bindings, shape class; "" for winners stored before
  // schema version 4 (the export completes them from the kernel).
  std::string contract_json;
  // SPIR-V of the stages after the first, stored by content hash on
  // set_winner (the contract names them); not read back with the winner.
  std::vector<std::vector<std::uint32_t>> later_stage_spirv;

  bool operator==(const Winner&) const = default;
};

}  // namespace vktune::results
