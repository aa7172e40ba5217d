#include "harness/coopmat_choice.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "harness/coopmat_khr.hpp"

namespace vktune::vk {

namespace {

// -1 until read from the environment or set.
std::atomic<int> process_request{-1};
// What the process compiles for once a device fixed it; none until then.
std::atomic<int> fixed_extension{static_cast<int>(CooperativeMatrixExtension::none)};
std::mutex fix_mutex;

const char* extension_name(CooperativeMatrixExtension e) {
  switch (e) {
    case CooperativeMatrixExtension::nv: return "VK_NV_cooperative_matrix";
    case CooperativeMatrixExtension::khr: return "VK_KHR_cooperative_matrix";
    case CooperativeMatrixExtension::none: break;
  }
  return "no cooperative-matrix extension";
}

}  // namespace

CoopmatRequest parse_coopmat_request(const std::string& text, const std::string& what) {
  if (text.empty() || text == "auto") return CoopmatRequest::automatic;
  if (text == "nv") return CoopmatRequest::nv;
  if (text == "khr") return CoopmatRequest::khr;
  throw Error(ErrorKind::usage, what + " is '" + text + "': auto (KHR where the device offers it, else NV), nv or khr");
}

std::string to_string(CoopmatRequest request) {
  switch (request) {
    case CoopmatRequest::nv: return "nv";
    case CoopmatRequest::khr: return "khr";
    case CoopmatRequest::automatic: break;
  }
  return "auto";
}

CoopmatRequest coopmat_request() {
  int value = process_request.load();
  if (value < 0) {
    const char* text = std::getenv(kCoopmatVariable);
    value = static_cast<int>(parse_coopmat_request(text ? text : "", kCoopmatVariable));
    process_request.store(value);
  }
  return static_cast<CoopmatRequest>(value);
}

void set_coopmat_request(CoopmatRequest request) {
  process_request.store(static_cast<int>(request));
  ::setenv(kCoopmatVariable, to_string(request).c_str(), 1);
}

CooperativeMatrixExtension cooperative_matrix_for(CoopmatRequest request, const DeviceFeatures& features) {
  switch (request) {
    case CoopmatRequest::nv:
      return features.cooperative_matrix_nv ? CooperativeMatrixExtension::nv : CooperativeMatrixExtension::none;
    case CoopmatRequest::khr:
      return features.cooperative_matrix_khr ? CooperativeMatrixExtension::khr : CooperativeMatrixExtension::none;
    case CoopmatRequest::automatic: break;
  }
  // KHR first: on the H200, whose driver offers both, every tensor-core
  // kernel's KHR module ran as fast as its NV twin or faster (fp16 products
  // 27-32%, quantized prefill products 3-8%, a Llama-3-8B prompt 6.9%:
  // measurements/nvidia-h200/session35/coopmat_khr/).
  if (features.cooperative_matrix_khr) return CooperativeMatrixExtension::khr;
  if (features.cooperative_matrix_nv) return CooperativeMatrixExtension::nv;
  return CooperativeMatrixExtension::none;
}

std::string cooperative_matrix_refusal(CoopmatRequest request, const DeviceInfo& device) {
  if (request == CoopmatRequest::automatic || device.cooperative_matrix != CooperativeMatrixExtension::none) return {};
  const auto& f = device.features;
  std::string offers = f.cooperative_matrix_nv && f.cooperative_matrix_khr ? "VK_NV_cooperative_matrix and VK_KHR_cooperative_matrix"
                       : f.cooperative_matrix_nv                       ? "VK_NV_cooperative_matrix"
                       : f.cooperative_matrix_khr                      ? "VK_KHR_cooperative_matrix"
                                                                       : "neither cooperative-matrix extension";
  const auto wanted = request == CoopmatRequest::nv ? CooperativeMatrixExtension::nv : CooperativeMatrixExtension::khr;
  return "--coopmat " + to_string(request) + ": device " + std::to_string(device.index) + " (" + device.name +
         ") offers no " + extension_name(wanted) + "; it offers " + offers;
}

CooperativeMatrixExtension coopmat_spirv() {
  const auto fixed = static_cast<CooperativeMatrixExtension>(fixed_extension.load());
  if (fixed != CooperativeMatrixExtension::none) return fixed;
  // A worker process compiles before it opens its device: its parent
  // exported what its device fixed.
  return coopmat_request() == CoopmatRequest::khr ? CooperativeMatrixExtension::khr : CooperativeMatrixExtension::nv;
}

void note_device_cooperative_matrix(const DeviceInfo& device) {
  if (device.cooperative_matrix == CooperativeMatrixExtension::none) return;
  std::lock_guard lock(fix_mutex);
  const auto fixed = static_cast<CooperativeMatrixExtension>(fixed_extension.load());
  if (fixed == device.cooperative_matrix) return;
  if (fixed != CooperativeMatrixExtension::none) {
    throw Error(ErrorKind::usage, "device " + std::to_string(device.index) + " (" + device.name + ") uses " +
                                      extension_name(device.cooperative_matrix) + ", but this process already compiles for " +
                                      extension_name(fixed) + "; give both --coopmat " +
                                      (fixed == CooperativeMatrixExtension::nv ? "nv" : "khr") + " or run them apart");
  }
  fixed_extension.store(static_cast<int>(device.cooperative_matrix));
  // Worker processes started from here on compile what this device runs
  // (this process's request, already read, stays as given).
  ::setenv(kCoopmatVariable, device.cooperative_matrix == CooperativeMatrixExtension::khr ? "khr" : "nv", 1);
}

bool shaderc_compiles_khr_cooperative_matrix() {
  static const bool native = [] {
    const ShaderSource probe{"khr_cooperative_matrix_probe.comp",
                             "#version 450\n#extension GL_KHR_cooperative_matrix : require\n"
                             "layout(local_size_x = 32) in;\nvoid main() {}\n"};
    try {
      (void)compile_compute_shader(probe, MapIncludes({}), CompileOptions{});
      return true;
    } catch (const Error&) {
      return false;
    }
  }();
  return native;
}

std::string cooperative_matrix_compiler_note() {
  return std::string("KHR cooperative matrix: ") +
         (shaderc_compiles_khr_cooperative_matrix() ? "this shaderc compiles GL_KHR_cooperative_matrix, but"
                                                    : "this shaderc does not compile GL_KHR_cooperative_matrix;") +
         " the templates are written with GL_NV_cooperative_matrix, and modules for KHR devices come from vktune's "
         "NV-to-KHR pass (version " + std::to_string(kCoopmatKhrPassVersion) + ")";
}

}  // namespace vktune::vk
