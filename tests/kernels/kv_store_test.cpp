// kv_store: the baseline's legality at every row a model can have, and on
// the test device (VKTUNE_TEST_DEVICE, else 0) that a store to a row the
// reference does not expect is caught. (Its every-variant check runs with the
// other decode ops, decode_ops_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "kernel_test_support.hpp"
#include "kernels/registry.hpp"

namespace vktune {
namespace {

using kernels::Shape;
using testing_support::WrongReference;

// The baseline is legal at every row a model can have (kv_heads * head_dim),
// not only at the default and check shapes: `vktune step` falls back to it.
TEST(KvStore, TheBaselineIsLegalAtEveryEvenRow) {
  const auto& k = kernels::find_kernel("kv_store");
  for (std::uint32_t row = 2; row <= 8192; row += 2) {
    const Shape shape{1, row, 64};
    EXPECT_EQ(k.constraint_violation(k.baseline(shape), shape, testing_support::h200_like()).detail, "") << "row " << row;
  }
}

// kv_store must leave every row no token goes to as it was: given a
// position other than the one its reference expects, a variant writes a row
// that must stay untouched (and leaves the expected row poisoned).
class KvStoreDevice : public testing_support::DeviceSuite<int> {};

TEST_F(KvStoreDevice, AStoreToAnotherRowIsCaught) {
  const WrongReference moved(kernels::find_kernel("kv_store"), [](kernels::Problem& p) {
    auto& positions = p.buffers.at(1).bytes;  // int32 per token
    std::int32_t first;
    std::memcpy(&first, positions.data(), 4);
    first = (first + 1) % static_cast<std::int32_t>(p.shape.at(2));
    bool taken = false;  // another token's row: try the next
    for (std::size_t t = 1; t < p.shape.at(0); ++t)
      taken = taken || std::memcmp(&first, positions.data() + 4 * t, 4) == 0;
    if (taken) first = (first + 1) % static_cast<std::int32_t>(p.shape.at(2));
    std::memcpy(positions.data(), &first, 4);
  });
  const Shape shape{1, 1000, 64};
  const auto failures = testing_support::failing_variants(*instance_, moved, shape, {moved.baseline(shape)}, 11);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("must leave untouched were written"), std::string::npos) << failures[0];
}

}  // namespace
}  // namespace vktune
