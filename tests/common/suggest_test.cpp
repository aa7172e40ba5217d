// "Did you mean": typos of each kind find their name; words too far from
// every name, or as close to two, find none.
#include "common/suggest.hpp"

#include <gtest/gtest.h>

namespace vktune {
namespace {

const std::vector<std::string> kNames{"matmul_q4k", "matmul_q5k", "matmul_q6k", "softmax", "--budget", "--time", "add"};

TEST(Suggest, EachKindOfTypoFindsItsName) {
  EXPECT_EQ(closest_name("--budgte", kNames), "--budget");  // two letters swapped
  EXPECT_EQ(closest_name("--buget", kNames), "--budget");   // one left out
  EXPECT_EQ(closest_name("softmaxx", kNames), "softmax");   // one too many
  EXPECT_EQ(closest_name("softmex", kNames), "softmax");    // one wrong
  EXPECT_EQ(closest_name("ad", kNames), "add");
  EXPECT_EQ(did_you_mean("--tme", kNames), " (did you mean '--time'?)");
}

TEST(Suggest, FarOrAmbiguousWordsFindNone) {
  EXPECT_EQ(closest_name("matmul_q4", kNames), "matmul_q4k");  // one edit from q4k, two from q5k and q6k
  EXPECT_EQ(closest_name("matmul_qk", kNames), "");             // one edit from all three: a tie
  EXPECT_EQ(closest_name("attention", kNames), "");
  EXPECT_EQ(closest_name("xyz", kNames), "");
  EXPECT_EQ(did_you_mean("xyz", kNames), "");
  EXPECT_EQ(closest_name("anything", {}), "");
}

}  // namespace
}  // namespace vktune
