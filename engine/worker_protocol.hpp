#pragma once
// What the tuner and its isolated worker processes say to each other over a
// pipe: each message a 4-byte little-endian length, then that many bytes of
// CBOR (nlohmann::json's binary form, with SPIR-V and pipeline-cache data as
// CBOR byte strings).
//
// A job: compile a variant's stages and, when asked, create their pipelines
// on the worker's device. The worker answers after compiling (the SPIR-V, or
// the compile's error) and, when it creates pipelines, again after that (each
// stage's pipeline-cache data, or the pipeline's error): the tuner knows
// which phase a worker was in when it had to end it.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "engine/template_library.hpp"
#include "engine/variant.hpp"

namespace vktune::worker {

// What a pipeline needs beyond its stage: the kernel's bindings and
// push-constant words, how many descriptor sets the tuner will make, and
// whether its modules are bounds-instrumented (VariantRunner's check_bounds).
struct PipelineLayout {
  std::uint32_t buffers = 0;
  std::uint32_t shape_dims = 0;
  std::uint32_t descriptor_sets = 0;
  bool check_bounds = false;
};

// The job of compiling `variant` (stages without SPIR-V; stages with it are
// sent as they are) and, with `layout`, creating its pipelines.
nlohmann::json job_message(const CompiledVariant& variant, const TemplateLibrary& templates,
                           const std::optional<PipelineLayout>& layout);

// The worker's side: the variant a job describes (plans and SPIR-V, no hash),
// the sources to compile it from, and the layout when it asks for pipelines.
struct Job {
  CompiledVariant variant;
  std::map<std::string, std::string> templates;  // template file -> text
  std::map<std::string, std::string> includes;   // name under include/ -> text
  std::optional<PipelineLayout> layout;
};
Job parse_job(const nlohmann::json& message);

// Replies. A failure carries its ErrorKind and message.
nlohmann::json compiled_message(const CompiledVariant& variant, double ms);
nlohmann::json pipelines_message(const std::vector<std::vector<std::uint8_t>>& caches, double ms);
nlohmann::json error_message(ErrorKind kind, const std::string& what);

// Writes one message; false when the pipe is closed.
bool write_message(int fd, const nlohmann::json& message);
// Reads one message. nullopt: end of file (the other side is gone).
// `deadline` bounds the wait: past it, Error(timeout) is thrown. `while_waiting`
// runs about every 20 ms of waiting (the tuner checks the worker's memory).
std::optional<nlohmann::json> read_message(
    int fd, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt,
    const std::function<void()>& while_waiting = {});

}  // namespace vktune::worker
