// JSON tables: what loads, and every way a file can be wrong -> rt::Error.
#include <gtest/gtest.h>

#include <cstring>

#include "fixtures.hpp"
#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;
using rt_test::device_json;
using rt_test::table_json;
using rt_test::winner_json;

namespace {

nlohmann::json good_table() {
  return table_json({device_json(7, 0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3")},
                    {winner_json(7, "matmul_q4k", "1,4096,4096", 1), winner_json(7, "matmul_q4k", "512,4096,4096", 2)});
}

// The error kind of loading `text`; fails the test when it loads.
rt::Error::Kind load_error(const std::string& text) {
  try {
    rt::Table::from_json_text(text, "test table");
  } catch (const rt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("test table"), std::string::npos) << e.what();
    return e.kind();
  }
  ADD_FAILURE() << "loaded:\n" << text.substr(0, 400);
  return rt::Error::Kind::usage;
}

// Loads the good table with one change made to it, expecting a format error
// whose message contains `expect`.
void expect_format_error(const std::function<void(nlohmann::json&)>& change, const std::string& expect) {
  auto doc = good_table();
  change(doc);
  try {
    rt::Table::from_json_text(doc.dump(), "test table");
    ADD_FAILURE() << "loaded a table that should fail with '" << expect << "'";
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::format) << e.what();
    EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(RuntimeJson, LoadsAHandWrittenTable) {
  const auto table = rt::Table::from_json_text(good_table().dump());
  ASSERT_EQ(table.devices().size(), 1u);
  EXPECT_EQ(table.devices()[0].id, 7);
  EXPECT_EQ(table.devices()[0].identity, (rt::DeviceIdentity{0x10de, 0x2330, 100, "NVIDIA H100 80GB HBM3"}));
  ASSERT_EQ(table.entries().size(), 2u);
  const auto& e = table.entries()[1];
  EXPECT_EQ(e.device, 0u);
  EXPECT_EQ(e.kernel, "matmul_q4k");
  EXPECT_EQ(e.shape, (std::vector<std::uint32_t>{512, 4096, 4096}));
  EXPECT_EQ(e.cache_mode, "cold");
  EXPECT_EQ(e.variant_hash, "v2");
  EXPECT_EQ(e.config_json, R"({"TAG":2})");
  EXPECT_EQ(e.contract.stages[0].spirv, rt_test::fake_spirv(2));
  EXPECT_EQ(e.contract.stages[0].local_size, (std::array<std::uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(e.contract.stages[0].dispatch[0], (rt::DispatchAxis{1, 2}));
  EXPECT_EQ(e.contract.stages[0].dispatch[2], (rt::DispatchAxis{-1, 1}));
  EXPECT_DOUBLE_EQ(e.median_ns, 1002.0);
}

TEST(RuntimeJson, ShapeAsArrayAndSpecializationConstants) {
  auto doc = good_table();
  doc["winners"][0]["shape"] = {2, 64, 256};
  doc["winners"][0]["specialization"] = {{"3", 7}, {"0", true}, {"1", 1.5}, {"2", -1}};
  doc["winners"][0]["required_subgroup_size"] = 32;
  doc["winners"][0].erase("spirv_hash");  // optional
  const auto table = rt::Table::from_json_text(doc.dump());
  const auto& e = table.entries()[0];
  EXPECT_EQ(e.shape, (std::vector<std::uint32_t>{2, 64, 256}));
  EXPECT_EQ(e.contract.stages[0].required_subgroup_size, 32u);
  float f = 1.5f;
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, 4);
  EXPECT_EQ(e.contract.stages[0].specialization, (std::vector<rt::SpecializationConstant>{{0, 1}, {1, bits}, {2, 0xffffffffu}, {3, 7}}));
}

TEST(RuntimeJson, ExtraFieldsAreIgnored) {
  auto doc = good_table();
  doc["something_new"] = {1, 2, 3};
  doc["winners"][0]["template_name"] = "matvec_q4k.comp";
  doc["devices"][0]["ceilings"] = {{"read_bandwidth", {{"value", 3350.2}, {"unit", "GB/s"}}}};
  EXPECT_EQ(rt::Table::from_json_text(doc.dump()).entries().size(), 2u);
}

TEST(RuntimeJson, WrongFormatOrVersion) {
  auto doc = good_table();
  doc["version"] = 3;
  EXPECT_EQ(load_error(doc.dump()), rt::Error::Kind::version);
  doc["version"] = "1";
  EXPECT_EQ(load_error(doc.dump()), rt::Error::Kind::version);
  doc.erase("version");
  EXPECT_EQ(load_error(doc.dump()), rt::Error::Kind::format);
  doc = good_table();
  doc["format"] = "something-else";
  EXPECT_EQ(load_error(doc.dump()), rt::Error::Kind::format);
  EXPECT_EQ(load_error("[1, 2, 3]"), rt::Error::Kind::format);
  EXPECT_EQ(load_error(""), rt::Error::Kind::format);
  EXPECT_EQ(load_error("not json at all"), rt::Error::Kind::format);
  try {
    doc = good_table();
    doc["version"] = 3;
    rt::Table::from_json_text(doc.dump(), "t.json");
  } catch (const rt::Error& e) {
    EXPECT_STREQ(e.what(), "vktune table 't.json' has version 3, but this runtime reads versions 1 to 2: export it "
                           "again with a matching vktune, or update the runtime");
  }
}

TEST(RuntimeJson, MalformedFieldsNameThePlace) {
  expect_format_error([](auto& d) { d.erase("winners"); }, "lacks \"winners\"");
  expect_format_error([](auto& d) { d["devices"] = 5; }, "\"devices\" is not an array");
  expect_format_error([](auto& d) { d["devices"][0].erase("vendor_id"); }, "devices[0] lacks \"vendor_id\"");
  expect_format_error([](auto& d) { d["devices"][0]["vendor_id"] = -1; }, "devices[0].vendor_id");
  expect_format_error([](auto& d) { d["devices"][0]["driver_version"] = 1ull << 33; }, "devices[0].driver_version");
  expect_format_error([](auto& d) { d["devices"].push_back(d["devices"][0]); }, "appears twice");
  expect_format_error([](auto& d) { d["winners"][1]["device"] = 8; }, "winners[1].device names no entry");
  expect_format_error([](auto& d) { d["winners"][0]["kernel"] = 3; }, "winners[0].kernel is not a string");
  expect_format_error([](auto& d) { d["winners"][0]["shape"] = "1,,4096"; }, "winners[0].shape");
  expect_format_error([](auto& d) { d["winners"][0]["shape"] = "1,0,4096"; }, "winners[0].shape");
  expect_format_error([](auto& d) { d["winners"][0]["shape"] = "1,99999999999,4096"; }, "winners[0].shape");
  expect_format_error([](auto& d) { d["winners"][0]["spirv_base64"] = "AAA"; }, "not base64");
  expect_format_error([](auto& d) { d["winners"][0]["spirv_base64"] = "AA*A"; }, "not base64");
  expect_format_error([](auto& d) { d["winners"][0]["spirv_base64"] = "AAAAAAAAAAA="; }, "too short for SPIR-V");
  expect_format_error([](auto& d) { d["winners"][0]["spirv_base64"] = "AAAAAAAA"; }, "not a whole number of words");
  expect_format_error(
      [](auto& d) {
        auto words = rt_test::fake_spirv(1);
        words[0] = 0x12345678;
        d["winners"][0]["spirv_base64"] = rt_test::base64(rt_test::le_bytes(words));
        d["winners"][0].erase("spirv_hash");
      },
      "wrong magic number");
  expect_format_error([](auto& d) { d["winners"][0]["spirv_hash"] = "0123456789abcdef"; }, "does not match its hash");
  expect_format_error([](auto& d) { d["winners"][0]["local_size"] = {64, 0, 1}; }, "local_size[1]");
  expect_format_error([](auto& d) { d["winners"][0]["local_size"] = {64, 1}; }, "local_size");
  expect_format_error([](auto& d) { d["winners"][0]["dispatch"].erase(2); }, "winners[0].dispatch");
  expect_format_error([](auto& d) { d["winners"][0]["dispatch"][0]["divisor"] = 0; }, "divisor");
  expect_format_error([](auto& d) { d["winners"][0]["dispatch"][0]["shape_dim"] = 3; }, "names shape dimension 3");
  expect_format_error([](auto& d) { d["winners"][0]["dispatch"][0]["shape_dim"] = 1ull << 40; }, "shape dimension");
  expect_format_error([](auto& d) { d["winners"][0]["dispatch"] = nullptr; }, "dispatch");
  expect_format_error([](auto& d) { d["winners"][0]["specialization"] = {{"x", 1}}; }, "not a constant_id");
  expect_format_error([](auto& d) { d["winners"][0]["specialization"] = {{"1", "a"}}; }, "not a number");
  expect_format_error([](auto& d) { d["winners"][0]["specialization"] = {{"1", 1}, {"01", 2}}; }, "appears twice");
  expect_format_error([](auto& d) { d["winners"][0]["median_ns"] = "fast"; }, "median_ns");
  expect_format_error([](auto& d) { d["winners"][0] = 5; }, "winners[0] is not an object");
}

// A dispatch folded into a second axis: x capped at 7 workgroups, y reading
// the same dimension by 2 * 7 (docs/TABLE_FORMAT.md). 200 columns in pairs
// are 100 workgroups: 7 along x, 15 along y (7 * 14 = 98 would miss two).
TEST(RuntimeJson, AFoldedDispatchLoadsAndIsEvaluated) {
  auto doc = good_table();
  doc["winners"][0]["dispatch"] = nlohmann::json::parse(
      R"([{"shape_dim": 1, "divisor": 2, "fold": 7}, {"shape_dim": 1, "divisor": 14}, {"shape_dim": -1, "divisor": 1}])");
  const auto table = rt::Table::from_json_text(doc.dump(), "test table");
  const auto& dispatch = table.entries()[0].contract.stages[0].dispatch;
  EXPECT_EQ(dispatch[0], (rt::DispatchAxis{1, 2, 7}));
  EXPECT_EQ(dispatch[1], (rt::DispatchAxis{1, 14, 0}));
  EXPECT_EQ(rt::workgroup_counts(dispatch, {1, 200, 4096}), (std::array<std::uint32_t, 3>{7, 15, 1}));
  EXPECT_EQ(rt::workgroup_counts(dispatch, {1, 9, 4096}), (std::array<std::uint32_t, 3>{5, 1, 1}));
}

TEST(RuntimeJson, AFoldWithoutTheAxisThatCarriesItsRestIsAnError) {
  const auto folded = [](nlohmann::json& d, const char* axes) { d["winners"][0]["dispatch"] = nlohmann::json::parse(axes); };
  expect_format_error([&](auto& d) { folded(d, R"([{"shape_dim": 1, "divisor": 2, "fold": 0}, {"shape_dim": 1, "divisor": 2},
                                                  {"shape_dim": -1, "divisor": 1}])"); },
                      "axis 0 has a fold that is not a positive 32-bit integer");
  expect_format_error([&](auto& d) { folded(d, R"([{"shape_dim": 1, "divisor": 2, "fold": 7}, {"shape_dim": 1, "divisor": 13},
                                                  {"shape_dim": -1, "divisor": 1}])"); },
                      "axis 0 folds, but the next axis does not carry the rest (shape_dim 1, divisor 14)");
  expect_format_error([&](auto& d) { folded(d, R"([{"shape_dim": 1, "divisor": 2, "fold": 7}, {"shape_dim": 0, "divisor": 14},
                                                  {"shape_dim": -1, "divisor": 1}])"); },
                      "axis 0 folds, but the next axis does not carry the rest");
  expect_format_error([&](auto& d) { folded(d, R"([{"shape_dim": -1, "divisor": 1}, {"shape_dim": -1, "divisor": 1},
                                                  {"shape_dim": 1, "divisor": 2, "fold": 7}])"); },
                      "axis 2 folds");
  expect_format_error([&](auto& d) { folded(d, R"([{"shape_dim": 1, "divisor": 2, "fold": "7"}, {"shape_dim": 1, "divisor": 14},
                                                  {"shape_dim": -1, "divisor": 1}])"); },
                      "axis 0 has a fold that is not a positive 32-bit integer");
}

TEST(RuntimeJson, EveryTruncationIsAnError) {
  const auto text = good_table().dump();
  for (std::size_t n = 0; n < text.size(); ++n) {
    EXPECT_EQ(load_error(text.substr(0, n)), rt::Error::Kind::format) << "truncated at " << n;
  }
}

TEST(RuntimeJson, FlippedBytesNeverCrash) {
  const auto text = good_table().dump(2);
  std::size_t errors = 0, loaded = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (const unsigned char mask : {0x01, 0x20, 0x80}) {
      auto bad = text;
      bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ mask);
      try {
        const auto table = rt::Table::from_json_text(bad, "flipped");
        ++loaded;  // e.g. a changed letter in a name or a digit of median_ns
      } catch (const rt::Error&) {
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, loaded);
}

TEST(RuntimeJson, FlippedSpirvIsAlwaysAnError) {
  const auto doc = good_table();
  const std::string b64 = doc["winners"][0]["spirv_base64"];
  for (std::size_t i = 0; i < b64.size(); ++i) {
    for (const char replacement : {'A', 'B', 'z', '+', '='}) {
      if (b64[i] == replacement) continue;
      auto d = doc;
      auto changed = b64;
      changed[i] = replacement;
      d["winners"][0]["spirv_base64"] = changed;
      EXPECT_EQ(load_error(d.dump()), rt::Error::Kind::format) << "base64 char " << i << " -> " << replacement;
    }
  }
}

TEST(RuntimeJson, FilesOnDisk) {
  const auto dir = rt_test::fresh_dir("json");
  rt_test::write_file(dir / "t.json", good_table().dump(2) + "\n");
  EXPECT_EQ(rt::Table::open(dir / "t.json").entries().size(), 2u);
  EXPECT_EQ(rt::Table::open_json(dir / "t.json").source(), (dir / "t.json").string());
  try {
    rt::Table::open(dir / "missing.json");
    FAIL();
  } catch (const rt::Error& e) {
    EXPECT_EQ(e.kind(), rt::Error::Kind::io);
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
  EXPECT_THROW(rt::Table::open(dir), rt::Error);  // a directory
  rt_test::write_file(dir / "empty", "");
  EXPECT_THROW(rt::Table::open(dir / "empty"), rt::Error);
  rt_test::write_file(dir / "binary", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  EXPECT_THROW(rt::Table::open(dir / "binary"), rt::Error);
  std::filesystem::remove_all(dir);
}
