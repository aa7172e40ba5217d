#pragma once
// `vktune gguf FILE --dequant NAME -o OUT`: one tensor of a GGUF file written
// as little-endian float32, row-major with the GGUF row (ne0) fastest.
// Separate from the command so the failure paths (a file that shrinks while
// it is read, an output that cannot be written) are tested directly.
#include <filesystem>
#include <string>

#include "reference/gguf_reader.hpp"

namespace vktune::cli {

// Writes tensor `name` of `file` to `output` whole or not at all: through a
// temporary file renamed on success, so a failure (the GGUF file shrank, the
// disk is full) leaves no partial output and an existing `output` untouched.
// Returns the line to print ("wrote NAME (Q4_K, 256 x 4) as ... to OUT"), with
// the tensor's name escaped. Error(usage) for an unknown tensor, Error(io)
// naming the file that failed.
std::string write_dequantized(const ref::GgufFile& file, const std::string& name, const std::filesystem::path& output);

// "256 x 4"
std::string shape_text(const ref::GgufTensorInfo& tensor);

}  // namespace vktune::cli
