// A spec file where a kernel name goes, through the built vktune: `list`
// describes it, a malformed spec is one stderr line naming the file and the
// field with exit 2 before any device is opened, a missing spec file is bad
// input too, and a spec kernel tuned on the test device exports a table
// whose winner the runtime library loads and finds with the spec's launch
// facts, its own push-constant words included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "../results/cli_run.hpp"
#include "vktune_runtime.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using results::testing::quoted;
using results::testing::run_vktune;

const fs::path kSoftmax = fs::path(VKTUNE_EXAMPLES_DIR) / "pytorch_softmax" / "softmax.json";

// A spec of y = a + b over n values of `type` (one sub-space running
// add.comp with WG 32 or 64) within the given tolerance.
nlohmann::json add_spec(const std::string& name, const std::string& type, double rel_l2, double max_rel) {
  const int element = type == "f16" ? 2 : 4;
  return {{"name", name},
          {"shape", {"n"}},
          {"default_shapes", {{37}}},
          {"subspaces",
           {{{"name", "only"},
             {"template", "add.comp"},
             {"parameters", {{{"name", "WG"}, {"values", {32, 64}}}}},
             {"local_size", {"WG", 1, 1}},
             {"stages", {{{"workgroups", {{{"dim", "n"}, {"per_workgroup", "WG"}}, 1, 1}}}}}}}},
          {"buffers",
           {{{"name", "a"}, {"binding", 0}, {"type", type}, {"size", "n"}, {"role", "input"}},
            {{"name", "b"}, {"binding", 1}, {"type", type}, {"size", "n"}, {"role", "input"}},
            {{"name", "y"}, {"binding", 2}, {"type", type}, {"size", "n"}, {"role", "output"}}}},
          {"metrics", {{"bytes", std::to_string(3 * element) + " * n"}, {"flops", "n"}}},
          {"reference", {{"op", "add"}, {"a", "a"}, {"b", "b"}, {"y", "y"}}},
          {"tolerance", {{"rel_l2", rel_l2}, {"max_rel", max_rel}}}};
}

// add_spec's template (add.comp): `declarations` after its three buffers,
// `body` after its sum.
std::string add_shader(const std::string& declarations, const std::string& body) {
  return "#version 450\nlayout(local_size_x = WG) in;\n"
         "layout(push_constant) uniform P { uint n; };\n"
         "layout(binding = 0) readonly buffer A { float a[]; };\n"
         "layout(binding = 1) readonly buffer B { float b[]; };\n"
         "layout(binding = 2) writeonly buffer Y { float y[]; };\n" +
         declarations + "void main() {\n  const uint i = gl_GlobalInvocationID.x;\n  if (i < n) y[i] = a[i] + b[i];\n" +
         body + "}\n";
}

class SpecCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vktune_spec_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  results::testing::CliRun run(const std::string& arguments) { return run_vktune(arguments, dir_ / "stderr.txt"); }
  // Another program of the build, its output kept apart the same way.
  results::testing::CliRun run_program(const std::string& command) {
    const auto out = dir_ / "program_out.txt", err = dir_ / "program_err.txt";
    const int status = std::system((command + " >" + quoted(out) + " 2>" + quoted(err)).c_str());
    results::testing::CliRun r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream o(out), e(err);
    r.out.assign(std::istreambuf_iterator<char>(o), std::istreambuf_iterator<char>());
    r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
    return r;
  }
  fs::path dir_;
};

TEST_F(SpecCli, ListDescribesASpecKernel) {
  const auto r = run("list " + quoted(kSoftmax));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pytorch_softmax"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("WG_SIZE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no-idle-lanes"), std::string::npos) << r.out;
  // The same file twice is one kernel, not a clash of names.
  EXPECT_EQ(run("list " + quoted(kSoftmax) + " " + quoted(kSoftmax)).exit_code, 0);
  // A spec may not take a built-in kernel's name.
  std::ifstream in(kSoftmax);
  auto spec = nlohmann::json::parse(in, nullptr, true, true);
  spec["name"] = "softmax";
  fs::copy_file(kSoftmax.parent_path() / "softmax.comp", dir_ / "softmax.comp");
  std::ofstream(dir_ / "taken.json") << spec.dump();
  const auto taken = run("list " + quoted(dir_ / "taken.json"));
  EXPECT_EQ(taken.exit_code, 2);
  EXPECT_NE(taken.err.find("/name: a kernel named 'softmax' already exists"), std::string::npos) << taken.err;
}

TEST_F(SpecCli, AMalformedSpecIsOneLineAndExitTwoBeforeAnyDevice) {
  std::ifstream in(kSoftmax);
  auto spec = nlohmann::json::parse(in, nullptr, true, true);
  spec["buffers"][1]["role"] = "inout";
  fs::copy_file(kSoftmax.parent_path() / "softmax.comp", dir_ / "softmax.comp");
  std::ofstream(dir_ / "bad.json") << spec.dump();
  // A device index no machine has: the spec must be refused before it matters.
  for (const std::string command : {"", "check "}) {
    const auto r = run(command + quoted(dir_ / "bad.json") + " --device 999");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find((dir_ / "bad.json").string() + ": /buffers/1/role: unknown role 'inout'"), std::string::npos)
        << r.err;
  }
}

// A shape a convolution example cannot take (a stride other than 1 or 2,
// output extents that do not follow from H, W and S, a pointwise epilogue R
// other than 1 (linear) or 2 (ReLU6)) is one line naming the shape rule it
// breaks, and exit 2 before any device is opened.
TEST_F(SpecCli, TheConvolutionExamplesRefuseBadShapes) {
  const auto depthwise = fs::path(VKTUNE_EXAMPLES_DIR) / "mobilenet_depthwise" / "depthwise.json";
  const auto pointwise = fs::path(VKTUNE_EXAMPLES_DIR) / "mobilenet_pointwise" / "pointwise.json";
  const auto stem = fs::path(VKTUNE_EXAMPLES_DIR) / "mobilenet_stem" / "stem.json";
  const std::tuple<fs::path, std::string, std::string> cases[] = {
      {depthwise, "1,7,7,13,3,3,3", "/shape_rules/0: shape 1,7,7,13,3,3,3 breaks the rule 'S == 1 || S == 2'"},
      {depthwise, "1,7,7,13,2,7,7",
       "/shape_rules/1: shape 1,7,7,13,2,7,7 breaks the rule 'Ho == floor((H - 1) / S) + 1'"},
      {depthwise, "1,7,8,13,2,4,3",
       "/shape_rules/2: shape 1,7,8,13,2,4,3 breaks the rule 'Wo == floor((W - 1) / S) + 1'"},
      {pointwise, "49,13,9,3", "/shape_rules/0: shape 49,13,9,3 breaks the rule 'R == 1 || R == 2'"},
      {stem, "1,9,7,3,5,1,9,7", "/shape_rules/0: shape 1,9,7,3,5,1,9,7 breaks the rule 'S == 2'"},
      {stem, "1,9,7,3,5,2,9,4",
       "/shape_rules/1: shape 1,9,7,3,5,2,9,4 breaks the rule 'Ho == floor((H - 1) / S) + 1'"},
      {stem, "1,9,7,3,5,2,5,7",
       "/shape_rules/2: shape 1,9,7,3,5,2,5,7 breaks the rule 'Wo == floor((W - 1) / S) + 1'"}};
  for (const auto& [spec, shape, line] : cases) {
    for (const std::string command : {"", "check "}) {
      const auto r = run(command + quoted(spec) + " --device 999 --shape " + shape);
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find(spec.string() + ": " + line), std::string::npos) << r.err;
    }
  }
}

// y = a + b over an odd count of halves (74 bytes: the poison's last half
// word is not a whole word). The right shader passes `vktune check`; one that
// leaves the last half unwritten, or writes a wrong value, fails with the
// reason (exit 1). `vktune list` shows a failing 16-bit legality rule's reason.
TEST_F(SpecCli, F16OutputsAreCheckedAndAnUnwrittenOrWrongHalfFails) {
  nlohmann::json spec = add_spec("t_add_f16", "f16", 6e-4, 1e-3);
  spec["subspaces"][0]["legality"] = {
      {{"rule", "has_storage_16bit"}, {"reason", "fp16 buffers need storageBuffer16BitAccess"}}};
  std::ofstream(dir_ / "add.json") << spec.dump();
  auto shader = [](const std::string& store) {
    return "#version 450\n#extension GL_EXT_shader_16bit_storage : require\n"
           "layout(local_size_x = WG) in;\nlayout(push_constant) uniform P { uint n; };\n"
           "layout(binding = 0) readonly buffer A { float16_t a[]; };\n"
           "layout(binding = 1) readonly buffer B { float16_t b[]; };\n"
           "layout(binding = 2) writeonly buffer Y { float16_t y[]; };\n"
           "void main() {\n  const uint i = gl_GlobalInvocationID.x;\n  " +
           store + "\n}\n";
  };
  const std::string check = "check " + quoted(dir_ / "add.json") + " --device 0 --seed 3";
  std::ofstream(dir_ / "add.comp") << shader("if (i < n) y[i] = float16_t(float(a[i]) + float(b[i]));");
  const auto right = run(check);
  EXPECT_EQ(right.exit_code, 0) << right.out << right.err;

  std::ofstream(dir_ / "add.comp") << shader("if (i + 1u < n) y[i] = float16_t(float(a[i]) + float(b[i]));");
  const auto unwritten = run(check);
  EXPECT_EQ(unwritten.exit_code, 1) << unwritten.out << unwritten.err;
  EXPECT_NE((unwritten.out + unwritten.err).find("1 of 37 outputs are NaN/Inf (first at index 36"), std::string::npos)
      << unwritten.out << unwritten.err;

  // Off by 1/256 of the sum: eight half-ulps, past the tolerance.
  std::ofstream(dir_ / "add.comp") << shader("if (i < n) y[i] = float16_t((float(a[i]) + float(b[i])) * 1.004);");
  const auto wrong = run(check);
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out << wrong.err;
  EXPECT_NE((wrong.out + wrong.err).find("relative L2 error"), std::string::npos) << wrong.out << wrong.err;

  // The test device has 16-bit storage: a rule requiring its absence fails
  // on every config, and list says why.
  auto lacking = spec;
  lacking["subspaces"][0]["legality"][0]["rule"] = "has_storage_16bit == 0";
  std::ofstream(dir_ / "add.json") << lacking.dump();
  const auto list = run("list " + quoted(dir_ / "add.json") + " --device 0");
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("0 valid of 2"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("illegal: 2 fp16 buffers need storageBuffer16BitAccess"), std::string::npos) << list.out;
}

// A store 8 MB past y (beyond every guard band: lavapipe drops it) passes
// `vktune check --bounds off` and fails `--bounds on` (the default on a CPU
// device) as out_of_bounds naming y, exit 1 (issue 40, item 12). A --bounds
// value outside its choices is exit 2.
TEST_F(SpecCli, AStoreFarPastItsBufferFailsTheBoundsInstrumentedCheck) {
  const auto spec = add_spec("t_add_far", "f32", 1e-6, 1e-6);
  std::ofstream(dir_ / "add.json") << spec.dump();
  std::ofstream(dir_ / "add.comp") << add_shader("", "  if (i == 0u) y[n + 2000000u] = 1.0;\n");
  const std::string check = "check " + quoted(dir_ / "add.json") + " --device 0 --seed 5";
  const auto plain = run(check + " --bounds off");
  EXPECT_EQ(plain.exit_code, 0) << "the bands reach 8 MB now? " << plain.out << plain.err;

  const auto bounded = run(check + " --bounds on");
  EXPECT_EQ(bounded.exit_code, 1) << bounded.out << bounded.err;
  EXPECT_NE(bounded.out.find("out_of_bounds: out of bounds: an access reached byte 8000151 of buffer 'y' (148 bytes)"),
            std::string::npos)
      << bounded.out;
  EXPECT_NE(bounded.out.find("(bounds-instrumented)"), std::string::npos) << bounded.out;

  const auto bad = run(check + " --bounds maybe");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--bounds"), std::string::npos) << bad.err;
}

// A spec whose buffers leave out one the shader uses (issue 44: such a spec
// passed check, then crashed under the validation layer) is bad input,
// refused when it is loaded: one line naming the spec, the template and the
// binding, exit 2, before any device is opened or any database written; a
// tune alike. Each pipeline still checks its module (a path the baseline
// does not take).
TEST_F(SpecCli, ABindingTheShaderUsesAndTheSpecLeavesOutIsRefusedAtLoad) {
  auto spec = add_spec("t_add_gap", "f32", 1e-6, 1e-6);
  std::ofstream(dir_ / "add.json") << spec.dump();
  std::ofstream(dir_ / "add.comp") << add_shader("layout(binding = 3) readonly buffer Extra { float extra[]; };\n",
                                                 "  if (i == 0u) y[0] += extra[0];\n");
  const auto db = dir_ / "gap.db";
  for (const auto& command : {"check " + quoted(dir_ / "add.json") + " --device 0 --seed 5",
                              quoted(dir_ / "add.json") + " --device 0 --budget 2 --db " + quoted(db)}) {
    const auto r = run(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("add.json: the shader's interface disagrees with the spec: spec/t_add_gap/add.comp: the shader "
                         "uses binding 3, a storage buffer, but the kernel binds 3 storage buffers"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists(db));
}

// A template that does not compile or computes the wrong values is a failed
// variant with its reason, as for a built-in kernel: check exits 1.
TEST_F(SpecCli, TemplateFailuresAreRecordedPerVariant) {
  fs::copy_file(kSoftmax, dir_ / "softmax.json");
  std::ifstream in(kSoftmax.parent_path() / "softmax.comp");
  const std::string shader((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string scaled = "exp(t_in[base + i + j] - row_max) * inv;";
  ASSERT_NE(shader.find(scaled), std::string::npos);

  std::string wrong = shader;
  wrong.replace(wrong.find(scaled), scaled.size(), "exp(t_in[base + i + j] - row_max) * inv * 1.01;");
  std::ofstream(dir_ / "softmax.comp") << wrong;
  auto r = run("check " + quoted(dir_ / "softmax.json") + " --device 0");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("wrong_result"), std::string::npos) << r.out;

  std::string broken = shader;
  broken.replace(broken.find(scaled), scaled.size(), "exp(t_in[base + i + j] - row_max) * undeclared_name;");
  std::ofstream(dir_ / "softmax.comp") << broken;
  r = run("check " + quoted(dir_ / "softmax.json") + " --device 0");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("undeclared_name"), std::string::npos) << r.out;
  // Every variant fails to compile the same way: one line per shape with
  // the count of the others (it was one line per variant); --json lists each.
  std::size_t fail_lines = 0;
  for (auto at = r.out.find("FAIL "); at != std::string::npos; at = r.out.find("FAIL ", at + 1)) ++fail_lines;
  EXPECT_NE(r.out.find("more variants the same way)"), std::string::npos) << r.out;
  const auto listed = run("check " + quoted(dir_ / "softmax.json") + " --device 0 --json");
  const auto failed = nlohmann::json::parse(listed.out).at("failures").size();
  EXPECT_LT(fail_lines, failed) << r.out;
  EXPECT_GT(fail_lines, 0u);
}

// A template that is a symbolic link out of the spec's folder was read and
// compiled (/etc/passwd): now refused in one line naming where it leads.
TEST_F(SpecCli, ATemplateLinkedOutOfTheSpecsFolderIsRefused) {
  fs::copy_file(kSoftmax, dir_ / "softmax.json");
  const auto outside = dir_.parent_path() / (dir_.filename().string() + "-outside.comp");
  fs::copy_file(kSoftmax.parent_path() / "softmax.comp", outside, fs::copy_options::overwrite_existing);
  fs::create_symlink(outside, dir_ / "softmax.comp");
  const auto r = run("list " + quoted(dir_ / "softmax.json"));
  fs::remove(outside);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("'softmax.comp' leads outside the spec's folder (to " + outside.string() + ")"),
            std::string::npos)
      << r.err;
  // A link that stays inside is followed as before.
  fs::remove(dir_ / "softmax.comp");
  fs::copy_file(kSoftmax.parent_path() / "softmax.comp", dir_ / "real.comp");
  fs::create_symlink(dir_ / "real.comp", dir_ / "softmax.comp");
  EXPECT_EQ(run("list " + quoted(dir_ / "softmax.json")).exit_code, 0);
}

// A shape whose buffers the device cannot hold made `check` fill gigabytes
// of host inputs and run the CPU reference before the device refused it:
// now refused at once, naming the shape and the device's memory.
TEST_F(SpecCli, AShapeTooLargeForTheDeviceIsRefusedBeforeAnyWork) {
  // 2 buffers of 2^31 - 1 floats (the most a buffer may index): 16 GiB; lavapipe offers 2 GiB.
  const auto r = run("check " + quoted(kSoftmax) + " --device 0 --shape 1,2147483647");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("pytorch_softmax shape 1,2147483647 needs "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" MiB of device memory"), std::string::npos) << r.err;
}

TEST_F(SpecCli, AMissingSpecFileIsBadInput) {
  const auto r = run(quoted(dir_ / "nothing.json") + " --device 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no such kernel spec file"), std::string::npos) << r.err;
}

TEST_F(SpecCli, SpecInitWritesASpecThatPassesTheGate) {
  const auto init = run("spec init my_add --dir " + quoted(dir_ / "k"));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  ASSERT_TRUE(fs::exists(dir_ / "k" / "my_add.json"));
  ASSERT_TRUE(fs::exists(dir_ / "k" / "my_add.comp"));
  const auto check = run("check " + quoted(dir_ / "k" / "my_add.json") + " --device 0");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(" 0 failed"), std::string::npos) << check.out;
  // Never over a user's files, and only kernel names.
  const auto again = run("spec init my_add --dir " + quoted(dir_ / "k"));
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  EXPECT_EQ(run("spec init 'my add' --dir " + quoted(dir_ / "k")).exit_code, 2);
}

// `spec init --from`: an engine-style shader (a workgroup size and a
// per-invocation count as specialization constants, its size as a named
// push-constant member) gets a spec of its interface that checks as it is,
// every workgroup size against the shader as written; a uniform block
// becomes a uniform buffer of its members, by name and std140 type, in a
// spec that loads; a shader that needs a define, or whose uniform block
// holds a matrix, is one line and exit 2.
TEST_F(SpecCli, SpecInitFromAShaderWritesItsInterfaceAndPassesTheGate) {
  std::ofstream(dir_ / "scale_add.comp") << "#version 450\nlayout(local_size_x_id = 0) in;\n"
                                             "layout(constant_id = 1) const int PER_THREAD = 2;\n"
                                             "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
                                             "layout(std430, binding = 1) readonly buffer Bias { float bias[]; };\n"
                                             "layout(std430, binding = 2) writeonly buffer Dst { float dst[]; };\n"
                                             "layout(push_constant) uniform Params { uint count; } p;\n"
                                             "void main() {\n  for (int k = 0; k < PER_THREAD; ++k) {\n"
                                             "    const uint i = gl_GlobalInvocationID.x * uint(PER_THREAD) + uint(k);\n"
                                             "    if (i < p.count) dst[i] = src[i] * 2.0 + bias[i];\n  }\n}\n";
  const auto init = run("spec init scale_add --from " + quoted(dir_ / "scale_add.comp"));
  ASSERT_EQ(init.exit_code, 0) << init.err;
  std::ifstream in(dir_ / "scale_add.json");
  const std::string spec((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* expected : {"\"name\": \"LOCAL_SIZE_X\"", "\"name\": \"PER_THREAD\"", "\"constant_id\": 1",
                               "\"name\": \"Dst\"", "\"role\": \"output\"", "\"name\": \"count\""}) {
    EXPECT_NE(spec.find(expected), std::string::npos) << expected << "\n" << spec;
  }
  const auto check = run("check " + quoted(dir_ / "scale_add.json") + " --device 0 --seed 3");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("5 passed, 0 failed"), std::string::npos) << check.out;  // local size 1 and 32..256

  std::ofstream(dir_ / "needs_define.comp") << "#version 450\nlayout(local_size_x = WG) in;\n"
                                                "layout(std430, binding = 0) buffer Y { float y[]; };\n"
                                                "void main() { y[gl_GlobalInvocationID.x] = 1.0; }\n";
  const auto undefined = run("spec init needs_define --from " + quoted(dir_ / "needs_define.comp"));
  EXPECT_EQ(undefined.exit_code, 2) << undefined.err;
  EXPECT_NE(undefined.err.find("does not compile as written"), std::string::npos) << undefined.err;
  std::ofstream(dir_ / "uniform.comp") << "#version 450\nlayout(local_size_x = 64) in;\n"
                                           "layout(std430, binding = 0) buffer Y { float y[]; };\n"
                                           "layout(std140, binding = 1) uniform Sizes { uvec4 size; };\n"
                                           "void main() { if (gl_GlobalInvocationID.x < size.x) y[0] = 1.0; }\n";
  const auto uniform = run("spec init uniform_sizes --from " + quoted(dir_ / "uniform.comp"));
  ASSERT_EQ(uniform.exit_code, 0) << uniform.err;
  const auto written = nlohmann::json::parse(std::ifstream(dir_ / "uniform_sizes.json"), nullptr, true, true);
  EXPECT_EQ(written.at("buffers").at(1),
            nlohmann::json::parse(R"({"name": "Sizes", "binding": 1, "role": "uniform",
                                      "members": [{"name": "size", "type": "uvec4", "value": ["n", "n", "n", "n"]}]})"))
      << written.dump(2);
  const auto listed = run("list " + quoted(dir_ / "uniform_sizes.json"));  // loads, the interface check included
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  std::ofstream(dir_ / "matrix.comp") << "#version 450\nlayout(local_size_x = 64) in;\n"
                                          "layout(std430, binding = 0) buffer Y { float y[]; };\n"
                                          "layout(std140, binding = 1) uniform Meta { uint n; mat4 m; };\n"
                                          "void main() { if (gl_GlobalInvocationID.x < n) y[0] = m[0][0]; }\n";
  const auto matrix = run("spec init matrix_meta --from " + quoted(dir_ / "matrix.comp"));
  EXPECT_EQ(matrix.exit_code, 2) << matrix.err;
  EXPECT_NE(matrix.err.find("binding 1, a uniform buffer: member 'm' is not a 32-bit scalar or vector"),
            std::string::npos)
      << matrix.err;
}

TEST_F(SpecCli, TunedOnTheDeviceAndExportedLikeABuiltinKernel) {
  const auto db = dir_ / "tuned.db";
  const auto tune = run(quoted(kSoftmax) + " --device 0 --shape 3,1000 --budget 2 --seed 1 --db " + quoted(db));
  ASSERT_EQ(tune.exit_code, 0) << tune.err;
#ifdef VKTUNE_HAS_BENCH
  // vktune bench takes the spec where a kernel name goes, and vktune-bench loads it too.
  const auto bench = run("bench " + quoted(kSoftmax) + " --device 0 --db " + quoted(db) + " -- --iterations 1");
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_NE(bench.out.find("pytorch_softmax/rows3_n1000/winner"), std::string::npos) << bench.out << bench.err;
#endif
  const auto table = dir_ / "table.json";
  const auto exported = run("export --format json --kernel pytorch_softmax --db " + quoted(db) + " -o " + quoted(table));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::ifstream in(table);
  const auto json = nlohmann::json::parse(in);
  const std::string text = json.dump();
  EXPECT_NE(text.find("pytorch_softmax"), std::string::npos);
  // The spec's bindings, in its own order: out at 0, in at 1.
  EXPECT_LT(text.find("\"out\""), text.find("\"in\"")) << text.substr(0, 2000);

  // The runtime library loads it and answers a lookup on the tuning device
  // with the spec's launch facts.
  const auto loaded = runtime::Table::open(table);
  ASSERT_EQ(loaded.devices().size(), 1u);
  runtime::Query query;
  query.device = loaded.devices()[0].identity;
  query.kernel = "pytorch_softmax";
  query.shape = {3, 1000};
  const auto found = loaded.lookup(query);
  EXPECT_EQ(found.match, runtime::Match::device_and_driver) << found.match_text;
  EXPECT_TRUE(found.exact_shape);
  ASSERT_EQ(found.binding_bytes.size(), 2u);
  EXPECT_EQ(found.binding_bytes[0], 3u * 1000u * 4u);  // rows * n floats
  EXPECT_EQ(found.binding_bytes[1], 3u * 1000u * 4u);
  ASSERT_EQ(found.workgroups.size(), 1u);
  EXPECT_EQ(found.workgroups[0], (std::array<std::uint32_t, 3>{3, 1, 1}));  // one workgroup per row
  ASSERT_EQ(found.contract.bindings.size(), 2u);
  EXPECT_EQ(found.contract.bindings[0].name, "out");
  // The spec's push constants, not the shape: (width, height, channels,
  // batch) = (n, rows, 1, 1), at the tuned shape and at one nobody tuned.
  EXPECT_EQ(found.push_constants, (std::vector<std::uint32_t>{1000, 3, 1, 1}));
  query.shape = {5, 777};
  EXPECT_EQ(loaded.lookup(query).push_constants, (std::vector<std::uint32_t>{777, 5, 1, 1}));
  // The database read directly says the same.
  const auto stored = runtime::Table::open(db).lookup(query);
  EXPECT_EQ(stored.push_constants, (std::vector<std::uint32_t>{777, 5, 1, 1}));
  // An application's launch through the C API and the Vulkan glue pushes
  // those words, and the shader computes the softmax of each row with them:
  // at the tuned shape, and at one nobody tuned.
  for (const auto& [shape, words] : {std::pair{std::string("3 1000"), std::string("1000 3 1 1")},
                                     std::pair{std::string("5 777"), std::string("777 5 1 1")}}) {
    const auto launched = run_program(quoted(VKTUNE_SPEC_SOFTMAX_RUN) + " " + quoted(table) + " " + shape);
    EXPECT_EQ(launched.exit_code, 0) << launched.out << launched.err;
    EXPECT_NE(launched.out.find("push constants: " + words + "\n"), std::string::npos) << launched.out;
  }
  // And the C++ header export carries the layout.
  const auto header = dir_ / "table.hpp";
  const auto exported_header =
      run("export --format header --kernel pytorch_softmax --db " + quoted(db) + " -o " + quoted(header));
  ASSERT_EQ(exported_header.exit_code, 0) << exported_header.err;
  std::ifstream header_in(header);
  const std::string header_text{std::istreambuf_iterator<char>(header_in), std::istreambuf_iterator<char>()};
  EXPECT_NE(header_text.find("{\"width\", push_terms_0_0, 1, 1u, \"u32\", \"\", shape_names_0, 2}"), std::string::npos)
      << header_text.substr(0, 3000);
  EXPECT_NE(header_text.find("detail::push_0, 4, \""), std::string::npos);  // then the entry's updated_at
}

TEST_F(SpecCli, PushConstantsTheContractCannotCarryTuneButStoreNoWinner) {
  std::ifstream in(kSoftmax);
  auto spec = nlohmann::json::parse(in, nullptr, true, true);
  spec["push_constants"][2]["value"] = "is_pow2(n)";  // channels: the shader never reads it
  fs::copy_file(kSoftmax.parent_path() / "softmax.comp", dir_ / "softmax.comp");
  std::ofstream(dir_ / "softmax.json") << spec.dump();
  const auto db = dir_ / "tuned.db";
  const auto tune = run(quoted(dir_ / "softmax.json") + " --device 0 --shape 3,1000 --budget 2 --seed 1 --db " + quoted(db));
  ASSERT_EQ(tune.exit_code, 0) << tune.err << tune.out;
  EXPECT_NE(tune.out.find("the winner is not stored: "), std::string::npos) << tune.out;
  EXPECT_NE(tune.out.find("/push_constants/2/value: 'is_pow2(n)' is no word the launch contract can carry"),
            std::string::npos)
      << tune.out;
  // Nothing a program could misread as pushing the shape.
  EXPECT_TRUE(runtime::Table::open(db).entries().empty());
}

}  // namespace
}  // namespace vktune
