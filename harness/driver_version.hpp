#pragma once
// Decoding VkPhysicalDeviceProperties::driverVersion. The field's packing is
// vendor-specific: NVIDIA uses 10.8.8.6 bits, Intel's Windows driver 18.14,
// and Mesa and most others the VK_MAKE_API_VERSION layout.
#include <cstdint>
#include <string>

namespace vktune::vk {

inline constexpr std::uint32_t kVendorNvidia = 0x10de;
inline constexpr std::uint32_t kVendorAmd = 0x1002;
inline constexpr std::uint32_t kVendorIntel = 0x8086;
inline constexpr std::uint32_t kVendorArm = 0x13b5;
inline constexpr std::uint32_t kVendorQualcomm = 0x5143;
inline constexpr std::uint32_t kVendorMesa = 0x10005;  // VK_VENDOR_ID_MESA (lavapipe)

// `windows_intel` selects Intel's proprietary Windows packing (driverID
// VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS); Intel's Mesa driver uses the
// standard layout.
std::string decode_driver_version(std::uint32_t vendor_id, std::uint32_t raw, bool windows_intel = false);

std::string vendor_name(std::uint32_t vendor_id);

}  // namespace vktune::vk
