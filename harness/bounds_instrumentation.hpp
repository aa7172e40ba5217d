#pragma once
// Bounds-checked validation: SPIRV-Tools' instrumentation pass rewrites a
// module so that every load and store through a storage buffer compares the
// last byte it touches with the length of the data bound there, skips the
// access when it is past the end (a load yields zero), and appends a record
// to a debug buffer instead. Guard bands catch a store or read only as far
// as the band reaches and only when it changes the output; the instrumented
// module reports every such access at any distance (issue 40, item 12).
//
// The protocol is SPIRV-Tools' (spirv-tools/instrument.hpp), as Debian 12's
// 2023.1 generates it: the pass adds descriptor set kBoundsSet with an output
// buffer at binding 0 (word 0 flags, word 1 the count of words written, the
// records from word 2) and an input buffer at binding 1 from which each
// binding's length is read (bounds_input_words() lays it out).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace vktune::vk {

inline constexpr std::uint32_t kBoundsSet = 1;  // every kernel binds its buffers at set 0
inline constexpr std::uint32_t kBoundsOutputBinding = 0;
inline constexpr std::uint32_t kBoundsInputBinding = 1;

// `spirv` instrumented; `shader_id` is written into each record (vktune
// passes the stage's index). Throws Error(compile) with the pass's first
// message when SPIRV-Tools cannot instrument the module.
std::vector<std::uint32_t> instrument_bounds(std::span<const std::uint32_t> spirv, std::uint32_t shader_id);

// The input buffer's words for bindings 0..n-1 of set 0 whose data is
// `lengths[b]` bytes long (each below 2^32: the instrumentation computes
// offsets in 32 bits).
std::vector<std::uint32_t> bounds_input_words(std::span<const std::uint64_t> lengths);

// Words of an output buffer with room for `records` records.
std::uint32_t bounds_output_words(std::uint32_t records);

// One access past the end of a binding's data.
struct BoundsRecord {
  std::uint32_t shader_id = 0;
  std::uint32_t instruction = 0;            // the access's index among the original module's instructions
  std::uint32_t invocation[3] = {0, 0, 0};  // gl_GlobalInvocationID
  std::uint32_t last_byte = 0;              // the last byte the access would touch
  std::uint32_t length = 0;                 // the length of the data it was checked against
};

// The records in an output buffer's words; `attempted` receives how many
// accesses were reported in all (more than the records when the buffer
// filled up). Throws Error(internal) on a record of a kind vktune does not
// instrument for or of the wrong size.
std::vector<BoundsRecord> read_bounds_records(std::span<const std::uint32_t> words, std::size_t& attempted);

// Which binding of set 0 each load, store and atomic of the (uninstrumented)
// module accesses, by instruction index (BoundsRecord::instruction): a record
// holds the length it was checked against but not the binding. Accesses
// whose pointer does not lead back to such a variable through access chains
// and copies are left out.
std::map<std::uint32_t, std::uint32_t> buffer_access_bindings(std::span<const std::uint32_t> spirv);

}  // namespace vktune::vk
