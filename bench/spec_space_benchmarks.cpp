// vktune-spec-space-bench: Google Benchmark of loading a kernel spec and
// enumerating its space (kernels/spec/, tuner/space.cpp). Issue 18 asks that
// a spec's space of up to 10^6 cartesian configs load and enumerate within
// 50 ms. Measured here:
//   Enumerate/N     six parameters of N values each, rules that keep most
//                   configs (880k of 10^6 at N = 10);
//   EnumerateTiled  a tiled matrix product's 10^6 configs whose rules keep
//                   a few percent, as real tile spaces do;
//   CopyLegalConfigs  what handing out 880k legal configs costs by itself,
//                   the floor under Enumerate/10.
// Needs no device: it enumerates on a fixed GPU-like device description.
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

// A tiled matrix product's space of 10^6 cartesian configs whose rules,
// like a real GEMM's, keep a small part: tiles of 16..160 split among warps
// that must divide them, a workgroup within the device's invocations, tiles
// within its shared memory, a power-of-two vector width.
std::string tiled_spec_text() {
  return R"spec({
  "name": "bench_tiled", "shape": ["M", "N", "K"], "default_shapes": [[256, 4096, 1024]],
  "subspaces": [{
    "name": "tiles", "template": "k.comp",
    "parameters": [
      {"name": "BM", "values": [16, 32, 48, 64, 80, 96, 112, 128, 144, 160]},
      {"name": "BN", "values": [16, 32, 48, 64, 80, 96, 112, 128, 144, 160]},
      {"name": "BK", "values": [8, 16, 24, 32, 40, 48, 56, 64, 72, 80]},
      {"name": "WM", "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
      {"name": "WN", "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
      {"name": "VEC", "values": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}
    ],
    "local_size": ["32 * WM * WN", 1, 1],
    "legality": [
      {"rule": "mod(BM, 16 * WM) == 0 && mod(BN, 16 * WN) == 0", "reason": "warps must split the tile"},
      {"rule": "4 * (BM + BN) * BK <= max_shared_memory", "reason": "tiles exceed shared memory"},
      {"rule": "is_pow2(VEC) && VEC <= 8 && mod(BK, VEC) == 0", "reason": "vector width"}
    ],
    "stages": [{"workgroups": [{"dim": "N", "per_workgroup": "BN"}, {"dim": "M", "per_workgroup": "BM"}, 1],
                "shared_memory_bytes": "4 * (BM + BN) * BK"}]
  }],
  "buffers": [
    {"name": "x", "binding": 0, "type": "f32", "size": "M * K", "role": "input"},
    {"name": "w", "binding": 1, "type": "f32", "size": "N * K", "role": "weights"},
    {"name": "y", "binding": 2, "type": "f32", "size": "M * N", "role": "output"}
  ],
  "metrics": {"bytes": "4 * (M * K + N * K + M * N)", "flops": "2 * M * N * K"},
  "reference": {"op": "matmul", "x": "x", "w": "w", "y": "y", "m": "M", "n": "N", "k": "K"}
})spec";
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

// Enumerates the spec's space at `shape` once per iteration.
void enumerate_spec(benchmark::State& state, const std::string& text, const kernels::Shape& shape) {
  const kernels::spec::SpecKernel kernel(kernels::spec::parse_spec(text, "bench.json", kReader));
  const auto device = gpu_like();
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

void Enumerate(benchmark::State& state) { enumerate_spec(state, spec_text(static_cast<int>(state.range(0))), {64, 4096}); }

void EnumerateTiled(benchmark::State& state) { enumerate_spec(state, tiled_spec_text(), {256, 4096, 1024}); }

// What reading the dense space's legal configs as maps costs by itself: a
// copy of that many configs of six parameters (each a std::map, the type
// the layers above read; an enumeration keeps them as values, ConfigList),
// made and freed.
void CopyLegalConfigs(benchmark::State& state) {
  const kernels::spec::SpecKernel kernel(kernels::spec::parse_spec(spec_text(10), "bench.json", kReader));
  const std::vector<kernels::Config> legal = enumerate_space(kernel, {64, 4096}, gpu_like(), SpaceScope::pruned).valid;
  for (auto _ : state) {
    auto copy = legal;
    benchmark::DoNotOptimize(copy.data());
  }
  state.counters["configs"] = static_cast<double>(legal.size());
}

// 5^6 = 15625, 7^6 = 117649, 10^6 configs.
BENCHMARK(Load)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(Enumerate)->Arg(5)->Arg(7)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK(EnumerateTiled)->Unit(benchmark::kMillisecond);
BENCHMARK(CopyLegalConfigs)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
