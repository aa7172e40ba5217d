#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <unistd.h>

#include "common/error.hpp"
#include "reference/dequantize.hpp"
#include "reference/gguf_reader.hpp"
#include "reference/gguf_writer.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::ref {
namespace {

// One key per value type, plus arrays of every element type, nested arrays
// and empty arrays.
std::vector<GgufKeyValue> every_metadata_type() {
  std::vector<GgufKeyValue> kv;
  kv.push_back({"t.u8", GgufValue(std::uint8_t{200})});
  kv.push_back({"t.i8", GgufValue(std::int8_t{-100})});
  kv.push_back({"t.u16", GgufValue(std::uint16_t{65000})});
  kv.push_back({"t.i16", GgufValue(std::int16_t{-32000})});
  kv.push_back({"t.u32", GgufValue(std::uint32_t{4000000000u})});
  kv.push_back({"t.i32", GgufValue(std::int32_t{-2000000000})});
  kv.push_back({"t.f32", GgufValue(-1.25e-3f)});
  kv.push_back({"t.bool", GgufValue(true)});
  kv.push_back({"t.bool_false", GgufValue(false)});
  kv.push_back({"t.string", GgufValue(std::string("héllo \"world\"\n"))});
  kv.push_back({"t.empty_string", GgufValue(std::string())});
  kv.push_back({"t.u64", GgufValue(std::numeric_limits<std::uint64_t>::max())});
  kv.push_back({"t.i64", GgufValue(std::numeric_limits<std::int64_t>::min())});
  kv.push_back({"t.f64", GgufValue(3.141592653589793)});
  kv.push_back({"t.f32_inf", GgufValue(std::numeric_limits<float>::infinity())});
  kv.push_back({"t.arr.u8", make_array(GgufValueType::uint8, {std::uint8_t{0}, std::uint8_t{255}})});
  kv.push_back({"t.arr.i8", make_array(GgufValueType::int8, {std::int8_t{-128}})});
  kv.push_back({"t.arr.u16", make_array(GgufValueType::uint16, {std::uint16_t{1}, std::uint16_t{2}})});
  kv.push_back({"t.arr.i16", make_array(GgufValueType::int16, {std::int16_t{-1}})});
  kv.push_back({"t.arr.u32", make_array(GgufValueType::uint32, {std::uint32_t{7}})});
  kv.push_back({"t.arr.i32", make_array(GgufValueType::int32, {1, 2, 3})});
  kv.push_back({"t.arr.f32", make_array(GgufValueType::float32, {0.5f, -0.0f})});
  kv.push_back({"t.arr.bool", make_array(GgufValueType::boolean, {true, false, true})});
  kv.push_back({"t.arr.string", make_array(GgufValueType::string, {"a", "", "<0x0A>"})});
  kv.push_back({"t.arr.u64", make_array(GgufValueType::uint64, {std::uint64_t{1} << 40})});
  kv.push_back({"t.arr.i64", make_array(GgufValueType::int64, {std::int64_t{-5}})});
  kv.push_back({"t.arr.f64", make_array(GgufValueType::float64, {1e300, -1e-300})});
  kv.push_back({"t.arr.empty", make_array(GgufValueType::float32, {})});
  kv.push_back({"t.arr.nested",
                make_array(GgufValueType::array,
                           {make_array(GgufValueType::int32, {1, 2}), make_array(GgufValueType::string, {"x"}),
                            make_array(GgufValueType::array, {make_array(GgufValueType::boolean, {false})}),
                            make_array(GgufValueType::uint8, {})})});
  return kv;
}

struct TensorSpec {
  std::string name;
  GgmlType type;
  std::vector<std::uint64_t> shape;
};

std::vector<TensorSpec> every_tensor_type() {
  std::vector<TensorSpec> specs;
  for (const GgmlType type : all_ggml_types()) {
    const std::uint64_t k = block_weights(type) == 1 ? 3 : block_weights(type) * 2;
    specs.push_back({"tensor." + std::string(type_name(type)), type, {k, 3, 2}});
  }
  specs.push_back({"vector", GgmlType::F32, {5}});
  specs.push_back({"four_dims", GgmlType::F16, {2, 1, 3, 2}});
  return specs;
}

std::vector<std::uint8_t> tensor_bytes(const TensorSpec& spec, std::uint64_t seed) {
  std::uint64_t rows = 1;
  for (std::size_t i = 1; i < spec.shape.size(); ++i) rows *= spec.shape[i];
  return random_quantized_rows(spec.type, rows, spec.shape[0], seed);
}

void check_round_trip(std::uint32_t version, std::uint32_t alignment) {
  GgufWriter writer(version);
  if (alignment != 32) writer.set("general.alignment", GgufValue(alignment));
  const auto metadata = every_metadata_type();
  for (const auto& kv : metadata) writer.set(kv.key, kv.value);
  const auto specs = every_tensor_type();
  std::vector<std::vector<std::uint8_t>> data;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    data.push_back(tensor_bytes(specs[i], i));
    writer.add_tensor(specs[i].name, specs[i].type, specs[i].shape, data.back());
  }
  const GgufFile file = GgufFile::from_bytes(writer.bytes());
  const GgufContents& c = file.contents();
  EXPECT_EQ(c.version, version);
  EXPECT_EQ(c.alignment, alignment);
  EXPECT_EQ(c.data_offset % alignment, 0u);
  const std::size_t offset = alignment != 32 ? 1 : 0;
  ASSERT_EQ(c.metadata.size(), metadata.size() + offset);
  for (std::size_t i = 0; i < metadata.size(); ++i) {
    EXPECT_EQ(c.metadata[i + offset].key, metadata[i].key);
    EXPECT_TRUE(c.metadata[i + offset].value == metadata[i].value) << metadata[i].key;
    EXPECT_EQ(c.metadata[i + offset].value.type(), metadata[i].value.type()) << metadata[i].key;
  }
  ASSERT_EQ(c.tensors.size(), specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const GgufTensorInfo& t = c.tensors[i];
    EXPECT_EQ(t.name, specs[i].name);
    EXPECT_EQ(t.type, specs[i].type);
    EXPECT_EQ(t.shape, specs[i].shape);
    EXPECT_EQ(t.offset % alignment, 0u);
    EXPECT_EQ(t.file_offset, c.data_offset + t.offset);
    EXPECT_EQ(t.bytes, data[i].size());
    const auto bytes = file.tensor_data(t);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), data[i].begin(), data[i].end())) << t.name;
    EXPECT_EQ(file.dequantize(t), dequantize_rows(t.type, data[i].data(), t.rows(), t.row_length()));
  }
  EXPECT_EQ(c.find_tensor("vector")->elements, 5u);
  EXPECT_EQ(c.find_tensor("missing"), nullptr);
  EXPECT_EQ(*c.find("t.string")->as_string(), "héllo \"world\"\n");
  EXPECT_EQ(c.find("t.u16")->as_uint64(), 65000u);
  EXPECT_EQ(c.find("t.i8")->as_int64(), -100);
  EXPECT_FALSE(c.find("t.i8")->as_uint64().has_value());
}

TEST(GgufRoundTrip, Version3EveryMetadataAndTensorType) { check_round_trip(3, 32); }
TEST(GgufRoundTrip, Version2) { check_round_trip(2, 32); }
TEST(GgufRoundTrip, CustomAlignment) { check_round_trip(3, 256); }
TEST(GgufRoundTrip, SmallAlignment) { check_round_trip(3, 1); }

TEST(GgufRoundTrip, EmptyFile) {
  const GgufFile file = GgufFile::from_bytes(GgufWriter().bytes());
  EXPECT_TRUE(file.contents().metadata.empty());
  EXPECT_TRUE(file.contents().tensors.empty());
  EXPECT_EQ(file.file_size(), 32u);  // 24-byte header padded to the alignment
}

TEST(GgufRoundTrip, ExactLayoutOfATinyFile) {
  GgufWriter writer;
  writer.set("k", GgufValue(std::uint8_t{7}));
  writer.add_tensor("t", GgmlType::F16, {2}, {0x00, 0x3c, 0x00, 0xc0});
  std::vector<std::uint8_t> expected = {
      'G', 'G', 'U', 'F', 3, 0, 0, 0,              // magic, version 3
      1, 0, 0, 0, 0, 0, 0, 0,                      // 1 tensor
      1, 0, 0, 0, 0, 0, 0, 0,                      // 1 key
      1, 0, 0, 0, 0, 0, 0, 0, 'k', 0, 0, 0, 0, 7,  // "k": uint8 (type 0) 7
      1, 0, 0, 0, 0, 0, 0, 0, 't',                 // tensor "t"
      1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,          // 1 dim: 2
      1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};         // F16, offset 0
  ASSERT_EQ(expected.size(), 71u);
  expected.insert(expected.end(), 25, 0);  // padding to 96
  expected.insert(expected.end(), {0x00, 0x3c, 0x00, 0xc0});
  auto bytes = writer.bytes();
  ASSERT_EQ(bytes.size(), 128u);
  bytes.resize(expected.size());
  EXPECT_EQ(bytes, expected);
  const GgufFile file = GgufFile::from_bytes(writer.bytes());
  EXPECT_EQ(file.contents().data_offset, 96u);
  EXPECT_EQ(file.dequantize(file.contents().tensors[0]), (std::vector<float>{1.0f, -2.0f}));
}

TEST(GgufRoundTrip, FileOnDisk) {
  const auto path = std::filesystem::temp_directory_path() / ("vktune_gguf_" + std::to_string(::getpid()) + ".gguf");
  GgufWriter writer;
  writer.set("general.name", GgufValue("on disk"));
  const auto q = random_quantized_rows(GgmlType::Q4_K, 4, 256, 3);
  writer.add_tensor("w", GgmlType::Q4_K, {256, 4}, q);
  writer.write(path);
  {
    const GgufFile file = GgufFile::open(path);
    EXPECT_EQ(*file.contents().find("general.name")->as_string(), "on disk");
    const auto data = file.tensor_data(file.contents().tensors.at(0));
    EXPECT_TRUE(std::equal(data.begin(), data.end(), q.begin(), q.end()));
    // Rows 1..2 alone are the middle of the whole dequantized tensor.
    const auto all = dequantize_rows(GgmlType::Q4_K, q.data(), 4, 256);
    const auto middle = file.dequantize_row_range(file.contents().tensors.at(0), 1, 2);
    EXPECT_TRUE(std::equal(middle.begin(), middle.end(), all.begin() + 256, all.begin() + 768));
  }
  std::filesystem::remove(path);
  try {
    (void)GgufFile::open(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
  }
  EXPECT_THROW((void)GgufFile::open(std::filesystem::temp_directory_path()), Error);
}

// A model truncated by another process after it was opened: reading the lost
// tensor is an Error(io) naming the file (it was a SIGBUS through a mapping).
TEST(GgufRoundTrip, AFileThatShrinksAfterOpenIsAnErrorNamingIt) {
  const auto path = std::filesystem::temp_directory_path() / ("vktune_shrink_" + std::to_string(::getpid()) + ".gguf");
  GgufWriter writer;
  const auto q = random_quantized_rows(GgmlType::Q8_0, 512, 256, 5);  // 139 KB: several pages
  writer.add_tensor("w", GgmlType::Q8_0, {256, 512}, q);
  writer.write(path);
  const GgufFile file = GgufFile::open(path);
  const GgufTensorInfo& tensor = file.contents().tensors.at(0);
  std::filesystem::resize_file(path, tensor.file_offset + 1000);
  try {
    (void)file.dequantize(tensor);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    const std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("shrank"), std::string::npos) << message;
  }
  std::filesystem::remove(path);
}

// Metadata larger than the first read of the file (1 MiB): the reader asks
// for more until it has all of it.
TEST(GgufRoundTrip, MetadataLargerThanTheFirstRead) {
  const auto path = std::filesystem::temp_directory_path() / ("vktune_vocab_" + std::to_string(::getpid()) + ".gguf");
  GgufWriter writer;
  std::vector<GgufValue> tokens;
  for (int i = 0; i < 200000; ++i) tokens.emplace_back("token_" + std::to_string(i));  // ~2.8 MB
  writer.set("tokenizer.ggml.tokens", make_array(GgufValueType::string, tokens));
  writer.add_tensor("t", GgmlType::F16, {2}, {0x00, 0x3c, 0x00, 0xc0});
  writer.write(path);
  const GgufFile file = GgufFile::open(path);
  const auto* vocabulary = file.contents().find("tokenizer.ggml.tokens")->as_array();
  ASSERT_NE(vocabulary, nullptr);
  ASSERT_EQ(vocabulary->items.size(), 200000u);
  EXPECT_EQ(*vocabulary->items.back().as_string(), "token_199999");
  EXPECT_EQ(file.dequantize(file.contents().tensors.at(0)), (std::vector<float>{1.0f, -2.0f}));
  std::filesystem::remove(path);
}

TEST(GgufWriter, RejectsInvalidInput) {
  GgufWriter writer;
  writer.set("a", GgufValue(1));
  EXPECT_THROW(writer.set("a", GgufValue(2)), Error);
  EXPECT_THROW(writer.set("", GgufValue(2)), Error);
  EXPECT_THROW(writer.set(std::string("\xff"), GgufValue(2)), Error);
  EXPECT_THROW(writer.set("not.utf8", GgufValue(std::string("caf\xe9"))), Error);
  EXPECT_THROW(writer.set("mixed", make_array(GgufValueType::int32, {GgufValue(1), GgufValue(2.0f)})), Error);
  EXPECT_THROW(writer.set("general.alignment", GgufValue(std::uint32_t{48})), Error);
  EXPECT_THROW(writer.set("general.alignment", GgufValue(std::uint64_t{64})), Error);
  EXPECT_THROW(writer.add_tensor("t", GgmlType::Q4_0, {16}, std::vector<std::uint8_t>(9)), Error);
  EXPECT_THROW(writer.add_tensor("t", GgmlType::F32, {4}, std::vector<std::uint8_t>(15)), Error);
  EXPECT_THROW(writer.add_tensor("t", GgmlType::F32, {0}, {}), Error);
  EXPECT_THROW(writer.add_tensor("t", GgmlType::F32, {1, 1, 1, 1, 1}, std::vector<std::uint8_t>(4)), Error);
  EXPECT_THROW(writer.add_tensor(std::string(65, 'x'), GgmlType::F32, {1}, std::vector<std::uint8_t>(4)), Error);
  writer.add_tensor("t", GgmlType::F32, {1}, std::vector<std::uint8_t>(4));
  EXPECT_THROW(writer.add_tensor("t", GgmlType::F32, {1}, std::vector<std::uint8_t>(4)), Error);
  EXPECT_THROW(GgufWriter(1), Error);
}

TEST(GgufValue, DescribeSummarizesLongArrays) {
  std::vector<GgufValue> items;
  for (int i = 0; i < 100; ++i) items.emplace_back(i);
  EXPECT_EQ(describe_value(make_array(GgufValueType::int32, items), 3), "[0, 1, 2, ... (100 items)]");
  EXPECT_EQ(describe_value(GgufValue("a\"b\n")), "\"a\\\"b\\n\"");
  EXPECT_EQ(describe_value(GgufValue(0.1f)), "0.1");
  EXPECT_EQ(describe_value(GgufValue(std::uint8_t{200})), "200");
  EXPECT_EQ(describe_value(GgufValue(true)), "true");
}

}  // namespace
}  // namespace vktune::ref
