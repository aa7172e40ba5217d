// The default database path: $VKTUNE_DB, else $XDG_DATA_HOME/vktune/vktune.db,
// else ~/.local/share/vktune/vktune.db.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "results/store.hpp"

namespace vktune::results {
namespace {

// Sets (or unsets) an environment variable for one test and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DefaultPath, VktuneDbWins) {
  ScopedEnv db("VKTUNE_DB", "/tmp/custom/tuned.db");
  ScopedEnv xdg("XDG_DATA_HOME", "/data");
  EXPECT_EQ(Store::default_path(), "/tmp/custom/tuned.db");
}

TEST(DefaultPath, XdgDataHomeWhenVktuneDbIsUnsetOrEmpty) {
  ScopedEnv db("VKTUNE_DB", "");
  ScopedEnv xdg("XDG_DATA_HOME", "/data");
  EXPECT_EQ(Store::default_path(), "/data/vktune/vktune.db");
}

TEST(DefaultPath, HomeWhenXdgDataHomeIsUnsetOrRelative) {
  ScopedEnv db("VKTUNE_DB", std::nullopt);
  ScopedEnv home("HOME", "/home/tuner");
  {
    ScopedEnv xdg("XDG_DATA_HOME", std::nullopt);
    EXPECT_EQ(Store::default_path(), "/home/tuner/.local/share/vktune/vktune.db");
  }
  ScopedEnv relative_xdg("XDG_DATA_HOME", "relative/data");  // the XDG spec says: ignore it
  EXPECT_EQ(Store::default_path(), "/home/tuner/.local/share/vktune/vktune.db");
}

TEST(DefaultPath, NothingSetIsAnErrorThatSuggestsDb) {
  ScopedEnv db("VKTUNE_DB", std::nullopt);
  ScopedEnv xdg("XDG_DATA_HOME", std::nullopt);
  ScopedEnv home("HOME", std::nullopt);
  try {
    Store::default_path();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--db"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vktune::results
