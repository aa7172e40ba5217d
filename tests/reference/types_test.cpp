#include <gtest/gtest.h>

#include "common/error.hpp"
#include "reference/gguf_types.hpp"

namespace vktune::ref {
namespace {

TEST(GgmlTypes, IdsMatchTheGgufSpecification) {
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::F32), 0u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::F16), 1u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q4_0), 2u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q5_0), 6u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q5_1), 7u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q8_0), 8u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q2_K), 10u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q3_K), 11u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q4_K), 12u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q5_K), 13u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::Q6_K), 14u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::IQ4_NL), 20u);
  EXPECT_EQ(static_cast<std::uint32_t>(GgmlType::IQ4_XS), 23u);
}

TEST(GgmlTypes, BlockGeometry) {
  struct Expected {
    GgmlType type;
    std::size_t weights, bytes;
    const char* name;
  };
  // Bytes as the published block structs add up: fp16 fields 2 bytes each.
  const Expected table[] = {{GgmlType::F32, 1, 4, "F32"},
                            {GgmlType::F16, 1, 2, "F16"},
                            {GgmlType::Q4_0, 32, 2 + 16, "Q4_0"},
                            {GgmlType::Q5_0, 32, 2 + 4 + 16, "Q5_0"},
                            {GgmlType::Q5_1, 32, 2 + 2 + 4 + 16, "Q5_1"},
                            {GgmlType::Q8_0, 32, 2 + 32, "Q8_0"},
                            {GgmlType::Q2_K, 256, 16 + 64 + 2 + 2, "Q2_K"},
                            {GgmlType::Q3_K, 256, 32 + 64 + 12 + 2, "Q3_K"},
                            {GgmlType::Q4_K, 256, 144, "Q4_K"},
                            {GgmlType::Q5_K, 256, 176, "Q5_K"},
                            {GgmlType::Q6_K, 256, 210, "Q6_K"},
                            {GgmlType::IQ4_NL, 32, 2 + 16, "IQ4_NL"},
                            {GgmlType::IQ4_XS, 256, 2 + 2 + 4 + 128, "IQ4_XS"}};
  ASSERT_EQ(all_ggml_types().size(), std::size(table));
  for (std::size_t i = 0; i < std::size(table); ++i) EXPECT_EQ(all_ggml_types()[i], table[i].type) << "id order";
  for (const auto& e : table) {
    EXPECT_EQ(block_weights(e.type), e.weights) << e.name;
    EXPECT_EQ(block_bytes(e.type), e.bytes) << e.name;
    EXPECT_EQ(type_name(e.type), e.name);
    EXPECT_EQ(ggml_type_from_id(static_cast<std::uint32_t>(e.type)), e.type);
    EXPECT_EQ(ggml_type_from_name(e.name), e.type);
  }
  EXPECT_EQ(ggml_type_from_name("q4_k"), GgmlType::Q4_K);
  EXPECT_EQ(ggml_type_from_name("iq4_xs"), GgmlType::IQ4_XS);
  EXPECT_FALSE(ggml_type_from_id(3).has_value());   // Q4_1: not supported
  EXPECT_FALSE(ggml_type_from_id(15).has_value());  // Q8_K: not supported
  EXPECT_FALSE(ggml_type_from_id(16).has_value());  // IQ2_XXS: not supported
  EXPECT_FALSE(ggml_type_from_name("Q4_1").has_value());
  EXPECT_FALSE(ggml_type_from_name("IQ4").has_value());
}

// The names an error message lists come from the same table, in id order.
TEST(GgmlTypes, TypeList) {
  EXPECT_EQ(ggml_type_list(), "F32, F16, Q4_0, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS");
  EXPECT_EQ(ggml_type_list(true), "Q4_0, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS");
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
  EXPECT_EQ(row_bytes(GgmlType::Q5_0, 64), 44u);
  EXPECT_EQ(row_bytes(GgmlType::Q5_1, 4096), 128u * 24u);
  EXPECT_EQ(row_bytes(GgmlType::Q2_K, 512), 168u);
  EXPECT_EQ(row_bytes(GgmlType::Q3_K, 4096), 16u * 110u);
  EXPECT_EQ(row_bytes(GgmlType::IQ4_NL, 96), 54u);
  EXPECT_EQ(row_bytes(GgmlType::IQ4_XS, 256), 136u);
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
  EXPECT_THROW((void)row_bytes(GgmlType::IQ4_XS, 32), Error);  // an IQ4_NL block, not an IQ4_XS one
  EXPECT_THROW((void)row_bytes(static_cast<GgmlType>(3), 32), Error);
}

}  // namespace
}  // namespace vktune::ref
