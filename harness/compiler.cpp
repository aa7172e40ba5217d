#include "harness/compiler.hpp"

#include <shaderc/shaderc.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "common/error.hpp"
#include "harness/coopmat_choice.hpp"
#include "harness/coopmat_khr.hpp"

namespace vktune::vk {

std::optional<std::string> DirectoryIncludes::read(const std::string& name) const {
  std::ifstream file(directory_ + "/" + name, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::optional<std::string> MapIncludes::read(const std::string& name) const {
  auto it = files_.find(name);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

namespace {

// shaderc asks for include results as raw pointers it hands back later; the
// strings live in this holder until ReleaseInclude.
struct IncludeHolder {
  shaderc_include_result result{};
  std::string name, content;
};

class Includer : public shaderc::CompileOptions::IncluderInterface {
 public:
  Includer(const IncludeResolver& resolver, std::string root, std::size_t root_bytes)
      : resolver_(resolver), stack_{std::move(root)}, expanded_bytes_(root_bytes) {}

  // glslang resolves includes depth first: each GetInclude opens a file
  // inside `requesting`, which is on top of the stack once the files it
  // finished with have been released. The stack is the chain of open files.
  shaderc_include_result* GetInclude(const char* requested, shaderc_include_type, const char* requesting,
                                     size_t) override {
    auto holder = std::make_unique<IncludeHolder>();
    while (stack_.size() > 1 && stack_.back() != requesting) stack_.pop_back();
    if (auto problem = refuse(requested)) {
      // An empty source name tells shaderc the include failed; the content
      // becomes its error message.
      holder->content = std::move(*problem);
    } else if (auto text = resolver_.read(requested)) {
      expanded_bytes_ += text->size();
      if (expanded_bytes_ > kMaxExpandedSourceBytes) {
        holder->content = "including \"" + std::string(requested) + "\" makes the source larger than " +
                          std::to_string(kMaxExpandedSourceBytes >> 10) + " KiB with its includes";
      } else {
        holder->name = requested;
        holder->content = std::move(*text);
        stack_.push_back(requested);
      }
    } else {
      holder->content = std::string("cannot find include \"") + requested + "\" (requested by " + requesting +
                        "; looked in the templates' include directory)";
    }
    holder->result.source_name = holder->name.c_str();
    holder->result.source_name_length = holder->name.size();
    holder->result.content = holder->content.c_str();
    holder->result.content_length = holder->content.size();
    holder->result.user_data = holder.get();
    return &holder.release()->result;
  }

  void ReleaseInclude(shaderc_include_result* result) override {
    delete static_cast<IncludeHolder*>(result->user_data);
  }

 private:
  std::optional<std::string> refuse(const std::string& requested) const {
    const bool loop = std::find(stack_.begin(), stack_.end(), requested) != stack_.end();
    if (!loop && stack_.size() <= kMaxIncludeDepth) return std::nullopt;
    std::string chain;
    for (const auto& name : stack_) chain += name + " -> ";
    chain += requested;
    if (loop) return "include loop: " + chain + " (a file may not include itself, directly or through others)";
    return "includes nested deeper than " + std::to_string(kMaxIncludeDepth) + ": " + chain;
  }

  const IncludeResolver& resolver_;
  std::vector<std::string> stack_;  // the source, then each include still open
  std::size_t expanded_bytes_;      // the source and every inclusion so far
};

}  // namespace

std::string describe_defines(const std::vector<std::pair<std::string, std::string>>& defines) {
  std::string text;
  for (const auto& [name, value] : defines) {
    if (!text.empty()) text += ' ';
    text += "-D" + name + "=" + value;
  }
  return text.empty() ? "(no defines)" : text;
}

// One compiler for the whole process. glslang builds its tables of built-in
// functions when the first compiler is made and drops them when the last
// one goes, so a compiler per compile rebuilt them every time: a compile of
// add.comp took 98-131 ms that way and 7.5-9 ms with a compiler kept, and a
// covering check of eight kernels on lavapipe 43-45 s of CPU against 75-79
// (ci/logs/2026-11-29-shaderc-compiler-kept.txt). shaderc's compile is const
// on the compiler and safe from many threads at once. Never destroyed: a
// thread still compiling while the process exits must not find it gone.
namespace {
const shaderc::Compiler& process_compiler() {
  static const shaderc::Compiler* const compiler = new shaderc::Compiler;
  return *compiler;
}
}  // namespace

std::vector<std::uint32_t> compile_compute_shader(const ShaderSource& source, const IncludeResolver& includes,
                                                  const CompileOptions& options) {
  const auto& compiler = process_compiler();
  if (!compiler.IsValid()) throw Error(ErrorKind::internal, "shaderc compiler could not be initialised");
  shaderc::CompileOptions shaderc_options;
  for (const auto& [name, value] : options.defines) shaderc_options.AddMacroDefinition(name, value);
  // For KHR cooperative matrices, whose Use a value keeps, a template may
  // take another way where an NV module changes one (harness/coopmat_choice.hpp).
  const bool for_khr = coopmat_spirv() == CooperativeMatrixExtension::khr;
  if (for_khr) shaderc_options.AddMacroDefinition(kCoopmatKhrDefine, "1");
  shaderc_options.SetTargetEnvironment(shaderc_target_env_vulkan, options.target == TargetEnv::vulkan_1_3
                                                                      ? shaderc_env_version_vulkan_1_3
                                                                      : shaderc_env_version_vulkan_1_2);
  shaderc_options.SetTargetSpirv(options.target == TargetEnv::vulkan_1_3 ? shaderc_spirv_version_1_6
                                                                         : shaderc_spirv_version_1_5);
  const bool optimize = options.optimize && spirv_optimization() == SpirvOptimization::performance;
  shaderc_options.SetOptimizationLevel(optimize ? shaderc_optimization_level_performance
                                                : shaderc_optimization_level_zero);
  if (source.text.size() > kMaxExpandedSourceBytes) {
    throw Error(ErrorKind::compile, source.name + " is " + std::to_string(source.text.size() >> 10) +
                                        " KiB, over the " + std::to_string(kMaxExpandedSourceBytes >> 10) +
                                        " KiB a template may have with its includes");
  }
  shaderc_options.SetIncluder(std::make_unique<Includer>(includes, source.name, source.text.size()));

  auto result = compiler.CompileGlslToSpv(source.text, shaderc_compute_shader, source.name.c_str(), shaderc_options);
  if (result.GetCompilationStatus() != shaderc_compilation_status_success) {
    std::string messages = result.GetErrorMessage();
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    throw Error(ErrorKind::compile,
                "compile error in " + source.name + " with " + describe_defines(options.defines) + ":\n" + messages);
  }
  std::vector<std::uint32_t> spirv(result.cbegin(), result.cend());
  if (!for_khr) return spirv;
  // A module without NV cooperative matrices comes back unchanged.
  auto khr = nv_to_khr_cooperative_matrix(spirv);
  if (khr.spirv.empty()) {
    throw Error(ErrorKind::compile, "the NV-to-KHR cooperative-matrix pass refused " + source.name + " with " +
                                        describe_defines(options.defines) + ": " + khr.refusal);
  }
  return std::move(khr.spirv);
}

SpirvOptimization parse_spirv_optimization(const char* text) {
  const std::string value = text ? text : "";
  if (value.empty() || value == "performance") return SpirvOptimization::performance;
  if (value == "none") return SpirvOptimization::none;
  throw Error(ErrorKind::usage, "VKTUNE_SPIRV_OPT is '" + value + "': performance (the default) or none");
}

SpirvOptimization spirv_optimization() {
  static const SpirvOptimization setting = parse_spirv_optimization(std::getenv("VKTUNE_SPIRV_OPT"));
  return setting;
}

std::string compiler_version(SpirvOptimization optimization) {
  unsigned int version = 0, revision = 0;
  shaderc_get_spv_version(&version, &revision);
  // The default's text is what every stored variant was hashed with; the
  // KHR pass, where it runs, is named with its version.
  return std::string("shaderc ") + VKTUNE_SHADERC_VERSION + " (spv " + std::to_string(version) + "." +
         std::to_string(revision) + ")" + (optimization == SpirvOptimization::none ? " -O0" : "") +
         (coopmat_spirv() == CooperativeMatrixExtension::khr
              ? " +coopmat-khr-pass." + std::to_string(kCoopmatKhrPassVersion)
              : "");
}

std::string compiler_version() { return compiler_version(spirv_optimization()); }

}  // namespace vktune::vk
