#include "harness/shader_interface.hpp"

#include <spirv/unified1/spirv.h>
#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "common/error.hpp"
#include "harness/bounds_instrumentation.hpp"
#include "harness/matrix_free_twin.hpp"
#include "harness/spirv_words.hpp"

namespace vktune::vk {

namespace {

struct ContextDeleter {
  void operator()(spvc_context_s* context) const { spvc_context_destroy(context); }
};

const char* kind_name(spvc_resource_type type) {
  switch (type) {
    case SPVC_RESOURCE_TYPE_STORAGE_BUFFER:
      return "storage buffer";
    case SPVC_RESOURCE_TYPE_UNIFORM_BUFFER:
      return "uniform buffer";
    case SPVC_RESOURCE_TYPE_STORAGE_IMAGE:
      return "storage image";
    case SPVC_RESOURCE_TYPE_SAMPLED_IMAGE:
      return "sampled image";
    case SPVC_RESOURCE_TYPE_SEPARATE_IMAGE:
      return "separate image";
    case SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS:
      return "sampler";
    case SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE:
      return "acceleration structure";
    default:
      return "descriptor";
  }
}

// The module's own names (OpName), by id: SPIRV-Cross makes one up
// ("_44_46") for an id without, and an optimized module keeps few.
std::map<std::uint32_t, std::string> declared_names(std::span<const std::uint32_t> spirv) {
  std::map<std::uint32_t, std::string> names;
  for (const auto& inst : spirv::split_module(spirv).instructions) {
    if (inst.opcode == SpvOpName && inst.operands.size() >= 2) names[inst.operands[0]] = spirv::literal_string(inst.operands, 1);
  }
  return names;
}

// A specialization constant's type: the four a 32-bit map entry sets
// ("i32", "u32", "f32", "bool"), else what it is, so that a refusal names it.
std::string constant_type(spvc_type type) {
  if (spvc_type_get_vector_size(type) != 1 || spvc_type_get_columns(type) != 1) return "a vector or matrix";
  const auto width = spvc_type_get_bit_width(type);
  switch (spvc_type_get_basetype(type)) {
    case SPVC_BASETYPE_BOOLEAN:
      return "bool";
    case SPVC_BASETYPE_FP32:
      return "f32";
    case SPVC_BASETYPE_INT32:
      return "i32";
    case SPVC_BASETYPE_UINT32:
      return "u32";
    case SPVC_BASETYPE_FP16:
    case SPVC_BASETYPE_FP64:
      return "f" + std::to_string(width);
    case SPVC_BASETYPE_INT8:
    case SPVC_BASETYPE_INT16:
    case SPVC_BASETYPE_INT64:
      return "i" + std::to_string(width);
    case SPVC_BASETYPE_UINT8:
    case SPVC_BASETYPE_UINT16:
    case SPVC_BASETYPE_UINT64:
      return "u" + std::to_string(width);
    default:
      return "a non-scalar type";
  }
}

// A type's scalar name as a spec names buffer types, or "".
std::string scalar_name(spvc_type type) {
  const auto width = spvc_type_get_bit_width(type);
  switch (spvc_type_get_basetype(type)) {
    case SPVC_BASETYPE_FP32:
      return "f32";
    case SPVC_BASETYPE_FP16:
      return "f16";
    case SPVC_BASETYPE_INT32:
      return "i32";
    case SPVC_BASETYPE_UINT32:
      return "u32";
    case SPVC_BASETYPE_INT8:
      return "i8";
    case SPVC_BASETYPE_UINT8:
      return width == 8 ? "u8" : "";
    default:
      return "";
  }
}

// A uniform block's declared size and members, which a spec's uniform
// buffer must fill and `spec init --from` writes out.
void read_block(spvc_compiler compiler, const spvc_reflected_resource& resource,
                const std::map<std::uint32_t, std::string>& names, InterfaceBinding& b) {
  const auto block = spvc_compiler_get_type_handle(compiler, resource.base_type_id);
  std::size_t size = 0;
  if (spvc_compiler_get_declared_struct_size(compiler, block, &size) == SPVC_SUCCESS) {
    b.block_bytes = static_cast<std::uint32_t>(size);
  }
  const bool named = names.count(resource.base_type_id) > 0;  // an unnamed block's member names are made up
  for (unsigned m = 0; m < spvc_type_get_num_member_types(block); ++m) {
    const auto member = spvc_compiler_get_type_handle(compiler, spvc_type_get_member_type(block, m));
    BlockMember out;
    const char* name = named ? spvc_compiler_get_member_name(compiler, resource.base_type_id, m) : nullptr;
    out.name = name ? name : "";
    spvc_compiler_type_struct_member_offset(compiler, block, m, &out.offset);
    const bool plain = spvc_type_get_num_array_dimensions(member) == 0 && spvc_type_get_columns(member) == 1;
    out.type = plain ? scalar_name(member) : "";
    out.lanes = std::max(1u, spvc_type_get_vector_size(member));
    b.members.push_back(std::move(out));
  }
}

// A storage image's format qualifier as GLSL writes it; "" for Unknown (a
// sampled image's, or a storage image declared without one).
std::string image_format_name(SpvImageFormat format) {
  switch (format) {
    case SpvImageFormatRgba32f: return "rgba32f";
    case SpvImageFormatRgba16f: return "rgba16f";
    case SpvImageFormatR32f: return "r32f";
    case SpvImageFormatRg32f: return "rg32f";
    case SpvImageFormatR16f: return "r16f";
    case SpvImageFormatRg16f: return "rg16f";
    case SpvImageFormatRgba8: return "rgba8";
    case SpvImageFormatRgba32i: return "rgba32i";
    case SpvImageFormatRgba32ui: return "rgba32ui";
    case SpvImageFormatR32i: return "r32i";
    case SpvImageFormatR32ui: return "r32ui";
    case SpvImageFormatUnknown: return "";
    default: return "format " + std::to_string(static_cast<int>(format));
  }
}

void read_image(spvc_compiler compiler, const spvc_reflected_resource& resource, InterfaceBinding& b) {
  const auto type = spvc_compiler_get_type_handle(compiler, resource.base_type_id);
  switch (spvc_type_get_image_dimension(type)) {
    case SpvDim1D: b.image_dims = 1; break;
    case SpvDim2D: b.image_dims = 2; break;
    case SpvDim3D: b.image_dims = 3; break;
    case SpvDimCube: b.image_dims = 4; break;
    default: b.image_dims = 0; break;  // a buffer texture, a subpass input: no spec image is one
  }
  b.image_arrayed = spvc_type_get_image_arrayed(type);
  b.image_format = image_format_name(spvc_type_get_image_storage_format(type));
}

}  // namespace

std::optional<ShaderInterface> reflect_interface(std::span<const std::uint32_t> module, std::string& why) {
  const auto twin = matrix_free_twin(module);
  const std::span<const std::uint32_t> spirv = twin ? std::span<const std::uint32_t>(*twin) : module;
  spvc_context raw = nullptr;
  if (spvc_context_create(&raw) != SPVC_SUCCESS) {
    why = "SPIRV-Cross could not create a context";
    return std::nullopt;
  }
  const std::unique_ptr<spvc_context_s, ContextDeleter> context(raw);
  spvc_parsed_ir ir = nullptr;
  spvc_compiler compiler = nullptr;
  if (spvc_context_parse_spirv(raw, spirv.data(), spirv.size(), &ir) != SPVC_SUCCESS ||
      spvc_context_create_compiler(raw, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &compiler) !=
          SPVC_SUCCESS) {
    why = std::string("SPIRV-Cross: ") + spvc_context_get_last_error_string(raw);
    return std::nullopt;
  }
  // Only what the entry point statically uses: a declared, unused binding
  // needs no descriptor.
  spvc_set active = nullptr;
  spvc_resources resources = nullptr;
  if (spvc_compiler_get_active_interface_variables(compiler, &active) != SPVC_SUCCESS ||
      spvc_compiler_create_shader_resources_for_active_variables(compiler, &resources, active) != SPVC_SUCCESS) {
    why = std::string("SPIRV-Cross: ") + spvc_context_get_last_error_string(raw);
    return std::nullopt;
  }
  const auto names = declared_names(spirv);
  // The variable's name, else its block's ("Y" of `buffer Y { ... }`), else "".
  auto name_of = [&](const spvc_reflected_resource& r) {
    for (const auto id : {r.id, r.base_type_id}) {
      if (const auto n = names.find(id); n != names.end() && !n->second.empty()) return n->second;
    }
    return std::string();
  };
  ShaderInterface interface;
  for (const auto type : {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, SPVC_RESOURCE_TYPE_UNIFORM_BUFFER,
                          SPVC_RESOURCE_TYPE_STORAGE_IMAGE, SPVC_RESOURCE_TYPE_SAMPLED_IMAGE,
                          SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS,
                          SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE}) {
    const spvc_reflected_resource* list = nullptr;
    std::size_t count = 0;
    spvc_resources_get_resource_list_for_type(resources, type, &list, &count);
    for (std::size_t i = 0; i < count; ++i) {
      InterfaceBinding b{spvc_compiler_get_decoration(compiler, list[i].id, SpvDecorationDescriptorSet),
                         spvc_compiler_get_decoration(compiler, list[i].id, SpvDecorationBinding),
                         kind_name(type), name_of(list[i])};
      if (type == SPVC_RESOURCE_TYPE_STORAGE_BUFFER) {
        const auto block = spvc_compiler_get_type_handle(compiler, list[i].base_type_id);
        if (spvc_type_get_num_member_types(block) > 0) {
          const auto first = spvc_compiler_get_type_handle(compiler, spvc_type_get_member_type(block, 0));
          b.element = scalar_name(first);
          b.lanes = std::max(1u, spvc_type_get_vector_size(first));
          b.writable = spvc_compiler_get_member_decoration(compiler, list[i].base_type_id, 0,
                                                           SpvDecorationNonWritable) == 0;
        }
      }
      if (type == SPVC_RESOURCE_TYPE_UNIFORM_BUFFER) read_block(compiler, list[i], names, b);
      if (type == SPVC_RESOURCE_TYPE_STORAGE_IMAGE || type == SPVC_RESOURCE_TYPE_SAMPLED_IMAGE) {
        read_image(compiler, list[i], b);
        // readonly: NonWritable on the variable.
        b.writable = type == SPVC_RESOURCE_TYPE_STORAGE_IMAGE &&
                     spvc_compiler_has_decoration(compiler, list[i].id, SpvDecorationNonWritable) == 0;
      }
      interface.bindings.push_back(std::move(b));
    }
  }
  std::sort(interface.bindings.begin(), interface.bindings.end(), [](const auto& a, const auto& b) {
    return std::tie(a.set, a.binding) < std::tie(b.set, b.binding);
  });
  const spvc_reflected_resource* push = nullptr;
  std::size_t pushes = 0;
  spvc_resources_get_resource_list_for_type(resources, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &push, &pushes);
  for (std::size_t i = 0; i < pushes; ++i) {
    const auto block = spvc_compiler_get_type_handle(compiler, push[i].base_type_id);
    const bool named_block = names.count(push[i].base_type_id) > 0;
    for (unsigned m = 0; m < spvc_type_get_num_member_types(block); ++m) {
      const auto member = spvc_compiler_get_type_handle(compiler, spvc_type_get_member_type(block, m));
      const auto type = scalar_name(member);
      unsigned offset = 0;
      if (type != "u32" && type != "i32" && type != "f32") continue;
      spvc_compiler_type_struct_member_offset(compiler, block, m, &offset);
      const char* name = named_block ? spvc_compiler_get_member_name(compiler, push[i].base_type_id, m) : nullptr;
      const std::string base = name ? name : "";
      // A vector (uvec4 sizes) or an array of scalars (uint ne[4]) is a
      // word per lane or element, each named after its member: what
      // engines push as one member, a spec pushes as words.
      const unsigned lanes = spvc_type_get_vector_size(member);
      unsigned elements = 1;
      if (spvc_type_get_num_array_dimensions(member) == 1 && spvc_type_array_dimension_is_literal(member, 0)) {
        elements = static_cast<unsigned>(spvc_type_get_array_dimension(member, 0));
      } else if (spvc_type_get_num_array_dimensions(member) > 0) {
        continue;
      }
      if (spvc_type_get_columns(member) != 1 || (lanes > 1 && elements > 1)) continue;
      const unsigned words = lanes * elements;
      for (unsigned w = 0; w < words; ++w) {
        std::string word = base;
        if (words > 1 && !base.empty()) word += lanes > 1 ? std::string("_") + "xyzw"[w] : "_" + std::to_string(w);
        interface.push_words.push_back({word, offset + 4 * w, type});
      }
    }
    const spvc_buffer_range* ranges = nullptr;
    std::size_t count = 0;
    spvc_compiler_get_active_buffer_ranges(compiler, push[i].id, &ranges, &count);
    for (std::size_t r = 0; r < count; ++r) {
      const auto end = static_cast<std::uint32_t>(ranges[r].offset + ranges[r].range);
      if (end <= interface.push_constant_bytes) continue;
      interface.push_constant_bytes = end;
      const auto base = names.count(push[i].base_type_id) > 0;  // an unnamed block's members are made up too
      const char* member = base ? spvc_compiler_get_member_name(compiler, push[i].base_type_id, ranges[r].index) : nullptr;
      interface.last_push_member = member && *member ? "'" + std::string(member) + "'"
                                                     : "member " + std::to_string(ranges[r].index) + " at byte " +
                                                           std::to_string(ranges[r].offset);
    }
  }
  const spvc_specialization_constant* constants = nullptr;
  std::size_t constant_count = 0;
  spvc_compiler_get_specialization_constants(compiler, &constants, &constant_count);
  for (std::size_t i = 0; i < constant_count; ++i) {
    const auto handle = spvc_compiler_get_constant_handle(compiler, constants[i].id);
    const auto type = spvc_compiler_get_type_handle(compiler, spvc_constant_get_type(handle));
    const auto n = names.find(constants[i].id);
    ShaderConstant constant{constants[i].constant_id, n == names.end() ? "" : n->second, constant_type(type), 0};
    if (constant.type == "i32") constant.value = spvc_constant_get_scalar_i32(handle, 0, 0);
    if (constant.type == "u32" || constant.type == "bool") constant.value = spvc_constant_get_scalar_u32(handle, 0, 0);
    if (constant.type == "f32") constant.value = static_cast<std::int64_t>(spvc_constant_get_scalar_fp32(handle, 0, 0));
    interface.constants.push_back(std::move(constant));
  }
  std::sort(interface.constants.begin(), interface.constants.end(),
            [](const auto& a, const auto& b) { return a.constant_id < b.constant_id; });
  spvc_specialization_constant axes[3]{};
  spvc_compiler_get_work_group_size_specialization_constants(compiler, &axes[0], &axes[1], &axes[2]);
  for (unsigned d = 0; d < 3; ++d) {
    interface.local_size[d] = spvc_compiler_get_execution_mode_argument_by_index(compiler, SpvExecutionModeLocalSize, d);
    if (axes[d].id != 0) interface.local_size_constant[d] = axes[d].constant_id;
  }
  return interface;
}

std::string interface_mismatch(const ShaderInterface& interface, std::uint32_t buffers,
                               std::span<const std::pair<std::uint32_t, std::uint32_t>> uniform_buffers,
                               std::uint32_t push_constant_bytes, bool bounds_set) {
  return interface_mismatch(interface, buffers, uniform_buffers, {}, push_constant_bytes, bounds_set);
}

std::string interface_mismatch(const ShaderInterface& interface, std::uint32_t buffers,
                               std::span<const std::pair<std::uint32_t, std::uint32_t>> uniform_buffers,
                               std::span<const ImageBinding> images, std::uint32_t push_constant_bytes,
                               bool bounds_set) {
  for (const auto& b : interface.bindings) {
    const std::string what = "binding " + std::to_string(b.binding) + (b.set == 0 ? "" : " of set " + std::to_string(b.set)) +
                             (b.name.empty() ? "" : " ('" + b.name + "')");
    if (bounds_set && b.set == kBoundsSet) continue;  // the instrumentation's own
    if (b.set != 0 || b.binding >= buffers) {
      return "the shader uses " + what + ", a " + b.kind + ", but the kernel binds " + std::to_string(buffers) +
             (uniform_buffers.empty() ? " storage buffers" : " buffers") + " (bindings 0-" + std::to_string(buffers == 0 ? 0 : buffers - 1) + " of set 0)";
    }
    const auto uniform = std::find_if(uniform_buffers.begin(), uniform_buffers.end(),
                                      [&](const auto& u) { return u.first == b.binding; });
    const auto image = std::find_if(images.begin(), images.end(), [&](const auto& i) { return i.binding == b.binding; });
    const std::string bound = image != images.end()               ? image_kind_name(image->kind)
                              : uniform == uniform_buffers.end() ? "storage buffer"
                                                                 : "uniform buffer";
    if (b.kind != bound) {
      // A combined image sampler is what GLSL's sampler3D is: say it as the shader's author wrote it.
      const auto spelled = [](const std::string& kind) {
        return kind == "sampled image" ? std::string("sampled image (combined image sampler)") : kind;
      };
      return "the shader uses " + what + " as a " + spelled(b.kind) + ", where the kernel binds " +
             (image != images.end() ? describe(*image) : "a " + bound);
    }
    if (image != images.end()) {
      const auto dims = [](std::uint32_t d) { return d == 4 ? std::string("cube") : std::to_string(d) + "-D"; };
      if (b.image_dims != image->dims || b.image_arrayed) {
        return "the shader declares " + what + " a " + dims(b.image_dims) + (b.image_arrayed ? " arrayed " : " ") +
               b.kind + ", where the kernel binds " + describe(*image);
      }
      if (image->kind == ImageKind::storage && b.image_format != format_name(image->format)) {
        return "the shader declares " + what + " " +
               (b.image_format.empty() ? std::string("without a format qualifier") : "with format " + b.image_format) +
               ", where the kernel binds " + describe(*image) + " (declare layout(" + format_name(image->format) + "))";
      }
    }
    if (uniform != uniform_buffers.end() && b.block_bytes > uniform->second) {
      return "the shader declares " + what + " a uniform block of " + std::to_string(b.block_bytes) +
             " bytes, but the kernel's block holds " + std::to_string(uniform->second) +
             " (a member the spec does not give would read past it)";
    }
  }
  if (interface.push_constant_bytes > push_constant_bytes) {
    return "the shader reads " + std::to_string(interface.push_constant_bytes) + " bytes of push constants (to the end of " +
           interface.last_push_member + "), but the kernel pushes " + std::to_string(push_constant_bytes);
  }
  return "";
}

}  // namespace vktune::vk
