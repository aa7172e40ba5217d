#include "harness/build_info.hpp"

#include <glslang/build_info.h>
#include <shaderc/shaderc.h>

#include "common/version.hpp"
#include "harness/coopmat_choice.hpp"

namespace vktune::vk {

std::string cxx_compiler_version() {
  // clang defines __GNUC__ too, so it is asked first.
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return "an unknown C++ compiler";
#endif
}

std::string glslang_version() {
  return "glslang " + std::to_string(GLSLANG_VERSION_MAJOR) + "." + std::to_string(GLSLANG_VERSION_MINOR) + "." +
         std::to_string(GLSLANG_VERSION_PATCH) + GLSLANG_VERSION_FLAVOR;
}

std::string shaderc_version() {
  // compiler_version() prints the SPIR-V version word raw ("spv 67072.1");
  // it is part of every variant's hash, so it stays as it is and a person
  // reads the word decoded here: 0x00MMmm00 is SPIR-V MM.mm.
  unsigned int word = 0, revision = 0;
  shaderc_get_spv_version(&word, &revision);
  return std::string("shaderc ") + VKTUNE_SHADERC_VERSION + " (SPIR-V " + std::to_string((word >> 16) & 0xff) + "." +
         std::to_string((word >> 8) & 0xff) + ")";
}

std::string build_info() {
  return std::string("vktune ") + VKTUNE_VERSION + "\nbuilt with " + cxx_compiler_version() + "\n" +
         shaderc_version() + ", " + glslang_version() + "\n" + cooperative_matrix_compiler_note();
}

}  // namespace vktune::vk
