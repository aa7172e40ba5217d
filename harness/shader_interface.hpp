#pragma once
// What a compiled module's interface asks of the pipeline that runs it, read
// from its SPIR-V with SPIRV-Cross (Debian's libspirv-cross-c-shared): the
// descriptors it statically uses (set, binding, kind, name) and the bytes of
// push constants it reads. A pipeline whose layout lacks a binding the
// module uses, or pushes fewer bytes than it reads, is undefined behaviour
// that drivers answer with a crash (issue 44: a spec that left out two
// bindings passed `vktune check`, then died with SIGSEGV under the
// validation layer); ComputePipeline refuses it first, naming what
// disagrees.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/image_binding.hpp"

namespace vktune::vk {

struct InterfaceBinding {
  std::uint32_t set = 0, binding = 0;
  std::string kind;  // "storage buffer", "uniform buffer", "storage image", "sampled image", ...
  std::string name;  // the variable's or its block's name, where the module keeps one (optimized ones rarely do)
  // A buffer's first member: its scalar type ("f32", "f16", "i32", "u32",
  // "i8", "u8"; "" for another), values per element (a vec4: 4), and
  // whether the shader may write it (not NonWritable).
  std::string element;
  std::uint32_t lanes = 1;
  bool writable = true;
  // A uniform buffer's block: the bytes its struct declares
  // (spvc_compiler_get_declared_struct_size) and its members.
  std::uint32_t block_bytes = 0;
  std::vector<struct BlockMember> members;
  // An image's (a storage image's or a sampled one's): its dimensionality
  // (1, 2, 3; 4 for a cube; 0 for a buffer), whether it is arrayed, and a
  // storage image's format qualifier as GLSL names it ("rgba32f", "r32f",
  // ...; "" for none, as a sampled image has).
  std::uint32_t image_dims = 0;
  bool image_arrayed = false;
  std::string image_format;
};

// A member of a uniform block: its name ("" where the module keeps none),
// offset, scalar type as a spec names it ("" for another: a matrix, a
// struct, an array) and lanes (a vec4: 4).
struct BlockMember {
  std::string name;
  std::uint32_t offset = 0;
  std::string type;
  std::uint32_t lanes = 1;
};

// A 32-bit member of the push-constant block.
struct PushWord {
  std::string name;  // "" where the module keeps no name
  std::uint32_t offset = 0;
  std::string type;  // "u32", "i32", "f32"
};

// A specialization constant: its constant_id, name, scalar type and default
// value. `type` is "i32", "u32", "f32" or "bool" (what a 32-bit
// VkSpecializationMapEntry can set), else the type in words ("f64", "i64",
// "f16", "a vector", ...), which no spec parameter can deliver. `value`
// holds an integer's or a bool's default (0/1); a float's is truncated, for
// people only.
struct ShaderConstant {
  std::uint32_t constant_id = 0;
  std::string name;
  std::string type;
  std::int64_t value = 0;
};

struct ShaderInterface {
  std::vector<InterfaceBinding> bindings;  // statically used, by set then binding
  std::uint32_t push_constant_bytes = 0;   // the end of the last push-constant member read
  std::string last_push_member;            // that member: "'scale'", or "member 1 at byte 4" unnamed
  std::vector<PushWord> push_words;        // the block's 32-bit words, in order (a vector or array member one per lane or element)
  std::vector<ShaderConstant> constants;   // scalar specialization constants, by constant_id
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  // The constant_id that sets each local size dimension (local_size_x_id), if any.
  std::array<std::optional<std::uint32_t>, 3> local_size_constant{};
};

// The interface of the module's entry point; nullopt with `why` where
// SPIRV-Cross cannot parse the module (then nothing is checked).
std::optional<ShaderInterface> reflect_interface(std::span<const std::uint32_t> spirv, std::string& why);

// "" when a pipeline of buffers 0..buffers-1 in set 0, storage buffers but
// the uniform ones (binding, block bytes), (with `bounds_set`, the two
// buffers of the bounds instrumentation's set) and `push_constant_bytes` of
// push constants serves the interface; else the first disagreement in one
// line: a binding of the other kind, or a uniform block the shader declares
// larger than the one bound.
std::string interface_mismatch(const ShaderInterface& interface, std::uint32_t buffers,
                               std::span<const std::pair<std::uint32_t, std::uint32_t>> uniform_buffers,
                               std::uint32_t push_constant_bytes, bool bounds_set);
// The same where some of the bindings are images (`images`, by binding): a
// binding the shader uses as another kind (a storage image, a combined
// image sampler, a buffer), of other dimensions, arrayed, or (a storage
// image) with another format qualifier or none disagrees.
std::string interface_mismatch(const ShaderInterface& interface, std::uint32_t buffers,
                               std::span<const std::pair<std::uint32_t, std::uint32_t>> uniform_buffers,
                               std::span<const ImageBinding> images, std::uint32_t push_constant_bytes,
                               bool bounds_set);

}  // namespace vktune::vk
