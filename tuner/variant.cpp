#include "tuner/variant.hpp"

#include "common/hash.hpp"
#include "harness/compiler.hpp"

namespace vktune {

CompiledVariant describe_variant(const kernels::Kernel& kernel, const kernels::Config& config,
                                 const kernels::Shape& shape, const TemplateLibrary& templates) {
  CompiledVariant variant;
  variant.config = config;
  variant.plan = kernel.plan(config, shape);
  variant.template_hash = templates.content_hash(variant.plan.template_file);
  Hasher hasher;
  hasher.add(kernel.name()).add(variant.template_hash).add(vk::compiler_version());
  for (const auto& [name, value] : variant.plan.defines) hasher.add(name).add(value);
  for (auto v : variant.plan.local_size) hasher.add(std::uint64_t{v});
  hasher.add(std::uint64_t{variant.plan.required_subgroup_size}).add(std::uint64_t{variant.plan.require_full_subgroups});
  variant.variant_hash = hasher.hex();
  return variant;
}

void compile_variant(CompiledVariant& variant, const TemplateLibrary& templates) {
  vk::CompileOptions options;
  options.defines = variant.plan.defines;
  options.target = vk::TargetEnv::vulkan_1_2;  // SPIR-V 1.5 runs on 1.2 and 1.3 devices alike
  variant.spirv = vk::compile_compute_shader(
      {variant.plan.template_file, templates.text(variant.plan.template_file)}, templates, options);
}

}  // namespace vktune
