// A corpus of malformed files made by mutating a valid small file: every one
// must give a vktune::Error of kind format (never a crash, an over-read under
// the sanitizers, or another exception type).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>

#include "common/error.hpp"
#include "gguf_test_files.hpp"
#include "reference/gguf_reader.hpp"

namespace vktune::ref {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::size_t find_text(const Bytes& bytes, std::string_view text) {
  const auto it = std::search(bytes.begin(), bytes.end(), text.begin(), text.end());
  EXPECT_NE(it, bytes.end()) << text;
  return static_cast<std::size_t>(it - bytes.begin());
}

template <class T>
void poke(Bytes& bytes, std::size_t at, T value) {
  ASSERT_LE(at + sizeof(T), bytes.size());
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

template <class T>
T peek(const Bytes& bytes, std::size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

// Where things are in small_gguf(): the value-type field of a key, and the
// fields of a tensor info.
std::size_t type_of_key(const Bytes& bytes, std::string_view key) { return find_text(bytes, key) + key.size(); }
struct TensorFields {
  std::size_t name_length, n_dims, dims, type, offset;
};
TensorFields tensor_fields(const Bytes& bytes, std::string_view name) {
  const std::size_t at = find_text(bytes, name);
  const std::size_t n_dims = at + name.size();
  const std::size_t dims = n_dims + 4;
  const std::size_t type = dims + 8 * peek<std::uint32_t>(bytes, n_dims);
  return {at - 8, n_dims, dims, type, type + 4};
}

// Parses and returns the format error's message; fails the test if parsing
// succeeds or throws anything else.
std::string format_error(const Bytes& bytes) {
  try {
    (void)parse_gguf(bytes, "bad.gguf");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::format) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "a malformed file was accepted";
  return {};
}

void expect_error(const Bytes& bytes, std::string_view fragment, std::size_t at) {
  const std::string message = format_error(bytes);
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
  EXPECT_NE(message.find("at byte " + std::to_string(at)), std::string::npos) << message;
  EXPECT_EQ(message.rfind("bad.gguf: ", 0), 0u) << message;
}

TEST(GgufMalformed, TheBaseFileIsValid) {
  const Bytes bytes = testing::small_gguf();
  const GgufContents c = parse_gguf(bytes);
  EXPECT_EQ(c.metadata.size(), 4u);
  EXPECT_EQ(c.tensors.size(), 2u);
}

TEST(GgufMalformed, TruncationAtEveryByte) {
  const Bytes full = testing::small_gguf();
  const GgufContents c = parse_gguf(full);
  std::uint64_t end_of_data = 0;
  for (const auto& t : c.tensors) end_of_data = std::max(end_of_data, t.file_offset + t.bytes);
  for (std::size_t size = 0; size < full.size(); ++size) {
    const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size));
    if (size < end_of_data) {
      const std::string message = format_error(cut);
      EXPECT_FALSE(message.empty()) << "size " << size;
    } else {
      // Only the zero padding after the last tensor is missing: still valid.
      EXPECT_NO_THROW((void)parse_gguf(cut)) << "size " << size;
    }
  }
}

TEST(GgufMalformed, HeaderProblems) {
  const Bytes base = testing::small_gguf();
  Bytes b = base;
  b[0] = 'X';
  expect_error(b, "not a GGUF file", 0);
  for (const std::uint32_t version : {0u, 1u, 4u, 0x03000000u, 0xffffffffu}) {
    b = base;
    poke(b, 4, version);
    expect_error(b, "version", 4);
  }
  b = base;
  poke(b, 4, 0x03000000u);
  expect_error(b, "big-endian", 4);
}

TEST(GgufMalformed, FlippedAndHugeCounts) {
  const Bytes base = testing::small_gguf();
  for (const std::uint64_t count : {std::uint64_t{3}, std::uint64_t{1000}, std::uint64_t{1} << 32,
                                    std::uint64_t{1} << 63, ~std::uint64_t{0}}) {
    Bytes b = base;
    poke(b, 8, count);  // tensor count
    EXPECT_FALSE(format_error(b).empty()) << "tensor count " << count;
    b = base;
    poke(b, 16, count);  // metadata count
    EXPECT_FALSE(format_error(b).empty()) << "metadata count " << count;
  }
  Bytes b = base;
  poke(b, 16, ~std::uint64_t{0});
  expect_error(b, "metadata count", 16);
  b = base;
  poke(b, 8, std::uint64_t{1} << 40);
  expect_error(b, "tensor count", 8);
}

TEST(GgufMalformed, HugeStringAndArrayLengths) {
  const Bytes base = testing::small_gguf();
  const std::size_t key_length_at = find_text(base, "test.flag") - 8;
  const std::size_t arch_value_at = type_of_key(base, "general.architecture") + 4;
  const std::size_t list_count_at = type_of_key(base, "test.list") + 4 + 4;
  for (const std::uint64_t length : {std::uint64_t{1} << 20, std::uint64_t{1} << 62, ~std::uint64_t{0},
                                     std::uint64_t{base.size()}}) {
    Bytes b = base;
    poke(b, key_length_at, length);
    EXPECT_FALSE(format_error(b).empty()) << "key length " << length;
    b = base;
    poke(b, arch_value_at, length);
    EXPECT_FALSE(format_error(b).empty()) << "string length " << length;
    b = base;
    poke(b, list_count_at, length);
    EXPECT_FALSE(format_error(b).empty()) << "array length " << length;
  }
  Bytes b = base;
  poke(b, list_count_at, ~std::uint64_t{0});
  expect_error(b, "an array of int32", list_count_at);
  b = base;
  poke(b, key_length_at, std::uint64_t{70000});
  expect_error(b, "metadata key is 70000 bytes long", key_length_at);
}

TEST(GgufMalformed, BadValueTypesAndValues) {
  const Bytes base = testing::small_gguf();
  const std::size_t flag_type = type_of_key(base, "test.flag");
  for (const std::uint32_t type : {13u, 100u, 0xffffffffu}) {
    Bytes b = base;
    poke(b, flag_type, type);
    expect_error(b, "unknown metadata value type " + std::to_string(type), flag_type);
  }
  Bytes b = base;
  b[flag_type + 4] = 2;  // bool 2
  expect_error(b, "bool value 2 is neither 0 nor 1", flag_type + 4);
  b = base;
  const std::size_t list_element_type = type_of_key(base, "test.list") + 4;
  poke(b, list_element_type, 77u);
  expect_error(b, "unknown metadata value type 77", list_element_type);
}

TEST(GgufMalformed, KeyProblems) {
  const Bytes base = testing::small_gguf();
  Bytes b = base;
  const std::size_t key_at = find_text(base, "test.flag");
  b[key_at] = 0xff;  // not UTF-8
  expect_error(b, "is not valid UTF-8", key_at - 8);
  b = base;
  std::memcpy(b.data() + key_at, "test.list", 9);  // "test.flag" -> "test.list": a duplicate
  expect_error(b, "duplicate metadata key 'test.list'", find_text(base, "test.list") - 8);
}

// GGUF strings are UTF-8 (the specification): a value that is not is
// rejected with its key, its item in an array, and the offset of its length.
TEST(GgufMalformed, StringValuesMustBeUtf8) {
  Bytes b = testing::small_gguf();
  const std::size_t llama = find_text(b, "llama");
  b[llama + 1] = 0xff;
  expect_error(b, "the string value of metadata key 'general.architecture' is not valid UTF-8", llama - 8);

  GgufWriter writer;
  writer.set("\x1b[31mred", make_array(GgufValueType::string, {GgufValue("ok"), GgufValue("fine"), GgufValue("bad!")}));
  b = writer.bytes();
  const std::size_t bad = find_text(b, "bad!");
  b[bad + 3] = 0xc0;  // an overlong lead byte at the end
  const std::string message = format_error(b);
  EXPECT_NE(message.find("the string value of item 2 of metadata key '\\x1b[31mred' is not valid UTF-8 at byte " +
                         std::to_string(bad - 8)),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << "the key reached the message raw";
}

TEST(GgufMalformed, AlignmentProblems) {
  for (const GgufValue& alignment : {GgufValue(std::uint32_t{0}), GgufValue(std::uint32_t{48}),
                                     GgufValue(std::uint64_t{32}), GgufValue(std::int32_t{32})}) {
    // Written by hand: the writer itself refuses such alignments.
    Bytes b = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    const std::string key = "general.alignment";
    const std::uint64_t length = key.size();
    b.insert(b.end(), reinterpret_cast<const std::uint8_t*>(&length), reinterpret_cast<const std::uint8_t*>(&length) + 8);
    b.insert(b.end(), key.begin(), key.end());
    const auto type = static_cast<std::uint32_t>(alignment.type());
    b.insert(b.end(), reinterpret_cast<const std::uint8_t*>(&type), reinterpret_cast<const std::uint8_t*>(&type) + 4);
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_integral_v<T>) {
            b.insert(b.end(), reinterpret_cast<const std::uint8_t*>(&v), reinterpret_cast<const std::uint8_t*>(&v) + sizeof v);
          }
        },
        alignment.data);
    expect_error(b, "general.alignment", 24);
  }
}

TEST(GgufMalformed, TensorInfoProblems) {
  const Bytes base = testing::small_gguf();
  const TensorFields alpha = tensor_fields(base, "tensor.a1");
  const TensorFields beta = tensor_fields(base, "tensor.b2");
  Bytes b = base;
  poke(b, alpha.n_dims, 0u);
  expect_error(b, "has 0 dimensions", alpha.n_dims);
  b = base;
  poke(b, alpha.n_dims, 5u);
  expect_error(b, "has 5 dimensions", alpha.n_dims);
  b = base;
  poke(b, alpha.n_dims, 0xffffffffu);
  expect_error(b, "dimensions", alpha.n_dims);
  b = base;
  poke(b, alpha.dims + 8, std::uint64_t{0});
  expect_error(b, "dimension 1 is zero", alpha.n_dims);
  b = base;
  poke(b, alpha.dims, std::uint64_t{1} << 40);
  poke(b, alpha.dims + 8, std::uint64_t{1} << 40);
  expect_error(b, "overflows", alpha.n_dims);
  b = base;
  poke(b, beta.dims, std::uint64_t{48});  // Q8_0 row of 48: not whole blocks
  expect_error(b, "not a whole number of Q8_0 blocks", beta.n_dims);
  for (const std::uint32_t type : {3u, 15u, 16u, 1000u}) {  // Q4_1, Q8_K, IQ2_XXS and no type
    b = base;
    poke(b, beta.type, type);
    expect_error(b, "ggml type id " + std::to_string(type), beta.type);
  }
  // The refusal names every supported type, the newest included, on one line.
  b = base;
  poke(b, beta.type, 16u);
  const std::string refusal = format_error(b);
  EXPECT_NE(refusal.find("(" + ggml_type_list() + ")"), std::string::npos) << refusal;
  EXPECT_EQ(refusal.find('\n'), std::string::npos) << refusal;
  // Types added with issue 44 are read: their blocks size the tensor (a row
  // of 32 weights is one IQ4_NL block, and no whole Q3_K super-block).
  b = base;
  poke(b, beta.type, 20u);
  EXPECT_EQ(parse_gguf(b).tensors[1].type, GgmlType::IQ4_NL);
  EXPECT_EQ(parse_gguf(b).tensors[1].bytes, 2u * 18u);
  b = base;
  poke(b, beta.type, 11u);
  expect_error(b, "not a whole number of Q3_K blocks", beta.n_dims);
  b = base;
  poke(b, beta.name_length, std::uint64_t{65});
  expect_error(b, "tensor name is 65 bytes long", beta.name_length);
  b = base;
  b[alpha.name_length + 8] = 0xc0;  // an overlong UTF-8 lead byte
  expect_error(b, "not valid UTF-8", alpha.name_length);
  b = base;
  std::memcpy(b.data() + beta.name_length + 8, "tensor.a1", 9);  // "tensor.b2" -> a duplicate
  expect_error(b, "duplicate tensor name 'tensor.a1'", beta.name_length);
  b = base;
  poke(b, beta.name_length, std::uint64_t{0});
  EXPECT_FALSE(format_error(b).empty());
}

TEST(GgufMalformed, TensorOffsetProblems) {
  const Bytes base = testing::small_gguf();
  const TensorFields beta = tensor_fields(base, "tensor.b2");
  const auto beta_offset = peek<std::uint64_t>(base, beta.offset);
  Bytes b = base;
  poke(b, beta.offset, beta_offset + 1);
  expect_error(b, "not a multiple of the alignment 32", beta.offset);
  b = base;
  poke(b, beta.offset, std::uint64_t{0});  // on top of tensor.alpha
  expect_error(b, "overlap", beta.offset);
  b = base;
  poke(b, beta.offset, beta_offset + 4096);
  expect_error(b, "claims", beta.offset);
  b = base;
  poke(b, beta.offset, ~std::uint64_t{31});
  expect_error(b, "claims", beta.offset);
  b = base;
  poke(b, beta.dims + 8, std::uint64_t{1} << 50);  // more rows than the file holds
  expect_error(b, "claims", beta.offset);
}

TEST(GgufMalformed, DeepNestingIsRejected) {
  // An array of arrays nested 20 deep, written by hand.
  Bytes b = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  const Bytes key = {1, 0, 0, 0, 0, 0, 0, 0, 'x', 9, 0, 0, 0};
  b.insert(b.end(), key.begin(), key.end());
  for (int i = 0; i < 20; ++i) {
    const Bytes level = {9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};  // array of 1 array
    b.insert(b.end(), level.begin(), level.end());
  }
  EXPECT_NE(format_error(b).find("nested more than 8 deep"), std::string::npos);
}

// Every single-byte mutation of the file is either still valid or a format
// error: nothing else.
TEST(GgufMalformed, EveryByteMutated) {
  const Bytes base = testing::small_gguf();
  const GgufContents c = parse_gguf(base);
  const std::uint64_t data_start = c.data_offset;
  for (std::size_t at = 0; at < data_start; ++at) {
    for (const std::uint8_t value : {std::uint8_t{0}, std::uint8_t{0xff}, static_cast<std::uint8_t>(base[at] ^ 0x80),
                                     static_cast<std::uint8_t>(base[at] + 1)}) {
      Bytes b = base;
      b[at] = value;
      try {
        (void)parse_gguf(b);
      } catch (const Error& e) {
        ASSERT_EQ(e.kind(), ErrorKind::format) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace vktune::ref
