#pragma once
// Measuring a device's ceilings through Vulkan, so results can be reported as
// a fraction of what this device can actually do: streaming read bandwidth
// (GB/s) and fp32 FMA throughput (GFLOP/s); on devices with
// GL_NV_cooperative_matrix, the fp16 tensor-core rate with fp32 accumulators
// (GFLOP/s), with the matrices in registers and with them loaded from shared
// memory as a GEMM's inner loop loads them; and the dependent-dispatch floor,
// what a dispatch that waits for the previous one costs when it does almost
// nothing, timed as every kernel is (so small kernels can be read against it:
// at best they take the floor plus their bytes over the read bandwidth).
#include <functional>
#include <string>

#include "harness/device.hpp"
#include "results/store.hpp"
#include "engine/template_library.hpp"

namespace vktune {

struct Ceilings {
  double read_gbps = 0;
  double fp32_gflops = 0;
  double dispatch_floor_ns = 0;  // 0 = not measured
  // templates/ceiling_coopmat.comp; 0 = the device has no fp16 × fp16 + fp32
  // cooperative matrix in 32-wide subgroups.
  double tensor_gflops = 0;         // matrices held in registers
  double tensor_shared_gflops = 0;  // matrices loaded from shared memory before every product
};

inline constexpr const char* kCeilingRead = "read_bandwidth";
inline constexpr const char* kCeilingFma = "fp32_fma";
inline constexpr const char* kCeilingDispatchFloor = "dependent_dispatch";  // stored in ns
inline constexpr const char* kCeilingTensor = "fp16_tensor_mma";
inline constexpr const char* kCeilingTensorShared = "fp16_tensor_mma_shared";

// `step`, when given, hears which of the four measurements starts (they
// take seconds on a slow device: the progress line shows them).
Ceilings measure_ceilings(vk::Device& device, const TemplateLibrary& templates,
                          const std::function<void(const std::string&)>& step = {});
// One workgroup reading 64 KiB, dispatched back to back with a
// compute-to-compute barrier between dispatches (vk::time_dispatches): median
// ns per dispatch.
double measure_dispatch_floor(vk::Device& device, const TemplateLibrary& templates);

// The tensor-core ceilings (both 0 when the device has no cooperative
// matrix that the matmul kernels' tensor-core paths could use).
void measure_tensor_ceilings(vk::Device& device, const TemplateLibrary& templates, Ceilings& ceilings);

// Stores every ceiling of the device row (replacing what was stored).
void store_ceilings(results::Store& store, std::int64_t device_row, const Ceilings& ceilings);

// The device row's ceilings as stored, measuring and storing those missing
// (once per device: every later run reads them) with the embedded
// templates: they are facts about the device, so a run whose kernels come
// from a --templates directory (which need not hold, or may hold edited,
// ceiling_*.comp) measures the same ones. Only `vktune devices
// --remeasure` reads them from $VKTUNE_TEMPLATES. `step` as for
// measure_ceilings.
Ceilings stored_or_measured_ceilings(vk::Device& device, results::Store& store, std::int64_t device_row,
                                     const std::function<void(const std::string&)>& step = {});

}  // namespace vktune
