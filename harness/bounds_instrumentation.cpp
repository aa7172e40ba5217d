#include "harness/bounds_instrumentation.hpp"

#include <spirv-tools/instrument.hpp>
#include <spirv-tools/libspirv.h>
#include <spirv-tools/optimizer.hpp>
#include <spirv/unified1/spirv.h>

#include <limits>

#include "common/error.hpp"

namespace vktune::vk {

std::vector<std::uint32_t> instrument_bounds(std::span<const std::uint32_t> spirv, std::uint32_t shader_id) {
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_2);  // as engine/variant.cpp compiles
  std::string first;
  optimizer.SetMessageConsumer([&first](spv_message_level_t level, const char*, const spv_position_t&,
                                        const char* message) {
    if (first.empty() && level <= SPV_MSG_ERROR) {
      first = message;
      first = first.substr(0, first.find('\n'));
    }
  });
  // Buffer bounds only: descriptor-array indices and initialisation do not
  // arise with one descriptor per binding, and texel buffers are not used.
  optimizer.RegisterPass(spvtools::CreateInstBindlessCheckPass(kBoundsSet, shader_id, /*desc_length_enable=*/false,
                                                               /*desc_init_enable=*/false, /*buff_oob_enable=*/true,
                                                               /*texbuff_oob_enable=*/false));
  std::vector<std::uint32_t> out;
  if (!optimizer.Run(spirv.data(), spirv.size(), &out)) {
    throw Error(ErrorKind::compile, "the bounds-instrumentation pass failed: " +
                                        (first.empty() ? std::string("no reason given") : first));
  }
  return out;
}

std::vector<std::uint32_t> bounds_input_words(std::span<const std::uint64_t> lengths) {
  // The pass reads a binding's length as Data[Data[Data[1 + set] + binding] +
  // index] (three dependent reads; set 0 and index 0 for vktune's bindings),
  // so: word 1 points at a table of one entry per binding, each pointing at
  // the binding's length.
  const auto n = static_cast<std::uint32_t>(lengths.size());
  std::vector<std::uint32_t> words(2 + 2 * std::size_t{n}, 0);
  words[1] = 2;
  for (std::uint32_t b = 0; b < n; ++b) {
    if (lengths[b] > std::numeric_limits<std::uint32_t>::max()) {
      throw Error(ErrorKind::internal, "binding " + std::to_string(b) + " holds " + std::to_string(lengths[b]) +
                                           " bytes, more than the instrumentation's 32-bit offsets reach");
    }
    words[2 + b] = 2 + n + b;
    words[2 + n + b] = static_cast<std::uint32_t>(lengths[b]);
  }
  return words;
}

std::uint32_t bounds_output_words(std::uint32_t records) {
  return spvtools::kDebugOutputDataOffset + records * spvtools::kInstBindlessBuffOOBOutCnt;
}

std::vector<BoundsRecord> read_bounds_records(std::span<const std::uint32_t> words, std::size_t& attempted) {
  using namespace spvtools;
  attempted = 0;
  if (words.size() < kDebugOutputDataOffset) return {};
  const std::uint32_t written = words[kDebugOutputSizeOffset];  // counts records that did not fit too
  attempted = written / kInstBindlessBuffOOBOutCnt;
  std::vector<BoundsRecord> records;
  const std::size_t end = std::min<std::size_t>(words.size(), std::size_t{kDebugOutputDataOffset} + written);
  for (std::size_t at = kDebugOutputDataOffset; at + kInstBindlessBuffOOBOutCnt <= end;
       at += kInstBindlessBuffOOBOutCnt) {
    const auto record = words.subspan(at, kInstBindlessBuffOOBOutCnt);
    const auto error = record[kInstValidationOutError];
    if (record[kInstCommonOutSize] != kInstBindlessBuffOOBOutCnt ||
        (error != kInstErrorBuffOOBStorage && error != kInstErrorBuffOOBUniform)) {
      throw Error(ErrorKind::internal, "an instrumented module wrote a record of " +
                                           std::to_string(record[kInstCommonOutSize]) + " words with error code " +
                                           std::to_string(error) + ", not a buffer-bounds record");
    }
    BoundsRecord r;
    r.shader_id = record[kInstCommonOutShaderId];
    r.instruction = record[kInstCommonOutInstructionIdx];
    r.invocation[0] = record[kInstCompOutGlobalInvocationIdX];
    r.invocation[1] = record[kInstCompOutGlobalInvocationIdY];
    r.invocation[2] = record[kInstCompOutGlobalInvocationIdZ];
    r.last_byte = record[kInstBindlessBuffOOBOutBuffOff];
    r.length = record[kInstBindlessBuffOOBOutBuffSize];
    records.push_back(r);
  }
  return records;
}

namespace {

// What buffer_access_bindings() gathers in one pass over the module.
struct AccessScan {
  std::uint32_t index = 0;  // of the instruction being read
  std::map<std::uint32_t, std::uint32_t> pointer_of;  // access instruction index -> pointer id
  std::map<std::uint32_t, std::uint32_t> base_of;     // derived pointer id -> the pointer it came from
  std::map<std::uint32_t, std::uint32_t> binding_of;  // variable id -> Binding
  std::map<std::uint32_t, std::uint32_t> set_of;      // variable id -> DescriptorSet
};

spv_result_t scan_instruction(void* user, const spv_parsed_instruction_t* inst) {
  auto& scan = *static_cast<AccessScan*>(user);
  const std::uint32_t index = scan.index++;
  const auto word = [inst](std::size_t i) { return i < inst->num_words ? inst->words[i] : 0u; };
  switch (static_cast<SpvOp>(inst->opcode)) {
    case SpvOpDecorate:
      if (word(2) == SpvDecorationBinding) scan.binding_of[word(1)] = word(3);
      if (word(2) == SpvDecorationDescriptorSet) scan.set_of[word(1)] = word(3);
      break;
    case SpvOpAccessChain:
    case SpvOpInBoundsAccessChain:
    case SpvOpPtrAccessChain:
    case SpvOpInBoundsPtrAccessChain:
    case SpvOpCopyObject:
      scan.base_of[word(2)] = word(3);  // type, result, base
      break;
    case SpvOpStore:
    case SpvOpAtomicStore:
      scan.pointer_of[index] = word(1);
      break;
    case SpvOpLoad:
    case SpvOpAtomicLoad:
    case SpvOpAtomicExchange:
    case SpvOpAtomicCompareExchange:
    case SpvOpAtomicIIncrement:
    case SpvOpAtomicIDecrement:
    case SpvOpAtomicIAdd:
    case SpvOpAtomicISub:
    case SpvOpAtomicSMin:
    case SpvOpAtomicUMin:
    case SpvOpAtomicSMax:
    case SpvOpAtomicUMax:
    case SpvOpAtomicAnd:
    case SpvOpAtomicOr:
    case SpvOpAtomicXor:
    case SpvOpAtomicFAddEXT:
      scan.pointer_of[index] = word(3);  // type, result, pointer
      break;
    default:
      break;
  }
  return SPV_SUCCESS;
}

}  // namespace

std::map<std::uint32_t, std::uint32_t> buffer_access_bindings(std::span<const std::uint32_t> spirv) {
  AccessScan scan;
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_2);
  const auto parsed = spvBinaryParse(context, &scan, spirv.data(), spirv.size(), nullptr, scan_instruction, nullptr);
  spvContextDestroy(context);
  std::map<std::uint32_t, std::uint32_t> bindings;
  if (parsed != SPV_SUCCESS) return bindings;  // names then come from lengths alone
  for (const auto& [index, pointer] : scan.pointer_of) {
    std::uint32_t id = pointer;
    // Chains are acyclic in valid SPIR-V; the bound guards a damaged module.
    for (std::size_t step = 0; step < scan.base_of.size() && scan.base_of.count(id); ++step) id = scan.base_of.at(id);
    const auto binding = scan.binding_of.find(id);
    const auto set = scan.set_of.find(id);
    if (binding == scan.binding_of.end() || (set != scan.set_of.end() && set->second != 0)) continue;
    bindings[index] = binding->second;
  }
  return bindings;
}

}  // namespace vktune::vk
