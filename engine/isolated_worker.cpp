#include "engine/isolated_worker.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "engine/elapsed.hpp"
#include "engine/evaluator.hpp"
#include "engine/worker_protocol.hpp"
#include "harness/compiler.hpp"
#include "harness/device.hpp"
#include "harness/instance.hpp"

namespace vktune::worker {

namespace {

// VKTUNE_TEST_WORKER_CRASH, _HANG, _MEMORY = "compile:TEXT" or
// "pipeline:TEXT": in that phase of a job whose defines contain TEXT, the
// worker raises SIGSEGV, sleeps for ever, or allocates memory without end:
// what a broken compiler or driver does, on demand, for the tests.
void test_hook(const char* phase, const CompiledVariant& variant) {
  for (const char* name : {"VKTUNE_TEST_WORKER_CRASH", "VKTUNE_TEST_WORKER_HANG", "VKTUNE_TEST_WORKER_MEMORY"}) {
    const char* value = std::getenv(name);
    if (!value) continue;
    const std::string spec = value;
    const auto colon = spec.find(':');
    if (colon == std::string::npos || spec.substr(0, colon) != phase) continue;
    const auto text = spec.substr(colon + 1);
    bool match = false;
    for (const auto& stage : variant.stages) match = match || vk::describe_defines(stage.plan.defines).find(text) != std::string::npos;
    if (!match) continue;
    if (std::strcmp(name, "VKTUNE_TEST_WORKER_CRASH") == 0) std::raise(SIGSEGV);
    if (std::strcmp(name, "VKTUNE_TEST_WORKER_HANG") == 0) {
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    std::vector<std::unique_ptr<char[]>> hoard;
    for (;;) {
      hoard.emplace_back(new char[std::size_t{64} << 20]);
      std::memset(hoard.back().get(), 1, std::size_t{64} << 20);
    }
  }
}

void compile(Job& job) {
  vk::MapIncludes includes(job.includes);
  for (std::size_t i = 0; i < job.variant.stages.size(); ++i) {
    auto& stage = job.variant.stages[i];
    if (!stage.spirv.empty()) continue;
    vk::CompileOptions options;
    options.defines = stage.plan.defines;
    options.target = vk::TargetEnv::vulkan_1_2;  // as engine/variant.cpp compiles in process
    try {
      stage.spirv = vk::compile_compute_shader({stage.plan.template_file, job.templates.at(stage.plan.template_file)},
                                               includes, options);
    } catch (const Error& e) {
      if (job.variant.stages.size() == 1) throw;
      throw Error(e.kind(), "stage " + std::to_string(i) + " (" + stage.plan.template_file + "): " + e.what());
    }
  }
}

struct DeviceOnce {
  std::optional<std::uint32_t> index;
  std::unique_ptr<vk::Instance> instance;
  std::unique_ptr<vk::Device> device;
  vk::Device& get() {
    if (!index) throw Error(ErrorKind::internal, "a worker without --device was asked for pipelines");
    if (!device) {
      instance = std::make_unique<vk::Instance>();
      device = std::make_unique<vk::Device>(*instance, *index);
    }
    return *device;
  }
};

// Handles one job; false when stdout is gone.
bool handle(const nlohmann::json& message, DeviceOnce& device) {
  Job job = parse_job(message);
  const auto compile_start = Clock::now();
  try {
    test_hook("compile", job.variant);
    compile(job);
  } catch (const Error& e) {
    return write_message(STDOUT_FILENO, error_message(e.kind(), e.what()));
  } catch (const std::exception& e) {
    return write_message(STDOUT_FILENO, error_message(ErrorKind::compile, std::string("the compiler failed: ") + e.what()));
  }
  if (!write_message(STDOUT_FILENO, compiled_message(job.variant, ms_since(compile_start)))) return false;
  if (!job.layout) return true;
  const auto pipeline_start = Clock::now();
  try {
    test_hook("pipeline", job.variant);
    VariantRunner runner(device.get(), job.variant, job.layout->buffers, job.layout->shape_dims,
                         job.layout->descriptor_sets, true, false, job.layout->check_bounds);
    return write_message(STDOUT_FILENO, pipelines_message(runner.pipeline_caches(), ms_since(pipeline_start)));
  } catch (const Error& e) {
    return write_message(STDOUT_FILENO, error_message(e.kind(), e.what()));
  } catch (const std::exception& e) {
    return write_message(STDOUT_FILENO,
                         error_message(ErrorKind::pipeline, std::string("pipeline creation failed: ") + e.what()));
  }
}

}  // namespace

int run_worker(int argc, char** argv) {
  // Ended with the tuner, whatever ends it, even in a compile that never
  // returns to read stdin: a watchdog thread leaves once the tuner is gone
  // (PR_SET_PDEATHSIG would not do: it follows the tuner's thread that
  // started the worker, and those threads come and go).
  const pid_t tuner = ::getppid();
  std::thread([tuner] {
    while (::getppid() == tuner) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    std::_Exit(0);
  }).detach();
  // The terminal's Ctrl-C is the tuner's to handle (it finishes the variant
  // in flight), not ours.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  DeviceOnce device;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--device") device.index = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
  }
  try {
    while (auto message = read_message(STDIN_FILENO)) {
      if (!handle(*message, device)) return 0;
    }
  } catch (const std::exception& e) {
    // A broken pipe or message: say so on stderr (the tuner reads the exit).
    const std::string line = std::string("vktune worker: ") + e.what() + "\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, line.data(), line.size());
    return 5;
  }
  return 0;
}

}  // namespace vktune::worker
