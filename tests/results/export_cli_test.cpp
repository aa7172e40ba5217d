// `vktune export` and `vktune import` through the built binary: help, a JSON
// export of a store filled through results::Store, and its import into
// another database.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "cli_run.hpp"
#include "export_test_data.hpp"
#include "results/capped_json.hpp"
#include "results/export.hpp"
#include "results/spirv_bytes.hpp"
#include "results/sqlite.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

class ExportCliTest : public StoreTest {
 protected:
  CliRun vktune(const std::string& arguments) const { return run_vktune(arguments, dir_.path() / "stderr.txt"); }
};

TEST_F(ExportCliTest, ExportHelpNamesTheOptions) {
  const auto run = vktune("export --help");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  for (const char* option : {"--format", "--device", "--kernel", "--output", "--db"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << option << "\n" << run.out;
  }
  const auto import = vktune("import --help");
  EXPECT_EQ(import.exit_code, 0) << import.err;
  EXPECT_NE(import.out.find("FILE"), std::string::npos) << import.out;
}

TEST_F(ExportCliTest, JsonExportOfAStoreImportsIntoAnotherDatabase) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  std::vector<Winner> stored;
  {
    auto store = Store::open(db_path());
    stored = fill_store(store, random);
  }
  const auto exported = vktune("export --format json --db " + quoted(db_path()));
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_TRUE(exported.err.empty()) << exported.err;
  EXPECT_EQ(exported.out, export_table(Store::open(db_path())).dump(2) + "\n");

  const auto table = dir_.path() / "table.json";
  const auto written = vktune("export --db " + quoted(db_path()) + " -o " + quoted(table));
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_TRUE(written.out.empty());
  {
    std::ifstream in(table);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, exported.out);
  }

  const auto other = dir_.path() / "other.db";
  const auto imported = vktune("import " + quoted(table) + " --db " + quoted(other));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("12 winners added"), std::string::npos) << imported.out;
  EXPECT_NE(imported.out.find("0 conflicts"), std::string::npos) << imported.out;
  auto target = Store::open(other);
  ASSERT_EQ(target.winners().size(), stored.size());
  for (const auto& w : target.winners()) {
    const auto source = std::find_if(stored.begin(), stored.end(),
                                     [&](const Winner& s) { return s.variant_hash == w.variant_hash; });
    ASSERT_NE(source, stored.end());
    EXPECT_EQ(w.spirv, source->spirv);
    EXPECT_EQ(w.median_ns, source->median_ns);
  }

  // Filters, CSV and header go through the same command.
  const auto csv = vktune("export --format csv --kernel matmul_q4k --device amd --db " + quoted(db_path()));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1 + 3);
  const auto header = vktune("export --format header --db " + quoted(db_path()));
  ASSERT_EQ(header.exit_code, 0) << header.err;
  EXPECT_NE(header.out.find("namespace vktune_table"), std::string::npos);
}

// Several tables in one import: all are checked before anything is written,
// so a bad one among good ones leaves the database as it was; a missing file
// is bad input.
TEST_F(ExportCliTest, SeveralTablesImportTogetherOrNotAtAll) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  const auto first = dir_.path() / "first.json", second = dir_.path() / "second.json";
  std::size_t expected = 0;
  for (const auto& [table, db] : {std::pair{first, dir_.path() / "a.db"}, std::pair{second, dir_.path() / "b.db"}}) {
    auto store = Store::open(db);
    expected += fill_store(store, random).size();
    std::ofstream(table) << export_table(store).dump(2);
  }
  const auto bad = dir_.path() / "bad.json";
  std::ofstream(bad) << R"({"format": "vktune-table", "version": 99, "devices": [], "winners": []})";
  const auto target = dir_.path() / "merged.db";

  const auto rejected = vktune("import " + quoted(first) + " " + quoted(bad) + " --db " + quoted(target));
  EXPECT_EQ(rejected.exit_code, 2);
  EXPECT_NE(rejected.err.find("bad.json"), std::string::npos) << rejected.err;
  EXPECT_FALSE(std::filesystem::exists(target));  // the good first table was not written either

  const auto missing = vktune("import " + quoted(first) + " " + quoted(dir_.path() / "nope.json") + " --db " +
                              quoted(target));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;

  const auto both = vktune("import " + quoted(first) + " " + quoted(second) + " --db " + quoted(target));
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("imported " + first.string()), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("imported " + second.string()), std::string::npos) << both.out;
  EXPECT_EQ(Store::open(target).winners().size(), expected);
}

// A database whose JSON columns nest 100,000 deep (each crashed the export
// with a stack overflow in a recursive copy): every format still exports,
// the header leaving out what it cannot read and saying why.
TEST_F(ExportCliTest, JsonColumnsNestedTooDeepAreExportedOrSkippedNotACrash) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  {
    auto store = Store::open(db_path());
    fill_store(store, random);
  }
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto set = [&](const std::string& column) {
    auto connection = sqlite::Connection::open(db_path(), sqlite::Connection::Mode::read_write_create);
    connection.exec(("UPDATE winners SET " + column + " = '" + deep + "'").c_str());
  };
  // A deep config is exported as the text it is.
  set("config_json");
  const auto json = vktune("export --format json --db " + quoted(db_path()));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto table = parse_capped_json(json.out);
  ASSERT_TRUE(table.error.empty()) << table.error;
  ASSERT_FALSE(table.value.at("winners").empty());
  for (const auto& w : table.value.at("winners")) EXPECT_TRUE(w.at("config").is_string()) << "kept as text";
  // A deep launch contract leaves its winner out of every format, saying why.
  set("contract_json");
  for (const std::string format : {"json", "header"}) {
    const auto run = vktune("export --format " + format + " --db " + quoted(db_path()));
    EXPECT_GE(run.exit_code, 0) << format << ": ended by a signal";
    EXPECT_LE(run.exit_code, 2) << format << ": " << run.err;
    EXPECT_NE(run.err.find("its launch contract is JSON nested deeper than 64 levels"), std::string::npos)
        << format << ": " << run.err;
  }
}

// A contract vktune's own checks let through but the runtime library cannot
// serve (a dispatch divisor of 0, which would divide by zero in every
// application using the table) is refused by the runtime's parser at
// import: one line naming it, exit 2, the database as it was.
TEST_F(ExportCliTest, AnEntryTheRuntimeWouldRefuseIsNotImported) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  {
    auto store = Store::open(db_path());
    fill_store(store, random);
  }
  auto table = export_table(Store::open(db_path()));
  auto& winner = table["winners"][0];
  winner["contract"]["stages"][0]["dispatch"][0]["divisor"] = 0;
  for (const auto& d : table["devices"]) {
    if (d["id"] == winner["device"]) winner["entry_hash"] = table_entry_hash(d, winner);  // signed: only the rule is bad
  }
  const auto bad = dir_.path() / "divisor0.json";
  std::ofstream(bad) << table.dump(2);
  const auto target = dir_.path() / "target.db";
  const auto imported = vktune("import " + quoted(bad) + " --db " + quoted(target));
  EXPECT_EQ(imported.exit_code, 2) << imported.err;
  EXPECT_EQ(std::count(imported.err.begin(), imported.err.end(), '\n'), 1) << imported.err;
  EXPECT_NE(imported.err.find("the runtime library refuses it"), std::string::npos) << imported.err;
  EXPECT_NE(imported.err.find("divisor"), std::string::npos) << imported.err;
  EXPECT_FALSE(std::filesystem::exists(target));
}

// A module with the magic number and a matching hash but no valid code (the
// header and OpNops: no capability, memory model or entry point) was
// imported and handed to drivers (issue 40, item 15): SPIRV-Tools' validator
// refuses it now, in one line, before a database is made; the same table
// with a valid module in its place imports.
TEST_F(ExportCliTest, SpirvTheValidatorRejectsIsNotImported) {
  RandomData random;
  SCOPED_TRACE(random.trace());
  {
    auto store = Store::open(db_path());
    fill_store(store, random);
  }
  const auto good = export_table(Store::open(db_path()));
  const auto with_module = [&](const std::vector<std::uint32_t>& words) {
    auto table = good;
    auto& winner = table["winners"][0];
    const auto old = winner["contract"]["stages"][0]["spirv_hash"].get<std::string>();
    const auto key = spirv_content_hash(words);
    table["spirv"][key] = spirv_to_base64(words);
    for (auto& w : table["winners"]) {
      for (auto& stage : w["contract"]["stages"]) {
        if (stage["spirv_hash"] == old) stage["spirv_hash"] = key;
      }
      for (const auto& d : table["devices"]) {
        if (d["id"] == w["device"]) w["entry_hash"] = table_entry_hash(d, w);  // signed: only the code is bad
      }
    }
    table["spirv"].erase(old);
    return table;
  };
  std::vector<std::uint32_t> nops = {0x07230203u, 0x00010300u, random.u32(0, 0xffffffffu), 8u, 0u};
  for (std::uint32_t i = 0, n = random.u32(1, 40); i < n; ++i) nops.push_back(0x00010000u);
  const auto bad = dir_.path() / "nops.json";
  std::ofstream(bad) << with_module(nops).dump(2);
  const auto target = dir_.path() / "target.db";
  const auto imported = vktune("import " + quoted(bad) + " --db " + quoted(target));
  EXPECT_EQ(imported.exit_code, 2) << imported.err;
  EXPECT_EQ(std::count(imported.err.begin(), imported.err.end(), '\n'), 1) << imported.err;
  EXPECT_NE(imported.err.find("of stage 0 of the winner of " + good["winners"][0]["kernel"].get<std::string>()),
            std::string::npos)
      << imported.err;
  EXPECT_NE(imported.err.find("is not valid for Vulkan: "), std::string::npos) << imported.err;
  EXPECT_FALSE(std::filesystem::exists(target));

  const auto fine = dir_.path() / "valid.json";
  std::ofstream(fine) << with_module(random.spirv()).dump(2);
  const auto accepted = vktune("import " + quoted(fine) + " --db " + quoted(target));
  EXPECT_EQ(accepted.exit_code, 0) << accepted.err;
}

TEST_F(ExportCliTest, BadInputIsOneLineOnStderrAndANonZeroExit) {
  {
    auto store = Store::open(db_path());
  }
  const auto bad = dir_.path() / "bad.json";
  std::ofstream(bad) << R"({"format": "vktune-table", "version": 99, "devices": [], "winners": []})";
  const auto imported = vktune("import " + quoted(bad) + " --db " + quoted(db_path()));
  EXPECT_EQ(imported.exit_code, 2);
  EXPECT_EQ(std::count(imported.err.begin(), imported.err.end(), '\n'), 1) << imported.err;
  EXPECT_NE(imported.err.find("version 99"), std::string::npos) << imported.err;
  const auto fresh = dir_.path() / "fresh.db";  // a rejected table creates no database
  EXPECT_EQ(vktune("import " + quoted(bad) + " --db " + quoted(fresh)).exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(fresh));

  // A table nested 100,000 deep (it overflowed the stack): one line, exit 2.
  const auto deep = dir_.path() / "deep.json";
  std::ofstream(deep) << R"({"format": "vktune-table", "version": 1, "devices": [], "winners": [{"config": )"
                      << std::string(100000, '[') << std::string(100000, ']') << "}]}";
  const auto nested = vktune("import " + quoted(deep) + " --db " + quoted(db_path()));
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(std::count(nested.err.begin(), nested.err.end(), '\n'), 1) << nested.err;
  EXPECT_NE(nested.err.find("deep.json"), std::string::npos) << nested.err;
  EXPECT_NE(nested.err.find("JSON nested deeper than 64 levels"), std::string::npos) << nested.err;

  const auto unknown = vktune("export --kernel softmax --db " + quoted(db_path()));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no kernel"), std::string::npos) << unknown.err;
  const auto missing = vktune("export --db " + quoted(dir_.path() / "missing.db"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "missing.db"));
  const auto format = vktune("export --format xml --db " + quoted(db_path()));
  EXPECT_EQ(format.exit_code, 2);
}

}  // namespace
}  // namespace vktune::results::testing
