// The installed C++ API: open the table named on the command line, look up
// matmul_q4k as the H200 it was tuned on (its identity through the Vulkan
// glue header), check the answer and that errors arrive as runtime::Error.
// Exit 0 when every check passes, else 1 with the failed check on stderr.
#include <vktune/vktune_runtime.hpp>
#include <vktune/vktune_runtime_vulkan.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      std::fprintf(stderr, "consumer.cpp:%d: %s failed\n", __LINE__, #cond); \
      return 1;                                                         \
    }                                                                   \
  } while (0)

namespace rt = vktune::runtime;

int main(int argc, char** argv) {
  CHECK(argc == 2);
  VkPhysicalDeviceProperties properties{};
  properties.vendorID = 0x10de;
  properties.deviceID = 0x2335;
  properties.driverVersion = 2435301632u;
  std::strcpy(properties.deviceName, "NVIDIA H200");

  const auto table = rt::Table::open(argv[1]);
  CHECK(table.entries().size() == 2);
  const auto found = table.lookup(rt::Query{rt::identity_of(properties), "matmul_q4k", {1, 4096, 4096}, ""});
  CHECK(found.match == rt::Match::device_and_driver && found.exact_shape);
  CHECK(found.contract.stages[0].spirv.size() > 5 && found.contract.stages[0].spirv[0] == 0x07230203u);
  CHECK(found.contract.stages[0].local_size[0] == 64);
  CHECK(found.workgroups[0][0] == 2048 && found.workgroups[0][1] == 1 && found.workgroups[0][2] == 1);
  // The features to enable: the SPIR-V's, and subgroupSizeControl exactly when a stage requires a size.
  const auto features = rt::device_features(found.contract);
  const bool sized = found.contract.stages[0].required_subgroup_size != 0;
  CHECK(sized == (std::find(features.begin(), features.end(), "subgroupSizeControl") != features.end()));
  std::printf("ok: %s\n", found.match_text.c_str());

  try {
    rt::Table::open("/nonexistent/table.json");
    CHECK(!"opening a missing table threw nothing");
  } catch (const rt::Error& e) {
    CHECK(e.kind() == rt::Error::Kind::io);
  }
  return 0;
}
