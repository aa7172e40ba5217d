// One lookup everywhere: the runtime library (which `vktune bench` uses to
// find the winners it times) and the exported C++ header's find() choose the
// same entry for the same query, at every fallback level — the same GPU and
// driver, the same GPU with another driver, another physical GPU of the same
// model, the same architecture, the same vendor, none — for shapes inside
// and outside the entries' shape classes and specialised dimensions, and for
// devices that lack a feature an entry needs. The header is compiled and run
// for real; its answers are compared with the runtime's on the JSON table
// exported from the same store.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "results/export_header.hpp"
#include "store_fixture.hpp"
#include "vktune_runtime.hpp"

#ifndef VKTUNE_CXX_COMPILER
#error "VKTUNE_CXX_COMPILER must name the C++ compiler"
#endif

namespace vktune::results::testing {
namespace {

using LookupAgreement = StoreTest;
namespace rt = vktune::runtime;

constexpr std::uint32_t kNvidia = 0x10de, kAmd = 0x1002;
constexpr std::uint32_t kOpCapability = (2u << 16) | 17u, kCooperativeMatrixNV = 5357u;
// SPV_KHR_cooperative_matrix's capability, from the registry (typed here
// apart from the runtime's declaration, which this test checks).
constexpr std::uint32_t kCooperativeMatrixKHR = 6022u;

DeviceIdentity gpu(std::uint32_t vendor, std::uint32_t device, std::uint32_t driver, const std::string& name,
                   const std::string& uuid) {
  DeviceIdentity d;
  d.vendor_id = vendor;
  d.device_id = device;
  d.driver_version = driver;
  d.name = name;
  d.device_uuid = uuid;
  return d;
}

// A winner of matmul_q4k with a contract: shape class by M, optionally a
// dimension specialised, optionally needing cooperative matrices.
Winner entry(std::int64_t device, const std::string& shape, std::uint32_t tag, bool decode, bool coopmat = false,
             bool specialize_k = false, std::uint32_t another_capability = 0) {
  Winner w;
  w.device_id = device;
  w.kernel = "matmul_q4k";
  w.shape = shape;
  w.cache_mode = tag % 5 == 4 ? "hot" : "cold";
  w.variant_hash = "v" + std::to_string(tag);
  w.config_json = R"({"TAG":)" + std::to_string(tag) + "}";
  w.spirv = {0x07230203u, 0x00010300u, 0u, tag + 1, 0u, kOpCapability, 1u};
  if (coopmat) w.spirv.insert(w.spirv.end(), {kOpCapability, kCooperativeMatrixNV});
  if (another_capability != 0) w.spirv.insert(w.spirv.end(), {kOpCapability, another_capability});
  w.local_size[0] = 64;
  w.dispatch_json = R"([{"divisor":4,"shape_dim":1},{"divisor":1,"shape_dim":0},{"divisor":1,"shape_dim":-1}])";
  w.median_ns = 1000 + tag;
  auto contract = nlohmann::json::parse(row_contract(w));
  contract["shape_class"] = decode ? nlohmann::json::parse(R"([{"dim":0,"min":1,"max":8}])")
                                   : nlohmann::json::parse(R"([{"dim":0,"min":9,"max":4294967295}])");
  if (specialize_k) contract["specialized_dims"] = {2};
  w.contract_json = contract.dump();
  return w;
}

// Stores each winner with its variant, and exports the store as a table.
rt::Table table_of(Store& store, const std::vector<Winner>& winners) {
  for (const auto& w : winners) {
    store.upsert_variant(VariantRecord{w.variant_hash, w.kernel, "matmul_q4k.comp", w.config_json, "", ""});
    store.set_winner(w);
  }
  return rt::Table::from_json_text(export_table(store).dump(), "table.json");
}

// The exported header of `store` compiled (C++17, warnings as errors) into a
// program whose main() runs `body`, and the lines it prints; empty, with a
// failure recorded, where it does not compile or run.
std::vector<std::string> run_with_header(Store& store, const TempDir& dir, const std::string& body) {
  {
    std::ofstream header(dir.path() / "table.hpp");
    header << export_header(store, {}, {}, [](const std::vector<std::uint32_t>& spirv) {
      return rt::required_features(spirv);
    });
  }
  std::ofstream(dir.path() / "main.cpp") << "#include \"table.hpp\"\n#include <cstdio>\nint main() {\n" << body
                                         << "  return 0;\n}\n";
  const auto binary = dir.path() / "program";
  const std::string compile = std::string("\"") + VKTUNE_CXX_COMPILER + "\" -std=c++17 -O0 -Wall -Wextra -Werror -o \"" +
                              binary.string() + "\" \"" + (dir.path() / "main.cpp").string() + "\" > \"" +
                              (dir.path() / "compile.log").string() + "\" 2>&1";
  if (std::system(compile.c_str()) != 0) {
    ADD_FAILURE() << "the header does not compile: " << std::ifstream(dir.path() / "compile.log").rdbuf();
    return {};
  }
  if (std::system(("\"" + binary.string() + "\" > \"" + (dir.path() / "out.txt").string() + "\"").c_str()) != 0) {
    ADD_FAILURE() << "the program with the header failed";
    return {};
  }
  std::ifstream out(dir.path() / "out.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  return lines;
}

// A query of matmul_q4k at `shape` from `gpu_identity`, its capabilities
// known (1024 invocations, `shared_bytes` of shared memory), no features yet.
rt::Query query_from(const DeviceIdentity& gpu_identity, const std::vector<std::uint32_t>& shape,
                     std::uint32_t shared_bytes) {
  rt::Query query;
  query.device = {gpu_identity.vendor_id, gpu_identity.device_id, gpu_identity.driver_version, gpu_identity.name,
                  gpu_identity.device_uuid};
  query.kernel = "matmul_q4k";
  query.shape = shape;
  query.capabilities.known = true;
  query.capabilities.max_invocations = 1024;
  query.capabilities.max_shared_memory_bytes = shared_bytes;
  return query;
}

struct Query {
  std::string label;
  DeviceIdentity device;
  std::vector<std::uint32_t> shape;
  std::string cache_mode;
  bool has_coopmat;
};

TEST_F(LookupAgreement, RuntimeAndHeaderChooseTheSameEntryAtEveryLevel) {
  auto store = Store::open(db_path());
  const auto h200_a = gpu(kNvidia, 0x2335, 100, "NVIDIA H200", "aaaa");
  const auto h200_b = gpu(kNvidia, 0x2335, 90, "NVIDIA H200", "bbbb");
  const auto h100 = gpu(kNvidia, 0x2330, 100, "NVIDIA H100 80GB HBM3", "cccc");
  const auto rtx = gpu(kNvidia, 0x2684, 100, "NVIDIA GeForce RTX 4090", "dddd");
  const auto amd = gpu(kAmd, 0x744c, 100, "AMD Radeon RX 7900 XTX", "eeee");
  // A third H200 of h200_a's driver, whose winner at 1,4096,4096 was
  // measured after h200_a's: another H200 is served it (the newest of equal
  // candidates), h200_a its own.
  const auto h200_c = gpu(kNvidia, 0x2335, 100, "NVIDIA H200", "cccc2");
  const auto a = store.upsert_device(h200_a), b = store.upsert_device(h200_b), c = store.upsert_device(h100);
  const auto d = store.upsert_device(rtx), e = store.upsert_device(amd), f = store.upsert_device(h200_c);
  auto older = entry(a, "1,4096,4096", 1, true), newer = entry(f, "1,4096,4096", 11, true);
  older.updated_at = "2026-11-01T00:00:00.000Z";
  newer.updated_at = "2026-12-01T00:00:00.000Z";
  for (const auto& w : {older, newer, entry(a, "512,4096,4096", 2, false, true),
                        entry(a, "512,4096,14336", 3, false), entry(b, "1,4096,4096", 4, true),
                        entry(b, "2,14336,4096", 5, true, false, true), entry(b, "512,4096,4096", 6, false),
                        entry(c, "1,4096,11008", 7, true), entry(c, "64,4096,4096", 8, false),
                        entry(d, "4,4096,4096", 9, true), entry(e, "1,4096,4096", 10, true)}) {
    store.upsert_variant(VariantRecord{w.variant_hash, w.kernel, "matmul_q4k.comp", w.config_json, "", ""});
    store.set_winner(w);
  }
  const std::vector<DeviceIdentity> devices = {
      h200_a,
      gpu(kNvidia, 0x2335, 101, "NVIDIA H200", "aaaa"),   // same GPU, other driver
      gpu(kNvidia, 0x2335, 100, "NVIDIA H200", "ffff"),   // a third H200
      gpu(kNvidia, 0x2335, 100, "NVIDIA H200", ""),       // UUID unknown
      gpu(kNvidia, 0x2330, 7, "NVIDIA H100 80GB HBM3", "gggg"),
      gpu(kNvidia, 0x2331, 7, "NVIDIA H100 PCIe", "hhhh"),  // architecture
      gpu(kNvidia, 0x0000, 7, "NVIDIA Tesla T4", "iiii"),    // vendor
      gpu(kAmd, 0x73bf, 7, "AMD Radeon RX 6900 XT", "jjjj"),
      gpu(0x8086, 0x56a0, 7, "Intel(R) Arc(tm) A770 Graphics", "kkkk"),  // nothing
  };
  const std::vector<std::vector<std::uint32_t>> shapes = {{1, 4096, 4096},   {2, 14336, 4096}, {2, 14336, 11008},
                                                          {8, 4096, 11008},  {9, 4096, 4096},  {512, 4096, 4096},
                                                          {300, 4096, 14336}, {1, 4096}};
  std::vector<Query> queries;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    for (const auto& s : shapes) {
      for (const bool coopmat : {true, false}) {
        queries.push_back({"device " + std::to_string(i), devices[i], s, coopmat ? "" : "hot", coopmat});
      }
    }
  }

  // The runtime's answers, on the exported JSON table.
  const auto json = export_table(store);
  const auto table = rt::Table::from_json_text(json.dump(), "agreement.json");
  std::vector<std::string> expected;
  std::set<std::string> levels;
  for (const auto& q : queries) {
    rt::Query query;
    query.device = {q.device.vendor_id, q.device.device_id, q.device.driver_version, q.device.name, q.device.device_uuid};
    query.kernel = "matmul_q4k";
    query.shape = q.shape;
    query.cache_mode = q.cache_mode;
    query.capabilities.known = true;
    query.capabilities.max_invocations = 1024;
    query.capabilities.max_shared_memory_bytes = 48 * 1024;
    if (q.has_coopmat) query.capabilities.features = {"cooperativeMatrixNV"};
    try {
      const auto found = table.lookup(query);
      expected.push_back(found.entry->variant_hash);
      levels.insert(rt::to_string(found.match));
    } catch (const rt::Error& error) {
      ASSERT_EQ(error.kind(), rt::Error::Kind::no_match) << error.what();
      expected.push_back("none");
    }
  }
  // The newest of two equal candidates of the model level (queries 2 and
  // 3: the third H200, shape 1,4096,4096, with and without cooperative
  // matrices); the same GPU's own (query 0).
  ASSERT_EQ(queries[2 * 2 * shapes.size()].shape, shapes[0]);
  EXPECT_EQ(expected[2 * 2 * shapes.size()], "v11");
  EXPECT_EQ(expected[2 * 2 * shapes.size() + 1], "v11");
  EXPECT_EQ(expected[0], "v1");
  // Every level is exercised, and nothing as well.
  EXPECT_EQ(levels, (std::set<std::string>{"device_and_driver", "device", "model", "architecture", "vendor"}));
  EXPECT_NE(std::find(expected.begin(), expected.end(), "none"), expected.end());

  // The header's answers, from a program compiled with it.
  const TempDir dir;
  std::ostringstream program;
  program << "  const std::string_view coopmat[] = {\"cooperativeMatrixNV\"};\n"
             "  vktune_table::rules::Capabilities with, without;\n"
             "  with.known = without.known = true;\n"
             "  with.max_invocations = without.max_invocations = 1024;\n"
             "  with.max_shared_memory_bytes = without.max_shared_memory_bytes = 48 * 1024;\n"
             "  with.features = coopmat;\n  with.feature_count = 1;\n";
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const auto& q = queries[i];
    program << "  {\n    const std::uint32_t shape[] = {";
    for (std::size_t k = 0; k < q.shape.size(); ++k) program << (k ? ", " : "") << q.shape[k] << "u";
    program << "};\n    const vktune_table::Device device{" << q.device.vendor_id << "u, " << q.device.device_id << "u, "
            << q.device.driver_version << "u, " << nlohmann::json(q.device.name).dump() << ", \""
            << q.device.device_uuid << "\"};\n    const auto found = vktune_table::find(device, \"matmul_q4k\", shape, "
            << q.shape.size() << ", \"" << q.cache_mode << "\", " << (q.has_coopmat ? "with" : "without")
            << ");\n    std::printf(\"%s\\n\", found.entry ? std::string(found.entry->variant_hash).c_str() : \"none\");\n  }\n";
  }
  const auto got = run_with_header(store, dir, program.str());
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < queries.size(); ++i) {
    std::string shape;
    for (auto v : queries[i].shape) shape += std::to_string(v) + ",";
    EXPECT_EQ(got[i], expected[i]) << queries[i].label << " shape " << shape << " mode '" << queries[i].cache_mode
                                   << "' coopmat " << queries[i].has_coopmat;
  }
}

// A variant whose SPIR-V uses subgroup shuffles (GroupNonUniformShuffle, 65,
// declared by 47 of the 80 modules in the committed H200 table) is served
// only to a device whose compute stage supports them: the runtime reads the
// need from the module, skips the entry for a device without, and says why.
TEST_F(LookupAgreement, AVariantNeedingSubgroupShufflesIsSkippedOnADeviceWithout) {
  constexpr std::uint32_t kGroupNonUniformShuffle = 65u;
  auto store = Store::open(db_path());
  const auto h200 = gpu(kNvidia, 0x2335, 100, "NVIDIA H200", "aaaa");
  const auto device = store.upsert_device(h200);
  const auto table = table_of(store, {entry(device, "1,4096,4096", 1, true, false, false, kGroupNonUniformShuffle),
                                      entry(device, "2,4096,4096", 2, true)});  // the exact shape, one further away
  auto query = query_from(h200, {1, 4096, 4096}, 48 * 1024);
  query.capabilities.features = {"subgroup_basic", "subgroup_shuffle"};
  const auto with = table.lookup(query);
  EXPECT_EQ(with.entry->variant_hash, "v1");
  EXPECT_NE(std::find(with.contract.features.begin(), with.contract.features.end(), "subgroup_shuffle"),
            with.contract.features.end());

  query.capabilities.features = {"subgroup_basic"};
  const auto without = table.lookup(query);
  EXPECT_EQ(without.entry->variant_hash, "v2");
  std::string explain;
  for (const auto& line : without.explain) explain += line + "\n";
  EXPECT_NE(explain.find("it needs the subgroup operation shuffle in compute shaders"), std::string::npos) << explain;
}

// A table exported with a variant compiled for VK_KHR_cooperative_matrix
// (its module declares CooperativeMatrixKHR, 6022): served to a device
// description that offers only that extension's feature, and to one that
// offers neither or only NV's refused with the reason, the next entry taken.
TEST_F(LookupAgreement, AKhrCooperativeMatrixVariantIsServedOnlyWhereKhrIsOffered) {
  auto store = Store::open(db_path());
  const auto amd = gpu(kAmd, 0x744c, 100, "AMD Radeon RX 7900 XTX", "eeee");
  const auto device = store.upsert_device(amd);
  const auto table = table_of(store, {entry(device, "512,4096,4096", 1, false, false, false, kCooperativeMatrixKHR),
                                      entry(device, "256,4096,4096", 2, false)});  // the exact shape, one further away
  auto query = query_from(amd, {512, 4096, 4096}, 64 * 1024);
  query.capabilities.features = {"cooperativeMatrixKHR"};
  const auto with = table.lookup(query);
  EXPECT_EQ(with.entry->variant_hash, "v1");
  EXPECT_EQ(with.contract.features, std::vector<std::string>{"cooperativeMatrixKHR"});

  for (const auto& offered : {std::vector<std::string>{}, std::vector<std::string>{"cooperativeMatrixNV"}}) {
    query.capabilities.features = offered;
    const auto without = table.lookup(query);
    EXPECT_EQ(without.entry->variant_hash, "v2");
    std::string explain;
    for (const auto& line : without.explain) explain += line + "\n";
    EXPECT_NE(explain.find("it needs the device feature cooperativeMatrixKHR"), std::string::npos) << explain;
  }
}

}  // namespace
}  // namespace vktune::results::testing

namespace vktune::results::testing {
namespace {

// The push-constant words of a contract with a layout of its own, for shapes
// nobody tuned: the runtime's and the compiled header's, bit for bit, for
// polynomial words and for words carried as expressions (a float, a
// negative int, a clamp); in the same header (one compile), a uniform
// block's bytes (issue 44: members as data and as expressions) byte for
// byte, and which binding takes its buffer from which (alias_of).
TEST_F(LookupAgreement, PushWordsUniformBlocksAndAliasesAgreeBetweenRuntimeAndHeader) {
  auto store = Store::open(db_path());
  const auto id = store.upsert_device(gpu(kNvidia, 0x2335, 100, "NVIDIA H200", "aa"));
  auto w = entry(id, "1,4096,4096", 1, true);
  auto contract = nlohmann::json::parse(w.contract_json);
  contract["shape_dims"] = {"M", "N", "K"};
  contract["push_constants"] = nlohmann::json::parse(R"json([
    {"name": "n", "value": {"terms": [{"coefficient": 1, "dims": [1]}], "divisor": 1}},
    {"name": "quads", "value": {"terms": [{"coefficient": 1, "dims": [1, 2]}], "divisor": 4}},
    {"name": "scale", "expression": "1 / sqrt(K)", "type": "f32"},
    {"name": "back", "expression": "1 - M * 3", "type": "i32"},
    {"name": "capped", "expression": "min(N, 64) + mod(K, 7)"}])json");
  contract["bindings"] = nlohmann::json::parse(R"json([
    {"name": "x", "role": "input", "size": {"terms": [{"coefficient": 4, "dims": [0, 2]}], "divisor": 1, "align": 4}},
    {"name": "y", "role": "output", "size": {"terms": [{"coefficient": 4, "dims": [0, 1]}], "divisor": 1, "align": 4}},
    {"name": "x_vec4", "role": "input", "size": {"terms": [{"coefficient": 4, "dims": [0, 2]}], "divisor": 1, "align": 4},
     "alias_of": 0},
    {"name": "meta", "role": "uniform", "size": {"terms": [{"coefficient": 32, "dims": []}], "divisor": 1, "align": 4},
     "members": [
       {"name": "sizes[0]", "value": {"terms": [{"coefficient": 1, "dims": [1]}], "divisor": 1}, "offset": 0},
       {"name": "sizes[1]", "value": {"terms": [{"coefficient": 1, "dims": [1, 2]}], "divisor": 4}, "offset": 4},
       {"name": "scale", "expression": "1 / sqrt(K)", "type": "f32", "offset": 16},
       {"name": "back", "expression": "1 - M * 3", "type": "i32", "offset": 24}]}])json");
  w.contract_json = contract.dump();
  const auto table = table_of(store, {w});
  const std::vector<std::vector<std::uint32_t>> shapes = {{1, 4096, 4096}, {3, 100, 77}, {8, 14336, 1000}};
  std::vector<std::string> expected;
  for (const auto& shape : shapes) {
    const auto words = rt::push_constant_words(table.entries().at(0).contract, shape);
    std::string line;
    for (const auto word : words) line += std::to_string(word) + " ";
    expected.push_back(line);
  }
  // The values worked out here for the second shape: what both must give.
  const float scale = static_cast<float>(1.0 / std::sqrt(77.0));
  std::uint32_t scale_bits = 0;
  std::memcpy(&scale_bits, &scale, sizeof scale_bits);
  EXPECT_EQ(expected[1], "100 1925 " + std::to_string(scale_bits) + " " + std::to_string(static_cast<std::uint32_t>(-8)) +
                             " " + std::to_string(64 + 0) + " ");
  // The blocks (their second shape's worked out here: 100, ceil(7700 / 4),
  // 0, 0, 1 / sqrt(77) as f32, 0, -8, 0), then each binding's alias_of.
  const auto& runtime_contract = table.entries().at(0).contract;
  EXPECT_EQ(runtime_contract.bindings.at(2).alias_of, 0);
  for (const auto& shape : shapes) {
    std::string line;
    for (const auto byte : rt::uniform_block(runtime_contract, 3, shape)) line += std::to_string(byte) + " ";
    expected.push_back(line);
  }
  const std::uint32_t block_words[8] = {100, 1925, 0, 0, scale_bits, 0, static_cast<std::uint32_t>(-8), 0};
  std::string block;
  for (const auto word : block_words)
    for (int i = 0; i < 4; ++i) block += std::to_string((word >> (8 * i)) & 0xffu) + " ";
  EXPECT_EQ(expected[4], block);
  std::string aliases;
  for (const auto& b : runtime_contract.bindings) aliases += std::to_string(b.alias_of) + " ";
  expected.push_back(aliases);

  const TempDir dir;
  std::ostringstream program;
  program << "  const auto& entry = vktune_table::entries[0];\n  std::uint32_t words[32];\n";
  for (const auto& shape : shapes) {
    program << "  {\n    const std::uint32_t shape[] = {" << shape[0] << "u, " << shape[1] << "u, " << shape[2]
            << "u};\n    const std::size_t count = vktune_table::push_constant_words(entry, shape, words);\n"
               "    for (std::size_t i = 0; i < count; ++i) std::printf(\"%u \", words[i]);\n"
               "    std::printf(\"\\n\");\n  }\n";
  }
  program << "  std::uint8_t block[64];\n";
  for (const auto& shape : shapes) {
    program << "  {\n    const std::uint32_t shape[] = {" << shape[0] << "u, " << shape[1] << "u, " << shape[2]
            << "u};\n    if (!vktune_table::uniform_block(entry, 3, shape, block)) return 1;\n"
               "    for (std::uint64_t i = 0; i < vktune_table::binding_bytes(entry.bindings[3], shape); ++i) "
               "std::printf(\"%u \", block[i]);\n"
               "    std::printf(\"\\n\");\n  }\n";
  }
  program << "  for (std::size_t b = 0; b < entry.binding_count; ++b) std::printf(\"%d \", entry.bindings[b].alias_of);\n"
             "  std::printf(\"\\n\");\n";
  const auto got = run_with_header(store, dir, program.str());
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace vktune::results::testing
