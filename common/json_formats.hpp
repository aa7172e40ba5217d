#pragma once
// The names and versions of vktune's machine-readable outputs, in one place
// so that the code and docs/JSON_OUTPUT.md name the same thing. Every
// `--json` document is an object whose "format" and "version" say what it is:
// a field may be added without a new version, removing or renaming one, or
// changing its meaning or unit, takes the next version. (`vktune KERNEL
// --json`'s version is kTuneJsonVersion in cli/report.hpp; the exported
// table's is docs/TABLE_FORMAT.md's.)
#include <string_view>

#include <nlohmann/json.hpp>

namespace vktune {

struct JsonFormat {
  std::string_view name;
  int version;
};

// 1: an object {"format", "version", "devices": [...]}; before, a bare array
// of the same entries (read that as version 0).
inline constexpr JsonFormat kDevicesJson{"vktune-devices", 1};
// 1: an object {"format", "version", "kernels": [...]}; before, a bare array.
inline constexpr JsonFormat kListJson{"vktune-list", 1};
// 1: "format", "version", "variants", "shapes", and with --variants winners
// "winners" and "kernels_without_winners"; before, the same object without
// them and without a version.
inline constexpr JsonFormat kCheckJson{"vktune-check", 1};
// 1: "format" and "version" (the GGUF file's own version moved to
// "gguf_version"); before, "version" was the GGUF file's.
inline constexpr JsonFormat kGgufJson{"vktune-gguf", 1};
// 1 since the first output of `vktune step --json`.
inline constexpr JsonFormat kStepJson{"vktune-step", 1};
// 1 since the first output of `vktune mobilenet --json`.
inline constexpr JsonFormat kMobileNetJson{"vktune-mobilenet", 1};
// 1 since the first output of `vktune replay --json`; 2: the baseline is
// evaluated first and counted in the shares, transfer_from is a list.
inline constexpr JsonFormat kReplayJson{"vktune-replay", 2};
// 1 since the first output of `vktune export --format constants`.
inline constexpr JsonFormat kConstantsJson{"vktune-constants", 1};
// The custom context vktune-bench adds to Google Benchmark's report (keys
// prefixed "vktune_", values strings, as Google Benchmark stores them).
inline constexpr JsonFormat kBenchContext{"vktune-bench-context", 1};

// An object that starts a document of `format`: {"format": ..., "version": ...}.
inline nlohmann::json json_document(const JsonFormat& format) {
  return {{"format", std::string(format.name)}, {"version", format.version}};
}

}  // namespace vktune
