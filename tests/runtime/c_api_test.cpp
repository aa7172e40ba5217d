// The C API: statuses and messages for every failure, answers that own their
// memory, the baseline, and the header compiled as C (c_api_check.c).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "fixtures.hpp"
#include "vktune_runtime.h"

extern "C" int c_api_check(const char* table_path);

namespace {

std::string table_text() {
  return rt_test::table_json({rt_test::device_json(1, 0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3")},
                             {rt_test::winner_json(1, "matmul_q4k", "1,4096,4096", 1),
                              rt_test::winner_json(1, "matmul_q4k", "512,4096,4096", 2)})
      .dump();
}

vktune_query make_query(const std::uint32_t* shape, std::size_t dims, const char* name = "NVIDIA H100 80GB HBM3") {
  vktune_query q{};
  q.device = {0x10de, 0x2330, 100, name, nullptr};
  q.kernel = "matmul_q4k";
  q.shape = shape;
  q.shape_dims = dims;
  return q;
}

}  // namespace

TEST(RuntimeCApi, FromC) {
  const auto dir = rt_test::fresh_dir("capi");
  rt_test::write_file(dir / "t.json", table_text());
  EXPECT_EQ(c_api_check((dir / "t.json").c_str()), 0) << "c_api_check.c failed at that line";
  std::filesystem::remove_all(dir);
}

TEST(RuntimeCApi, OpenErrors) {
  vktune_table* table = reinterpret_cast<vktune_table*>(0x1);
  EXPECT_EQ(vktune_table_open_json_text("{", 1, &table), VKTUNE_ERROR_FORMAT);
  EXPECT_EQ(table, nullptr);
  EXPECT_NE(std::strstr(vktune_last_error(), "not valid JSON"), nullptr) << vktune_last_error();
  const std::string v3 = R"({"format": "vktune-table", "version": 3, "devices": [], "winners": []})";
  EXPECT_EQ(vktune_table_open_json_text(v3.data(), v3.size(), &table), VKTUNE_ERROR_VERSION);
  EXPECT_EQ(vktune_table_open(nullptr, &table), VKTUNE_ERROR_USAGE);
  EXPECT_EQ(vktune_table_open("x", nullptr), VKTUNE_ERROR_USAGE);
  EXPECT_EQ(vktune_table_open_json_text(nullptr, 5, &table), VKTUNE_ERROR_USAGE);
  EXPECT_EQ(vktune_table_open_json_text(nullptr, 0, &table), VKTUNE_ERROR_FORMAT);  // empty text
  EXPECT_EQ(vktune_table_entry_count(nullptr), 0u);
  // Every truncation of a table fails cleanly through the C API as well.
  const auto text = table_text();
  for (std::size_t n = 0; n < text.size(); n += 7) {
    EXPECT_EQ(vktune_table_open_json_text(text.data(), n, &table), VKTUNE_ERROR_FORMAT);
    EXPECT_EQ(table, nullptr);
  }
}

// A config nested 100,000 deep overflowed the stack (in dump(), after the
// iterative parse); JSON deeper than 64 levels is now a format error.
TEST(RuntimeCApi, DeeplyNestedJsonIsAFormatErrorNotACrash) {
  auto deep = [](std::size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  auto table = table_text();
  const std::string config = "\"config\":";
  const auto at = table.find(config);
  ASSERT_NE(at, std::string::npos);
  table.insert(at + config.size(), deep(100000) + ",\"unused\":");
  const auto dir = rt_test::fresh_dir("capi_deep");
  rt_test::write_file(dir / "deep.json", table);
  vktune_table* opened = nullptr;
  EXPECT_EQ(vktune_table_open((dir / "deep.json").c_str(), &opened), VKTUNE_ERROR_FORMAT);
  EXPECT_EQ(opened, nullptr);
  const std::string message = vktune_last_error();
  EXPECT_NE(message.find((dir / "deep.json").string()), std::string::npos) << message;
  EXPECT_NE(message.find("JSON nested deeper than 64 levels"), std::string::npos) << message;
  std::filesystem::remove_all(dir);

  // The cap is exact: 64 levels parse (then fail as a non-object), 65 do not.
  EXPECT_EQ(vktune_table_open_json_text(deep(64).data(), 128, &opened), VKTUNE_ERROR_FORMAT);
  EXPECT_NE(std::strstr(vktune_last_error(), "not a JSON object"), nullptr) << vktune_last_error();
  EXPECT_EQ(vktune_table_open_json_text(deep(65).data(), 130, &opened), VKTUNE_ERROR_FORMAT);
  EXPECT_NE(std::strstr(vktune_last_error(), "deeper than 64"), nullptr) << vktune_last_error();
  // Brackets inside strings are text, not nesting.
  auto quoted = table_text();
  quoted.insert(quoted.find(config) + config.size(), "\"" + deep(1000) + "\",\"unused\":");
  ASSERT_EQ(vktune_table_open_json_text(quoted.data(), quoted.size(), &opened), VKTUNE_OK) << vktune_last_error();
  vktune_table_free(opened);
}

TEST(RuntimeCApi, LookupBaselineAndErrors) {
  vktune_table* table = nullptr;
  const auto text = table_text();
  ASSERT_EQ(vktune_table_open_json_text(text.data(), text.size(), &table), VKTUNE_OK);

  const std::uint32_t shape[3] = {64, 100, 4096};
  auto q = make_query(shape, 3);
  vktune_lookup* found = nullptr;
  ASSERT_EQ(vktune_table_lookup(table, &q, nullptr, &found), VKTUNE_OK) << vktune_last_error();
  EXPECT_EQ(found->match, VKTUNE_MATCH_DEVICE_AND_DRIVER);
  EXPECT_EQ(found->tuned_shape[0], 512u);  // prefill: never the decode entry
  EXPECT_EQ(found->variant.spirv[4], 2u);
  EXPECT_STREQ(found->variant_hash, "v2");
  EXPECT_STREQ(found->config_json, R"({"TAG":2})");
  vktune_lookup_free(found);

  // Another vendor: the baseline, with its own dispatch rule and constants.
  q.device = {0x8086, 0x56a0, 1, "Intel(R) Arc(tm) A770 Graphics", nullptr};
  const std::uint32_t words[5] = {0x07230203u, 0x00010000u, 0, 1, 999};
  const vktune_specialization spec[2] = {{0, 64}, {3, 1}};
  vktune_variant baseline{};
  baseline.spirv = words;
  baseline.spirv_words = 5;
  baseline.specialization = spec;
  baseline.specialization_count = 2;
  baseline.local_size[0] = 64;
  baseline.local_size[1] = baseline.local_size[2] = 1;
  baseline.dispatch[0] = {1, 4, 0};
  baseline.dispatch[1] = {0, 8, 0};
  baseline.dispatch[2] = {-1, 1, 0};
  ASSERT_EQ(vktune_table_lookup(table, &q, &baseline, &found), VKTUNE_OK) << vktune_last_error();
  EXPECT_EQ(found->match, VKTUNE_MATCH_BASELINE);
  EXPECT_STREQ(found->match_name, "baseline");
  EXPECT_EQ(found->tuned_shape, nullptr);
  EXPECT_EQ(found->tuned_shape_dims, 0u);
  EXPECT_EQ(found->variant.spirv[4], 999u);
  ASSERT_EQ(found->variant.specialization_count, 2u);
  EXPECT_EQ(found->variant.specialization[1].constant_id, 3u);
  EXPECT_EQ(found->workgroups[0], 25u);
  EXPECT_EQ(found->workgroups[1], 8u);
  EXPECT_EQ(found->workgroups[2], 1u);
  EXPECT_STREQ(found->tuned_device_name, "");
  EXPECT_EQ(found->feature_count, 0u);  // a header without capabilities, no subgroup requirements
  vktune_lookup_free(found);

  // A stage requiring a subgroup size and full subgroups: both features are the application's to enable.
  baseline.required_subgroup_size = 32;
  baseline.require_full_subgroups = 1;
  ASSERT_EQ(vktune_table_lookup(table, &q, &baseline, &found), VKTUNE_OK) << vktune_last_error();
  EXPECT_EQ(found->stages[0].required_subgroup_size, 32u);
  EXPECT_EQ(found->stages[0].require_full_subgroups, 1);
  ASSERT_EQ(found->feature_count, 2u);
  EXPECT_STREQ(found->features[0], "computeFullSubgroups");
  EXPECT_STREQ(found->features[1], "subgroupSizeControl");
  vktune_lookup_free(found);
  baseline.required_subgroup_size = 0;
  baseline.require_full_subgroups = 0;

  EXPECT_EQ(vktune_table_lookup(table, &q, nullptr, &found), VKTUNE_ERROR_NO_MATCH);
  EXPECT_EQ(found, nullptr);
  EXPECT_NE(std::strstr(vktune_last_error(), "no baseline"), nullptr) << vktune_last_error();

  baseline.spirv = nullptr;
  EXPECT_EQ(vktune_table_lookup(table, &q, &baseline, &found), VKTUNE_ERROR_USAGE);
  const std::uint32_t zero[3] = {1, 0, 4096};
  q = make_query(zero, 3);
  EXPECT_EQ(vktune_table_lookup(table, &q, nullptr, &found), VKTUNE_ERROR_USAGE);
  q = make_query(nullptr, 3);
  EXPECT_EQ(vktune_table_lookup(table, &q, nullptr, &found), VKTUNE_ERROR_USAGE);
  q = make_query(shape, 3, nullptr);  // a NULL name is an empty name
  q.device.device_id = 0x1234;
  EXPECT_EQ(vktune_table_lookup(table, &q, nullptr, &found), VKTUNE_OK);
  EXPECT_EQ(found->match, VKTUNE_MATCH_VENDOR);
  vktune_lookup_free(found);
  q.kernel = nullptr;
  EXPECT_EQ(vktune_table_lookup(table, &q, nullptr, &found), VKTUNE_ERROR_USAGE);
  EXPECT_EQ(vktune_table_lookup(nullptr, &q, nullptr, &found), VKTUNE_ERROR_USAGE);
  EXPECT_EQ(vktune_table_lookup(table, &q, nullptr, nullptr), VKTUNE_ERROR_USAGE);
  vktune_table_free(table);
}

TEST(RuntimeCApi, WorkgroupCounts) {
  const vktune_dispatch_axis axes[3] = {{1, 2, 0}, {0, 1, 0}, {5, 1, 0}};
  const std::uint32_t shape[3] = {3, 9, 256};
  std::uint32_t out[3] = {};
  EXPECT_EQ(vktune_workgroup_counts(axes, shape, 3, out), VKTUNE_ERROR_USAGE);  // dim 5 of 3
  EXPECT_NE(std::strstr(vktune_last_error(), "shape_dim 5"), nullptr) << vktune_last_error();
  const vktune_dispatch_axis ok[3] = {{1, 2, 0}, {0, 1, 0}, {-1, 0, 0}};
  EXPECT_EQ(vktune_workgroup_counts(ok, shape, 3, out), VKTUNE_OK);
  EXPECT_EQ(out[0], 5u);
  EXPECT_EQ(out[1], 3u);
  EXPECT_EQ(out[2], 1u);
  EXPECT_EQ(vktune_workgroup_counts(nullptr, shape, 3, out), VKTUNE_ERROR_USAGE);
}
