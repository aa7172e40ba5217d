// LeakSanitizer support for the Vulkan tests (only active in a sanitizer
// build). Two kinds of driver allocations would be reported that are not
// leaks of ours:
// - the timeout tests abandon a device on purpose, and lavapipe's queue
//   thread allocates for the abandoned submission (__lsan_disable() covers
//   only the calling thread);
// - the loader unloads the driver at vkDestroyInstance, so memory that a
//   driver global still points to turns unreachable ("<unknown module>").
// Leaked Vulkan objects are still caught: the validation layer reports them
// when their device is destroyed, and the fixture fails on that.
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>

extern "C" const char* __lsan_default_suppressions() {
  return "leak:libvulkan_lvp.so\n"
         "leak:libVkLayer_khronos_validation.so\n";
}

namespace {
// Keeps lavapipe loaded for the life of the process (a no-op where it is not
// installed), so its globals stay readable when the loader lets it go.
[[maybe_unused]] const void* const kKeepDriverLoaded = dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
}  // namespace
#endif
