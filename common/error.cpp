#include "common/error.hpp"

namespace vktune {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage";
    case ErrorKind::no_loader: return "no_loader";
    case ErrorKind::no_device: return "no_device";
    case ErrorKind::vulkan: return "vulkan";
    case ErrorKind::compile: return "compile_error";
    case ErrorKind::pipeline: return "pipeline_error";
    case ErrorKind::compile_timeout: return "compile_timeout";
    case ErrorKind::compile_crash: return "compile_crash";
    case ErrorKind::compile_memory: return "compile_memory";
    case ErrorKind::pipeline_timeout: return "pipeline_timeout";
    case ErrorKind::pipeline_crash: return "pipeline_crash";
    case ErrorKind::pipeline_memory: return "pipeline_memory";
    case ErrorKind::device_limit: return "device_limit";
    case ErrorKind::wrong_result: return "wrong_result";
    case ErrorKind::out_of_bounds: return "out_of_bounds";
    case ErrorKind::nondeterministic: return "nondeterministic";
    case ErrorKind::timeout: return "timeout";
    case ErrorKind::device_lost: return "device_lost";
    case ErrorKind::format: return "format";
    case ErrorKind::io: return "io";
    case ErrorKind::database: return "database";
    case ErrorKind::internal: return "internal";
  }
  return "unknown";
}

int exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
    case ErrorKind::format: return exit_code::usage;
    case ErrorKind::no_loader: return exit_code::no_loader;
    case ErrorKind::no_device: return exit_code::no_device;
    default: return exit_code::runtime_error;
  }
}

}  // namespace vktune
