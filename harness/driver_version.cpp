#include "harness/driver_version.hpp"

#include <cstdio>

namespace vktune::vk {

namespace {
std::string join(std::initializer_list<std::uint32_t> parts) {
  std::string text;
  for (std::uint32_t part : parts) {
    if (!text.empty()) text += '.';
    text += std::to_string(part);
  }
  return text;
}
}  // namespace

std::string decode_driver_version(std::uint32_t vendor_id, std::uint32_t raw, bool windows_intel) {
  if (vendor_id == kVendorNvidia) {
    return join({(raw >> 22) & 0x3ff, (raw >> 14) & 0xff, (raw >> 6) & 0xff, raw & 0x3f});
  }
  if (vendor_id == kVendorIntel && windows_intel) return join({raw >> 14, raw & 0x3fff});
  return join({raw >> 22, (raw >> 12) & 0x3ff, raw & 0xfff});
}

std::string vendor_name(std::uint32_t vendor_id) {
  switch (vendor_id) {
    case kVendorNvidia: return "NVIDIA";
    case kVendorAmd: return "AMD";
    case kVendorIntel: return "Intel";
    case kVendorArm: return "ARM";
    case kVendorQualcomm: return "Qualcomm";
    case kVendorMesa: return "Mesa";
    case 0x106b: return "Apple";
    case 0x1010: return "ImgTec";
    default: {
      char text[16];
      std::snprintf(text, sizeof text, "0x%04x", vendor_id);
      return text;
    }
  }
}

}  // namespace vktune::vk
