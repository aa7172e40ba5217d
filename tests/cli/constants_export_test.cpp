// `vktune export --format constants | constants-c` (cli/constants_export):
// each winner of a table handed back as the #defines its config compiles to,
// per stage, as JSON and as C initializers that a C compiler accepts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "cli/constants_export.hpp"
#include "kernels/registry.hpp"

namespace vktune::cli {
namespace {

// A table as `vktune export` writes it, reduced to what the constants read:
// one device and a winner of matmul_q4k at `shape` with `config`.
nlohmann::json table_with(const std::string& shape, const kernels::Config& config) {
  nlohmann::json winner = {{"kernel", "matmul_q4k"}, {"shape", shape},       {"cache_mode", "cold"},
                           {"device", 1},            {"median_ns", 6500.0}, {"variant_hash", "0123456789abcdef"},
                           {"config", nlohmann::json::parse(kernels::config_to_json(config))}};
  return {{"devices", {{{"id", 1}, {"name", "A \"quoted\" GPU */"}, {"driver_version_text", "1.2.3"}}}},
          {"winners", {winner, {{"kernel", "no_such_kernel"}, {"shape", "1"}, {"cache_mode", "cold"}}}}};
}

TEST(ConstantsExport, EachParameterOfTheWinnerIsADefineOfItsStage) {
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto& kernel = kernels::find_kernel("matmul_q4k");
  const kernels::Shape shape{1, 4096, 4096};
  // The baseline with one of its decode parameters moved to another value
  // the space offers, chosen at random (legal or not: the constants are what
  // the config compiles to).
  auto config = kernel.baseline(shape);
  const auto& params = kernel.spaces().at(kernel.space_index(shape)).parameters;
  const auto& moved = params.at(std::uniform_int_distribution<std::size_t>(0, params.size() - 1)(rng));
  config[moved.name] = moved.values.at(std::uniform_int_distribution<std::size_t>(0, moved.values.size() - 1)(rng));
  SCOPED_TRACE(kernels::config_to_string(config));

  std::vector<std::string> left_out;
  const auto document = constants_document(table_with("1,4096,4096", config), left_out);
  EXPECT_EQ(document.at("format"), "vktune-constants");
  EXPECT_EQ(document.at("version"), 1);
  ASSERT_EQ(document.at("kernels").size(), 1u);
  ASSERT_EQ(left_out.size(), 1u);
  EXPECT_NE(left_out[0].find("no_such_kernel 1 (cold): no kernel of that name"), std::string::npos) << left_out[0];
  const auto& entry = document.at("kernels")[0];
  EXPECT_EQ(entry.at("device"), "A \"quoted\" GPU */ (driver 1.2.3)");
  ASSERT_EQ(entry.at("stages").size(), 1u);
  const auto& defines = entry.at("stages")[0].at("defines");
  // Every parameter the kernel passes to its template arrives with its value
  // (X_SCOPE=0 is the template's default and is left out by design).
  for (const auto& [name, value] : config) {
    if (name == "X_SCOPE" && value == 0) continue;
    ASSERT_TRUE(defines.contains(name)) << name << "\n" << defines.dump();
    EXPECT_EQ(defines.at(name), std::to_string(value)) << name;
  }
  EXPECT_EQ(defines.at("QTYPE"), "5");  // Q4_K's GGUF type number

  // The C form compiles as C99, strictly, with the names escaped.
  const auto c = constants_c(document);
  EXPECT_NE(c.find("vktune_matmul_q4k_1_4096_4096_cold_stage0_defines[]"), std::string::npos) << c;
  const auto dir = std::filesystem::temp_directory_path() / ("vktune_constants_" + std::to_string(seed));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "constants.c") << c << "int main(void) { return (int)sizeof vktune_matmul_q4k_1_4096_4096_cold_stage0_defines == 0; }\n";
  const auto command = "cc -std=c99 -pedantic -Wall -Werror -Wno-unused-const-variable -o " + (dir / "a.out").string() +
                       " " + (dir / "constants.c").string() + " 2> " + (dir / "cc.txt").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << c;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vktune::cli
