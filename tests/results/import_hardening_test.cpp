// What `vktune import` no longer trusts (issue 16): a SPIR-V hash that names
// other words must not replace a stored winner's code (item 12), and a field
// of the wrong form (a hash holding a newline) must not reach the store, nor
// through it the exported header as code (item 13).
#include <gtest/gtest.h>

#include <sstream>

#include "common/error.hpp"
#include "export_test_data.hpp"
#include "results/export.hpp"
#include "results/export_header.hpp"
#include "results/import.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

class ImportHardeningTest : public StoreTest {
 protected:
  std::filesystem::path other_path() const { return dir_.path() / "other.db"; }
};

// Renames a module of a version-2 table from `from` to `to` (keeping its
// words) wherever the winners name it, and re-signs the entries, so that only
// the module's key lies.
void rename_module(nlohmann::json& table, const std::string& from, const std::string& to) {
  table["spirv"][to] = table["spirv"][from];
  table["spirv"].erase(from);
  for (auto& w : table["winners"]) {
    for (auto& stage : w["contract"]["stages"]) {
      if (stage["spirv_hash"] == from) stage["spirv_hash"] = to;
    }
    for (const auto& d : table["devices"]) {
      if (d["id"] == w["device"]) w["entry_hash"] = table_entry_hash(d, w);
    }
  }
}

TEST_F(ImportHardeningTest, AHashNamingOtherWordsCannotReplaceStoredCode) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto ours = Store::open(db_path());
  const auto stored = fill_store(ours, random);
  const auto victim = spirv_content_hash(stored[0].spirv);

  auto theirs = Store::open(other_path());
  fill_store(theirs, random);
  auto table = export_table(theirs);
  const auto attacker = table["winners"][0]["contract"]["stages"][0]["spirv_hash"].get<std::string>();
  ASSERT_NE(attacker, victim);
  rename_module(table, attacker, victim);

  const auto before = export_table(ours).dump();
  try {
    import_table(ours, table, "colliding.json");
    FAIL() << "a module whose words do not match its key was imported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::format);
    const std::string message = e.what();
    EXPECT_NE(message.find("spirv[" + victim + "]"), std::string::npos) << message;
    EXPECT_NE(message.find("does not match its hash"), std::string::npos) << message;
  }
  EXPECT_EQ(ours.get_spirv(victim), stored[0].spirv);
  EXPECT_EQ(export_table(ours).dump(), before);
}

TEST_F(ImportHardeningTest, AVersion1HashIsRecomputed) {
  auto store = Store::open(db_path());
  const std::vector<std::uint32_t> words = {0x07230203u, 0x00010300u, 7u, 1u, 0u};
  nlohmann::json table = {{"format", "vktune-table"}, {"version", 1},
                          {"devices", {{{"id", 1}, {"vendor_id", 1u}, {"device_id", 2u}, {"driver_version", 3u},
                                        {"name", "GPU"}}}},
                          {"winners", {{{"device", 1}, {"kernel", "add"}, {"shape", "64"}, {"cache_mode", "cold"},
                                        {"variant_hash", "00000000000000aa"}, {"config", nlohmann::json::object()},
                                        {"spirv_hash", "00000000000000bb"}, {"spirv_base64", spirv_to_base64(words)},
                                        {"local_size", {64u, 1u, 1u}}, {"dispatch", nullptr}}}}};
  try {
    import_table(store, table, "v1.json");
    FAIL() << "a version-1 spirv_hash that names other words was imported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("winners[0].spirv_hash: the SPIR-V does not match its hash"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(store.winners().empty());
  table["winners"][0]["spirv_hash"] = spirv_content_hash(words);
  EXPECT_EQ(import_table(store, table, "v1.json").winners_added, 1u);
}

TEST_F(ImportHardeningTest, FieldsOfTheWrongFormAreRefused) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto source = Store::open(other_path());
  fill_store(source, random);
  const auto good = export_table(source);
  auto store = Store::open(db_path());

  const auto mutate = [&](auto change) {
    auto t = good;
    change(t);
    for (auto& w : t["winners"]) {
      for (const auto& d : t["devices"]) {
        if (d["id"] == w["device"]) w["entry_hash"] = table_entry_hash(d, w);  // only the form is wrong
      }
    }
    return t;
  };
  const std::string injected = "0123456789abcdef\n#error injected into the header";
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"stage hash with a newline", mutate([&](auto& t) {
         const auto hash = t["winners"][0]["contract"]["stages"][0]["spirv_hash"].template get<std::string>();
         rename_module(t, hash, injected);
       })},
      {"upper-case hash", mutate([](auto& t) {
         const auto hash = t["winners"][0]["contract"]["stages"][0]["spirv_hash"].template get<std::string>();
         std::string upper = hash;
         for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
         rename_module(t, hash, upper);
       })},
      {"variant hash with a newline", mutate([&](auto& t) { t["winners"][0]["variant_hash"] = injected; })},
      {"short variant hash", mutate([](auto& t) { t["winners"][0]["variant_hash"] = "abc"; })},
      {"baseline hash", mutate([](auto& t) { t["winners"][0]["baseline_variant_hash"] = "zzzzzzzzzzzzzzzz"; })},
      {"kernel with a newline", mutate([](auto& t) { t["winners"][0]["kernel"] = "add\n#include <x>"; })},
      {"shape", mutate([](auto& t) { t["winners"][0]["shape"] = "1,x"; })},
      {"cache mode", mutate([](auto& t) { t["winners"][0]["cache_mode"] = "cold\""; })},
      {"time", mutate([](auto& t) { t["winners"][0]["updated_at"] = "yesterday"; })},
      // It would win every later import of its key.
      {"time far ahead", mutate([](auto& t) { t["winners"][0]["updated_at"] = "9999-12-31T00:00:00.000Z"; })},
      {"template name", mutate([](auto& t) { t["winners"][0]["template_name"] = "a\x1b[2Jb.comp"; })},
      {"device name", mutate([](auto& t) { t["devices"][0]["name"] = "GPU\x1b]0;owned\x07"; })},
      {"device uuid", mutate([](auto& t) { t["devices"][0]["device_uuid"] = "not a uuid"; })},
      {"C1 control character", mutate([](auto& t) { t["devices"][0]["driver_name"] = "drv\xc2\x9b" "2J"; })},
  };
  const auto before = export_table(store).dump();
  for (const auto& [name, table] : cases) {
    try {
      import_table(store, table, "bad.json");
      ADD_FAILURE() << name << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::format) << name;
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << name << ": " << message;
      EXPECT_EQ(message.find('\x1b'), std::string::npos) << name << ": " << message;
    }
    EXPECT_EQ(export_table(store).dump(), before) << name;
  }
  EXPECT_EQ(import_table(store, good, "good.json").winners_added, good["winners"].size());
}

// Whatever reaches the store by another way, the header writes it inert: a
// stage hash with a newline stays inside its comment.
TEST_F(ImportHardeningTest, HeaderCommentsCannotEndEarly) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  auto store = Store::open(db_path());
  const auto device = store.upsert_device(sample_device());
  const auto variant = random.variant("matmul_q4k");
  store.upsert_variant(variant);
  auto w = random.winner(device, variant, default_shape);
  const std::string key = "abc\n#error injected\\";
  store.put_spirv(key, w.spirv);
  auto contract = nlohmann::json::parse(w.contract_json);
  contract["stages"][0]["spirv_hash"] = key;
  w.contract_json = contract.dump();
  store.set_winner(w);

  const auto header = export_header(store);
  std::istringstream lines(header);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    EXPECT_NE(line.rfind("#error", 0), 0u) << line;
    if (line.rfind("// SPIR-V abc", 0) == 0) {
      found = true;
      EXPECT_EQ(line.back(), 's') << line;  // ends "N words", not in a backslash that splices the next line
      EXPECT_NE(line.find("abc?#error injected?"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found) << header;
}

}  // namespace
}  // namespace vktune::results::testing
