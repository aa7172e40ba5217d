// The runtime reading a tuned database where it is deployed (issue 16):
// from a read-only directory (item 15: the WAL file is read in SQLite's
// immutable mode) and never past a damaged page (item 9).
#include <gtest/gtest.h>

#include "../support/sqlite_damage.hpp"
#include "fixtures.hpp"
#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;

namespace {

TEST(RuntimeSqliteDeployment, ADamagedPageIsRefused) {
  const auto dir = rt_test::fresh_dir("sqlite_damaged");
  const auto db = dir / "tuned.db";
  rt_test::fs::copy_file(rt_test::tuned_db(), db);
  // The measurements, which the runtime never reads: only a check of every page finds it.
  vktune_test::corrupt_table_page(db, "measurements");
  try {
    rt::Table::open_sqlite(db);
    FAIL() << "a database with a damaged page loaded";
  } catch (const rt::Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(db.string()), std::string::npos) << message;
    EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(RuntimeSqliteDeployment, AWalDatabaseInAReadOnlyDirectoryIsRead) {
  std::string why;
  const auto prefix = vktune_test::unprivileged_prefix(why);
  if (prefix.empty()) GTEST_SKIP() << why;
  const auto dir = rt_test::fresh_dir("sqlite_read_only");
  const auto db = dir / "tuned.db";
  rt_test::fs::copy_file(rt_test::tuned_db(), db);
  ASSERT_EQ(vktune_test::journal_version(db), 2);  // WAL
  const auto table = rt::Table::open_sqlite(db);
  ASSERT_FALSE(table.entries().empty());
  const auto& entry = table.entries().front();
  const auto& device = table.devices().at(entry.device).identity;

  rt_test::fs::permissions(dir, rt_test::fs::perms::owner_read | rt_test::fs::perms::owner_exec |
                                    rt_test::fs::perms::others_read | rt_test::fs::perms::others_exec);
  std::string shape;
  for (const auto d : entry.shape) shape += " " + std::to_string(d);
  const auto r = rt_test::run(prefix + VKTUNE_RUNTIME_LOOKUP + " \"" + db.string() + "\" " + entry.kernel + " " +
                              std::to_string(device.vendor_id) + " " + std::to_string(device.device_id) + " \"" +
                              device.name + "\"" + shape);
  rt_test::fs::permissions(dir, rt_test::fs::perms::owner_all, rt_test::fs::perm_options::add);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stage 0:"), std::string::npos) << r.output;  // the entry was found and described
}

}  // namespace
