// Writes a few small, valid GGUF files into a directory: the fuzzer's seeds.
//   gguf_seed_corpus DIR
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/error.hpp"
#include "reference/gguf_writer.hpp"
#include "reference/random_blocks.hpp"

namespace {

using namespace vktune::ref;

void add_tensor(GgufWriter& writer, const std::string& name, GgmlType type, std::uint64_t rows) {
  const std::uint64_t k = block_weights(type) == 1 ? 8 : block_weights(type);
  writer.add_tensor(name, type, {k, rows}, random_quantized_rows(type, rows, k, rows));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  try {
    std::filesystem::create_directories(dir);

    GgufWriter empty(2);
    empty.write(dir / "empty_v2.gguf");

    GgufWriter metadata;
    metadata.set("general.architecture", GgufValue("llama"));
    metadata.set("u8", GgufValue(std::uint8_t{1}));
    metadata.set("i8", GgufValue(std::int8_t{-1}));
    metadata.set("u16", GgufValue(std::uint16_t{2}));
    metadata.set("i16", GgufValue(std::int16_t{-2}));
    metadata.set("u32", GgufValue(std::uint32_t{3}));
    metadata.set("i32", GgufValue(std::int32_t{-3}));
    metadata.set("f32", GgufValue(0.5f));
    metadata.set("bool", GgufValue(true));
    metadata.set("u64", GgufValue(std::uint64_t{4}));
    metadata.set("i64", GgufValue(std::int64_t{-4}));
    metadata.set("f64", GgufValue(0.25));
    metadata.set("tokens", make_array(GgufValueType::string, {"a", "bc", "<0x0A>"}));
    metadata.set("nested", make_array(GgufValueType::array, {make_array(GgufValueType::int32, {1, 2})}));
    metadata.write(dir / "metadata.gguf");

    GgufWriter tensors;
    tensors.set("general.alignment", GgufValue(std::uint32_t{64}));
    int index = 0;
    for (const GgmlType type : all_ggml_types()) add_tensor(tensors, "t" + std::to_string(index++), type, 2);
    tensors.write(dir / "tensors.gguf");

    GgufWriter small;
    small.set("general.name", GgufValue("seed"));
    add_tensor(small, "w", GgmlType::Q4_K, 1);
    small.write(dir / "small.gguf");
  } catch (const vktune::Error& e) {
    std::fprintf(stderr, "gguf_seed_corpus: %s\n", e.what());
    return 1;
  }
  return 0;
}
