#pragma once
// A variant: a kernel's template compiled with one config. Its identity (the
// variant hash) covers the kernel, the template text with its includes, the
// defines, the launch facts that change behaviour, and the compiler version,
// so SPIR-V cached under it is never stale.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "tuner/template_library.hpp"

namespace vktune {

struct CompiledVariant {
  kernels::Config config;
  kernels::ShaderPlan plan;
  std::string variant_hash;
  std::string template_hash;
  std::vector<std::uint32_t> spirv;  // empty until compiled
};

// Plans the variant and computes its hash, without compiling.
CompiledVariant describe_variant(const kernels::Kernel& kernel, const kernels::Config& config,
                                 const kernels::Shape& shape, const TemplateLibrary& templates);

// Compiles plan.template_file with plan.defines into variant.spirv. Safe to
// call from several threads at once. Throws Error(compile).
void compile_variant(CompiledVariant& variant, const TemplateLibrary& templates);

}  // namespace vktune
