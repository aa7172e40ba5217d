// The tuner's SPIR-V cache never hands out words that do not match their
// content hash (issue 16, item 11: garbage cached SPIR-V was timed and stored
// as a winner's code): a damaged row reads as not cached, the variant is
// compiled again and the cache row replaced.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "kernels/registry.hpp"
#include "results/spirv_bytes.hpp"
#include "results/store.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune {
namespace {

TEST(SpirvCache, GarbageInTheCacheIsCompiledAgain) {
  const auto dir = std::filesystem::temp_directory_path() / ("vktune-spirv-cache-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto db = dir / "cache.db";
  const auto templates = TemplateLibrary::embedded();
  const auto& add = kernels::find_kernel("add");
  const auto config = kernels::config_from_json(R"({"EPT":1,"SUBGROUP_SIZE":0,"VEC":4,"WG_SIZE":256})");
  auto compiled = describe_variant(add, config, {512, 4096}, templates);
  compile_variant(compiled, templates);
  ASSERT_TRUE(compiled.compiled());
  const auto good = compiled.stages[0].spirv;
  {
    auto store = results::Store::open(db);
    cache_spirv(compiled, store);
  }
  {
    // The words of the cached row replaced behind the store's back; still a SPIR-V header.
    auto garbage = good;
    garbage.back() ^= 0xffffffffu;
    auto raw = results::sqlite::Connection::open(db, results::sqlite::Connection::Mode::read_write_create);
    results::sqlite::Statement(raw, "UPDATE spirv SET words = ?2 WHERE hash = ?1")
        .bind(1, spirv_cache_key(compiled, 0))
        .bind_blob(2, results::spirv_to_bytes(garbage))
        .run();
  }
  auto store = results::Store::open(db);
  store.set_warning_sink([](const std::string&) {});
  auto again = describe_variant(add, config, {512, 4096}, templates);
  load_cached_spirv(again, store);
  EXPECT_TRUE(again.stages[0].spirv.empty());  // not the garbage
  compile_variant(again, templates);
  EXPECT_EQ(again.stages[0].spirv, good);
  cache_spirv(again, store);
  EXPECT_EQ(store.get_spirv(spirv_cache_key(again, 0)), good);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace vktune
