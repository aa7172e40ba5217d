// Decoding driverVersion per vendor, and vendor names.
#include <gtest/gtest.h>

#include <volk.h>

#include "harness/driver_version.hpp"

namespace vktune::test {
namespace {

constexpr std::uint32_t nvidia(std::uint32_t major, std::uint32_t minor, std::uint32_t patch, std::uint32_t build) {
  return (major << 22) | (minor << 14) | (patch << 6) | build;
}

TEST(DriverVersion, NvidiaPacking) {
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorNvidia, (580u << 22) | (159u << 14)), "580.159.0.0");
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorNvidia, nvidia(535, 183, 1, 0)), "535.183.1.0");
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorNvidia, nvidia(1023, 255, 255, 63)), "1023.255.255.63");
  // The flag for Intel's Windows driver does not apply to other vendors.
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorNvidia, nvidia(550, 54, 14, 0), true), "550.54.14.0");
}

TEST(DriverVersion, MesaAndOthersUseTheApiVersionLayout) {
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorMesa, VK_MAKE_API_VERSION(0, 22, 3, 6)), "22.3.6");
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorMesa, VK_MAKE_API_VERSION(0, 0, 0, 1)), "0.0.1");
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorAmd, VK_MAKE_API_VERSION(0, 2, 0, 279)), "2.0.279");
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorArm, VK_MAKE_API_VERSION(0, 127, 1023, 4095)), "127.1023.4095");
  // Intel on Linux (Mesa's ANV) uses the standard layout.
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorIntel, VK_MAKE_API_VERSION(0, 23, 2, 1)), "23.2.1");
}

TEST(DriverVersion, IntelWindowsPacking) {
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorIntel, (101u << 14) | 4255u, true), "101.4255");
  EXPECT_EQ(vk::decode_driver_version(vk::kVendorIntel, (31u << 14) | 16383u, true), "31.16383");
}

TEST(VendorName, KnownAndUnknown) {
  EXPECT_EQ(vk::vendor_name(vk::kVendorNvidia), "NVIDIA");
  EXPECT_EQ(vk::vendor_name(vk::kVendorAmd), "AMD");
  EXPECT_EQ(vk::vendor_name(vk::kVendorIntel), "Intel");
  EXPECT_EQ(vk::vendor_name(vk::kVendorMesa), "Mesa");
  EXPECT_EQ(vk::vendor_name(0x1234), "0x1234");
  EXPECT_EQ(vk::vendor_name(0xabcde), "0xabcde");
}

}  // namespace
}  // namespace vktune::test
