#pragma once
// GLSL compute shader -> SPIR-V through shaderc, with #include resolution and
// parameters passed as macro definitions. Compile errors name the template,
// the line and the defines that produced them.
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

struct CompileOptions {
  std::vector<std::pair<std::string, std::string>> defines;  // NAME -> value
  TargetEnv target = TargetEnv::vulkan_1_2;
  bool optimize = true;
};

struct ShaderSource {
  std::string name;  // file name, used in error messages and #line
  std::string text;
};

// Throws Error(compile) with shaderc's messages (file:line: error: ...) and
// the defines used.
std::vector<std::uint32_t> compile_compute_shader(const ShaderSource& source, const IncludeResolver& includes,
                                                  const CompileOptions& options);

// Identifies the compiler for variant hashes: shaderc package version and
// the SPIR-V version it emits.
std::string compiler_version();

// "-DNAME=value -D..." for messages and logs.
std::string describe_defines(const std::vector<std::pair<std::string, std::string>>& defines);

}  // namespace vktune::vk
