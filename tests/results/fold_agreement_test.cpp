// A dispatch folded into a second axis evaluates alike in the runtime
// library (Table::lookup's workgroups) and in the exported C++ header
// (vktune_table::workgroup_counts), at shapes on both sides of the fold: the
// header is compiled and run for real, on the JSON table exported from the
// same store.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "results/export_header.hpp"
#include "store_fixture.hpp"
#include "vktune_runtime.hpp"

#ifndef VKTUNE_CXX_COMPILER
#error "VKTUNE_CXX_COMPILER must name the C++ compiler"
#endif

namespace vktune::results::testing {
namespace {

namespace rt = vktune::runtime;

using FoldAgreement = StoreTest;

TEST_F(FoldAgreement, RuntimeAndHeaderCountTheSameFoldedWorkgroups) {
  auto store = Store::open(db_path());
  DeviceIdentity gpu;
  gpu.vendor_id = 0x10de;
  gpu.device_id = 0x2335;
  gpu.driver_version = 100;
  gpu.name = "NVIDIA H200";
  gpu.device_uuid = "aaaa";
  auto w = sample_winner(store.upsert_device(gpu), "1,4096,4096");
  // A header and OpCapability Shader: the least module the runtime loads.
  w.spirv = {0x07230203u, 0x00010300u, 0u, 2u, 0u, (2u << 16) | 17u, 1u};
  // Columns (dim 1) in threes, at most 7 workgroups along x, the rest along y
  // by 3 * 7 = 21; z one workgroup per row (dim 0).
  w.dispatch_json =
      R"([{"shape_dim":1,"divisor":3,"fold":7},{"shape_dim":1,"divisor":21},{"shape_dim":0,"divisor":1}])";
  w.contract_json = row_contract(w);
  store.upsert_variant(VariantRecord{w.variant_hash, w.kernel, "matmul_q4k.comp", w.config_json, "", ""});
  store.set_winner(w);
  const auto table = rt::Table::from_json_text(export_table(store).dump(), "fold.json");

  // Below the fold, at it, one past it, and far past it (4096 / 3 = 1366
  // workgroups: 7 along x, 196 along y).
  const std::vector<std::vector<std::uint32_t>> shapes = {{1, 5, 4096}, {2, 21, 4096}, {3, 22, 4096},
                                                          {1, 4096, 4096}, {4, 1000000, 4096}};
  std::vector<std::string> expected;
  for (const auto& shape : shapes) {
    rt::Query query;
    query.device = {gpu.vendor_id, gpu.device_id, gpu.driver_version, gpu.name, gpu.device_uuid};
    query.kernel = "matmul_q4k";
    query.shape = shape;
    const auto groups = table.lookup(query).workgroups[0];
    expected.push_back(std::to_string(groups[0]) + " " + std::to_string(groups[1]) + " " + std::to_string(groups[2]));
  }
  EXPECT_EQ(expected[0], "2 1 1");
  EXPECT_EQ(expected[1], "7 1 2");
  EXPECT_EQ(expected[2], "7 2 3");
  EXPECT_EQ(expected[3], "7 196 1");
  EXPECT_EQ(expected[4], "7 47620 4");  // ceil(1,000,000 / 21)

  const TempDir dir;
  std::ofstream(dir.path() / "table.hpp") << export_header(store, {}, {}, [](const std::vector<std::uint32_t>& spirv) {
    return rt::required_features(spirv);
  });
  std::ostringstream program;
  program << "#include \"table.hpp\"\n#include <cstdio>\nint main() {\n"
             "  const auto& stage = vktune_table::entries[0].stages[0];\n";
  for (const auto& shape : shapes) {
    program << "  {\n    const std::uint32_t shape[] = {" << shape[0] << "u, " << shape[1] << "u, " << shape[2]
            << "u};\n    const auto g = vktune_table::workgroup_counts(stage, shape);\n"
               "    std::printf(\"%u %u %u\\n\", g[0], g[1], g[2]);\n  }\n";
  }
  program << "  return 0;\n}\n";
  std::ofstream(dir.path() / "main.cpp") << program.str();
  const auto binary = dir.path() / "fold";
  const std::string compile = std::string("\"") + VKTUNE_CXX_COMPILER + "\" -std=c++17 -O0 -Wall -Wextra -Werror -o \"" +
                              binary.string() + "\" \"" + (dir.path() / "main.cpp").string() + "\" > \"" +
                              (dir.path() / "compile.log").string() + "\" 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0) << std::ifstream(dir.path() / "compile.log").rdbuf();
  ASSERT_EQ(std::system(("\"" + binary.string() + "\" > \"" + (dir.path() / "out.txt").string() + "\"").c_str()), 0);
  std::ifstream out(dir.path() / "out.txt");
  std::vector<std::string> got;
  for (std::string line; std::getline(out, line);) got.push_back(line);
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace vktune::results::testing
