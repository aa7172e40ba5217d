#pragma once
// A module's twin without cooperative matrices, for the readers Debian 12
// ships that know none: SPIRV-Cross (NV or KHR: it stops at the first
// matrix type, "Currently no block to insert opcode") and SPIRV-Tools'
// validator (2023.1: it rejects the KHR capability, 6022). What a module
// asks of its pipeline (buffers, push constants, constants, which of them
// the entry point reaches) and whether the rest of it is valid do not depend
// on its matrices, so those readers read the twin: each matrix type a
// 4-vector of its component type; each matrix constant, load, multiply-add
// and length an undefined value of its type; each matrix store, the
// capability and the extension gone. Not a module to run.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace vktune::vk {

// Whether the module declares the NV or the KHR cooperative-matrix capability.
bool declares_cooperative_matrix(std::span<const std::uint32_t> spirv);
// Whether it declares the KHR one (CooperativeMatrixKHR, 6022).
bool declares_khr_cooperative_matrix(std::span<const std::uint32_t> spirv);

// The twin of a module with cooperative matrices; nullopt for any other
// module, and for words that are not a module (whose reader says what is
// wrong with them).
std::optional<std::vector<std::uint32_t>> matrix_free_twin(std::span<const std::uint32_t> spirv);

}  // namespace vktune::vk
