// vktune-space-bench: Google Benchmark of space enumeration (tuner/space.cpp)
// for every kernel at each of its default and check shapes, on one Vulkan
// device's limits, with the kernel's pruning and without (--space full, the
// larger). A search enumerates the space of every shape it tunes before the
// first variant, so this must stay at a few tens of milliseconds.
//   vktune-space-bench [--device N] [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "tuner/space.hpp"

namespace {

using namespace vktune;

void register_benchmarks(const vk::DeviceInfo& device) {
  for (const auto* kernel : kernels::all_kernels()) {
    auto shapes = kernel->default_shapes();
    for (const auto& s : kernel->check_shapes()) shapes.push_back(s);
    for (const auto& shape : shapes) {
      for (const auto scope : {SpaceScope::pruned, SpaceScope::full}) {
        const auto name = "enumerate/" + kernel->name() + "/" + kernels::shape_to_string(shape) + "/" + to_string(scope);
        benchmark::RegisterBenchmark(name.c_str(), [kernel, shape, scope, device](benchmark::State& state) {
          std::size_t valid = 0, total = 0;
          for (auto _ : state) {
            const auto e = enumerate_space(*kernel, shape, device, scope);
            valid = e.valid.size();
            total = e.total;
            benchmark::DoNotOptimize(valid);
          }
          state.counters["valid"] = static_cast<double>(valid);
          state.counters["cartesian"] = static_cast<double>(total);
        })->Unit(benchmark::kMillisecond);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t device_index = 0;
  std::vector<char*> passthrough{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << "usage: vktune-space-bench [--device N] [Google Benchmark flags]\n"
                   "Times the enumeration of every kernel's space at its default and check shapes on device N's\n"
                   "limits, pruned and full.\n\n";
      benchmark::PrintDefaultHelp();
      return exit_code::ok;
    }
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device_index = static_cast<std::uint32_t>(std::stoul(argv[++i]));
    } else {
      passthrough.push_back(argv[i]);
    }
  }
  try {
    vk::Instance instance;
    const auto devices = vk::list_devices(instance);
    if (device_index >= devices.size()) {
      std::cerr << "vktune-space-bench: no Vulkan device " << device_index << "\n";
      return exit_code::no_device;
    }
    register_benchmarks(devices[device_index]);
  } catch (const Error& e) {
    std::cerr << "vktune-space-bench: " << e.what() << "\n";
    return exit_code_for(e.kind());
  }
  int count = static_cast<int>(passthrough.size());
  benchmark::Initialize(&count, passthrough.data());
  if (benchmark::ReportUnrecognizedArguments(count, passthrough.data())) return exit_code::usage;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return exit_code::ok;
}
