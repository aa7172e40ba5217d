#pragma once
// Reading a kernel spec: a JSON file (// and /* */ comments allowed) that
// declares a kernel without C++ (docs/SPEC_FORMAT.md is the schema). Every
// malformed spec is an Error(usage) naming the file, the field as a JSON
// pointer and the problem, raised here, before any GPU work.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "kernels/spec/spec_definition.hpp"

namespace vktune::kernels::spec {

// Nesting deeper than this is refused (no spec needs more than 6 levels).
inline constexpr int kMaxSpecDepth = 16;
// A spec file larger than this is refused before it is parsed.
inline constexpr std::size_t kMaxSpecBytes = 1u << 20;

// Reads a file named relative to the spec's folder (a template, an include);
// nullopt when there is none.
using FileReader = std::function<std::optional<std::string>(const std::string& relative)>;

// Where a spec's include is looked up when it is not beside the spec,
// relative to the spec's folder: the include/ folder beside it, which specs
// in sibling folders share (examples/include/conv_types.glsl).
inline constexpr const char* kSharedIncludeFolder = "../include/";

// Parses spec `text`; `file` names it in errors and `read` finds its
// templates. Templates found are registered (spec_templates.hpp) under
// "spec/NAME/PATH"; a template named "vktune:FILE" is vktune's own FILE.
Definition parse_spec(const std::string& text, const std::string& file, const FileReader& read);

// Reads and parses the spec at `path` (its templates beside it). A missing
// or unreadable file is an Error(usage).
Definition load_spec(const std::filesystem::path& path);

}  // namespace vktune::kernels::spec
