// Every `--json` document says what it is: "format" and "version"
// (docs/JSON_OUTPUT.md), checked by running the vktune binary as a user
// would and comparing the content with what the same command prints as text
// or with what the test wrote.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference/gguf_writer.hpp"

#include "tests/support/vktune_process.hpp"

namespace {

namespace fs = std::filesystem;

using vktune::testing::RunResult;

class JsonOutputTest : public vktune::testing::VktuneProcessTest {
 protected:
  // Runs `args` and parses stdout, which must be one JSON document of `format`, version `version`.
  nlohmann::json document(const std::string& args, const std::string& format, int version) {
    const auto r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    nlohmann::json j;
    EXPECT_NO_THROW(j = nlohmann::json::parse(r.out)) << args << ": " << r.out;
    EXPECT_TRUE(j.is_object()) << args;
    EXPECT_EQ(j.value("format", ""), format) << args;
    EXPECT_TRUE(j.contains("version") && j["version"].is_number_integer()) << args;
    EXPECT_EQ(j.value("version", -1), version) << args;
    return j;
  }
};

TEST_F(JsonOutputTest, ListNamesTheSameKernelsAsItsText) {
  const auto j = document("list --json", "vktune-list", 1);
  std::set<std::string> from_json;
  for (const auto& k : j.at("kernels")) from_json.insert(k.at("name").get<std::string>());
  // The text lists each kernel as "NAME — description" at the start of a line.
  const auto text = run("list");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::set<std::string> from_text;
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) {
    const auto dash = line.find(" \xe2\x80\x94 ");
    if (!line.empty() && line[0] != ' ' && dash != std::string::npos) from_text.insert(line.substr(0, dash));
  }
  EXPECT_FALSE(from_text.empty()) << text.out;
  EXPECT_EQ(from_json, from_text);
  EXPECT_FALSE(j.contains("device"));  // only with --device

  const auto on_device = document("list add --device 0 --json", "vktune-list", 1);
  ASSERT_EQ(on_device.at("kernels").size(), 1u);
  EXPECT_EQ(on_device["kernels"][0]["name"], "add");
  EXPECT_EQ(on_device.at("device").at("index"), 0);
  EXPECT_EQ(on_device["device"]["space"], "pruned");
}

TEST_F(JsonOutputTest, GgufKeepsTheFilesOwnVersionApart) {
  for (std::uint32_t gguf_version : {2u, 3u}) {
    vktune::ref::GgufWriter writer(gguf_version);
    writer.set("general.name", vktune::ref::GgufValue(std::string("json test")));
    writer.add_tensor("weights", vktune::ref::GgmlType::F32, {2}, std::vector<std::uint8_t>(8, 0));
    const auto file = dir / "m.gguf";
    writer.write(file);
    const auto j = document("gguf " + file.string() + " --json", "vktune-gguf", 1);
    EXPECT_EQ(j.at("gguf_version"), gguf_version);
    EXPECT_EQ(j.at("file"), file.string());
    ASSERT_EQ(j.at("tensors").size(), 1u);
    EXPECT_EQ(j["tensors"][0]["name"], "weights");
    EXPECT_EQ(j["tensors"][0]["bytes"], 8);
    EXPECT_EQ(j.at("file_size"), fs::file_size(file));
  }
}

TEST_F(JsonOutputTest, TuneIsVersionedAndNamesTheDevice) {
  const auto devices = document("devices --json", "vktune-devices", 1);
  const auto db = (dir / "t.db").string();
  const auto j = document("add --device 0 --shape 3,200 --budget 1 --seed 4 --json --db " + db, "vktune-tune", 2);
  EXPECT_EQ(j.at("device"), devices.at("devices").at(0).at("name"));
  EXPECT_EQ(j.at("driver"), devices["devices"][0].at("driver_version"));
  EXPECT_EQ(j.at("database"), db);
  ASSERT_EQ(j.at("shapes").size(), 1u);
  EXPECT_EQ(j["shapes"][0].at("shape"), "3,200");
  EXPECT_TRUE(j["shapes"][0].contains("time_spent"));
}

TEST_F(JsonOutputTest, ReplayIsVersioned) {
  const std::string csv = std::string(VKTUNE_SOURCE_DIR) + "/measurements/nvidia-h200/measurements_session5.csv";
  const auto j = document("replay attention_decode --from " + csv + " --budget 10 --runs 1 --strategy random --json",
                          "vktune-replay", 2);
  EXPECT_EQ(j.at("kernel"), "attention_decode");
  EXPECT_EQ(j.at("runs"), 1);
}

TEST_F(JsonOutputTest, CheckCountsWhatItChecked) {
  const auto j = document("check add --device 0 --variants sample:2 --seed 3 --json", "vktune-check", 1);
  EXPECT_EQ(j.at("variants"), "sample:2");
  EXPECT_EQ(j.at("seed"), 3);
  EXPECT_EQ(j.at("failed"), 0);
  // Every check shape of add, up to two sampled variants at each (a tiny
  // shape may have fewer valid ones): the totals are the sum over the shapes.
  std::size_t variants = 0;
  for (const auto& s : j.at("shapes")) {
    EXPECT_EQ(s.at("kernel"), "add");
    EXPECT_EQ(s.at("failed"), 0);
    EXPECT_GE(s.at("variants"), 1);
    EXPECT_LE(s.at("variants"), 2);
    variants += s.at("variants").get<std::size_t>();
  }
  EXPECT_FALSE(j["shapes"].empty());
  EXPECT_EQ(j.at("passed").get<std::size_t>(), variants);
  // The shapes are add's check shapes, as `vktune list` names them.
  const auto list = nlohmann::json::parse(run("list add --json").out);
  std::vector<std::string> shapes;
  for (const auto& s : j["shapes"]) shapes.push_back(s.at("shape").get<std::string>());
  EXPECT_EQ(nlohmann::json(shapes), list.at("kernels").at(0).at("check_shapes"));
  EXPECT_FALSE(j.contains("winners"));  // only with --variants winners
}

TEST_F(JsonOutputTest, MobileNetFollowsTheArchitecturesTable) {
  const auto j = document(
      "mobilenet --device 0 --resolution 32 --samples 10 --check --db " + (dir / "none.db").string() + " --json",
      "vktune-mobilenet", 1);
  EXPECT_EQ(j.at("feature_map"), "1x1x1x1280");
  // MobileNet V2's table 2: 17 blocks, 16 with an expansion, a residual add
  // where the stride is 1 and the channels stay (blocks 2, 4, 5, 7 to 9, 11,
  // 12, 14, 15), the stem and the final 1x1.
  const auto& layers = j.at("layers");
  ASSERT_EQ(layers.size(), 62u);
  std::map<std::string, int> per_kernel;
  std::vector<std::string> residual_blocks;
  for (const auto& l : layers) {
    ++per_kernel[l.at("kernel").get<std::string>()];
    const auto role = l.at("role").get<std::string>();
    if (role.find("residual") != std::string::npos) residual_blocks.push_back(role);
    EXPECT_EQ(l.at("variant"), "baseline");
    EXPECT_TRUE(l.at("check").at("passed")) << l.dump();
  }
  EXPECT_EQ(per_kernel,
            (std::map<std::string, int>{
                {"add", 10}, {"mobilenet_depthwise", 17}, {"mobilenet_pointwise", 34}, {"mobilenet_stem", 1}}));
  EXPECT_EQ(residual_blocks,
            (std::vector<std::string>{"block 2 residual", "block 4 residual", "block 5 residual", "block 7 residual",
                                      "block 8 residual", "block 9 residual", "block 11 residual", "block 12 residual",
                                      "block 14 residual", "block 15 residual"}));
  // 32x32: the stem halves it to 16x16, blocks 1, 3, 6 and 13 to 1x1.
  EXPECT_EQ(layers[0].at("shape"), "1,32,32,3,32,2,16,16");
  EXPECT_EQ(layers[3].at("shape"), "256,16,96,2");       // block 1 expand, 16x16x16 -> 96, ReLU6
  EXPECT_EQ(layers[4].at("shape"), "1,16,16,96,2,8,8");  // block 1 depthwise, stride 2
  EXPECT_EQ(layers[5].at("shape"), "64,96,24,1");        // block 1 project, linear
  EXPECT_EQ(layers[61].at("shape"), "1,320,1280,2");
  EXPECT_EQ(j.at("dispatches"), 62);
  EXPECT_EQ(j.at("winner_layers"), 0);
  EXPECT_TRUE(j.at("tuning").is_null());  // no --tune
  EXPECT_TRUE(j.at("check").at("passed"));
  EXPECT_LE(j.at("check").at("final_rel_l2").get<double>(), 1e-4);
  // Every layer has its time in the profiled run (medians over the runs,
  // so their sum is not the run's median: no timing is compared here).
  for (const auto& l : layers) EXPECT_GT(l.at("chain_ns").get<double>(), 0) << l.dump();
  EXPECT_GT(j.at("profiled_ns").get<double>(), 0);
  EXPECT_GT(j.at("median_ns").get<double>(), 0);
}

// --tune's outcome in the document: the 35 distinct layer shapes at 32x32
// each with a winner, unreached or without one, and the layers that ran a
// winner at least one per shape with one. (An 8-s budget left every shape
// without a winner once, in a fresh-clone run on a loaded 2-core machine,
// ci/logs/2026-12-01-fresh-clone-d3ebf51-shader-cache-disabled.log.xz: 20 s.)
TEST_F(JsonOutputTest, MobileNetTuneSaysWhatItTuned) {
  const auto j = document("mobilenet --device 0 --resolution 32 --samples 10 --tune 20s --db " +
                              (dir / "tuned.db").string() + " --json",
                          "vktune-mobilenet", 1);
  const auto& t = j.at("tuning");
  EXPECT_EQ(t.at("budget_seconds"), 20.0);
  EXPECT_LE(t.at("seconds").get<double>(), 20.0 * 1.05 + 10);
  EXPECT_EQ(t.at("shapes"), 35);
  const auto with = t.at("with_winner").get<std::size_t>();
  EXPECT_EQ(with + t.at("unreached").size() + t.at("without_winner").size(), 35u) << t.dump();
  EXPECT_GE(with, 1u) << t.dump();
  EXPECT_GE(j.at("winner_layers").get<std::size_t>(), with);
  EXPECT_TRUE(std::filesystem::exists(dir / "tuned.db"));
}

}  // namespace
