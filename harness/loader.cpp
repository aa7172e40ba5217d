#include "harness/loader.hpp"

#include <dlfcn.h>
#include <volk.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include "common/error.hpp"

namespace vktune::vk {

namespace {

// Loads the library, or returns the reason it could not be loaded.
std::string load_once() {
  const char* override_name = std::getenv(kLoaderEnvVar);
  const std::string name = override_name && *override_name ? override_name : "libvulkan.so.1";
  // The handle is kept for the life of the process: Vulkan objects may be
  // destroyed during static destruction.
  void* module = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    return "no Vulkan loader found (could not load " + name +
           "); install one, e.g. `apt-get install libvulkan1 mesa-vulkan-drivers`";
  }
  auto get_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(module, "vkGetInstanceProcAddr"));
  if (!get_proc) return name + " is not a Vulkan loader: it has no vkGetInstanceProcAddr";
  volkInitializeCustom(get_proc);
  return {};
}

}  // namespace

void ensure_loader() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] { failure = load_once(); });
  if (!failure.empty()) throw Error(ErrorKind::no_loader, failure);
}

}  // namespace vktune::vk
