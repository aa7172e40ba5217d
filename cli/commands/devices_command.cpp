// `vktune devices`: what Vulkan devices this machine has and what they can do.
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "common/error.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"
#include "engine/ceilings.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "cli/device_lock.hpp"
#include "tuner/session.hpp"
#include "cli/device_json.hpp"
#include "common/json_formats.hpp"

namespace vktune::cli {

namespace {

std::string feature_list(const vk::DeviceInfo& info) {
  const auto& f = info.features;
  std::string text;
  auto add = [&](bool on, const std::string& name) {
    if (!on) return;
    if (!text.empty()) text += ' ';
    text += name;
  };
  add(f.storage_buffer_16bit, "storage16");
  add(f.storage_buffer_8bit, "storage8");
  add(f.shader_float16, "fp16");
  add(f.shader_int8, "int8");
  add(f.integer_dot_product, "int-dot");
  add(f.subgroup_size_control, "subgroup-size-control");
  add(f.compute_full_subgroups, "full-subgroups");
  add(f.pipeline_executable_info, "pipeline-statistics");
  auto shapes = [](const std::vector<vk::CooperativeMatrixShape>& list) {
    std::string text;
    for (const auto& s : list) {
      if (!text.empty()) text += ',';
      text += s.a_type + ":" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "->" + s.d_type;
    }
    return text;
  };
  add(f.cooperative_matrix_nv, "coopmat-nv[" + shapes(info.cooperative_matrix_shapes) + "]");
  add(f.cooperative_matrix_khr, "coopmat-khr[" + shapes(info.khr_cooperative_matrix_shapes) + "]");
  return text.empty() ? "-" : text;
}

void print_table(const std::vector<vk::DeviceInfo>& devices) {
  for (const auto& d : devices) {
    std::ostringstream row;
    row << "[" << d.index << "] " << d.name << "\n"
        << "    type " << d.device_type << ", vendor " << d.vendor << " (0x" << std::hex << d.vendor_id << ", device 0x"
        << d.device_id << std::dec << ")\n"
        << "    driver " << d.driver_name << " " << d.driver_version << " (" << d.driver_info << "), Vulkan "
        << d.api_version << "\n"
        << "    subgroup " << d.subgroup_size << " (range " << d.min_subgroup_size << ".." << d.max_subgroup_size
        << (d.compute_required_subgroup_size ? ", selectable" : ", fixed") << "), shared memory "
        << d.max_shared_memory_bytes / 1024 << " KiB, max workgroup " << d.max_workgroup_invocations
        << ", device memory " << d.device_local_bytes() / (1024 * 1024) << " MiB\n"
        << "    timestamps " << d.timestamp_valid_bits << " bits @ " << d.timestamp_period_ns << " ns/tick\n"
        << "    features " << feature_list(d) << "\n"
        << "    tensor cores "
        << (d.cooperative_matrix == vk::CooperativeMatrixExtension::nv    ? "through VK_NV_cooperative_matrix"
            : d.cooperative_matrix == vk::CooperativeMatrixExtension::khr ? "through VK_KHR_cooperative_matrix (NV-to-KHR pass)"
                                                                          : "none")
        << "\n";
    std::cout << row.str();
  }
}

// `vktune devices --remeasure`: measures the device's ceilings again and
// replaces the stored ones (which a run skewed by other work on the GPU may
// have left too low), under the device lock so that no tuner skews them now.
void remeasure(vk::Instance& instance, std::uint32_t index, const std::string& db) {
  vk::Device device(instance, index);
  DeviceLock lock(device_lock_key(device.info()), device.info().name, std::cerr, [] { return false; });
  auto store = open_store(db);
  const auto row = store.upsert_device(identity_of(device.info()));
  const auto templates = TemplateLibrary::select(std::nullopt);
  const auto ceilings = measure_ceilings(device, templates);
  store_ceilings(store, row, ceilings);
  std::cout << device.info().name << ": " << ceilings.read_gbps << " GB/s read, " << ceilings.fp32_gflops
            << " GFLOP/s fp32, " << ceilings.tensor_gflops << " GFLOP/s fp16 tensor cores ("
            << ceilings.tensor_shared_gflops << " with matrices from shared memory; 0 = none), "
            << ceilings.dispatch_floor_ns / 1e3 << " us per dependent dispatch; stored in "
            << store.path().string() << "\n";
}

}  // namespace

void add_devices_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand("devices", "List Vulkan devices with their limits and features");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Lists the Vulkan devices with driver, subgroup range, shared memory,
timestamps and features (fp16, int8, subgroup size control, NV and KHR
cooperative matrix shapes), and which cooperative-matrix extension the
tensor-core paths use: KHR where the driver offers it (its modules written
by vktune's NV-to-KHR SPIR-V pass from the same templates; on the H200 they
ran as fast as the NV ones or faster), else NV; --coopmat nv|khr forces one.

--remeasure measures the device's ceilings again (under the device lock) and
replaces the stored ones: streaming-read bandwidth, fp32 FMA rate, the
dependent-dispatch floor and, on a device with cooperative matrices, the two
fp16 tensor-core rates. It replaces ceilings stored by a run that another tune
of the same device skewed. Unlike a tune, it reads the ceiling kernels from
$VKTUNE_TEMPLATES when set, for experiments on the measurement kernels
themselves.

See docs/TIMING_AND_NUMERICS.md, "Ceilings".
)vkt");
  auto json = std::make_shared<bool>(false);
  auto validation = std::make_shared<bool>(false);
  auto again = std::make_shared<bool>(false);
  auto device = std::make_shared<std::uint32_t>(0);
  auto db = std::make_shared<std::string>();
  cmd->add_flag("--json", *json, "Print the full device information as JSON");
  cmd->add_flag("--validation", *validation, "Enable Vulkan validation layers if installed");
  cmd->add_flag("--remeasure", *again, "Measure the ceilings of --device again and replace the stored ones");
  add_coopmat_option(*cmd);
  cmd->add_option("--device,-d", *device, "With --remeasure: the Vulkan device index")
      ->capture_default_str()
      ->transform(count_validator(std::numeric_limits<std::uint32_t>::max()));
  cmd->add_option("--db", *db, "With --remeasure: the SQLite database (default as for tuning)")
      ->check(database_validator());
  cmd->callback([json, validation, again, device, db, &result_code] {
    vk::Instance instance({.validation = *validation});
    if (*again) {
      remeasure(instance, *device, *db);
      result_code = exit_code::ok;
      return;
    }
    auto devices = vk::list_devices(instance);
    if (*json) {
      auto out = json_document(kDevicesJson);
      out["devices"] = nlohmann::json::array();
      for (const auto& d : devices) out["devices"].push_back(to_json(d));
      std::cout << out.dump(2) << "\n";
    } else if (devices.empty()) {
      std::cout << "no Vulkan devices found\n";
    } else {
      print_table(devices);
    }
    result_code = devices.empty() ? exit_code::no_device : exit_code::ok;
  });
}

}  // namespace vktune::cli
