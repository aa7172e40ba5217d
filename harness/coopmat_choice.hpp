#pragma once
// Which cooperative-matrix extension this process's tensor-core modules use
// (issue 43). The templates are written with GL_NV_cooperative_matrix, all
// Debian 12's glslang compiles; a device that offers only
// VK_KHR_cooperative_matrix (AMD, Intel, Arm, Qualcomm) gets the same
// modules after the NV-to-KHR pass (harness/coopmat_khr.hpp).
//
// The request: `auto` (KHR where the device offers it, else NV: on the H200,
// which offers both, the KHR modules ran as fast or faster), `nv` or `khr`,
// from --coopmat or VKTUNE_COOPMAT. One setting per process, kept in
// the environment so that a tune's worker processes inherit it, as
// VKTUNE_SPIRV_OPT is. Once a device is opened with a tensor-core extension,
// the process compiles for that extension (compile_compute_shader applies the
// pass for KHR, and compiler_version() names the pass and its version, so
// that every variant compiled through it has a hash of its own).
#include <string>

#include "harness/device_info.hpp"

namespace vktune::vk {

enum class CoopmatRequest { automatic, nv, khr };

inline constexpr const char* kCoopmatVariable = "VKTUNE_COOPMAT";
// Defined (to 1) in every template compiled for KHR: a template whose NV
// code turns an accumulator into an operand (which a KHR matrix, keeping its
// Use, cannot) takes the way through shared memory under it.
inline constexpr const char* kCoopmatKhrDefine = "VKTUNE_COOPMAT_KHR";

// "auto", "nv" or "khr"; Error(usage) naming `what` (the option or the
// variable) for anything else.
CoopmatRequest parse_coopmat_request(const std::string& text, const std::string& what);
std::string to_string(CoopmatRequest request);

// The process's request: set_coopmat_request's, else VKTUNE_COOPMAT's, else
// auto. Error(usage) for a bad VKTUNE_COOPMAT.
CoopmatRequest coopmat_request();
// --coopmat: the process's request, exported to VKTUNE_COOPMAT for the
// processes it starts. Call before any device is opened.
void set_coopmat_request(CoopmatRequest request);

// What a device with `features` gets under `request`: none where the
// request asks for an extension the device lacks (Device refuses that
// request, cooperative_matrix_refusal()).
CooperativeMatrixExtension cooperative_matrix_for(CoopmatRequest request, const DeviceFeatures& features);

// Empty, or the usage error of a forced request the device cannot serve,
// naming what it offers: "--coopmat khr: device 0 (NAME) offers no
// VK_KHR_cooperative_matrix; it offers VK_NV_cooperative_matrix".
std::string cooperative_matrix_refusal(CoopmatRequest request, const DeviceInfo& device);

// The extension this process's modules are compiled for: the one its first
// device with tensor cores uses, else what VKTUNE_COOPMAT forces, else NV.
CooperativeMatrixExtension coopmat_spirv();
// Called by Device once opened: fixes coopmat_spirv() to the device's
// extension and exports it for worker processes. Error(usage) when an
// earlier device of the process fixed the other one.
void note_device_cooperative_matrix(const DeviceInfo& device);

// Whether the linked shaderc compiles `#extension GL_KHR_cooperative_matrix`
// itself (glslang 13 or newer); probed once by compiling a small shader.
bool shaderc_compiles_khr_cooperative_matrix();
// One line for --version: where KHR modules come from.
std::string cooperative_matrix_compiler_note();

}  // namespace vktune::vk
