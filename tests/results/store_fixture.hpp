#pragma once
// Shared helpers for the results tests: a temporary directory per test and
// small sample records.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "results/spirv_bytes.hpp"
#include "results/store.hpp"

namespace vktune::results::testing {

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            ("vktune-results-" + std::to_string(::getpid()) + "-" + std::to_string(stamp) + "-" +
             std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline constexpr const char* default_shape = "1,4096,4096";

inline DeviceIdentity sample_device(std::uint32_t driver_version = 0x5a0000) {
  DeviceIdentity d;
  d.vendor_id = 0x10de;
  d.device_id = 0x2331;
  d.driver_version = driver_version;
  d.name = "NVIDIA H100 PCIe";
  d.driver_name = "NVIDIA";
  d.driver_version_text = "550.54.15";
  d.device_uuid = "0123456789abcdef0123456789abcdef";
  d.api_version_text = "1.3.277";
  return d;
}

inline VariantRecord sample_variant(int index, const std::string& kernel = "matmul_q4k") {
  VariantRecord v;
  v.variant_hash = "variant" + std::to_string(index);
  v.kernel = kernel;
  v.template_name = "matvec_q4k.comp";
  v.config_json = R"({"rows_per_wg":)" + std::to_string(index) + R"(,"wg_size":64})";
  v.template_hash = "feedfacecafebeef";
  v.compiler_version = "shaderc 2023.2";
  return v;
}

inline Measurement sample_measurement(std::int64_t device, const std::string& variant, double median_ns,
                                      const std::string& shape = default_shape) {
  Measurement m;
  m.device_id = device;
  m.variant_hash = variant;
  m.shape = shape;
  m.cache_mode = "cold";
  m.median_ns = median_ns;
  m.min_ns = median_ns * 0.9;
  m.p10_ns = median_ns * 0.95;
  m.p90_ns = median_ns * 1.1;
  m.mad_ns = median_ns * 0.02;
  m.repetitions = 50;
  m.rel_l2_error = 1.5e-7;
  m.max_abs_error = 3e-6;
  m.gbps = 812.5;
  m.gflops = 95.25;
  m.durations = {31.5, 4.25, 7.125, 52.0, 8.5};  // compile, pipeline, validation, warm-up, timing
  return m;
}

// A winner of variant1 (store sample_variant(1) first).
// A contract for a test winner that says what its row says (one stage: its
// SPIR-V, local size, dispatch, subgroup size), as the tuner's would for a
// one-stage variant; the kernels of these tests are not real ones.
inline std::string row_contract(const Winner& w) {
  const auto dims = std::count(w.shape.begin(), w.shape.end(), ',') + 1;
  nlohmann::json names = nlohmann::json::array();
  for (long i = 0; i < dims; ++i) names.push_back("d" + std::to_string(i));
  auto parsed = [](const std::string& text) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? nlohmann::json(text) : j;
  };
  const nlohmann::json stage = {{"spirv_hash", spirv_content_hash(w.spirv)},
                                {"specialization", w.specialization_json.empty() ? nlohmann::json::object()
                                                                                 : parsed(w.specialization_json)},
                                {"local_size", {w.local_size[0], w.local_size[1], w.local_size[2]}},
                                {"dispatch", parsed(w.dispatch_json)},
                                {"required_subgroup_size", w.required_subgroup_size},
                                {"require_full_subgroups", false},
                                {"shared_memory_bytes", 0}};
  return nlohmann::json{{"space", "test"},
                        {"path", "test"},
                        {"shape_dims", names},
                        {"shape_class", nlohmann::json::array()},
                        {"specialized_dims", nlohmann::json::array()},
                        {"bindings", nlohmann::json::array()},
                        {"stages", nlohmann::json::array({stage})}}
      .dump();
}

inline Winner sample_winner(std::int64_t device, const std::string& shape) {
  Winner w;
  w.device_id = device;
  w.kernel = "matmul_q4k";
  w.shape = shape;
  w.cache_mode = "cold";
  w.variant_hash = "variant1";
  w.config_json = sample_variant(1).config_json;
  w.spirv = {0x07230203u, 0x00010300u, 42u, 7u};
  w.specialization_json = R"({"0":64,"1":2})";
  w.local_size[0] = 64;
  w.local_size[1] = 2;
  w.dispatch_json = R"json({"x":"ceil(N/2)","y":1,"z":1})json";
  w.required_subgroup_size = 32;
  w.median_ns = 21000;
  w.gbps = 1500.25;
  w.gflops = 1.5;
  w.rel_l2_error = 2e-7;
  w.baseline_variant_hash = "variant0";
  w.baseline_median_ns = 42000;
  w.contract_json = row_contract(w);
  return w;
}

// A test with a store in a fresh directory.
class StoreTest : public ::testing::Test {
 protected:
  std::filesystem::path db_path() const { return dir_.path() / "vktune.db"; }
  TempDir dir_;
};

}  // namespace vktune::results::testing
