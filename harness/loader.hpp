#pragma once
// Loading the Vulkan loader. vktune never links libvulkan: volk resolves every
// entry point through a loader we dlopen here, so the binary starts on a
// machine without Vulkan and says so in one clear line.

namespace vktune::vk {

// Environment variable naming the loader library to dlopen instead of
// libvulkan.so.1 (tests point it at a missing file to exercise the error).
inline constexpr const char* kLoaderEnvVar = "VKTUNE_VULKAN_LOADER";

// Loads the loader once per process; throws Error(no_loader) if absent.
void ensure_loader();

}  // namespace vktune::vk
