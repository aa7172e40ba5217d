#pragma once
// A structural check of a module in SPV_KHR_cooperative_matrix terms, which
// Debian 12's spirv-val cannot make (its SPIRV-Tools 2023.1 rejects the
// capability): what the NV-to-KHR pass (harness/coopmat_khr.hpp) must
// produce and what a driver's compiler would refuse.
//   - no NV cooperative-matrix capability, extension or instruction is left;
//     the KHR capability and extension are declared where KHR matrices are;
//   - every KHR matrix type has a Use that is an integer constant 0-2, and no
//     two are declared alike;
//   - loads and stores take a layout constant (0 or 1) before the stride;
//   - every multiply-add takes a MatrixA, a MatrixB and an Accumulator and
//     gives an Accumulator, and sets the signed-component bit of exactly the
//     matrices whose components are signed integers;
//   - values flow within one Use: a copy, phi, select, load or store keeps
//     its operand's type, a conversion its operand's Use.
#include <cstdint>
#include <span>
#include <string>

namespace vktune::vk {

// "" when the module passes; else its first problem, naming the id.
std::string khr_cooperative_matrix_problem(std::span<const std::uint32_t> spirv);

}  // namespace vktune::vk
