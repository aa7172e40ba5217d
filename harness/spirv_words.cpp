#include "harness/spirv_words.hpp"

#include <spirv/unified1/spirv.h>

#include "common/error.hpp"

namespace vktune::vk::spirv {

Module split_module(std::span<const std::uint32_t> words) {
  if (words.size() < kHeaderWords || words[0] != SpvMagicNumber) {
    throw Error(ErrorKind::usage, "not a SPIR-V module (no magic number)");
  }
  Module module;
  module.header.assign(words.begin(), words.begin() + kHeaderWords);
  for (std::size_t at = kHeaderWords; at < words.size();) {
    const std::uint32_t count = words[at] >> SpvWordCountShift;
    if (count == 0 || at + count > words.size()) {
      throw Error(ErrorKind::usage, "SPIR-V instruction at word " + std::to_string(at) + " has " +
                                        std::to_string(count) + " words, past the module's end");
    }
    module.instructions.push_back(
        {words[at] & SpvOpCodeMask, std::vector<std::uint32_t>(words.begin() + at + 1, words.begin() + at + count)});
    at += count;
  }
  return module;
}

std::vector<std::uint32_t> join_module(const Module& module) {
  std::vector<std::uint32_t> words = module.header;
  for (const auto& inst : module.instructions) {
    words.push_back(static_cast<std::uint32_t>((inst.operands.size() + 1) << SpvWordCountShift) | inst.opcode);
    words.insert(words.end(), inst.operands.begin(), inst.operands.end());
  }
  return words;
}

std::string literal_string(std::span<const std::uint32_t> operands, std::size_t first) {
  std::string text;
  for (std::size_t w = first; w < operands.size(); ++w) {
    for (int byte = 0; byte < 4; ++byte) {
      const char c = static_cast<char>((operands[w] >> (8 * byte)) & 0xffu);
      if (c == '\0') return text;
      text.push_back(c);
    }
  }
  return text;
}

std::vector<std::uint32_t> string_words(const std::string& text) {
  std::vector<std::uint32_t> words(text.size() / 4 + 1, 0u);  // room for the nul
  for (std::size_t i = 0; i < text.size(); ++i) {
    words[i / 4] |= static_cast<std::uint32_t>(static_cast<unsigned char>(text[i])) << (8 * (i % 4));
  }
  return words;
}

}  // namespace vktune::vk::spirv
