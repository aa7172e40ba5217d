#pragma once
// `vktune export --format constants | constants-c`: each stored winner in an
// engine's own terms (issue 44): per kernel, device and shape, each stage's
// template with the #defines, specialization-constant values and local size
// its config compiles to, as a versioned JSON document an engine reads, or
// as C initializers it pastes. The config is planned by the kernel as this
// vktune registers it (a spec kernel: its spec file named on the command
// line is not needed; the stored config's defines are its parameters).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vktune::cli {

// From an exported table (results::export_table): {"format":
// "vktune-constants", "version": 1, "kernels": [...]}; a winner whose
// kernel this vktune does not know, or whose config no longer plans (a
// stale parameter), is named in `left_out` and not written.
nlohmann::json constants_document(const nlohmann::json& table, std::vector<std::string>& left_out);

// The same as C99: one block comment per winner and one static const
// initializer per stage's defines and specialization constants.
std::string constants_c(const nlohmann::json& document);

}  // namespace vktune::cli
