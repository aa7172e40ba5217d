#pragma once
// Fresh random records for the export and import tests: every run stores
// different devices, variants, SPIR-V and timings (the seed is printed by
// SCOPED_TRACE in the tests that use it).
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "results/export.hpp"
#include "results/store.hpp"
#include "store_fixture.hpp"

namespace vktune::results::testing {

class RandomData {
 public:
  RandomData() : seed_(std::random_device{}()), rng_(seed_) {}
  unsigned seed() const { return seed_; }
  std::string trace() const { return "random seed " + std::to_string(seed_); }

  std::uint32_t u32(std::uint32_t lo, std::uint32_t hi) { return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng_); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

  // A valid module (so that `vktune import`'s validator and readers of its
  // instructions accept it): the header with a random generator and bound
  // (at most SPIRV-Tools' default limit), an empty compute shader of local
  // size 1,1,1 (spirv-as) whose one block holds a random number of OpNop.
  std::vector<std::uint32_t> spirv() {
    std::vector<std::uint32_t> words = {0x07230203u, 0x00010300u, u32(0, 0xffffffffu), u32(5, 0x3fffffu), 0u,
                                        // OpCapability Shader; OpMemoryModel Logical GLSL450
                                        0x00020011u, 0x00000001u, 0x0003000eu, 0x00000000u, 0x00000001u,
                                        // OpEntryPoint GLCompute %1 "main"; OpExecutionMode %1 LocalSize 1 1 1
                                        0x0005000fu, 0x00000005u, 0x00000001u, 0x6e69616du, 0x00000000u, 0x00060010u,
                                        0x00000001u, 0x00000011u, 0x00000001u, 0x00000001u, 0x00000001u,
                                        // %2 = OpTypeVoid; %3 = OpTypeFunction %2
                                        0x00020013u, 0x00000002u, 0x00030021u, 0x00000003u, 0x00000002u,
                                        // %1 = OpFunction %2 None %3; %4 = OpLabel
                                        0x00050036u, 0x00000002u, 0x00000001u, 0x00000000u, 0x00000003u, 0x000200f8u,
                                        0x00000004u};
    const auto n = u32(0, 60);
    for (std::uint32_t i = 0; i < n; ++i) words.push_back(0x00010000u);
    words.push_back(0x000100fdu);  // OpReturn
    words.push_back(0x00010038u);  // OpFunctionEnd
    return words;
  }

  // Distinct names per call; a name with a comma and a quote exercises quoting.
  DeviceIdentity device(std::uint32_t vendor_id, const std::string& name) {
    DeviceIdentity d;
    d.vendor_id = vendor_id;
    d.device_id = u32(1, 0xffff);
    d.driver_version = u32(1, 0x7fffffff);
    d.name = name;
    d.driver_name = "driver " + std::to_string(u32(0, 99));
    d.driver_version_text = std::to_string(u32(1, 600)) + "." + std::to_string(u32(0, 99));
    d.device_uuid = "";
    for (int i = 0; i < 4; ++i) {
      char part[9];
      std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(u32(0, 0xffffffffu)));
      d.device_uuid += part;
    }
    d.api_version_text = "1.3." + std::to_string(u32(0, 280));
    return d;
  }

  VariantRecord variant(const std::string& kernel) {
    VariantRecord v;
    v.variant_hash = hex();
    v.kernel = kernel;
    v.template_name = kernel + ".comp";
    v.config_json = R"({"rows_per_wg":)" + std::to_string(u32(1, 8)) + R"(,"wg_size":)" +
                    std::to_string(32u << u32(0, 3)) + "}";
    v.template_hash = hex();
    v.compiler_version = "shaderc " + std::to_string(u32(2020, 2024));
    return v;
  }

  Winner winner(std::int64_t device, const VariantRecord& v, const std::string& shape, const std::string& mode = "cold") {
    Winner w;
    w.device_id = device;
    w.kernel = v.kernel;
    w.shape = shape;
    w.cache_mode = mode;
    w.variant_hash = v.variant_hash;
    w.config_json = v.config_json;
    w.spirv = spirv();
    w.specialization_json = R"({"0":)" + std::to_string(u32(1, 512)) + R"(,"3":)" + std::to_string(u32(0, 1)) + "}";
    w.local_size[0] = 32u << u32(0, 3);
    w.local_size[1] = u32(1, 4);
    w.local_size[2] = 1;
    const auto dim = u32(0, 2);
    w.dispatch_json = R"([{"divisor":)" + std::to_string(u32(1, 64)) + R"(,"shape_dim":)" + std::to_string(dim) +
                      R"(},{"divisor":1,"shape_dim":0},{"divisor":1,"shape_dim":-1}])";
    w.required_subgroup_size = 32u * u32(0, 2);
    w.median_ns = real(1e3, 1e7);
    w.gbps = real(1, 3000);
    w.gflops = real(1, 500);
    w.rel_l2_error = real(1e-9, 1e-4);
    w.baseline_variant_hash = hex();
    w.baseline_median_ns = w.median_ns * real(1, 3);
    w.contract_json = row_contract(w);
    return w;
  }

  Measurement measurement(std::int64_t device, const std::string& variant, const std::string& shape) {
    Measurement m;
    m.device_id = device;
    m.variant_hash = variant;
    m.shape = shape;
    m.cache_mode = "cold";
    m.median_ns = real(1e3, 1e7);
    m.min_ns = m.median_ns * real(0.5, 1);
    m.p10_ns = m.median_ns * real(0.9, 1);
    m.p90_ns = m.median_ns * real(1, 1.2);
    m.mad_ns = m.median_ns * real(0, 0.1);
    m.repetitions = static_cast<int>(u32(1, 100));
    m.rel_l2_error = real(0, 1e-3);
    m.max_abs_error = real(0, 1e-2);
    m.gbps = real(1, 3000);
    m.gflops = real(1, 500);
    m.durations = {real(0, 500), real(0, 50), real(0, 100), real(0, 3000), real(0, 200)};
    // Half with pipeline statistics, as a driver that reports them gives.
    if (u32(0, 1)) {
      m.statistics_json = R"({"Register Count":)" + std::to_string(u32(16, 255)) + R"(,"Spilled, \"VGPRs\"":)" +
                          std::to_string(u32(0, 8)) + "}";
    }
    return m;
  }

  std::string hex() {
    char text[17];
    std::snprintf(text, sizeof text, "%08x%08x", static_cast<unsigned>(u32(0, 0xffffffffu)),
                  static_cast<unsigned>(u32(0, 0xffffffffu)));
    return text;
  }

 private:
  unsigned seed_;
  std::mt19937 rng_;
};

// Two devices, two kernels, shapes whose text order differs from their
// numeric order, stored in an order unlike the table's. Returns the winners.
// Recomputes every winner's entry_hash after a test edited the table on
// purpose (as a table from another machine would differ).
inline void rehash(nlohmann::json& table) {
  for (auto& w : table["winners"]) {
    for (const auto& d : table["devices"]) {
      if (d["id"] == w["device"]) w["entry_hash"] = table_entry_hash(d, w);
    }
  }
}

inline std::vector<Winner> fill_store(Store& store, RandomData& random) {
  // Device "B" first, so row ids run against the identity order.
  const auto b = store.upsert_device(random.device(0x10de, "NVIDIA \"B\", rev 2"));
  const auto a = store.upsert_device(random.device(0x1002, "AMD A"));
  store.put_ceiling(a, "read_bandwidth", random.real(100, 3000), "GB/s");
  store.put_ceiling(b, "fp32_fma", random.real(100, 60000), "GFLOP/s");
  std::vector<Winner> winners;
  for (const char* kernel : {"matmul_q4k_big", "matmul_q4k"}) {
    for (const auto device : {b, a}) {
      for (const char* shape : {"16,4096,4096", "1,4096,4096", "2,4096,4096"}) {
        const auto v = random.variant(kernel);
        store.upsert_variant(v);
        store.record_measurement(random.measurement(device, v.variant_hash, shape));
        auto w = random.winner(device, v, shape);
        store.set_winner(w);
        winners.push_back(std::move(w));
      }
    }
  }
  return winners;
}

}  // namespace vktune::results::testing
