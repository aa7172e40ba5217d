// libFuzzer target: any bytes given to the GGUF parser must either parse or
// give a vktune::Error. Anything else (a crash, a sanitizer report, another
// exception escaping, a huge allocation) is a finding.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.hpp"
#include "reference/dequantize.hpp"
#include "reference/gguf_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vktune::ref;
  const std::span<const std::uint8_t> bytes(data, size);
  try {
    const GgufContents contents = parse_gguf(bytes, "fuzz input");
    for (const auto& kv : contents.metadata) (void)describe_value(kv.value);
    // Every tensor the parser accepted lies inside the input: dequantize the
    // small ones straight from it.
    for (const auto& tensor : contents.tensors) {
      if (tensor.elements > (std::uint64_t{1} << 16)) continue;
      const auto floats = dequantize_rows(tensor.type, data + tensor.file_offset,
                                          static_cast<std::size_t>(tensor.rows()),
                                          static_cast<std::size_t>(tensor.row_length()));
      (void)floats;
    }
  } catch (const vktune::Error&) {
    // A malformed file, rejected properly.
  }
  return 0;
}
