#pragma once
// Bringing a stored config up to date with its kernel's parameters. A
// kernel that gains a parameter (attention_decode's STREAM and ENTRIES, for
// one) leaves the configs stored before it without a value for it; such a
// config is completed with the value pinned on the path it belongs to, which
// is the value that builds the shader it was measured as. A config that no
// path completes (a parameter removed, a value no longer offered) is stale:
// reported and skipped, never planned (its plan would read a parameter the
// config lacks).
#include <optional>
#include <string>

#include "kernels/kernel.hpp"

namespace vktune {

struct ConfigUpdate {
  std::optional<kernels::Config> config;  // the config to use; empty when stale
  std::string note;                       // what was completed, or why it is stale; "" when current
};

ConfigUpdate update_config(const kernels::Kernel& kernel, const kernels::Shape& shape, const kernels::Config& config);

}  // namespace vktune
