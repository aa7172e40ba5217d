// The cache modes' text is what --cache, the store's rows and the JSON
// outputs hold: it must never change, and nothing else parses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cache_mode.hpp"
#include "common/error.hpp"

namespace vktune {
namespace {

TEST(CacheMode, TextRoundTrips) {
  EXPECT_STREQ(to_string(CacheMode::cold), "cold");
  EXPECT_STREQ(to_string(CacheMode::hot), "hot");
  EXPECT_EQ(cache_mode_names(), (std::vector<std::string>{"cold", "hot"}));
  for (const auto& name : cache_mode_names()) EXPECT_EQ(to_string(parse_cache_mode(name)), name);
  EXPECT_EQ(other_cache_mode(CacheMode::cold), CacheMode::hot);
  EXPECT_EQ(other_cache_mode(CacheMode::hot), CacheMode::cold);
}

TEST(CacheMode, AnythingElseIsAUsageError) {
  for (const char* bad : {"", "Cold", "warm", "cold "}) {
    try {
      parse_cache_mode(bad);
      ADD_FAILURE() << "parsed '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
    }
  }
}

}  // namespace
}  // namespace vktune
