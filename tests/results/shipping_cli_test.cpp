// Reading and shipping a store (issue 16, items 9 and 15), through the built
// vktune: export reads a WAL database in a read-only directory, `export
// --format sqlite` writes one self-contained rollback-journal file, and a
// store with a damaged page stops export and import with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "../support/sqlite_damage.hpp"
#include "cli_run.hpp"
#include "export_test_data.hpp"
#include "results/export.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {
namespace {

namespace fs = std::filesystem;

class ShippingCliTest : public StoreTest {
 protected:
  ~ShippingCliTest() override {
    for (const auto& dir : locked_) fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  }
  CliRun vktune(const std::string& arguments, const std::string& prefix = "") const {
    return run_vktune(arguments, dir_.path() / "stderr.txt", prefix);
  }
  // A directory nobody may write to: the tests then run vktune as a user
  // for whom that holds (as root: in a user namespace).
  void lock(const fs::path& dir) {
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    locked_.push_back(dir);
  }
  // A store of random winners in its own directory; the table it exports.
  std::string make_store(const fs::path& db) {
    RandomData random;
    auto store = Store::open(db);
    fill_store(store, random);
    return export_table(store).dump(2) + "\n";
  }
  std::vector<fs::path> locked_;
};

TEST_F(ShippingCliTest, ExportReadsAWalStoreInAReadOnlyDirectory) {
  std::string why;
  const auto prefix = vktune_test::unprivileged_prefix(why);
  if (prefix.empty()) GTEST_SKIP() << why;
  const auto dir = dir_.path() / "package";
  fs::create_directories(dir);
  const auto db = dir / "tuned.db";
  const auto expected = make_store(db);
  ASSERT_EQ(vktune_test::journal_version(db), 2);  // WAL, as every store is
  lock(dir);

  const auto json = vktune("export --db " + quoted(db), prefix);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, expected);
  const auto header = vktune("export --format header --db " + quoted(db), prefix);
  EXPECT_EQ(header.exit_code, 0) << header.err;
  EXPECT_FALSE(fs::exists(dir / "tuned.db-wal"));
  EXPECT_FALSE(fs::exists(dir / "tuned.db-shm"));
}

TEST_F(ShippingCliTest, SqliteExportIsOneRollbackJournalFile) {
  const auto expected = make_store(db_path());
  const auto ship = dir_.path() / "ship";
  fs::create_directories(ship);
  const auto out = ship / "vktune.db";
  const auto run = vktune("export --format sqlite -o " + quoted(out) + " --db " + quoted(db_path()));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(vktune_test::journal_version(out), 1);  // rollback journal: no -wal or -shm needed to read it
  EXPECT_FALSE(fs::exists(ship / "vktune.db-wal"));
  EXPECT_FALSE(fs::exists(ship / "vktune.db.partial"));
  EXPECT_EQ(export_table(Store::open_read_only(out)).dump(2) + "\n", expected);

  std::string why;
  const auto prefix = vktune_test::unprivileged_prefix(why);
  if (prefix.empty()) GTEST_SKIP() << "the copy reads; in a read-only directory not tested: " << why;
  lock(ship);
  const auto shipped = vktune("export --db " + quoted(out), prefix);
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  EXPECT_EQ(shipped.out, expected);
}

TEST_F(ShippingCliTest, SqliteExportNeedsAFileAndTheWholeStore) {
  make_store(db_path());
  EXPECT_EQ(vktune("export --format sqlite --db " + quoted(db_path())).exit_code, 2);
  const auto filtered = vktune("export --format sqlite --kernel matmul_q4k -o " + quoted(dir_.path() / "x.db") +
                               " --db " + quoted(db_path()));
  EXPECT_EQ(filtered.exit_code, 2);
  EXPECT_EQ(std::count(filtered.err.begin(), filtered.err.end(), '\n'), 1) << filtered.err;
  EXPECT_FALSE(fs::exists(dir_.path() / "x.db"));
}

TEST_F(ShippingCliTest, ADamagedPageStopsExportAndImportWithOneLine) {
  const auto table = dir_.path() / "table.json";
  std::ofstream(table) << make_store(db_path());
  vktune_test::corrupt_table_page(db_path(), "measurements");  // the winners stay readable
  for (const std::string& format : std::vector<std::string>{"json", "csv", "header", "sqlite -o " + quoted(dir_.path() / "x.db")}) {
    const auto run = vktune("export --format " + format + " --db " + quoted(db_path()));
    EXPECT_EQ(run.exit_code, 5) << format << ": " << run.err;
    EXPECT_TRUE(run.out.empty()) << format;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << format << ": " << run.err;
    EXPECT_NE(run.err.find(db_path().string()), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("corrupt"), std::string::npos) << run.err;
  }
  const auto imported = vktune("import " + quoted(table) + " --db " + quoted(db_path()));
  EXPECT_EQ(imported.exit_code, 5) << imported.err;
  EXPECT_NE(imported.err.find("corrupt"), std::string::npos) << imported.err;
}

}  // namespace
}  // namespace vktune::results::testing
