#include <gtest/gtest.h>

#include "common/error.hpp"
#include "reference/gguf_types.hpp"

namespace vktune::ref {
namespace {

TEST(GgmlTypes, IdsMatchTheGgufSpecification) {
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::F32), 0u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::F16), 1u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q4_0), 2u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q8_0), 8u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q4_K), 12u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q5_K), 13u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q6_K), 14u);
}

TEST(GgmlTypes, BlockGeometry) {
  struct Expected {
    GgmlType type;
    std::size_t weights, bytes;
    const char* name;
  };
  const Expected table[] = {{GgmlType::F32, 1, 4, "F32"},       {GgmlType::F16, 1, 2, "F16"},
                            {GgmlType::Q4_0, 32, 18, "Q4_0"},   {GgmlType::Q8_0, 32, 34, "Q8_0"},
                            {GgmlType::Q4_K, 256, 144, "Q4_K"}, {GgmlType::Q5_K, 256, 176, "Q5_K"},
                            {GgmlType::Q6_K, 256, 210, "Q6_K"}};
  ASSERT_EQ(all_ggml_types().size(), std::size(table));
  for (const auto& e : table) {
    EXPECT_EQ(block_weights(e.type), e.weights) << e.name;
    EXPECT_EQ(block_bytes(e.type), e.bytes) << e.name;
    EXPECT_EQ(type_name(e.type), e.name);
    EXPECT_EQ(ggml_type_from_id(static_cast<std::uint32_t>(e.type)), e.type);
    EXPECT_EQ(ggml_type_from_name(e.name), e.type);
  }
  EXPECT_EQ(ggml_type_from_name("q4_k"), GgmlType::Q4_K);
  EXPECT_FALSE(ggml_type_from_id(3).has_value());   // Q4_1: not supported
  EXPECT_FALSE(ggml_type_from_id(11).has_value());  // Q3_K: not supported
  EXPECT_FALSE(ggml_type_from_name("Q3_K").has_value());
}

TEST(GgmlTypes, RowBytes) {
  EXPECT_EQ(row_bytes(GgmlType::F32, 7), 28u);
  EXPECT_EQ(row_bytes(GgmlType::F16, 7), 14u);
  EXPECT_EQ(row_bytes(GgmlType::Q4_0, 4096), 128u * 18u);
  EXPECT_EQ(row_bytes(GgmlType::Q8_0, 64), 68u);
  EXPECT_EQ(row_bytes(GgmlType::Q4_K, 4096), 16u * 144u);
  EXPECT_EQ(row_bytes(GgmlType::Q5_K, 512), 352u);
  EXPECT_EQ(row_bytes(GgmlType::Q6_K, 256), 210u);
  EXPECT_EQ(row_bytes(GgmlType::Q6_K, 0), 0u);
}

TEST(GgmlTypes, RowBytesRejectsPartialBlocks) {
  try {
    (void)row_bytes(GgmlType::Q4_K, 100);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("Q4_K"), std::string::npos);
  }
  EXPECT_THROW((void)row_bytes(GgmlType::Q8_0, 33), Error);
  EXPECT_THROW((void)row_bytes(static_cast<GgmlType>(3), 32), Error);
}

}  // namespace
}  // namespace vktune::ref
