#pragma once
// A variant: a kernel's template compiled with one config. Its identity (the
// variant hash) covers the kernel, the template text with its includes, the
// defines, the launch facts that change behaviour, and the compiler version,
// so SPIR-V cached under it is never stale.
//
// A variant may launch several dispatches (Kernel::stages): a dequantization
// before a GEMM, a merge after split attention. Each stage is compiled on its
// own; the hash of a one-stage variant covers exactly what it covered before
// stages existed (stored measurements key on it), and each later stage adds
// its own template hash, defines and launch facts after the first's.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"
#include "engine/template_library.hpp"

namespace vktune {

namespace results {
class Store;
}

struct CompiledStage {
  kernels::ShaderPlan plan;
  std::string template_hash;         // of plan.template_file with its includes
  std::vector<std::uint32_t> spirv;  // empty until compiled
  // The data of a pipeline cache holding this stage's pipeline, from the
  // worker process that created it first (engine/worker_pool.hpp); empty
  // when it was not made that way.
  std::vector<std::uint8_t> pipeline_cache;
};

struct CompiledVariant {
  kernels::Config config;
  std::string variant_hash;
  std::vector<CompiledStage> stages;  // at least one, in dispatch order

  // Every stage has its SPIR-V.
  bool compiled() const;
  // "matmul_quant_cm.comp" or "dequant_f16.comp + matmul_quant_cm.comp".
  std::string describe_templates() const;
};

// Plans the variant's stages and computes its hash, without compiling.
CompiledVariant describe_variant(const kernels::Kernel& kernel, const kernels::Config& config,
                                 const kernels::Shape& shape, const TemplateLibrary& templates);

// The key under which stage `stage`'s SPIR-V is cached in the store: the
// variant hash for stage 0 (as before stages existed), "<hash>.s<i>" after.
std::string spirv_cache_key(const CompiledVariant& variant, std::size_t stage);

// Fills each stage's SPIR-V from the store's cache where it holds it.
void load_cached_spirv(CompiledVariant& variant, const results::Store& store);
// Caches each compiled stage's SPIR-V in the store.
void cache_spirv(const CompiledVariant& variant, results::Store& store);

// Compiles every stage that has no SPIR-V yet (plan.template_file with
// plan.defines). Safe to call from several threads at once on different
// variants. Throws Error(compile), naming the stage of a multi-stage variant.
void compile_variant(CompiledVariant& variant, const TemplateLibrary& templates);

}  // namespace vktune
