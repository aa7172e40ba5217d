#pragma once
// Shared by the runtime tests: a real tuned database made by the vktune
// binary (cached per build), hand-written tables, and a subprocess runner.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vktune_runtime.hpp"

namespace rt_test {

namespace fs = std::filesystem;

// The shapes the fixture database holds (lavapipe, cold).
inline const std::vector<std::uint32_t> kDecodeShape{1, 37, 1024};
inline const std::vector<std::uint32_t> kPrefillShape{13, 70, 512};

// A vktune database tuned by `vktune matmul_q4k --device 0` for kDecodeShape
// and kPrefillShape. Made once per vktune binary and kept in the build tree.
fs::path tuned_db();

// A new empty directory under the system temp directory.
fs::path fresh_dir(const std::string& name);

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};
RunResult run(const std::string& command);

// A "vktune-table" v1 document holding the table's devices and entries, as
// the exporter would write it (with content hashes).
nlohmann::json to_table_json(const vktune::runtime::Table& table);

std::string base64(std::span<const std::uint8_t> bytes);
std::vector<std::uint8_t> le_bytes(std::span<const std::uint32_t> words);
std::string content_hash(std::span<const std::uint8_t> bytes);

// Hand-written tables: a minimal valid SPIR-V header whose last word is
// `tag`, so tests can tell entries apart by their SPIR-V.
std::vector<std::uint32_t> fake_spirv(std::uint32_t tag);
// Recomputes the entry_hash of every winner of a version-2 table a test
// edited on purpose (docs/TABLE_FORMAT.md, "entry_hash").
void rehash(nlohmann::json& table);

nlohmann::json device_json(std::int64_t id, std::uint32_t vendor, std::uint32_t device, std::uint32_t driver,
                           const std::string& name, const std::string& uuid = "");
// Decode-style dispatch {{1, 2}, {0, 1}, {-1, 1}}, local size 64.
nlohmann::json winner_json(std::int64_t device, const std::string& kernel, const std::string& shape,
                           std::uint32_t tag, const std::string& cache_mode = "cold");
nlohmann::json table_json(nlohmann::json devices, nlohmann::json winners);

void write_file(const fs::path& path, std::string_view bytes);
std::string read_file(const fs::path& path);

}  // namespace rt_test
