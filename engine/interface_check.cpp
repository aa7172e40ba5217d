#include "engine/interface_check.hpp"

#include <algorithm>
#include <set>

#include "common/error.hpp"
#include "engine/variant.hpp"
#include "harness/shader_interface.hpp"
#include "harness/specialization_values.hpp"

namespace vktune {

namespace {

// A float member pushed an integer's bits, or the other way round, reads a
// value that is not the one meant (1.0f is 1065353216): the one mismatch of
// types that changes what the shader computes. u32 and i32 agree on every
// value both hold, so a uint member given an i32 word is left alone.
std::string push_type_mismatch(const vk::ShaderInterface& interface, const std::vector<bool>& float_words) {
  for (const auto& member : interface.push_words) {
    const std::size_t word = member.offset / 4;
    const bool pushed_float = word < float_words.size() && float_words[word];
    if ((member.type == "f32") == pushed_float || member.type.empty()) continue;
    const std::string name = member.name.empty() ? "at offset " + std::to_string(member.offset)
                                                 : "'" + member.name + "' (offset " + std::to_string(member.offset) + ")";
    return "the shader's push-constant member " + name + " is " + member.type + ", but the spec pushes word " +
           std::to_string(word) + (pushed_float ? " as f32" : " as an integer") +
           (pushed_float ? "" : ": give it \"type\": \"f32\"");
  }
  return {};
}

// The same for a uniform block's members: a float member given an integer
// word of the spec's block, or the other way round.
std::string uniform_type_mismatch(const vk::ShaderInterface& interface,
                                  const std::vector<std::pair<std::uint32_t, std::vector<bool>>>& float_words) {
  for (const auto& b : interface.bindings) {
    const auto spec = std::find_if(float_words.begin(), float_words.end(),
                                   [&](const auto& f) { return b.set == 0 && f.first == b.binding; });
    if (b.kind != "uniform buffer" || spec == float_words.end()) continue;
    for (const auto& member : b.members) {
      if (member.type != "f32" && member.type != "u32" && member.type != "i32") continue;
      for (std::uint32_t lane = 0; lane < member.lanes; ++lane) {
        const std::size_t word = member.offset / 4 + lane;
        const bool given_float = word < spec->second.size() && spec->second[word];
        if ((member.type == "f32") == given_float || word >= spec->second.size()) continue;
        const std::string name = member.name.empty() ? "at offset " + std::to_string(member.offset)
                                                     : "'" + member.name + "' (offset " + std::to_string(member.offset) + ")";
        return "the shader's uniform member " + name + " of binding " + std::to_string(b.binding) + " is " +
               (member.lanes > 1 ? "a vector of " : "") + member.type + ", but the spec's block gives byte " +
               std::to_string(4 * word) + (given_float ? " a float" : " an integer") +
               (given_float ? "" : ": give the spec's member a float type (f32, vec2, ...)");
      }
    }
  }
  return {};
}

// The values of the baseline's path that reach a stage's specialization
// constants, each against the constant's type: every parameter varied alone
// from the baseline (a config the kernel refuses to plan is skipped; its
// variants fail on their own). "" or the first problem.
std::string constant_values_problem(const kernels::Kernel& kernel, const kernels::Config& baseline,
                                    const kernels::Shape& shape, const std::vector<vk::ShaderInterface>& interfaces,
                                    const std::vector<std::string>& templates) {
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  // A space of one path keeps none in `paths`: effective_paths spells it out.
  const auto implicit = space.effective_paths();
  const auto* path = space.paths.empty() ? &implicit.front() : space.path_of(baseline);
  if (path == nullptr) return {};
  for (const auto& parameter : path->parameters) {
    for (const int value : parameter.values) {
      auto config = baseline;
      config[parameter.name] = value;
      std::vector<kernels::ShaderPlan> plans;
      try {
        plans = kernel.stages(config, shape);
      } catch (const Error&) {
        continue;
      }
      for (std::size_t s = 0; s < plans.size() && s < interfaces.size(); ++s) {
        if (plans[s].template_file != templates[s]) continue;  // another module than the one read
        auto constants = plans[s].specialization;
        if (auto problem = vk::typed_specialization(interfaces[s], constants); !problem.empty()) {
          return plans[s].template_file + ": " + problem + " (parameter '" + parameter.name + "' = " +
                 std::to_string(value) + ")";
        }
      }
    }
  }
  return {};
}

}  // namespace

void typed_stage_specialization(const std::vector<std::uint32_t>& spirv,
                                std::vector<std::pair<std::uint32_t, std::uint32_t>>& constants) {
  if (constants.empty()) return;
  std::string unread;
  const auto interface = vk::reflect_interface(spirv, unread);
  if (!interface) return;
  if (auto problem = vk::typed_specialization(*interface, constants); !problem.empty()) {
    throw Error(ErrorKind::usage, problem);
  }
}

std::string baseline_interface_problem(const kernels::Kernel& kernel, const TemplateLibrary& templates) {
  std::set<std::size_t> spaces_done;
  for (const auto& shape : kernel.default_shapes()) {
    const auto space = kernel.space_index(shape);
    if (!spaces_done.insert(space).second) continue;
    auto variant = describe_variant(kernel, kernel.baseline(shape), shape, templates);
    try {
      compile_variant(variant, templates);
    } catch (const Error&) {
      continue;  // the variant's own compile error says what is wrong
    }
    const auto buffers = static_cast<std::uint32_t>(kernel.spaces().at(space).bindings.size());
    std::vector<vk::ShaderInterface> interfaces;
    std::vector<std::string> template_files;
    for (const auto& stage : variant.stages) {
      std::string unread;
      const auto interface = vk::reflect_interface(stage.spirv, unread);
      if (!interface) break;  // the stages after it are not matched to their plans then
      interfaces.push_back(*interface);
      template_files.push_back(stage.plan.template_file);
      const auto words = stage.plan.push_constants.empty() ? shape.size() : stage.plan.push_constants.size();
      auto problem = vk::interface_mismatch(*interface, buffers, stage.plan.uniform_buffers, stage.plan.images,
                                            static_cast<std::uint32_t>(4 * words), false);
      if (problem.empty()) problem = push_type_mismatch(*interface, kernel.spaces().at(space).float_push_words);
      if (problem.empty()) problem = uniform_type_mismatch(*interface, kernel.spaces().at(space).float_uniform_words);
      if (!problem.empty()) return stage.plan.template_file + ": " + problem;
    }
    const auto baseline = kernel.baseline(shape);
    if (auto problem = constant_values_problem(kernel, baseline, shape, interfaces, template_files); !problem.empty()) return problem;
  }
  return {};
}

}  // namespace vktune
