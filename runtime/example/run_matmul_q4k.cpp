// vktune_runtime_example: what an application writes to run a tuned kernel (the
// Vulkan it already has is in app_vulkan.h). Looks matmul_q4k up, enables what
// the variant needs, runs it on buffers its contract sizes, checks the result.
//   vktune_runtime_example TABLE [--device N] [--shape M,N,K] [--seed S]
// Exit: 0 a match (relative L2 below 1e-4, or 4x the error the table records
// for a coarser variant), 1 a mismatch, 2 bad arguments, 3 any other error.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app_vulkan.h"
#include "reference/matmul.hpp"
#include "reference/random_blocks.hpp"
#include "vktune_runtime.hpp"
#include "vktune_runtime_vulkan.hpp"

namespace rt = vktune::runtime;

struct Options {
  std::string table;
  unsigned device = 0, seed = 1;
  rt::Shape shape{1, 37, 1024};
};

static Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0 && i + 1 == argc) throw std::invalid_argument(arg + " needs a value");
    if (arg == "--device" || arg == "--seed") {
      (arg == "--device" ? o.device : o.seed) = static_cast<unsigned>(std::stoul(argv[++i]));
    } else if (arg == "--shape") {
      unsigned m = 0, n = 0, k = 0;
      char end = 0;
      if (std::sscanf(argv[++i], "%u,%u,%u%c", &m, &n, &k, &end) != 3 || !m || !n || !k || k % 256 != 0)
        throw std::invalid_argument("--shape takes M,N,K: positive, K a multiple of 256");
      o.shape = {m, n, k};
    } else if (o.table.empty() && arg.rfind("-", 0) != 0) {
      o.table = arg;
    } else {
      throw std::invalid_argument("unknown argument " + arg);
    }
  }
  if (o.table.empty()) throw std::invalid_argument("no table given");
  return o;
}

static int run(const Options& options) {
  app_vulkan app;
  const std::unique_ptr<app_vulkan, void (*)(app_vulkan*)> closing(&app, app_close);
  if (app_open_instance(&app, options.device) != 0) throw std::runtime_error(app.error);

  // The lookup; no baseline of our own, so a table without a usable entry is an error.
  const auto table = rt::Table::open(options.table);
  const auto found = table.lookup({rt::identity_of(app.physical), "matmul_q4k", options.shape, "",
                                   rt::capabilities_of(app.physical)});
  std::printf("device %s; matmul_q4k %u,%u,%u\nrule: %s (%s)\n", app.properties.deviceName, options.shape[0],
              options.shape[1], options.shape[2], rt::to_string(found.match), found.match_text.c_str());
  std::printf("features:");
  for (const auto& name : rt::device_features(found.contract)) std::printf(" %s", name.c_str());
  std::printf("\n");
  vktune_vulkan_features enable;
  rt::require_features(app.physical, found.contract, enable);
  if (app_open_device(&app, &enable) != 0) throw std::runtime_error(app.error);

  const std::size_t m = options.shape[0], n = options.shape[1], k = options.shape[2];
  const auto type = vktune::ref::GgmlType::Q4_K;
  const auto weights = vktune::ref::random_quantized_rows(type, n, k, options.seed);
  const auto x = vktune::ref::random_floats(m * k, options.seed ^ 0x9e3779b97f4a7c15ull);

  // The variant's pipelines, and its buffers as the contract sizes them: x, W, y, then any scratch.
  rt::VulkanLaunch launch(app.device, found, options.shape);
  const auto& bytes = launch.binding_bytes();
  if (bytes.size() < 3 || bytes[1] < weights.size()) throw std::runtime_error("not matmul_q4k's bindings");
  std::vector<app_buffer> buffers(bytes.size());
  const auto destroy = [&app](std::vector<app_buffer>* all) { for (auto& b : *all) app_buffer_destroy(&app, &b); };
  const std::unique_ptr<std::vector<app_buffer>, decltype(destroy)> destroying(&buffers, destroy);
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    if (app_buffer_create(&app, bytes[b], &buffers[b]) != 0) throw std::runtime_error(app.error);
    std::memset(buffers[b].mapped, b == 2 ? 0xff : 0, bytes[b]);  // y poisoned with NaN; scratch zeroed once
    launch.bind(b, buffers[b].buffer);
  }
  std::memcpy(buffers[0].mapped, x.data(), x.size() * sizeof(float));
  std::memcpy(buffers[1].mapped, weights.data(), weights.size());

  VkCommandBuffer commands = VK_NULL_HANDLE;
  if (app_begin(&app, &commands) != 0) throw std::runtime_error(app.error);
  launch.record(commands);
  if (app_submit_and_wait(&app, commands) != 0) throw std::runtime_error(app.error);

  const auto expected = vktune::ref::matmul_quantized(x.data(), m, weights.data(), type, n, k);  // in double
  const auto* y = static_cast<const float*>(buffers[2].mapped);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < m * n; ++i) {
    diff += (y[i] - expected[i]) * (y[i] - expected[i]);
    norm += expected[i] * expected[i];
  }
  const double rel_l2 = std::sqrt(diff / std::max(norm, 1e-300));
  const double tolerance = std::max(1e-4, found.entry ? 4 * found.entry->rel_l2_error : 0.0);
  const bool ok = std::isfinite(rel_l2) && rel_l2 < tolerance;
  std::printf("relative L2 error %.3e (tolerance %.1e): %s\n", rel_l2, tolerance, ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}

int main(int argc, char** argv) {
  bool parsed = false;
  try {
    const auto options = parse(argc, argv);
    parsed = true;
    return run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vktune_runtime_example: %s\n", e.what());
    if (!parsed) std::fprintf(stderr, "usage: vktune_runtime_example TABLE [--device N] [--shape M,N,K] [--seed S]\n");
    return parsed ? 3 : 2;
  }
}
