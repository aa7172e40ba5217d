#pragma once
// What this build of vktune is made of, for `vktune --version` and bug
// reports: its version, the C++ compiler that built it, and the shaderc and
// glslang that compile its kernels (a variant's SPIR-V depends on them).
#include <string>

namespace vktune::vk {

// "GCC 12.2.0" or "clang 14.0.6": the compiler of this binary.
std::string cxx_compiler_version();

// "shaderc 2023.2.1 (SPIR-V 1.6)": the shaderc library and the newest SPIR-V
// it emits.
std::string shaderc_version();

// "glslang 12.0.0": the glslang headers shaderc was built against.
std::string glslang_version();

// Three lines without a trailing newline:
//   vktune 0.1.0
//   built with GCC 12.2.0
//   shaderc 2023.2.1 (SPIR-V 1.6), glslang 12.0.0
std::string build_info();

}  // namespace vktune::vk
