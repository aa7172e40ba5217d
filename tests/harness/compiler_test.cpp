// GLSL -> SPIR-V: defines, includes (in memory and on disk), target
// environments, and error messages that name file, line and defines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "common/error.hpp"
#include "harness/compiler.hpp"
#include "tests/harness/vulkan_test.hpp"

namespace vktune::test {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kSpirvMagic = 0x07230203;

const char* kUsesDefines = R"(#version 450
layout(local_size_x = WG) in;
layout(std430, binding = 0) buffer Out { float values[]; };
void main() { values[gl_GlobalInvocationID.x] = SCALE; }
)";

const char* kUsesInclude = R"(#version 450
#extension GL_GOOGLE_include_directive : require
#include "helpers.glsl"
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { float values[]; };
void main() { values[0] = twice(21.0); }
)";

// A temporary directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::random_device entropy;
    path_ = fs::temp_directory_path() / ("vktune-compiler-test-" + std::to_string(entropy()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }

 private:
  fs::path path_;
};

Error compile_error(const vk::ShaderSource& source, const vk::IncludeResolver& includes,
                    const vk::CompileOptions& options) {
  const Error error = capture_error([&] { vk::compile_compute_shader(source, includes, options); });
  EXPECT_EQ(error.kind(), ErrorKind::compile) << error.what();
  return error;
}

TEST(Compiler, CompilesWithDefines) {
  vk::CompileOptions options;
  options.defines = {{"WG", "64"}, {"SCALE", "2.5"}};
  const auto spirv = vk::compile_compute_shader({"defines.comp", kUsesDefines}, vk::MapIncludes({}), options);
  ASSERT_GT(spirv.size(), 5u);
  EXPECT_EQ(spirv[0], kSpirvMagic);
}

TEST(Compiler, DefinesChangeTheOutput) {
  vk::CompileOptions a, b;
  a.defines = {{"WG", "64"}, {"SCALE", "2.5"}};
  b.defines = {{"WG", "64"}, {"SCALE", "3.5"}};
  const vk::ShaderSource source{"defines.comp", kUsesDefines};
  const auto first = vk::compile_compute_shader(source, vk::MapIncludes({}), a);
  EXPECT_EQ(first, vk::compile_compute_shader(source, vk::MapIncludes({}), a));
  EXPECT_NE(first, vk::compile_compute_shader(source, vk::MapIncludes({}), b));
}

TEST(Compiler, MissingDefineIsACompileError) {
  vk::CompileOptions options;
  options.defines = {{"WG", "64"}};
  const Error error = compile_error({"defines.comp", kUsesDefines}, vk::MapIncludes({}), options);
  const std::string message = error.what();
  EXPECT_NE(message.find("SCALE"), std::string::npos) << message;
  EXPECT_NE(message.find("-DWG=64"), std::string::npos) << message;
}

TEST(Compiler, TargetEnvironmentSelectsTheSpirvVersion) {
  vk::CompileOptions options;
  options.defines = {{"WG", "32"}, {"SCALE", "1.0"}};
  options.target = vk::TargetEnv::vulkan_1_2;
  const auto v12 = vk::compile_compute_shader({"t.comp", kUsesDefines}, vk::MapIncludes({}), options);
  options.target = vk::TargetEnv::vulkan_1_3;
  const auto v13 = vk::compile_compute_shader({"t.comp", kUsesDefines}, vk::MapIncludes({}), options);
  EXPECT_EQ(v12.at(1), 0x00010500u);  // SPIR-V 1.5
  EXPECT_EQ(v13.at(1), 0x00010600u);  // SPIR-V 1.6
}

TEST(Compiler, OptimisationCanBeTurnedOff) {
  vk::CompileOptions options;
  options.defines = {{"WG", "32"}, {"SCALE", "1.0"}};
  options.optimize = false;
  const auto spirv = vk::compile_compute_shader({"t.comp", kUsesDefines}, vk::MapIncludes({}), options);
  EXPECT_EQ(spirv.at(0), kSpirvMagic);
}

TEST(Compiler, IncludesFromMemory) {
  vk::MapIncludes includes({{"helpers.glsl", "#include \"inner.glsl\"\nfloat twice(float x) { return x * TWO; }\n"},
                            {"inner.glsl", "#define TWO 2.0\n"}});
  const auto spirv = vk::compile_compute_shader({"include.comp", kUsesInclude}, includes, {});
  EXPECT_EQ(spirv.at(0), kSpirvMagic);
}

TEST(Compiler, IncludesFromADirectory) {
  TempDir dir;
  dir.write("helpers.glsl", "#include \"sub/inner.glsl\"\nfloat twice(float x) { return x * TWO; }\n");
  dir.write("sub/inner.glsl", "#define TWO 2.0\n");
  vk::DirectoryIncludes includes(dir.path().string());
  EXPECT_TRUE(includes.read("sub/inner.glsl").has_value());
  EXPECT_FALSE(includes.read("absent.glsl").has_value());
  const auto spirv = vk::compile_compute_shader({"include.comp", kUsesInclude}, includes, {});
  EXPECT_EQ(spirv.at(0), kSpirvMagic);
}

TEST(Compiler, MissingIncludeIsNamed) {
  const Error from_map = compile_error({"include.comp", kUsesInclude}, vk::MapIncludes({}), {});
  EXPECT_NE(std::string(from_map.what()).find("helpers.glsl"), std::string::npos) << from_map.what();
  EXPECT_NE(std::string(from_map.what()).find("include.comp"), std::string::npos) << from_map.what();

  TempDir empty;
  const Error from_dir = compile_error({"include.comp", kUsesInclude}, vk::DirectoryIncludes(empty.path().string()), {});
  EXPECT_NE(std::string(from_dir.what()).find("helpers.glsl"), std::string::npos) << from_dir.what();
}

TEST(Compiler, SyntaxErrorNamesFileLineAndDefines) {
  const char* broken = R"(#version 450
layout(local_size_x = WG) in;
layout(std430, binding = 0) buffer Out { float values[]; };

void main() {
  float x = 1.0;
  float y = x +* 2.0;
  values[gl_GlobalInvocationID.x] = y;
}
)";
  vk::CompileOptions options;
  options.defines = {{"WG", "64"}, {"A_SCALE", "2.5"}};
  const Error error = compile_error({"broken.comp", broken}, vk::MapIncludes({}), options);
  const std::string message = error.what();
  EXPECT_NE(message.find("broken.comp:7"), std::string::npos) << message;
  EXPECT_NE(message.find("-DWG=64"), std::string::npos) << message;
  EXPECT_NE(message.find("-DA_SCALE=2.5"), std::string::npos) << message;
}

TEST(Compiler, ErrorInAnIncludeNamesTheIncludedFile) {
  vk::MapIncludes includes(std::map<std::string, std::string>{{"helpers.glsl", "// helpers\nfloat twice(float x) { return x * ; }\n"}});
  const Error error = compile_error({"include.comp", kUsesInclude}, includes, {});
  EXPECT_NE(std::string(error.what()).find("helpers.glsl:2"), std::string::npos) << error.what();
}

TEST(Compiler, DescribeDefines) {
  EXPECT_EQ(vk::describe_defines({}), "(no defines)");
  EXPECT_EQ(vk::describe_defines({{"A", "1"}, {"B_C", "2.5"}}), "-DA=1 -DB_C=2.5");
}

TEST(Compiler, VersionNamesShaderc) {
  const std::string version = vk::compiler_version();
  EXPECT_NE(version.find("shaderc"), std::string::npos) << version;
  EXPECT_NE(version.find("spv"), std::string::npos) << version;
}

// Without SPIR-V optimisation a variant's SPIR-V differs, so its hash must:
// the setting is part of the compiler's identity, and the default's text is
// the one every stored variant was hashed with.
TEST(Compiler, TheSpirvOptimisationSettingIsPartOfTheVersionAndParsedStrictly) {
  using vk::SpirvOptimization;
  const auto with = vk::compiler_version(SpirvOptimization::performance);
  const auto without = vk::compiler_version(SpirvOptimization::none);
  EXPECT_EQ(without, with + " -O0");
  EXPECT_EQ(with.find("-O"), std::string::npos) << with;
  EXPECT_EQ(vk::parse_spirv_optimization(nullptr), SpirvOptimization::performance);
  EXPECT_EQ(vk::parse_spirv_optimization(""), SpirvOptimization::performance);
  EXPECT_EQ(vk::parse_spirv_optimization("performance"), SpirvOptimization::performance);
  EXPECT_EQ(vk::parse_spirv_optimization("none"), SpirvOptimization::none);
  try {
    vk::parse_spirv_optimization("O0");
    FAIL() << "accepted O0";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("VKTUNE_SPIRV_OPT"), std::string::npos) << e.what();
  }
}

// The passes inline twice() and fold 2 * 21 to 42; glslang alone keeps the
// function and its call, so the module is larger.
TEST(Compiler, WithoutOptimisationTheModuleKeepsWhatThePassesRemove) {
  vk::MapIncludes includes(std::map<std::string, std::string>{{"helpers.glsl", "float twice(float x) { return 2.0 * x; }\n"}});
  vk::CompileOptions with, without;
  without.optimize = false;
  const auto optimised = vk::compile_compute_shader({"include.comp", kUsesInclude}, includes, with);
  const auto plain = vk::compile_compute_shader({"include.comp", kUsesInclude}, includes, without);
  EXPECT_GT(plain.size(), optimised.size());
}

}  // namespace
}  // namespace vktune::test
