#pragma once
// What the spec-file tests share: a small valid spec (as text with both kinds
// of comments, and parsed), a reader that serves its template, the one-line
// error a malformed spec gives, and a device with common limits.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "harness/device_info.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"

namespace vktune::kernels::spec::spec_test {

using nlohmann::json;

inline const char* kTemplate = "#version 450\nlayout(local_size_x = WG) in;\nvoid main() {}\n";

// A small valid spec, as text with both kinds of comments.
inline const char* kValid = R"(// a spec with comments
{
  "name": "t_softmax", /* block comment */
  "shape": ["rows", "n"],
  "default_shapes": [[4, 256]],
  "check_shapes": [[1, 37], [3, 100]],
  "subspaces": [{
    "name": "only",
    "template": "k.comp",
    "parameters": [{"name": "WG", "values": [32, 64]}, {"name": "ITEMS", "values": [1, 2]}],
    "local_size": ["WG", 1, 1],
    "legality": [{"rule": "WG <= max_invocations", "reason": "too wide"}],
    "pruning": [{"name": "wide", "rule": "WG * ITEMS > 2 * n", "reason": "idle lanes"}],
    "stages": [{"workgroups": [{"dim": "rows", "per_workgroup": "1"}, 1, 1]}]
  }],
  "buffers": [
    {"name": "out", "binding": 0, "type": "f32", "size": "rows * n", "role": "output"},
    {"name": "in", "binding": 1, "type": "f32", "size": "rows * n", "role": "input",
     "init": {"kind": "uniform", "min": -4, "max": 4}}
  ],
  "push_constants": [{"name": "width", "value": "n"}, {"name": "height", "value": "rows"}, {"name": "one", "value": 1}],
  "metrics": {"bytes": "8 * rows * n", "flops": "5 * rows * n"},
  "reference": {"op": "softmax", "x": "in", "y": "out", "n": "n"}
})";

inline json valid_json() { return json::parse(kValid, nullptr, true, true); }

inline FileReader reader(std::map<std::string, std::string> files = {{"k.comp", kTemplate}}) {
  return [files](const std::string& path) -> std::optional<std::string> {
    const auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

// The one-line message a malformed spec gives; fails the test when it loads.
inline std::string error_of(const std::string& text, const FileReader& read = reader()) {
  try {
    SpecKernel kernel(parse_spec(text, "my/spec.json", read));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("my/spec.json: ", 0), 0u) << message;
    return message;
  }
  ADD_FAILURE() << "the spec loaded";
  return {};
}

inline std::string error_of(const json& spec) { return error_of(spec.dump()); }

inline void expect_error(const json& spec, const std::string& pointer, const std::string& problem) {
  const auto message = error_of(spec);
  EXPECT_NE(message.find("my/spec.json: " + pointer + ": "), std::string::npos) << message;
  EXPECT_NE(message.find(problem), std::string::npos) << message;
}

// A device with common limits, `invocations` per workgroup and no optional feature.
inline vk::DeviceInfo plain_device(std::uint32_t invocations) {
  vk::DeviceInfo device;
  device.max_workgroup_invocations = invocations;
  device.max_workgroup_size = {1024, 1024, 64};
  device.max_workgroup_count = {65535, 65535, 65535};
  device.max_push_constants_bytes = 128;
  device.max_shared_memory_bytes = 32768;
  return device;
}

}  // namespace vktune::kernels::spec::spec_test
