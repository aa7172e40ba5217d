// `vktune gguf FILE --dequant NAME -o OUT` writes OUT whole or not at all, and
// a GGUF file that shrinks while it is read is an error naming it (it was a
// SIGBUS that left a partial OUT behind).
#include "cli/gguf_dequant.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>

#include "common/error.hpp"
#include "tests/support/files.hpp"
#include "reference/gguf_writer.hpp"
#include "reference/random_blocks.hpp"

namespace vktune::cli {
namespace {

namespace fs = std::filesystem;
using ref::GgmlType;

class GgufDequantTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("vktune-dequant-" + std::to_string(std::random_device{}()));
  fs::path model = dir / "model.gguf";
  fs::path out = dir / "out.f32";
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  static std::string read(const fs::path& p) { return testing::read_file(p); }
  std::size_t entries() const { return testing::count_entries(dir); }
};

TEST_F(GgufDequantTest, WritesTheTensorAsFloat32) {
  ref::GgufWriter writer;
  // Two F16 rows of two values, [1, -2] and [0.5, 0], bit patterns by hand.
  writer.add_tensor("t", GgmlType::F16, {2, 2}, {0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0x00, 0x00});
  writer.write(model);
  const auto file = ref::GgufFile::open(model);
  const std::string line = write_dequantized(file, "t", out);
  EXPECT_EQ(line, "wrote t (F16, 2 x 2) as 4 little-endian float32 values to " + out.string());
  const std::string bytes = read(out);
  ASSERT_EQ(bytes.size(), 16u);
  float values[4];
  std::memcpy(values, bytes.data(), 16);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(values[2], 0.5f);
  EXPECT_EQ(values[3], 0.0f);
  EXPECT_EQ(entries(), 2u);  // the model and OUT, no temporary file
}

TEST_F(GgufDequantTest, AModelThatShrinksWhileReadLeavesNoOutputAndNamesTheFile) {
  ref::GgufWriter writer;
  // 512 rows of Q8_0: several reads of 64 rows, so part of OUT was written
  // before the lost bytes are reached.
  writer.add_tensor("w", GgmlType::Q8_0, {256, 512}, ref::random_quantized_rows(GgmlType::Q8_0, 512, 256, 9));
  writer.write(model);
  std::ofstream(out) << "previous output";
  const auto file = ref::GgufFile::open(model);
  // Truncated between open and read, as another process rewriting the model would.
  fs::resize_file(model, file.contents().tensors.at(0).file_offset + 100000);
  try {
    (void)write_dequantized(file, "w", out);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find(model.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(read(out), "previous output");  // untouched
  EXPECT_EQ(entries(), 2u);                  // no temporary file left
}

TEST_F(GgufDequantTest, AnUnknownTensorIsAUsageErrorWithItsNameEscaped) {
  ref::GgufWriter writer;
  writer.add_tensor("t", GgmlType::F32, {1}, {0, 0, 0x80, 0x3f});
  writer.write(model);
  const auto file = ref::GgufFile::open(model);
  try {
    (void)write_dequantized(file, "\x1b[2J", out);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_EQ(std::string(e.what()), "no tensor named '\\x1b[2J' in the file");
  }
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace vktune::cli
