// A contract's bindings beyond storage buffers of their own
// (docs/TABLE_FORMAT.md, contract.bindings): "alias_of" (one buffer bound at
// two binding numbers) and role "uniform" with its "members" (a std140 block
// the runtime computes for the queried shape). Read from a version-2 table,
// evaluated by lookups, exposed in the C++ result and the C API; each
// malformed field is one format error naming it. The block's bytes here are
// worked out in the test, not by the code under test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "fixtures.hpp"
#include "vktune_runtime.h"
#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;

namespace {

nlohmann::json poly(std::uint64_t coefficient, std::vector<int> dims, std::uint64_t divisor = 1) {
  return {{"terms", nlohmann::json::array({{{"coefficient", coefficient}, {"dims", dims}}})}, {"divisor", divisor}};
}

nlohmann::json sized(std::uint64_t coefficient, std::vector<int> dims) {
  auto size = poly(coefficient, std::move(dims));
  size["align"] = 4;
  return size;
}

// Shape (rows, n): x (input), y (output), x_view (x again, at binding 2),
// and a 16-byte uniform block at binding 3: n, rows * n / 4 rounded up,
// 1 / sqrt(n) as f32, 1 - rows as i32.
nlohmann::json bindings_json() {
  return nlohmann::json::array(
      {{{"name", "x"}, {"role", "input"}, {"size", sized(4, {0, 1})}},
       {{"name", "y"}, {"role", "output"}, {"size", sized(4, {0, 1})}},
       {{"name", "x_view"}, {"role", "input"}, {"size", sized(4, {0, 1})}, {"alias_of", 0}},
       {{"name", "meta"},
        {"role", "uniform"},
        {"size", sized(16, {})},
        {"members", nlohmann::json::array({{{"name", "n"}, {"value", poly(1, {1})}, {"offset", 0}},
                                           {{"name", "quads"}, {"value", poly(1, {0, 1}, 4)}, {"offset", 4}},
                                           {{"name", "scale"}, {"expression", "1 / sqrt(n)"}, {"type", "f32"}, {"offset", 8}},
                                           {{"name", "back"}, {"expression", "1 - rows"}, {"type", "i32"}, {"offset", 12}}})}}});
}

nlohmann::json bindings_table(const nlohmann::json& bindings) {
  const auto words = rt_test::fake_spirv(9);
  const auto bytes = rt_test::le_bytes(words);
  const auto hash = rt_test::content_hash(bytes);
  const nlohmann::json axis_none = {{"shape_dim", -1}, {"divisor", 1}};
  nlohmann::json contract = {
      {"space", "views"}, {"path", "views"}, {"shape_dims", {"rows", "n"}},
      {"shape_class", nlohmann::json::array()}, {"specialized_dims", nlohmann::json::array()},
      {"bindings", bindings},
      {"stages", nlohmann::json::array({{{"spirv_hash", hash},
                                         {"specialization", nlohmann::json::object()},
                                         {"local_size", {64, 1, 1}},
                                         {"dispatch", nlohmann::json::array({{{"shape_dim", 0}, {"divisor", 1}}, axis_none, axis_none})},
                                         {"required_subgroup_size", 0},
                                         {"require_full_subgroups", false},
                                         {"shared_memory_bytes", 0}}})}};
  nlohmann::json winner = {{"device", 1},          {"kernel", "views"},   {"shape", "3,1000"},
                           {"cache_mode", "cold"}, {"variant_hash", "v9"}, {"config", nlohmann::json::object()},
                           {"contract", contract}, {"median_ns", 1000.0}, {"gbps", 1.0},
                           {"gflops", 1.0},        {"rel_l2_error", 0.0}};
  auto table = rt_test::table_json({rt_test::device_json(1, 0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3")},
                                   nlohmann::json::array({winner}));
  table["version"] = 2;
  table["spirv"] = {{hash, rt_test::base64(bytes)}};
  rt_test::rehash(table);
  return table;
}

rt::LookupResult lookup_at(const nlohmann::json& table, const rt::Shape& shape) {
  const auto loaded = rt::Table::from_json_text(table.dump(), "bindings table");
  return loaded.lookup({{0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3", ""}, "views", shape});
}

std::string bindings_error(const nlohmann::json& bindings) {
  try {
    rt::Table::from_json_text(bindings_table(bindings).dump(), "bindings table");
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::format) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "loaded bindings " << bindings.dump();
  return {};
}

std::uint32_t word_of(const std::uint8_t* bytes, std::size_t offset) {
  std::uint32_t w = 0;
  std::memcpy(&w, bytes + offset, 4);
  return w;
}

// The block at (rows, n), worked out here.
void expect_block(const std::uint8_t* block, std::uint32_t rows, std::uint32_t n) {
  EXPECT_EQ(word_of(block, 0), n);
  EXPECT_EQ(word_of(block, 4), (std::uint64_t{rows} * n + 3) / 4);
  EXPECT_EQ(word_of(block, 8), std::bit_cast<std::uint32_t>(static_cast<float>(1 / std::sqrt(double(n)))));
  EXPECT_EQ(word_of(block, 12), static_cast<std::uint32_t>(1 - static_cast<std::int64_t>(rows)));
}

}  // namespace

TEST(RuntimeBindings, AnAliasAndAUniformBlockAreReadAndEvaluatedForTheShape) {
  const auto found = lookup_at(bindings_table(bindings_json()), {7, 1001});
  const auto& bindings = found.contract.bindings;
  ASSERT_EQ(bindings.size(), 4u);
  EXPECT_EQ(bindings[0].alias_of, -1);
  EXPECT_EQ(bindings[2].alias_of, 0);
  EXPECT_EQ(bindings[3].role, rt::BindingRole::uniform);
  EXPECT_STREQ(rt::to_string(bindings[3].role), "uniform");
  ASSERT_EQ(bindings[3].members.size(), 4u);
  EXPECT_EQ(bindings[3].members[2].offset, 8u);
  EXPECT_EQ(found.binding_bytes, (std::vector<std::uint64_t>{28028, 28028, 28028, 16}));
  ASSERT_EQ(found.uniform_blocks.size(), 4u);
  EXPECT_TRUE(found.uniform_blocks[0].empty());
  EXPECT_TRUE(found.uniform_blocks[2].empty());
  ASSERT_EQ(found.uniform_blocks[3].size(), 16u);
  expect_block(found.uniform_blocks[3].data(), 7, 1001);
  EXPECT_EQ(rt::uniform_block(found.contract, 3, {2, 64}).size(), 16u);
  expect_block(rt::uniform_block(found.contract, 3, {2, 64}).data(), 2, 64);
  // A member whose type cannot hold its value at a shape is a usage error naming it.
  auto negative = bindings_json();
  negative[3]["members"][3]["type"] = "u32";
  try {
    (void)lookup_at(bindings_table(negative), {7, 1001});
    ADD_FAILURE() << "no error";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::usage);
    EXPECT_NE(std::string(e.what()).find("uniform buffer 'meta' member 'back' is -6.000000 for shape 7,1001, which is no u32 word"),
              std::string::npos)
        << e.what();
  }
}

TEST(RuntimeBindings, TheCApiHandsOutTheAliasAndTheBlock) {
  const auto text = bindings_table(bindings_json()).dump();
  vktune_table* table = nullptr;
  ASSERT_EQ(vktune_table_open_json_text(text.data(), text.size(), &table), VKTUNE_OK) << vktune_last_error();
  const std::uint32_t shape[] = {7, 1001};
  vktune_query query{};
  query.device = {0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3", nullptr};
  query.kernel = "views";
  query.shape = shape;
  query.shape_dims = 2;
  vktune_lookup* found = nullptr;
  ASSERT_EQ(vktune_table_lookup(table, &query, nullptr, &found), VKTUNE_OK) << vktune_last_error();
  ASSERT_EQ(found->binding_count, 4u);
  EXPECT_EQ(found->bindings[0].alias_of, -1);
  EXPECT_EQ(found->bindings[2].alias_of, 0);
  EXPECT_EQ(found->bindings[0].uniform_data, nullptr);
  EXPECT_EQ(found->bindings[3].role, VKTUNE_BINDING_UNIFORM);
  ASSERT_EQ(found->bindings[3].bytes, 16u);
  ASSERT_NE(found->bindings[3].uniform_data, nullptr);
  expect_block(found->bindings[3].uniform_data, 7, 1001);
  vktune_lookup_free(found);
  vktune_table_free(table);
}

TEST(RuntimeBindings, MalformedAliasesAndMembersAreOneErrorNamingTheField) {
  const auto expect = [](const nlohmann::json& bindings, const std::string& field, const std::string& problem) {
    const auto message = bindings_error(bindings);
    EXPECT_NE(message.find("'bindings table': winners[0].contract.bindings" + field + ": " + problem), std::string::npos)
        << message;
  };
  auto b = bindings_json();
  b[2]["alias_of"] = 4;
  expect(b, "[2].alias_of", "names no other binding of the contract");
  b[2]["alias_of"] = 2;
  expect(b, "[2].alias_of", "names no other binding of the contract");
  b[2]["alias_of"] = -1;
  expect(b, "[2].alias_of", "is not an unsigned integer");
  b = bindings_json();
  b[0]["alias_of"] = 1;
  expect(b, "[2].alias_of", "names a binding that is itself an alias");
  b = bindings_json();
  b[2]["alias_of"] = 3;
  expect(b, "[2].alias_of", "aliases a uniform buffer");
  b = bindings_json();
  b[0]["members"] = b[3]["members"];
  expect(b, "[0].members", "belongs to a binding of role input");
  b = bindings_json();
  b[3]["size"] = sized(4, {1});
  expect(b, "[3].size", "of a uniform block depends on the shape");
  b = bindings_json();
  b[3]["members"][1]["offset"] = 14;
  expect(b, "[3].members[1].offset", "is not a word inside the block's 16 bytes");
  b[3]["members"][1]["offset"] = 16;
  expect(b, "[3].members[1].offset", "is not a word inside the block's 16 bytes");
  b = bindings_json();
  b[3]["members"][0].erase("offset");
  expect(b, "[3].members[0]", "lacks \"offset\"");
  b = bindings_json();
  b[3]["members"][2]["expression"] = "1 / sqrt(k)";
  expect(b, "[3].members[2].expression", "");
  b = bindings_json();
  b[3]["role"] = "uniforms";
  expect(b, "[3].role", "'uniforms' is not a binding role (input, weights, output, scratch, uniform)");
}
