// One buffer at two bindings (a spec's "alias_of") through the built vktune
// on the test device: examples/aliased_views tunes, its winner's contract
// says which binding takes its buffer from which, and an application runs it
// from the exported table through the C API and the Vulkan glue
// (tests/kernels/spec_views_run.c binds x once; the glue writes both
// descriptors), checked against y[i] = x[i] + x[n - 1 - i] worked out in
// the program. (`vktune check` of the example is the spec.check.* gate.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "../results/cli_run.hpp"
#include "spec_cli_fixture.hpp"

namespace vktune {
namespace {

namespace fs = std::filesystem;
using results::testing::quoted;
using results::testing::run_vktune;

class SpecAliasCli : public testing_support::SpecFolderTest {
 protected:
  SpecAliasCli() : SpecFolderTest("vktune_alias") {}
};

TEST_F(SpecAliasCli, ATunedWinnerBindsOneBufferAtBothBindings) {
  const auto spec = fs::path(VKTUNE_EXAMPLES_DIR) / "aliased_views" / "reverse_add.json";
  const auto db = dir_ / "tuned.db";
  const auto tune = run_vktune(quoted(spec) + " --device 0 --shape 1000 --budget 2 --seed 1 --db " + quoted(db),
                               dir_ / "stderr.txt");
  ASSERT_EQ(tune.exit_code, 0) << tune.err << tune.out;
  const auto table = dir_ / "table.json";
  const auto exported = run_vktune("export --format json --db " + quoted(db) + " -o " + quoted(table), dir_ / "stderr.txt");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::ifstream in(table);
  const auto json = nlohmann::json::parse(in);
  ASSERT_EQ(json["winners"].size(), 1u);
  const auto& bindings = json["winners"][0]["contract"]["bindings"];
  ASSERT_EQ(bindings.size(), 3u);
  EXPECT_EQ(bindings[1]["alias_of"], 0) << bindings;
  EXPECT_EQ(bindings[1]["size"], bindings[0]["size"]) << bindings;
  EXPECT_FALSE(bindings[0].contains("alias_of")) << bindings;
  // At the tuned shape and one nobody tuned (a multiple of 4 too: the
  // example's vec4 path is legal only there, which no contract says).
  for (const std::string n : {"1000", "1004"}) {
    const auto out = dir_ / "run.txt";
    const int status = std::system(
        (quoted(VKTUNE_SPEC_VIEWS_RUN) + " " + quoted(table) + " aliased_reverse_add " + n + " > " + quoted(out) + " 2>&1")
            .c_str());
    std::ifstream run(out);
    const std::string text{std::istreambuf_iterator<char>(run), std::istreambuf_iterator<char>()};
    EXPECT_EQ(status, 0) << n << "\n" << text;
    EXPECT_NE(text.find("binding 1: the buffer of binding 0"), std::string::npos) << text;
    EXPECT_NE(text.find(": OK"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace vktune
