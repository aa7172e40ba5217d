#include "common/hash.hpp"

#include <gtest/gtest.h>

namespace vktune {
namespace {

TEST(Hasher, KnownFnv1aOfEmptyInputIsOffsetBasisPlusLengthMarker) {
  // The empty string still hashes its length (0) so the value moves away from
  // the bare FNV offset basis; two empty adds differ from one.
  Hasher one, two;
  one.add(std::string_view{});
  two.add(std::string_view{}).add(std::string_view{});
  EXPECT_NE(one.value(), 0xcbf29ce484222325ull);
  EXPECT_NE(one.value(), two.value());
}

TEST(Hasher, SplitPointMatters) {
  Hasher a, b;
  a.add("ab").add("c");
  b.add("a").add("bc");
  EXPECT_NE(a.value(), b.value());
}

TEST(Hasher, StableAcrossInstances) {
  Hasher a, b;
  a.add("template text").add(std::uint64_t{42});
  b.add("template text").add(std::uint64_t{42});
  EXPECT_EQ(a.hex(), b.hex());
  EXPECT_EQ(a.hex().size(), 16u);
}

TEST(Hasher, HexFormatting) { EXPECT_EQ(to_hex64(0x1234abcdull), "000000001234abcd"); }

}  // namespace
}  // namespace vktune
