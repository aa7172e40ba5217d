// libFuzzer target: arbitrary bytes as a kernel spec file (kernels/spec/),
// with one template beside it. Every input must either load or throw
// vktune::Error(usage) with a one-line message; nothing else may escape, and
// ASan/UBSan watch the parsing, the expressions and the size checks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "kernels/spec/spec_size_rule.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vktune::kernels::spec;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const FileReader read = [](const std::string& path) -> std::optional<std::string> {
    // Any template a seed names exists (examples/ name their own); others do not.
    if (path.size() > 5 && path.substr(path.size() - 5) == ".comp") return std::string("#version 450\n#include \"h.glsl\"\nvoid main() {}\n");
    if (path == "h.glsl") return std::string("#include \"k.comp\"\n");  // a cycle the loader must not follow forever
    return std::nullopt;
  };
  try {
    const auto definition = parse_spec(text, "fuzz.json", read);
    for (const auto& buffer : definition.buffers) static_cast<void>(fit_size_rule(definition, buffer));
  } catch (const vktune::Error& e) {
    if (e.kind() != vktune::ErrorKind::usage) std::abort();
    if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
  }
  return 0;
}
