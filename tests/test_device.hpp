#pragma once
// The Vulkan device the tests run on: $VKTUNE_TEST_DEVICE, else 0 (the first,
// lavapipe on a machine without a GPU). One definition for every suite.
#include <cstdint>
#include <cstdlib>

namespace vktune::test {

inline std::uint32_t test_device_index() {
  const char* text = std::getenv("VKTUNE_TEST_DEVICE");
  return text && *text ? static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10)) : 0;
}

}  // namespace vktune::test
