// The variant hash: pinned values for one-stage variants (stored
// measurements and the committed tables key on it), a template's hash covers
// only the includes it reaches, a second stage changes the hash, and each
// stage is compiled.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "engine/stale_config.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune {
namespace {

const kernels::Kernel& kernel(const std::string& name) { return kernels::find_kernel(name); }

// Hashes pinned when a template's hash came to cover only the includes it
// reaches (before, every include file entered every hash, so a new include
// changed them all): a one-stage variant keeps its hash while its template
// and includes do, also where its space gained a parameter that its path pins
// and that adds no define (attention_decode's MERGE_STAGE and MERGE_WG). Stored configs lack those parameters: they
// are completed as engine/stale_config.hpp does. The hashes cover shaderc's
// version (Debian 12's here and in CI). The quantized matmuls' hashes were
// re-pinned in session 13, when quant_block.glsl gained Q4_K (QTYPE 5) and
// matmul_q4k's decode space became the family's, and their tensor-core
// prefill's in session 14, when its skeleton became matmul_f16's
// (include/coopmat_gemm.glsl); attention_decode's walk path's then too, when
// its split merge became the streaming templates' (attention_split_merge.glsl).
// The tensor-core prefill's again when its staging of x became one include
// of its two templates (include/coopmat_quant_x.glsl; the same SPIR-V), and
// all the quantized matmuls' when their templates came to read x and write y
// through include/matmul_xy.glsl, which also serves the fp16-activation
// kernels (ACT_F16; the fp32 kernels' SPIR-V is the same instructions), and
// again when that include gained the SwiGLU input (ACT_SWIGLU, session 16;
// the other variants' preprocessed source is unchanged). The integer-dot
// decode variant's again in session 19, when x's quantization came to issue
// its loads XQ_BATCH iterations at a time and to quantize each piece in a
// function the slot-scope walk shares (include/x_q8.glsl; X_SCOPE=0 stays
// undefined, the template's default). All the quantized matmuls' again in
// session 33, when include/matmul_xy.glsl gained the residual-norm input
// (ACT_ADDNORM) with x_prologue() and x_epilogue(), which the decode
// templates call (empty but for the _addnorm kernels). The tensor-core
// prefill variants' again in session 37, when include/coopmat_quant_x.glsl
// gained DEQUANT_STAGE=2's staging (X16) beside the one they use, and in
// session 39, when include/coopmat_gemm.glsl came to keep CM_PREFETCH
// slices in flight (their loop, CM_PREFETCH 0, is the same text), and in
// session 40, when its output stores became include/coopmat_store.glsl,
// which the int8 GEMM shares. The elementwise variant's (add) in session 42,
// when include/elementwise.glsl gained A_AT/B_AT, the input vector an output
// vector reads (swiglu_stacked's side-by-side rows; the identity for add).
// All the quantized matmuls' again in session 46, when include/matmul_xy.glsl
// gained the cache output of the q/k/v epilogues (Y_CACHE), and the
// matrix-vector decode variant's push constants became
// include/matvec_shape.glsl and include/matvec_slot_reduce.glsl gained their
// pair stores (Y_ROPE, Y_CACHE; 0 in every variant here). attention_decode's
// in session 48, when its split merge's election of the last workgroup
// became include/last_workgroup.glsl, which argmax's split rows share. All
// the quantized matmuls' in session 49, when include/matmul_xy.glsl's y
// became coherent where the _resnorm products read it back (Y_ACCESS) and
// include/matvec_shape.glsl and matvec_slot_reduce.glsl gained Y_RESNORM
// (0 in every variant here). All the quantized matmuls' in session 51, when
// include/matmul_xy.glsl took its SwiGLU from include/swiglu.glsl and
// matvec_shape.glsl and matvec_slot_reduce.glsl gained Y_GLU (0 in every
// variant here).
TEST(VariantHash, OneStageHashesAreThoseOfBeforeStages) {
  const auto templates = TemplateLibrary::embedded();
  struct Case {
    const char* kernel;
    kernels::Shape shape;
    const char* config;
    const char* hash;
  };
  const Case cases[] = {
      {"add", {512, 4096}, R"({"EPT":1,"SUBGROUP_SIZE":0,"VEC":4,"WG_SIZE":256})", "56d9f47a2f3ecb4e"},
      {"matmul_q4k", {1, 4096, 4096},
       R"({"COLS_PER_PASS":1,"REDUCTION":0,"ROWS_PER_WG":8,"SUBGROUP_SIZE":0,"SUPER_BLOCK":1,"THREADS_PER_ROW":16,)"
       R"("UNROLL":1,"WG_SIZE":128,"W_STAGE":0,"X_QUANT":1,"X_SEGMENT":4096})",
       "4ec036fabebb5fea"},
      {"matmul_q4k", {512, 4096, 4096},
       R"({"CM_SHAPE":0,"SUBGROUP_SIZE":0,"THREAD_M":2,"THREAD_N":2,"TILE_K":32,"TILE_M":128,"TILE_N":64,)"
       R"("USE_COOPMAT":1,"WARPS_M":4,"WARPS_N":2})",
       "fa48c68d3b93d0f0"},
      {"matmul_q4k", {512, 4096, 4096},
       R"({"CM_SHAPE":0,"SUBGROUP_SIZE":0,"THREAD_M":4,"THREAD_N":4,"TILE_K":32,"TILE_M":64,"TILE_N":64,)"
       R"("USE_COOPMAT":0,"WARPS_M":1,"WARPS_N":1})",
       "f62f6ceed6d3dc94"},
      {"matmul_q4_0", {512, 4096, 4096},
       R"({"CM_SHAPE":0,"SUBGROUP_SIZE":0,"THREAD_M":2,"THREAD_N":2,"TILE_K":32,"TILE_M":128,"TILE_N":64,)"
       R"("USE_COOPMAT":1,"WARPS_M":4,"WARPS_N":1})",
       "1d36028ef168a94f"},
      {"matmul_q4_0", {512, 4096, 4096},
       R"({"CM_SHAPE":0,"SUBGROUP_SIZE":0,"THREAD_M":4,"THREAD_N":4,"TILE_K":32,"TILE_M":64,"TILE_N":64,)"
       R"("USE_COOPMAT":0,"WARPS_M":1,"WARPS_N":1})",
       "c07a106607e0b0b7"},
      // attention_decode's walk path.
      {"attention_decode", {32, 8, 128, 4096},
       R"({"ENTRIES":4,"KV_CHUNK":256,"LEAN":1,"LOADS":2,"MERGE":1,"MMA":0,"PREFETCH":0,"QH":4,"REDUCTION":0,)"
       R"("STEP":32,"STREAM":0,"TOKENS":2,"VEC":8,"WG_SIZE":128,"WIDEN":0})",
       "b4a709bbf0cf2228"},
  };
  for (const auto& c : cases) {
    const auto& k = kernel(c.kernel);
    const auto update = update_config(k, c.shape, kernels::config_from_json(c.config));
    ASSERT_TRUE(update.config) << c.kernel << ": " << update.note;
    const auto variant = describe_variant(k, *update.config, c.shape, templates);
    EXPECT_EQ(variant.stages.size(), 1u) << c.kernel << " " << c.config;
    EXPECT_EQ(variant.variant_hash, c.hash) << c.kernel << " " << c.config;
  }
}

// attention_decode's streaming path with its split merge as a second
// dispatch: two stages (the streaming pass, then attention_merge.comp), a
// hash of its own, and both stages compile.
TEST(VariantHash, AMergeStageIsASecondStageWithItsOwnHash) {
  const auto& k = kernel("attention_decode");
  const kernels::Shape shape{8, 2, 128, 300};
  const auto templates = TemplateLibrary::embedded();
  auto inside = k.baseline(shape);
  inside["STREAM"] = 1, inside["LOADS"] = 1, inside["ENTRIES"] = 2, inside["KV_CHUNK"] = 64, inside["WG_SIZE"] = 128;
  inside["VEC"] = 8, inside["TOKENS"] = 2, inside["REDUCTION"] = 0, inside["MERGE"] = 1, inside["WIDEN"] = 0;
  inside["LEAN"] = 1, inside["MMA"] = 0, inside["STEP"] = 32, inside["PREFETCH"] = 0;
  auto staged = inside;
  staged["MERGE_STAGE"] = 1, staged["MERGE_WG"] = 64;
  const auto one = describe_variant(k, inside, shape, templates);
  auto two = describe_variant(k, staged, shape, templates);
  ASSERT_EQ(one.stages.size(), 1u);
  ASSERT_EQ(two.stages.size(), 2u);
  EXPECT_EQ(two.stages[1].plan.template_file, "attention_merge.comp");
  EXPECT_NE(one.variant_hash, two.variant_hash);
  // MERGE_STAGE=0 adds no define: the in-dispatch merge's defines are those
  // of configs stored before the parameter existed.
  for (const auto& [name, value] : one.stages[0].plan.defines) {
    EXPECT_NE(name, "MERGE_STAGE");
    EXPECT_NE(name, "MERGE_WG");
  }
  // Another merge stage size changes only the second stage, and the hash.
  staged["MERGE_WG"] = 128;
  const auto other = describe_variant(k, staged, shape, templates);
  EXPECT_EQ(other.stages[0].plan.defines, two.stages[0].plan.defines);
  EXPECT_NE(other.variant_hash, two.variant_hash);
  EXPECT_FALSE(two.compiled());
  compile_variant(two, templates);
  EXPECT_TRUE(two.compiled());
  EXPECT_EQ(spirv_cache_key(two, 0), two.variant_hash);
  EXPECT_NE(spirv_cache_key(two, 1), two.variant_hash);
}

TEST(TemplateHash, CoversTheIncludesATemplateReachesAndNoOthers) {
  const auto dir = std::filesystem::temp_directory_path() / ("vktune-template-hash-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "include");
  const auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  write("a.comp", "#version 450\n#if X\n  #include \"one.glsl\"\n#endif\nvoid main() {}\n");
  write("include/one.glsl", "#include \"two.glsl\"\n");
  write("include/two.glsl", "// two\n");
  write("include/other.glsl", "// other\n");
  const auto before = TemplateLibrary::from_directory(dir).content_hash("a.comp");
  write("include/other.glsl", "// other, edited\n");
  write("include/new.glsl", "// a new include\n");
  EXPECT_EQ(TemplateLibrary::from_directory(dir).content_hash("a.comp"), before);
  write("include/two.glsl", "// two, edited\n");  // reached through one.glsl, under a condition
  EXPECT_NE(TemplateLibrary::from_directory(dir).content_hash("a.comp"), before);
  EXPECT_THROW(TemplateLibrary::from_directory(dir).content_hash("missing.comp"), Error);
  std::filesystem::remove_all(dir);
}

// The set hash `vktune --version` prints: every file counts, reached by a
// template or not, and the same files hash the same.
TEST(TemplateHash, TheSetHashMovesWithAnyFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("vktune-template-set-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "include");
  const auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  write("a.comp", "#version 450\nvoid main() {}\n");
  write("include/unread.glsl", "// read by no template\n");
  const auto before = TemplateLibrary::from_directory(dir);
  EXPECT_EQ(TemplateLibrary::from_directory(dir).set_hash(), before.set_hash());
  write("include/unread.glsl", "// read by no template, edited\n");
  const auto edited = TemplateLibrary::from_directory(dir).set_hash();
  EXPECT_NE(edited, before.set_hash());
  write("b.comp", "#version 450\nvoid main() {}\n");
  const auto added = TemplateLibrary::from_directory(dir);
  EXPECT_NE(added.set_hash(), edited);
  EXPECT_EQ(added.size(), before.size() + 1);
  std::filesystem::remove(dir / "b.comp");
  write("include/unread.glsl", "// read by no template\n");
  EXPECT_EQ(TemplateLibrary::from_directory(dir).set_hash(), before.set_hash());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vktune
