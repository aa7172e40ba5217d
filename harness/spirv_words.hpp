#pragma once
// A SPIR-V module as its instructions, word for word: what the cooperative-
// matrix pass (harness/coopmat_khr.hpp) and its structural check read and
// write. SPIRV-Tools' parser does not serve them: Debian 12's 2023.1 knows
// none of SPV_KHR_cooperative_matrix's opcodes (issue 43).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vktune::vk::spirv {

inline constexpr std::size_t kHeaderWords = 5;  // magic, version, generator, bound, schema
inline constexpr std::size_t kBoundWord = 3;

// One instruction: its opcode and the words after the first.
struct Instruction {
  std::uint32_t opcode = 0;
  std::vector<std::uint32_t> operands;
};

struct Module {
  std::vector<std::uint32_t> header;  // kHeaderWords words
  std::vector<Instruction> instructions;
};

// Throws Error(usage) for words that are not a SPIR-V module (bad magic, an
// instruction running past the end or of zero words).
Module split_module(std::span<const std::uint32_t> words);
std::vector<std::uint32_t> join_module(const Module& module);

// A literal string operand from `first` (nul-terminated, packed 4 bytes a
// word) and the words it takes.
std::string literal_string(std::span<const std::uint32_t> operands, std::size_t first = 0);
std::vector<std::uint32_t> string_words(const std::string& text);

}  // namespace vktune::vk::spirv
