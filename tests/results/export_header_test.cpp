// The C++ header export, compiled for real: a tiny program includes the
// exported header, is built with the project's C++ compiler and run, and
// checks lookups and SPIR-V words against what the store holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "export_test_data.hpp"
#include "results/export_header.hpp"
#include "store_fixture.hpp"

#ifndef VKTUNE_CXX_COMPILER
#error "VKTUNE_CXX_COMPILER must name the C++ compiler"
#endif

namespace vktune::results::testing {
namespace {

using ExportHeaderTest = StoreTest;

std::string words_literal(const std::vector<std::uint32_t>& words) {
  std::string text = "{";
  for (const auto w : words) text += std::to_string(w) + "u,";
  return text + "}";
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

TEST_F(ExportHeaderTest, AProgramCompiledWithTheHeaderFindsTheWinnersAndTheirSpirv) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  const auto identity = random.device(0x10de, "GPU \"one\"\\");
  const auto device = store.upsert_device(identity);
  const auto decode = random.variant("matmul_q4k");
  const auto prefill = random.variant("matmul_q4k");
  store.upsert_variant(decode);
  store.upsert_variant(prefill);
  auto w1 = random.winner(device, decode, "1,4096,4096");
  w1.dispatch_json = R"([{"divisor":4,"shape_dim":1},{"divisor":1,"shape_dim":-1},{"divisor":1,"shape_dim":-1}])";
  w1.specialization_json = R"({"0":128,"2":1.5,"5":true})";
  auto w2 = random.winner(device, prefill, "512,4096,4096");
  w2.dispatch_json = R"([{"divisor":64,"shape_dim":1},{"divisor":32,"shape_dim":0},{"divisor":1,"shape_dim":-1}])";
  w2.specialization_json = "{}";
  // The decode winner serves M <= 8, the prefill one M >= 9 (as the matrix
  // products' spaces declare); the decode one binds one buffer of 4*M*N bytes.
  auto contract1 = nlohmann::json::parse(row_contract(w1));
  contract1["shape_class"] = nlohmann::json::parse(R"([{"dim":0,"min":1,"max":8}])");
  contract1["bindings"] = nlohmann::json::parse(
      R"([{"name":"y","role":"output","size":{"terms":[{"coefficient":4,"dims":[0,1]}],"divisor":1,"align":4}}])");
  // The decode winner pushes words of its own: (N, ceil((K + 3) / 256), 1).
  contract1["push_constants"] = nlohmann::json::parse(R"([
      {"name": "n", "value": {"terms": [{"coefficient": 1, "dims": [1]}], "divisor": 1}},
      {"name": "blocks", "value": {"terms": [{"coefficient": 1, "dims": [2]}, {"coefficient": 3, "dims": []}],
                                  "divisor": 256}},
      {"name": "one", "value": {"terms": [{"coefficient": 1, "dims": []}], "divisor": 1}}])");
  w1.contract_json = contract1.dump();
  auto contract2 = nlohmann::json::parse(row_contract(w2));
  contract2["shape_class"] = nlohmann::json::parse(R"([{"dim":0,"min":9,"max":4294967295}])");
  w2.contract_json = contract2.dump();
  store.set_winner(w1);
  store.set_winner(w2);

  const std::string header = export_header(store);
  EXPECT_EQ(header, export_header(store));  // stable
  const TempDir dir;
  write(dir.path() / "tuned_table.hpp", header);

  std::ostringstream program;
  program << R"cpp(#include "tuned_table.hpp"
#include <algorithm>
#include <cstdio>
#include <cstring>
static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)
static_assert(vktune_table::entries.size() == 2);
static_assert(vktune_table::format_version == 2);
int main() {
  namespace t = vktune_table;
  const std::uint32_t vendor = )cpp"
          << identity.vendor_id << "u, device = " << identity.device_id << "u, driver = " << identity.driver_version
          << "u;\n  const char* name = " << nlohmann::json(identity.name).dump() << ";\n  const char* uuid = \""
          << identity.device_uuid << "\";\n"
          << "  const std::uint32_t words1[] = " << words_literal(w1.spirv) << ";\n"
          << "  const std::uint32_t words2[] = " << words_literal(w2.spirv) << ";\n"
          << "  const std::uint32_t local1[] = {" << w1.local_size[0] << "u, " << w1.local_size[1] << "u, "
          << w1.local_size[2] << "u};\n"
          << "  const double median1 = " << shortest(w1.median_ns) << ";\n"
          << "  const std::uint32_t subgroup1 = " << w1.required_subgroup_size << "u;\n"
          << R"cpp(
  const std::uint32_t decode[] = {1, 4096, 4096}, prefill[] = {512, 4096, 4096};
  const std::uint32_t near_decode[] = {1, 4096, 11008}, near_prefill[] = {300, 4096, 11008};
  const t::Device gpu{vendor, device, driver, name, uuid};
  const auto f1 = t::find(gpu, "matmul_q4k", decode, 3);
  const auto* e1 = f1.entry;
  CHECK(e1 && f1.level == t::rules::Level::device_and_driver && f1.distance == 0 && e1->shape_text == "1,4096,4096");
  CHECK(e1 && e1->stage_count == 1);
  const t::Stage* s1 = e1 ? &e1->stages[0] : nullptr;
  CHECK(s1 && std::equal(s1->spirv, s1->spirv + s1->spirv_words, std::begin(words1), std::end(words1)));
  CHECK(s1 && std::equal(s1->local_size, s1->local_size + 3, std::begin(local1)));
  CHECK(e1 && e1->median_ns == median1 && s1->required_subgroup_size == subgroup1);
  CHECK(e1 && e1->device_name == "GPU \"one\"\\" && e1->cache_mode == "cold");
  CHECK(s1 && s1->specialization_count == 3 && s1->specialization[0].id == 0 && s1->specialization[0].value == 128);
  float f = 0;
  if (s1) std::memcpy(&f, &s1->specialization[1].value, 4);
  CHECK(s1 && s1->specialization[1].id == 2 && f == 1.5f && s1->specialization[2].value == 1);
  CHECK(s1 && t::workgroup_counts(*s1, decode) == (std::array<std::uint32_t, 3>{1024, 1, 1}));
  CHECK(e1 && e1->binding_count == 1 && e1->bindings[0].role == "output" &&
        t::binding_bytes(e1->bindings[0], near_decode) == 4u * 4096u);
  std::uint32_t words[4] = {};
  CHECK(e1 && e1->push_constant_count == 3 && e1->push_constants[1].name == "blocks");
  CHECK(e1 && t::push_constant_words(*e1, near_decode, words) == 3 && words[0] == 4096u && words[1] == 44u &&
        words[2] == 1u);  // ceil(11011 / 256) = 44
  const auto* e2 = t::find(gpu, "matmul_q4k", prefill, 3).entry;
  // Without a layout of its own, an entry pushes the shape.
  CHECK(e2 && e2->push_constant_count == 0 && t::push_constant_words(*e2, near_prefill, words) == 3 &&
        words[0] == 300u && words[1] == 4096u && words[2] == 11008u);
  CHECK(e2 && e2 != e1 && std::equal(e2->stages[0].spirv, e2->stages[0].spirv + e2->stages[0].spirv_words,
                                     std::begin(words2), std::end(words2)));
  CHECK(e2 && e2->stages[0].specialization_count == 0);
  CHECK(e2 && t::workgroup_counts(e2->stages[0], near_prefill) == (std::array<std::uint32_t, 3>{64, 10, 1}));
  // Nearest shape within the shape class: decode stays with decode, prefill with prefill.
  CHECK(t::find(gpu, "matmul_q4k", near_decode, 3).entry == e1);
  CHECK(t::find(gpu, "matmul_q4k", near_prefill, 3).entry == e2);
  // The shape class wins over log distance: M=9 is nearer to M=1 than to
  // M=512, but only the prefill winner serves it.
  const std::uint32_t m8[] = {8, 4096, 4096}, m9[] = {9, 4096, 4096};
  CHECK(t::find(gpu, "matmul_q4k", m8, 3).entry == e1);
  CHECK(t::find(gpu, "matmul_q4k", m9, 3).entry == e2);
  // Fallback levels: another GPU of the model, another driver, another model of the vendor.
  t::Device other = gpu;
  other.uuid = "another";
  CHECK(t::find(other, "matmul_q4k", decode, 3).level == t::rules::Level::model);
  other = gpu;
  other.driver_version += 1;
  CHECK(t::find(other, "matmul_q4k", decode, 3).level == t::rules::Level::device);
  other.device_id = 0;  // no device-id family either
  other.name = "another model";
  CHECK(t::find(other, "matmul_q4k", decode, 3).level == t::rules::Level::vendor);
  // Nothing for another vendor, kernel or rank; a hot query still takes the cold entry.
  other.vendor_id += 1;
  CHECK(t::find(other, "matmul_q4k", decode, 3).entry == nullptr);
  CHECK(t::find(gpu, "matmul_q8", decode, 3).entry == nullptr);
  const std::uint32_t rank2[] = {1, 4096};
  CHECK(t::find(gpu, "matmul_q4k", rank2, 2).entry == nullptr);
  CHECK(t::find(gpu, "matmul_q4k", decode, 3, "hot").entry == e1);
  // A device that cannot run the entry: too few invocations.
  t::rules::Capabilities small;
  small.known = true;
  small.max_invocations = 1;
  small.max_shared_memory_bytes = 1u << 20;
  CHECK(t::find(gpu, "matmul_q4k", decode, 3, {}, small).entry == nullptr);
  std::printf("%s\n", failures == 0 ? "all lookups passed" : "lookups failed");
  return failures;
}
)cpp";
  write(dir.path() / "main.cpp", program.str());

  const auto binary = dir.path() / "lookup";
  const std::string compile = std::string("\"") + VKTUNE_CXX_COMPILER +
                              "\" -std=c++17 -Wall -Wextra -Wpedantic -Werror -o \"" + binary.string() + "\" \"" +
                              (dir.path() / "main.cpp").string() + "\" > \"" + (dir.path() / "compile.log").string() +
                              "\" 2>&1";
  const int compiled = std::system(compile.c_str());
  std::ifstream log(dir.path() / "compile.log");
  const std::string log_text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(compiled, 0) << compile << "\n" << log_text << "\n--- header ---\n" << header;

  const std::string run = "\"" + binary.string() + "\" > \"" + (dir.path() / "run.log").string() + "\" 2>&1";
  const int ran = std::system(run.c_str());
  std::ifstream run_log(dir.path() / "run.log");
  const std::string run_text((std::istreambuf_iterator<char>(run_log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(ran, 0) << run_text;
  EXPECT_EQ(run_text, "all lookups passed\n");
}

TEST_F(ExportHeaderTest, SharedSpirvIsWrittenOnceAndAnEmptyTableCompiles) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(random.device(0x1002, "AMD"));
  const auto v = random.variant("matmul_q4k");
  store.upsert_variant(v);
  auto w = random.winner(device, v, "1,4096,4096");
  store.set_winner(w);
  w.shape = "1,4096,11008";
  store.set_winner(w);  // same SPIR-V words: one array
  const auto header = export_header(store);
  EXPECT_NE(header.find("spirv_0[]"), std::string::npos);
  EXPECT_EQ(header.find("spirv_1[]"), std::string::npos);
  EXPECT_NE(header.find("std::array<Entry, 2>"), std::string::npos);
  EXPECT_NE(export_header(store, {"", "matmul"}).find("std::array<Entry, 2>"), std::string::npos);

  auto empty = Store::open(dir_.path() / "empty.db");
  EXPECT_NE(export_header(empty).find("std::array<Entry, 0> entries = {};"), std::string::npos);
}

TEST_F(ExportHeaderTest, ADispatchRuleOutsideTheThreeAxisFormIsAFormatError) {
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  store.upsert_variant(sample_variant(1));
  store.set_winner(sample_winner(device, default_shape));  // its contract's dispatch is {"x": "ceil(N/2)", ...}
  try {
    export_header(store);
    ADD_FAILURE() << "exported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::format);
    EXPECT_NE(std::string(e.what()).find("dispatch rule"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vktune::results::testing
