// A contract's own push-constant layout (docs/TABLE_FORMAT.md,
// contract.push_constants): read from a version-2 table, evaluated for the
// queried shape as lookups evaluate workgroups and binding sizes, exposed in
// the C++ result and the C API; absent means the shape; a malformed field is
// one format error naming it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include <string>

#include "fixtures.hpp"
#include "vktune_runtime.h"
#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;

namespace {

// The value of a word: {"terms": [[coefficient, dims]...], "divisor": q}.
nlohmann::json value(std::initializer_list<std::pair<std::uint64_t, std::vector<int>>> terms, std::uint64_t divisor) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [coefficient, dims] : terms) list.push_back({{"coefficient", coefficient}, {"dims", dims}});
  return {{"terms", list}, {"divisor", divisor}};
}

// A softmax-like entry of shape (rows, n) pushing (n, rows, 1, ceil(rows*n / 4)).
nlohmann::json push_words() {
  return nlohmann::json::array({{{"name", "width"}, {"value", value({{1, {1}}}, 1)}},
                                {{"name", "height"}, {"value", value({{1, {0}}}, 1)}},
                                {{"name", "channels"}, {"value", value({{1, {}}}, 1)}},
                                {{"name", "quads"}, {"value", value({{1, {0, 1}}}, 4)}}});
}

// A version-2 table with one entry of `kernel` at shape 3,1000; `push` is
// the contract's push_constants (null: absent).
nlohmann::json table_with(const nlohmann::json& push) {
  const auto words = rt_test::fake_spirv(5);
  const auto bytes = rt_test::le_bytes(words);
  const auto hash = rt_test::content_hash(bytes);
  nlohmann::json contract = {
      {"space", "softmax"}, {"path", "softmax"}, {"shape_dims", {"rows", "n"}},
      {"shape_class", nlohmann::json::array()}, {"specialized_dims", nlohmann::json::array()},
      {"bindings", nlohmann::json::array()},
      {"stages", nlohmann::json::array({{{"spirv_hash", hash},
                                         {"specialization", nlohmann::json::object()},
                                         {"local_size", {64, 1, 1}},
                                         {"dispatch", nlohmann::json::array({{{"shape_dim", 0}, {"divisor", 1}},
                                                                             {{"shape_dim", -1}, {"divisor", 1}},
                                                                             {{"shape_dim", -1}, {"divisor", 1}}})},
                                         {"required_subgroup_size", 0},
                                         {"require_full_subgroups", false},
                                         {"shared_memory_bytes", 256}}})}};
  if (!push.is_null()) contract["push_constants"] = push;
  nlohmann::json winner = {{"device", 1},          {"kernel", "softmax"}, {"shape", "3,1000"},
                           {"cache_mode", "cold"}, {"variant_hash", "v5"}, {"config", nlohmann::json::object()},
                           {"contract", contract}, {"median_ns", 1000.0}, {"gbps", 1.0},
                           {"gflops", 1.0},        {"rel_l2_error", 0.0}};
  auto table = rt_test::table_json({rt_test::device_json(1, 0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3")},
                                   nlohmann::json::array({winner}));
  table["version"] = 2;
  table["spirv"] = {{hash, rt_test::base64(bytes)}};
  rt_test::rehash(table);
  return table;
}

rt::LookupResult find(const nlohmann::json& table, const rt::Shape& shape) {
  const auto loaded = rt::Table::from_json_text(table.dump(), "push table");
  rt::Query query;
  query.device = {0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3", ""};
  query.kernel = "softmax";
  query.shape = shape;
  return loaded.lookup(query);
}

// The one-line format error of loading the table with push_constants `push`.
std::string load_error(const nlohmann::json& push) {
  try {
    rt::Table::from_json_text(table_with(push).dump(), "push table");
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::format) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "loaded push_constants " << push.dump();
  return {};
}

}  // namespace

TEST(RuntimePushConstants, TheLayoutIsEvaluatedForTheQueriedShape) {
  const auto table = table_with(push_words());
  const auto loaded = rt::Table::from_json_text(table.dump(), "push table");
  ASSERT_EQ(loaded.entries().size(), 1u);
  const auto& layout = loaded.entries()[0].contract.push_constants;
  ASSERT_EQ(layout.size(), 4u);
  EXPECT_EQ(layout[3].name, "quads");
  EXPECT_EQ(layout[3].value.divisor, 4u);
  EXPECT_EQ(layout[3].value.align, 1u);
  // A shape nobody tuned: the nearest entry's layout, for this shape.
  auto found = find(table, {7, 1001});
  EXPECT_FALSE(found.exact_shape);
  EXPECT_EQ(found.push_constants, (std::vector<std::uint32_t>{1001, 7, 1, 1752}));  // ceil(7007 / 4)
  found = find(table, {3, 1000});
  EXPECT_EQ(found.push_constants, (std::vector<std::uint32_t>{1000, 3, 1, 750}));
  EXPECT_EQ(rt::push_constant_words(found.contract, {65535, 65537}),
            (std::vector<std::uint32_t>{65537, 65535, 1, 1073741824u}));  // ceil((2^32 - 1) / 4)
}

TEST(RuntimePushConstants, AbsentOrEmptyIsTheShape) {
  for (const auto& push : {nlohmann::json(), nlohmann::json::array()}) {
    const auto found = find(table_with(push), {7, 1001});
    EXPECT_TRUE(found.contract.push_constants.empty());
    EXPECT_EQ(found.push_constants, (std::vector<std::uint32_t>{7, 1001}));
  }
}

TEST(RuntimePushConstants, AWordBeyond32BitsIsAUsageError) {
  auto push = push_words();
  push[0]["value"] = value({{1, {0, 1}}}, 1);  // rows * n
  try {
    (void)find(table_with(push), {65536, 65536});
    ADD_FAILURE() << "no error";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::usage);
    EXPECT_NE(std::string(e.what()).find("push constant 'width' is 4294967296"), std::string::npos) << e.what();
  }
}

TEST(RuntimePushConstants, MalformedFieldsAreOneErrorNamingTheField) {
  const auto expect = [](nlohmann::json push, const std::string& field, const std::string& problem) {
    const auto message = load_error(push);
    EXPECT_NE(message.find("'push table': winners[0].contract.push_constants" + field + ": " + problem),
              std::string::npos)
        << message;
  };
  expect(5, "", "is not an array");
  auto push = push_words();
  push[1].erase("name");
  expect(push, "[1]", "lacks \"name\"");
  push = push_words();
  push[2]["name"] = 7;
  expect(push, "[2].name", "is not a string");
  push = push_words();
  push[0]["value"].erase("terms");
  expect(push, "[0].value", "lacks \"terms\"");
  push = push_words();
  push[3]["value"]["divisor"] = 0;
  expect(push, "[3].value.divisor", "is 0");
  push = push_words();
  push[0]["value"]["terms"][0]["dims"] = {2};
  expect(push, "[0].value.terms[0].dims[0]", "names dimension 2 of a 2-dimensional shape");
  push = push_words();
  push[0]["value"]["terms"][0]["coefficient"] = -1;
  expect(push, "[0].value.terms[0].coefficient", "is not an unsigned integer");
  push = nlohmann::json::array();
  for (int i = 0; i < 65; ++i) push.push_back(push_words()[0]);
  expect(push, "", "has more than 64 words (256 bytes)");
}

// Up to 64 words (256 bytes) load; a device whose maxPushConstantsSize is
// smaller (128 bytes is all Vulkan guarantees) skips the entry, saying why,
// where the query gives its capabilities.
TEST(RuntimePushConstants, MoreWordsThanTheDeviceTakesSkipTheEntry) {
  nlohmann::json push = nlohmann::json::array();
  for (int i = 0; i < 40; ++i) push.push_back({{"name", "w" + std::to_string(i)}, {"value", value({{1, {1}}, {std::uint64_t(i), {}}}, 1)}});
  const auto table = rt::Table::from_json_text(table_with(push).dump(), "push table");
  rt::Query query;
  query.device = {0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3", ""};
  query.kernel = "softmax";
  query.shape = {7, 1001};
  const auto found = table.lookup(query);
  ASSERT_EQ(found.push_constants.size(), 40u);
  EXPECT_EQ(found.push_constants[39], 1001u + 39u);
  query.capabilities.known = true;
  query.capabilities.max_invocations = 1024;
  query.capabilities.max_shared_memory_bytes = 49152;
  query.capabilities.max_push_constant_bytes = 160;  // 40 words exactly
  EXPECT_EQ(table.lookup(query).push_constants.size(), 40u);
  query.capabilities.max_push_constant_bytes = 128;
  const auto refused = table.lookup(query, rt::Contract{});
  EXPECT_EQ(refused.match, rt::Match::baseline);
  std::string explain;
  for (const auto& line : refused.explain) explain += line + "\n";
  EXPECT_NE(explain.find("it pushes 160 bytes of push constants, more than the device's maxPushConstantsSize of 128"),
            std::string::npos)
      << explain;
  try {
    (void)table.lookup(query);
    ADD_FAILURE() << "a device taking 128 bytes of push constants was given 40 words";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::no_match) << e.what();
  }
}

// Words whose value is no polynomial of the shape travel as expressions of
// its dimensions, pushed as their type says; the values here are worked
// out in the test, not by the code under test.
TEST(RuntimePushConstants, ExpressionWordsAreEvaluatedAndPushedAsTheirTypes) {
  nlohmann::json push = nlohmann::json::array(
      {{{"name", "scale"}, {"expression", "1 / sqrt(n)"}, {"type", "f32"}},
       {{"name", "eps"}, {"expression", "1e-5"}, {"type", "f32"}},
       {{"name", "back"}, {"expression", "1 - rows"}, {"type", "i32"}},
       {{"name", "capped"}, {"expression", "min(n, 64) + mod(rows, 3) * ceil_div(n, 256) - 2^2"}},
       {{"name", "exponent"}, {"expression", "-2^2 + abs(floor(log2(n)))"}, {"type", "i32"}}});
  const auto found = find(table_with(push), {7, 1001});
  ASSERT_EQ(found.push_constants.size(), 5u);
  EXPECT_EQ(std::bit_cast<float>(found.push_constants[0]), static_cast<float>(1.0 / std::sqrt(1001.0)));
  EXPECT_EQ(std::bit_cast<float>(found.push_constants[1]), 1e-5f);
  EXPECT_EQ(static_cast<std::int32_t>(found.push_constants[2]), -6);
  EXPECT_EQ(found.push_constants[3], 64u + 1u * 4u - 4u);  // 7 mod 3 = 1, ceil(1001 / 256) = 4
  EXPECT_EQ(static_cast<std::int32_t>(found.push_constants[4]), 4 + 9);  // (-2)^2: unary minus binds first
  // A value its type cannot hold at a shape is a usage error naming the word.
  try {
    (void)find(table_with(nlohmann::json::array({{{"name", "neg"}, {"expression", "1 - rows"}}})), {7, 1001});
    ADD_FAILURE() << "no error";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::usage);
    EXPECT_NE(std::string(e.what()).find("push constant 'neg' is -6.000000 for shape 7,1001, which is no u32 word"),
              std::string::npos)
        << e.what();
  }
}

TEST(RuntimePushConstants, MalformedExpressionWordsAreOneErrorNamingTheField) {
  const auto expect = [](const nlohmann::json& word, const std::string& field, const std::string& problem) {
    const auto message = load_error(nlohmann::json::array({word}));
    EXPECT_NE(message.find("winners[0].contract.push_constants[0]" + field + ": " + problem), std::string::npos)
        << message;
  };
  expect({{"name", "w"}, {"expression", "sqrt(cols)"}}, ".expression", "'sqrt(cols)': 'cols' is not a dimension");
  expect({{"name", "w"}, {"expression", "is_pow2(n)"}}, ".expression", "'is_pow2(n)': 'is_pow2' with 1 argument");
  expect({{"name", "w"}, {"expression", "(n + 1"}}, ".expression", "'(n + 1': a '(' without its ')'");
  expect({{"name", "w"}, {"expression", "n $ 2"}}, ".expression", "'n $ 2': unexpected '$'");
  expect({{"name", "w"}, {"expression", std::string(300, '1')}}, ".expression",
         "'" + std::string(300, '1') + "': longer than 256 characters");
  expect({{"name", "w"}, {"expression", "n"}, {"type", "f64"}}, ".type", "is not u32, i32 or f32");
  expect({{"name", "w"}}, "", "lacks \"value\"");
}

TEST(RuntimePushConstants, TheCApiHandsOutTheWords) {
  vktune_table* table = nullptr;
  const auto text = table_with(push_words()).dump();
  ASSERT_EQ(vktune_table_open_json_text(text.data(), text.size(), &table), VKTUNE_OK) << vktune_last_error();
  const std::uint32_t shape[] = {7, 1001};
  vktune_query query{};
  query.device = {0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3", nullptr};
  query.kernel = "softmax";
  query.shape = shape;
  query.shape_dims = 2;
  vktune_lookup* found = nullptr;
  ASSERT_EQ(vktune_table_lookup(table, &query, nullptr, &found), VKTUNE_OK) << vktune_last_error();
  ASSERT_EQ(found->push_constant_count, 4u);
  EXPECT_EQ(std::vector<std::uint32_t>(found->push_constants, found->push_constants + 4),
            (std::vector<std::uint32_t>{1001, 7, 1, 1752}));
  vktune_lookup_free(found);
  vktune_table_free(table);

  // Without a layout: the shape, so the Vulkan glue always has words to push.
  const auto plain = table_with(nlohmann::json()).dump();
  ASSERT_EQ(vktune_table_open_json_text(plain.data(), plain.size(), &table), VKTUNE_OK) << vktune_last_error();
  ASSERT_EQ(vktune_table_lookup(table, &query, nullptr, &found), VKTUNE_OK) << vktune_last_error();
  ASSERT_EQ(found->push_constant_count, 2u);
  EXPECT_EQ(found->push_constants[0], 7u);
  EXPECT_EQ(found->push_constants[1], 1001u);
  vktune_lookup_free(found);
  vktune_table_free(table);
}
