// `vktune spec init --from` on every example's template, compiled with the
// defines the example's baseline delivers (-D NAME=VALUE): the spec it
// writes binds the example's buffers at the same bindings with the same
// element types (a uniform buffer: its members' std140 types; an image: its
// kind, dimensions and a storage image's format; an alias: its target's,
// which spec init, knowing no aliases, writes as a buffer of its own),
// takes the
// output where the example writes it, pushes as
// many words with floats where the example's are, and loads (its interface
// check passes). Examples whose template is vktune's own are skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../results/cli_run.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_kernel.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using results::testing::quoted;
using results::testing::run_vktune;

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in, nullptr, true, true);
}

// Binding -> type, and which bindings may be written.
struct Buffers {
  std::map<int, std::string> types;
  std::map<int, bool> written;
};

Buffers buffers_of(const json& spec) {
  Buffers b;
  // An alias (two bindings of one buffer) cannot be known from the shader:
  // spec init writes a buffer of its own there, of the view's type, which
  // the target's type and role stand for (docs/SPEC_FORMAT.md, alias_of).
  std::map<std::string, json> by_name;
  for (const auto& buffer : spec.at("buffers")) by_name[buffer.at("name").get<std::string>()] = buffer;
  for (auto buffer : spec.at("buffers")) {
    const int binding = buffer.at("binding").get<int>();
    if (buffer.contains("alias_of")) buffer = by_name.at(buffer.at("alias_of").get<std::string>());
    const auto role = buffer.at("role").get<std::string>();
    if (role == "uniform") {  // no element type: its members' types, compared whole
      std::string members = "uniform";
      for (const auto& m : buffer.at("members")) members += " " + m.at("type").get<std::string>();
      b.types[binding] = members;
      b.written[binding] = false;
      continue;
    }
    if (buffer.contains("image")) {  // its kind and dimensions, and a storage image's format (a sampled one's is the host's)
      const auto& image = buffer.at("image");
      const auto kind = image.at("kind").get<std::string>();
      b.types[binding] = "image " + kind + " " + std::to_string(image.value("dims", 3)) +
                         (kind == "storage" ? " " + image.at("format").get<std::string>() : "");
      b.written[binding] = role == "output";
      continue;
    }
    b.types[binding] = buffer.at("type").get<std::string>();
    b.written[binding] = role == "output" || role == "scratch";
  }
  return b;
}

// Per push word, whether it is a float; a spec without the field pushes its dims.
std::vector<bool> float_words(const json& spec) {
  std::vector<bool> floats;
  if (!spec.contains("push_constants")) return std::vector<bool>(spec.at("shape").size(), false);
  for (const auto& word : spec.at("push_constants")) floats.push_back(word.value("type", std::string("u32")) == "f32");
  return floats;
}

TEST(SpecInitRoundTrip, EveryExamplesTemplateGivesBackItsInterface) {
  const fs::path examples(VKTUNE_EXAMPLES_DIR);
  const auto dir = fs::temp_directory_path() / ("vktune_init_roundtrip_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::size_t round_trips = 0, own_templates = 0;
  for (const auto& entry : fs::recursive_directory_iterator(examples)) {
    if (entry.path().extension() != ".json") continue;
    const auto example = read_json(entry.path());
    const auto template_name = example.at("subspaces")[0].at("template").get<std::string>();
    if (template_name.rfind("vktune:", 0) == 0) {
      ++own_templates;
      continue;
    }
    SCOPED_TRACE(entry.path().string());
    // The example's folder and the shared includes, copied, so that the
    // skeleton is written beside a copy of the template.
    const auto folder = entry.path().parent_path().filename();
    const auto case_dir = dir / entry.path().stem();
    fs::create_directories(case_dir);
    fs::copy(entry.path().parent_path(), case_dir / folder, fs::copy_options::recursive | fs::copy_options::skip_existing);
    if (fs::exists(examples / "include")) {
      fs::copy(examples / "include", case_dir / "include", fs::copy_options::recursive | fs::copy_options::skip_existing);
    }
    // The defines the example's baseline delivers to its first stage.
    const kernels::spec::SpecKernel kernel(kernels::spec::load_spec(entry.path()));
    const auto shape = kernel.check_shapes().front();
    const auto stage = kernel.stages(kernel.baseline(shape), shape).front();
    std::string arguments;
    for (const auto& [name, value] : stage.defines) arguments += " -D '" + name + "=" + value + "'";
    const std::string name = "roundtrip_" + entry.path().stem().string();
    const auto init = run_vktune("spec init " + name + " --from " + quoted(case_dir / folder / template_name) + arguments,
                                 case_dir / "init.err");
    ASSERT_EQ(init.exit_code, 0) << init.err << init.out;
    const auto written_path = case_dir / folder / (name + ".json");
    const auto written = read_json(written_path);

    const auto want = buffers_of(example), got = buffers_of(written);
    std::vector<int> want_bindings, got_bindings;
    for (const auto& [binding, type] : want.types) want_bindings.push_back(binding);
    for (const auto& [binding, type] : got.types) got_bindings.push_back(binding);
    EXPECT_EQ(got_bindings, want_bindings);
    for (const auto& [binding, type] : want.types) {
      if (!got.types.count(binding)) continue;
      // A GGUF buffer is words to its shader.
      const bool scalar = type == "f32" || type == "f16" || type == "i32" || type == "u32" || type == "i8" ||
                          type.rfind("uniform", 0) == 0 || type.rfind("image", 0) == 0;
      EXPECT_EQ(got.types.at(binding), scalar ? type : "u32") << "binding " << binding;
      if (want.written.at(binding)) {
        EXPECT_TRUE(got.written.at(binding)) << "binding " << binding;
      }
    }
    EXPECT_EQ(float_words(written), float_words(example));
    // The skeleton loads: its interface check passes.
    const auto list = run_vktune("list " + quoted(written_path), case_dir / "list.err");
    EXPECT_EQ(list.exit_code, 0) << list.err;
    ++round_trips;
  }
  fs::remove_all(dir);
  EXPECT_GE(round_trips, 18u);
  EXPECT_EQ(own_templates, 1u);  // examples/rmsnorm runs vktune:rmsnorm.comp
}

}  // namespace
}  // namespace vktune
