#pragma once
// The one exception type of vktune. Its message is written for the user: it
// names what went wrong and, where possible, what to do about it. The kind
// lets the command line choose an exit code and lets the tuner record why a
// variant failed without parsing text.
#include <stdexcept>
#include <string>
#include <string_view>

namespace vktune {

enum class ErrorKind {
  usage,          // bad command line, shape, option value
  no_loader,      // no Vulkan loader could be loaded
  no_device,      // no Vulkan device, or a bad device index
  vulkan,         // a Vulkan call failed
  compile,        // GLSL -> SPIR-V failed
  pipeline,       // pipeline creation failed
  // A variant's compile or pipeline creation, run in an isolated worker
  // process (engine/worker_pool.hpp), passed its deadline, crashed the
  // worker, or grew past its memory cap: the worker was ended.
  compile_timeout,
  compile_crash,
  compile_memory,
  pipeline_timeout,
  pipeline_crash,
  pipeline_memory,
  device_limit,   // variant exceeds a device limit
  wrong_result,   // validation against the reference failed
  out_of_bounds,  // a variant wrote into a buffer's guard band
  nondeterministic,  // a variant's output changed between runs on the same input
  timeout,        // a submission did not finish in time
  device_lost,    // VK_ERROR_DEVICE_LOST
  format,         // malformed input file (GGUF, table, ...)
  io,             // file system
  database,       // SQLite
  internal,       // a bug in vktune
};

std::string_view to_string(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// Process exit codes that scripts can rely on.
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failure = 1;        // the job ran but found failures (e.g. check)
inline constexpr int usage = 2;          // bad command line or input
inline constexpr int no_loader = 3;      // no Vulkan loader installed
inline constexpr int no_device = 4;      // no such device
inline constexpr int runtime_error = 5;  // anything else that stopped the job
}  // namespace exit_code

int exit_code_for(ErrorKind kind);

}  // namespace vktune
