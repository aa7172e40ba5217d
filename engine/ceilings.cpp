#include "engine/ceilings.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "harness/buffer.hpp"
#include "harness/compiler.hpp"
#include "harness/pipeline.hpp"
#include "harness/timer.hpp"
#include "kernels/coopmat.hpp"

namespace vktune {

namespace {

constexpr std::uint32_t kWgSize = 256;

vk::TimerOptions ceiling_timer() {
  vk::TimerOptions options;
  options.samples = 9;
  options.min_window_ns = 2e6;
  options.max_dispatches_per_sample = 64;
  return options;
}

std::vector<std::uint32_t> compile(const TemplateLibrary& templates, const std::string& file,
                                   std::vector<std::pair<std::string, std::string>> defines) {
  vk::CompileOptions options;
  options.defines = std::move(defines);
  return vk::compile_compute_shader({file, templates.text(file)}, templates, options);
}

constexpr std::uint32_t kReadItems = 16;
constexpr std::uint64_t kReadBytesPerGroup = std::uint64_t{kWgSize} * kReadItems * 16;

// Median ns per dispatch of ceiling_read.comp over `groups` workgroups.
double time_read(vk::Device& device, const TemplateLibrary& templates, std::uint64_t groups) {
  const std::uint64_t bytes = groups * kReadBytesPerGroup;
  vk::Buffer data(device, bytes);
  data.fill(0x01020304u);
  vk::Buffer sink(device, 16);
  const auto spirv = compile(templates, "ceiling_read.comp",
                             {{"WG_SIZE", std::to_string(kWgSize)}, {"ITEMS", std::to_string(kReadItems)}});
  vk::PipelineDesc desc;
  desc.label = "read ceiling";
  desc.storage_buffers = 2;
  desc.push_constant_bytes = 4;
  desc.local_size = {kWgSize, 1, 1};
  vk::ComputePipeline pipeline(device, spirv, desc);
  const vk::Buffer* bindings[] = {&data, &sink};
  auto set = pipeline.make_descriptor_set(bindings);
  const std::uint32_t count = static_cast<std::uint32_t>(bytes / 16);
  auto result = vk::time_dispatches(
      device,
      [&](VkCommandBuffer cmd, std::uint64_t) {
        pipeline.record_dispatch(cmd, set, {static_cast<std::uint32_t>(groups), 1, 1},
                                 {reinterpret_cast<const std::uint8_t*>(&count), sizeof count});
      },
      ceiling_timer());
  return result.per_dispatch_ns.median;
}

double measure_read(vk::Device& device, const TemplateLibrary& templates) {
  // 1 GiB, or a quarter of a small device: far beyond any cache.
  std::uint64_t bytes = std::min<std::uint64_t>(std::uint64_t{1} << 30, device.info().device_local_bytes() / 4);
  bytes = std::min<std::uint64_t>(bytes, device.info().max_storage_buffer_range);
  const std::uint64_t groups = std::max<std::uint64_t>(1, bytes / kReadBytesPerGroup);
  return static_cast<double>(groups * kReadBytesPerGroup) / time_read(device, templates, groups);  // GB/s
}

// Median ns per dispatch of a compute-only ceiling kernel: a sink buffer at
// binding 0 (written only on an impossible result) and a float seed as its
// push constant, `groups` workgroups of `local_size` invocations.
double time_compute(vk::Device& device, const std::vector<std::uint32_t>& spirv, const std::string& label,
                    std::uint32_t local_size, std::uint32_t groups) {
  vk::Buffer sink(device, 16);
  vk::PipelineDesc desc;
  desc.label = label;
  desc.storage_buffers = 1;
  desc.push_constant_bytes = 4;
  desc.local_size = {local_size, 1, 1};
  vk::ComputePipeline pipeline(device, spirv, desc);
  const vk::Buffer* bindings[] = {&sink};
  auto set = pipeline.make_descriptor_set(bindings);
  const float seed = 0.5f;
  auto result = vk::time_dispatches(
      device,
      [&](VkCommandBuffer cmd, std::uint64_t) {
        pipeline.record_dispatch(cmd, set, {groups, 1, 1}, {reinterpret_cast<const std::uint8_t*>(&seed), sizeof seed});
      },
      ceiling_timer());
  return result.per_dispatch_ns.median;
}

double measure_fma(vk::Device& device, const TemplateLibrary& templates) {
  constexpr int chains = 8;
  const int iterations = device.info().is_cpu() ? 64 : 4096;
  const std::uint32_t groups = device.info().is_cpu() ? 64 : 8192;
  const auto spirv = compile(templates, "ceiling_fma.comp",
                             {{"WG_SIZE", std::to_string(kWgSize)},
                              {"CHAINS", std::to_string(chains)},
                              {"ITERATIONS", std::to_string(iterations)}});
  const double ns = time_compute(device, spirv, "fma ceiling", kWgSize, groups);
  const double flops = 2.0 * chains * iterations * static_cast<double>(groups) * kWgSize;
  return flops / ns;  // flop/ns = GFLOP/s
}

// templates/ceiling_coopmat.comp with the first matrix shape the device
// runs: 4 subgroups per workgroup, 64×64 of accumulators each, enough
// workgroups for every SM several times over. GFLOP/s.
double measure_tensor(vk::Device& device, const TemplateLibrary& templates, const kernels::coopmat::MatrixShape& cm,
                      bool from_shared) {
  constexpr std::uint32_t warps = 4, groups = 2048, iterations = 256;
  const std::uint32_t tiles_m = 64 / cm.m, tiles_n = 64 / cm.n;
  const auto spirv = compile(templates, "ceiling_coopmat.comp",
                             {{"WARPS", std::to_string(warps)},
                              {"TILES_M", std::to_string(tiles_m)},
                              {"TILES_N", std::to_string(tiles_n)},
                              {"CM_M", std::to_string(cm.m)},
                              {"CM_N", std::to_string(cm.n)},
                              {"CM_K", std::to_string(cm.k)},
                              {"ITERATIONS", std::to_string(iterations)},
                              {"FROM_SHARED", from_shared ? "1" : "0"}});
  const double ns =
      time_compute(device, spirv, from_shared ? "tensor-core ceiling (shared memory)" : "tensor-core ceiling",
                   warps * kernels::coopmat::kWarp, groups);
  const double flops = 2.0 * cm.m * cm.n * cm.k * tiles_m * tiles_n * iterations * static_cast<double>(warps) * groups;
  return flops / ns;
}

}  // namespace

void measure_tensor_ceilings(vk::Device& device, const TemplateLibrary& templates, Ceilings& ceilings) {
  ceilings.tensor_gflops = ceilings.tensor_shared_gflops = 0;
  for (const auto& cm : kernels::coopmat::kShapes) {
    if (!kernels::coopmat::device_violation(cm, device.info(), "the tensor-core ceiling").empty()) continue;
    ceilings.tensor_gflops = measure_tensor(device, templates, cm, false);
    ceilings.tensor_shared_gflops = measure_tensor(device, templates, cm, true);
    return;
  }
}

double measure_dispatch_floor(vk::Device& device, const TemplateLibrary& templates) {
  return time_read(device, templates, 1);
}

Ceilings measure_ceilings(vk::Device& device, const TemplateLibrary& templates,
                          const std::function<void(const std::string&)>& step) {
  Ceilings c;
  if (step) step("read bandwidth (1 of 4)");
  c.read_gbps = measure_read(device, templates);
  if (step) step("fp32 FMA throughput (2 of 4)");
  c.fp32_gflops = measure_fma(device, templates);
  if (step) step("dependent-dispatch floor (3 of 4)");
  c.dispatch_floor_ns = measure_dispatch_floor(device, templates);
  if (step) step("tensor-core throughput (4 of 4)");
  measure_tensor_ceilings(device, templates, c);
  return c;
}

void store_ceilings(results::Store& store, std::int64_t device_row, const Ceilings& ceilings) {
  store.transaction([&] {
    store.put_ceiling(device_row, kCeilingRead, ceilings.read_gbps, "GB/s");
    store.put_ceiling(device_row, kCeilingFma, ceilings.fp32_gflops, "GFLOP/s");
    store.put_ceiling(device_row, kCeilingDispatchFloor, ceilings.dispatch_floor_ns, "ns");
    store.put_ceiling(device_row, kCeilingTensor, ceilings.tensor_gflops, "GFLOP/s");
    store.put_ceiling(device_row, kCeilingTensorShared, ceilings.tensor_shared_gflops, "GFLOP/s");
  });
}

Ceilings stored_or_measured_ceilings(vk::Device& device, results::Store& store, std::int64_t device_row,
                                     const std::function<void(const std::string&)>& step) {
  const auto templates = TemplateLibrary::embedded();
  std::optional<Ceilings> ceilings;
  if (auto read = store.ceiling(device_row, kCeilingRead), fma = store.ceiling(device_row, kCeilingFma); read && fma) {
    ceilings = Ceilings{*read, *fma};
  }
  if (!ceilings) {
    ceilings = measure_ceilings(device, templates, step);
    store_ceilings(store, device_row, *ceilings);
  }
  if (auto floor = store.ceiling(device_row, kCeilingDispatchFloor)) {
    ceilings->dispatch_floor_ns = *floor;
  } else {  // a database from before the floor was measured: add it
    if (step) step("dependent-dispatch floor");
    ceilings->dispatch_floor_ns = measure_dispatch_floor(device, templates);
    store.put_ceiling(device_row, kCeilingDispatchFloor, ceilings->dispatch_floor_ns, "ns");
  }
  auto tensor = store.ceiling(device_row, kCeilingTensor);
  auto tensor_shared = store.ceiling(device_row, kCeilingTensorShared);
  if (tensor && tensor_shared) {
    ceilings->tensor_gflops = *tensor;
    ceilings->tensor_shared_gflops = *tensor_shared;
  } else {  // a database from before the tensor cores were measured: add them (0 = none)
    if (step) step("tensor-core throughput");
    measure_tensor_ceilings(device, templates, *ceilings);
    store.put_ceiling(device_row, kCeilingTensor, ceilings->tensor_gflops, "GFLOP/s");
    store.put_ceiling(device_row, kCeilingTensorShared, ceilings->tensor_shared_gflops, "GFLOP/s");
  }
  return *ceilings;
}

}  // namespace vktune
