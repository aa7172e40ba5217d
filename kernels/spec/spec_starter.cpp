#include "kernels/spec/spec_starter.hpp"

#include <cctype>
#include <fstream>

#include "common/error.hpp"

namespace vktune::kernels::spec {

std::string starter_template() {
  return R"(#version 450
// y = a + b over `total` floats. vktune compiles this once per config, with
// each parameter of the spec as a #define (WG_SIZE, VEC).
layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

// The spec's buffers, by binding.
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };

// The spec's push_constants, in order, one 32-bit word each.
layout(push_constant) uniform Sizes { uint total; };

void main() {
  // Each invocation adds VEC consecutive values.
  const uint first = gl_GlobalInvocationID.x * VEC;
  for (uint i = 0u; i < VEC; ++i) {
    if (first + i < total) y[first + i] = a[first + i] + b[first + i];
  }
}
)";
}

std::string starter_spec(const std::string& name) {
  return R"spec(// A vktune kernel spec (docs/SPEC_FORMAT.md). Try it:
//   vktune check )spec" + name + R"spec(.json --device 0      validate every variant worth checking
//   vktune )spec" + name + R"spec(.json --device 0            tune it at the default shapes
{
  "name": ")spec" + name + R"spec(",
  "description": "y = a + b (a starting point: edit the template and this spec)",
  // The shape's dimensions; expressions below use these names.
  "shape": ["total"],
  "default_shapes": [[1048576], [16777216]],
  // Small, odd shapes for `vktune check`.
  "check_shapes": [[37], [1000]],
  "subspaces": [
    {
      "name": "flat",
      "template": ")spec" + name + R"spec(.comp",
      // Each parameter reaches the template as a #define.
      "parameters": [
        {"name": "WG_SIZE", "values": [64, 128, 256, 512], "help": "invocations per workgroup"},
        {"name": "VEC", "values": [1, 2, 4], "help": "values per invocation"}
      ],
      "baseline": {"WG_SIZE": 256, "VEC": 1},
      "local_size": ["WG_SIZE", 1, 1],
      // Legality: expressions over parameters, shape and device facts; 0 = illegal.
      "legality": [
        {"rule": "WG_SIZE <= max_invocations", "reason": "more invocations than the device allows"}
      ],
      // Pruning: legal configs not worth measuring; nonzero = dropped (`--space full` keeps them).
      "pruning": [
        {"name": "tiny-arrays", "rule": "WG_SIZE * VEC > 2 * total && WG_SIZE > 64",
         "reason": "over half the invocations would idle"}
      ],
      // One dispatch: ceil(total / (WG_SIZE * VEC)) workgroups along x.
      "stages": [
        {"workgroups": [{"dim": "total", "per_workgroup": "WG_SIZE * VEC"}, 1, 1]}
      ]
    }
  ],
  // Sizes count values of the buffer's type.
  "buffers": [
    {"name": "a", "binding": 0, "type": "f32", "size": "total", "role": "input"},
    {"name": "b", "binding": 1, "type": "f32", "size": "total", "role": "input",
     "init": {"kind": "uniform", "min": -2, "max": 2}},
    {"name": "y", "binding": 2, "type": "f32", "size": "total", "role": "output"}
  ],
  "push_constants": [{"name": "total", "value": "total"}],
  "metrics": {"bytes": "12 * total", "flops": "total"},
  "reference": {"op": "add", "a": "a", "b": "b", "y": "y"},
  "tolerance": {"rel_l2": 1e-6, "max_rel": 1e-6}
}
)spec";
}

void require_kernel_name(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (unsigned char c : name) ok = ok && (std::isalnum(c) || c == '_');
  if (!ok) throw Error(ErrorKind::usage, "spec init: '" + name + "' is not a kernel name (letters, digits and _)");
}

std::filesystem::path write_starter(const std::string& name, const std::filesystem::path& dir) {
  require_kernel_name(name);
  const auto spec = dir / (name + ".json");
  const auto shader = dir / (name + ".comp");
  for (const auto& path : {spec, shader}) {
    if (std::filesystem::exists(path)) throw Error(ErrorKind::usage, "spec init: " + path.string() + " already exists");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const auto& [path, text] : {std::pair{spec, starter_spec(name)}, std::pair{shader, starter_template()}}) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw Error(ErrorKind::io, "spec init: cannot write " + path.string());
  }
  return spec;
}

}  // namespace vktune::kernels::spec
