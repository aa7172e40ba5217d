// vktune-spec-space-bench: Google Benchmark of loading a kernel spec and
// enumerating its space (kernels/spec/, tuner/space.cpp) for spaces of 10^4
// to 10^6 cartesian configs: six parameters, two legality rules over
// parameters, shape and device, one pruning rule. Issue 18 asks that a
// spec's space enumerate as fast as a built-in kernel's. Needs no device: it
// enumerates on a fixed GPU-like device description.
//   vktune-spec-space-bench [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <optional>
#include <string>

#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"
#include "tuner/space.hpp"

namespace {

using namespace vktune;

// A spec whose single sub-space has `values` candidates for each of six
// parameters (values^6 configs).
std::string spec_text(int values) {
  std::string list;
  for (int v = 1; v <= values; ++v) list += (v > 1 ? ", " : "") + std::to_string(v);
  std::string parameters;
  for (const char* name : {"A", "B", "C", "D", "E", "F"}) {
    parameters += std::string(parameters.empty() ? "" : ",\n") + "{\"name\": \"" + name + "\", \"values\": [" + list + "]}";
  }
  return R"({
  "name": "bench_space", "shape": ["rows", "n"], "default_shapes": [[64, 4096]],
  "subspaces": [{
    "name": "only", "template": "k.comp",
    "parameters": [)" + parameters + R"(],
    "local_size": ["32 * A", 1, 1],
    "legality": [
      {"rule": "32 * A <= max_invocations", "reason": "too many invocations"},
      {"rule": "B * C <= n / 16", "reason": "too much per step"}
    ],
    "pruning": [{"name": "narrow", "rule": "D > E + F", "reason": "benchmark rule"}],
    "stages": [{"workgroups": [{"dim": "rows", "per_workgroup": "1"}, 1, 1], "shared_memory_bytes": "128 * A"}]
  }],
  "buffers": [
    {"name": "x", "binding": 0, "type": "f32", "size": "rows * n", "role": "input"},
    {"name": "y", "binding": 1, "type": "f32", "size": "rows * n", "role": "output"}
  ],
  "metrics": {"bytes": "8 * rows * n", "flops": "5 * rows * n"},
  "reference": {"op": "softmax", "x": "x", "y": "y", "n": "n"}
})";
}

const kernels::spec::FileReader kReader = [](const std::string&) -> std::optional<std::string> {
  return std::string("#version 450\nlayout(local_size_x = 32 * A) in;\nvoid main() {}\n");
};

vk::DeviceInfo gpu_like() {
  vk::DeviceInfo d;
  d.name = "GPU-like";
  d.vendor_id = 0x1002;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 64;
  d.max_workgroup_size = {1024, 1024, 64};
  d.max_workgroup_invocations = 1024;
  d.max_workgroup_count = {2147483647u, 65535, 65535};
  d.max_shared_memory_bytes = 65536;
  d.max_push_constants_bytes = 128;
  return d;
}

void Load(benchmark::State& state) {
  const auto text = spec_text(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    kernels::spec::SpecKernel kernel(kernels::spec::parse_spec(text, "bench.json", kReader));
    benchmark::DoNotOptimize(kernel.spaces().size());
  }
}

void Enumerate(benchmark::State& state) {
  const kernels::spec::SpecKernel kernel(
      kernels::spec::parse_spec(spec_text(static_cast<int>(state.range(0))), "bench.json", kReader));
  const auto device = gpu_like();
  const kernels::Shape shape{64, 4096};
  std::size_t valid = 0, total = 0;
  for (auto _ : state) {
    const auto e = enumerate_space(kernel, shape, device, SpaceScope::pruned);
    valid = e.valid.size();
    total = e.total;
    benchmark::DoNotOptimize(valid);
  }
  state.counters["valid"] = static_cast<double>(valid);
  state.counters["cartesian"] = static_cast<double>(total);
}

// 5^6 = 15625, 7^6 = 117649, 10^6 configs.
BENCHMARK(Load)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(Enumerate)->Arg(5)->Arg(7)->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
