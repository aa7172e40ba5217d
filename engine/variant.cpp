#include "engine/variant.hpp"

#include "common/error.hpp"
#include "common/hash.hpp"
#include "harness/compiler.hpp"
#include "results/store.hpp"

namespace vktune {

namespace {

void add_stage(Hasher& hasher, const CompiledStage& stage) {
  for (const auto& [name, value] : stage.plan.defines) hasher.add(name).add(value);
  for (auto v : stage.plan.local_size) hasher.add(std::uint64_t{v});
  hasher.add(std::uint64_t{stage.plan.required_subgroup_size}).add(std::uint64_t{stage.plan.require_full_subgroups});
  // Only when present, so that variants without constants keep their hashes.
  if (!stage.plan.specialization.empty()) {
    hasher.add("specialization");
    for (const auto& [id, value] : stage.plan.specialization) hasher.add(std::uint64_t{id}).add(std::uint64_t{value});
  }
}

}  // namespace

bool CompiledVariant::compiled() const {
  if (stages.empty()) return false;
  for (const auto& s : stages)
    if (s.spirv.empty()) return false;
  return true;
}

std::string CompiledVariant::describe_templates() const {
  std::string text;
  for (const auto& s : stages) text += (text.empty() ? "" : " + ") + s.plan.template_file;
  return text;
}

CompiledVariant describe_variant(const kernels::Kernel& kernel, const kernels::Config& config,
                                 const kernels::Shape& shape, const TemplateLibrary& templates) {
  CompiledVariant variant;
  variant.config = config;
  for (auto& plan : kernel.stages(config, shape)) {
    auto& stage = variant.stages.emplace_back();
    stage.template_hash = templates.content_hash(plan.template_file);
    stage.plan = std::move(plan);
  }
  if (variant.stages.empty()) throw Error(ErrorKind::internal, kernel.name() + ": a variant with no stages");
  // The first stage exactly as one-stage variants were always hashed.
  Hasher hasher;
  hasher.add(kernel.name()).add(variant.stages[0].template_hash).add(vk::compiler_version());
  add_stage(hasher, variant.stages[0]);
  for (std::size_t i = 1; i < variant.stages.size(); ++i) {
    hasher.add(std::uint64_t{i}).add(variant.stages[i].template_hash);
    add_stage(hasher, variant.stages[i]);
  }
  variant.variant_hash = hasher.hex();
  return variant;
}

std::string spirv_cache_key(const CompiledVariant& variant, std::size_t stage) {
  return stage == 0 ? variant.variant_hash : variant.variant_hash + ".s" + std::to_string(stage);
}

void load_cached_spirv(CompiledVariant& variant, const results::Store& store) {
  for (std::size_t i = 0; i < variant.stages.size(); ++i) {
    if (!variant.stages[i].spirv.empty()) continue;
    if (auto cached = store.get_spirv(spirv_cache_key(variant, i))) variant.stages[i].spirv = std::move(*cached);
  }
}

void cache_spirv(const CompiledVariant& variant, results::Store& store) {
  for (std::size_t i = 0; i < variant.stages.size(); ++i) {
    if (!variant.stages[i].spirv.empty()) store.put_spirv(spirv_cache_key(variant, i), variant.stages[i].spirv);
  }
}

void compile_variant(CompiledVariant& variant, const TemplateLibrary& templates) {
  for (std::size_t i = 0; i < variant.stages.size(); ++i) {
    auto& stage = variant.stages[i];
    if (!stage.spirv.empty()) continue;
    vk::CompileOptions options;
    options.defines = stage.plan.defines;
    options.target = vk::TargetEnv::vulkan_1_2;  // SPIR-V 1.5 runs on 1.2 and 1.3 devices alike
    try {
      stage.spirv = vk::compile_compute_shader({stage.plan.template_file, templates.text(stage.plan.template_file)},
                                               templates, options);
    } catch (const Error& e) {
      if (variant.stages.size() == 1) throw;
      throw Error(e.kind(), "stage " + std::to_string(i) + " (" + stage.plan.template_file + "): " + e.what());
    }
  }
}

}  // namespace vktune
