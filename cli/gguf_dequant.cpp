#include "cli/gguf_dequant.hpp"

#include <algorithm>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "reference/dequantize.hpp"

namespace vktune::cli {

namespace {

// Rows dequantized per read: large enough to amortise a pread, small enough
// that a multi-GB tensor is never held in memory.
constexpr std::size_t kRowsPerRead = 64;

}  // namespace

std::string shape_text(const ref::GgufTensorInfo& tensor) {
  std::string text;
  for (const auto dim : tensor.shape) text += (text.empty() ? "" : " x ") + std::to_string(dim);
  return text;
}

std::string write_dequantized(const ref::GgufFile& file, const std::string& name, const std::filesystem::path& output) {
  const ref::GgufTensorInfo* tensor = file.contents().find_tensor(name);
  if (tensor == nullptr) throw Error(ErrorKind::usage, "no tensor named '" + escape_text(name, '\'') + "' in the file");
  AtomicFile out(output);
  const std::uint64_t rows = tensor->rows();
  for (std::uint64_t first = 0; first < rows; first += kRowsPerRead) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(kRowsPerRead, rows - first));
    const std::vector<float> values = file.dequantize_row_range(*tensor, first, count);
    out.write(values.data(), values.size() * sizeof(float));
  }
  out.commit();
  return "wrote " + escape_text(tensor->name) + " (" + std::string(ref::type_name(tensor->type)) + ", " +
         shape_text(*tensor) + ") as " + std::to_string(tensor->elements) + " little-endian float32 values to " +
         output.string();
}

}  // namespace vktune::cli
