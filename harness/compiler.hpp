#pragma once
// GLSL compute shader -> SPIR-V through shaderc, with #include resolution and
// parameters passed as macro definitions. Compile errors name the template,
// the line and the defines that produced them.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vktune::vk {

// Where `#include "name"` finds its text. Names are relative to the include
// root (templates/include/ in the source tree).
class IncludeResolver {
 public:
  virtual ~IncludeResolver() = default;
  virtual std::optional<std::string> read(const std::string& name) const = 0;
};

// Includes from a directory on disk.
class DirectoryIncludes : public IncludeResolver {
 public:
  explicit DirectoryIncludes(std::string directory) : directory_(std::move(directory)) {}
  std::optional<std::string> read(const std::string& name) const override;

 private:
  std::string directory_;
};

// Includes from an in-memory map (embedded templates, tests).
class MapIncludes : public IncludeResolver {
 public:
  explicit MapIncludes(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  std::optional<std::string> read(const std::string& name) const override;

 private:
  std::map<std::string, std::string> files_;
};

enum class TargetEnv { vulkan_1_2, vulkan_1_3 };

// shaderc's SPIR-V optimisation: its performance passes (spirv-opt -O) or
// none. The passes are most of a compile (a 4x-unrolled quantized
// matrix-vector product: 10.8-11.3 s with them, 0.08-0.09 s without,
// ci/logs/2026-11-29-spirv-opt-compile-time.txt), and every driver
// optimises the SPIR-V again. One setting per process, from the environment
// (VKTUNE_SPIRV_OPT=performance, the default, or none) so that the isolated
// workers a tune starts inherit it; compiler_version() names it, so the
// SPIR-V of each setting is a variant of its own in a database.
enum class SpirvOptimization { performance, none };
// Error(usage) naming the variable for another value.
SpirvOptimization parse_spirv_optimization(const char* text);
SpirvOptimization spirv_optimization();  // this process's, read once

struct CompileOptions {
  std::vector<std::pair<std::string, std::string>> defines;  // NAME -> value
  TargetEnv target = TargetEnv::vulkan_1_2;
  bool optimize = true;  // and spirv_optimization() is `performance`
};

struct ShaderSource {
  std::string name;  // file name, used in error messages and #line
  std::string text;
};

// Bounds on what one compile may read. shaderc runs in the calling thread and
// cannot be interrupted, so the bound on its time and memory is a bound on
// its input: an include nested deeper than kMaxIncludeDepth, a file included
// while it is still open (a loop, which otherwise recurses until memory runs
// out), or a source that grows past kMaxExpandedSourceBytes with its includes
// (each inclusion counted) is refused before glslang parses it. The largest
// built-in template with all its includes is under 100 KiB, and glslang
// compiles 1 MiB of GLSL in tens of seconds, not hours. Macro expansion is not
// bounded by this; a template that abuses it is its author's to fix.
inline constexpr std::size_t kMaxIncludeDepth = 16;
inline constexpr std::size_t kMaxExpandedSourceBytes = std::size_t{1} << 20;

// Where the process compiles for VK_KHR_cooperative_matrix
// (harness/coopmat_choice.hpp), the module goes through the NV-to-KHR pass;
// a module the pass refuses is an Error(compile) with its reason.
// Throws Error(compile) with shaderc's messages (file:line: error: ...) and
// the defines used; an include loop names its chain ("a.glsl -> b.glsl ->
// a.glsl"), a too deep or too large source says which bound it crossed.
std::vector<std::uint32_t> compile_compute_shader(const ShaderSource& source, const IncludeResolver& includes,
                                                  const CompileOptions& options);

// Identifies the compiler for variant hashes: shaderc package version and
// the SPIR-V version it emits, " -O0" without SPIR-V optimisation, and
// " +coopmat-khr-pass.N" where the process compiles for
// VK_KHR_cooperative_matrix (harness/coopmat_choice.hpp).
std::string compiler_version();
std::string compiler_version(SpirvOptimization optimization);

// "-DNAME=value -D..." for messages and logs.
std::string describe_defines(const std::vector<std::pair<std::string, std::string>>& defines);

}  // namespace vktune::vk
