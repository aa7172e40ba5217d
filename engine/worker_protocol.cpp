#include "engine/worker_protocol.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace vktune::worker {

using nlohmann::json;

namespace {

// No message of ours comes near this; a longer length is a broken pipe.
constexpr std::uint32_t kMaxMessageBytes = 1u << 30;

json bytes_of(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  return json::binary(std::vector<std::uint8_t>(p, p + size));
}

std::vector<std::uint32_t> words_from(const json& value) {
  const auto& bytes = value.get_binary();
  if (bytes.size() % 4 != 0) throw Error(ErrorKind::internal, "a worker message's SPIR-V is not whole words");
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

// An image binding as [binding, kind, dims, format, width, height, depth].
json image_json(const vk::ImageBinding& i) {
  return json::array({i.binding, static_cast<int>(i.kind), i.dims, static_cast<int>(i.format), i.extent[0],
                      i.extent[1], i.extent[2]});
}

vk::ImageBinding image_from(const json& j) {
  vk::ImageBinding i;
  i.binding = j.at(0).get<std::uint32_t>();
  i.kind = j.at(1).get<int>() == 0 ? vk::ImageKind::storage : vk::ImageKind::sampled;
  i.dims = j.at(2).get<std::uint32_t>();
  i.format = j.at(3).get<int>() == 0 ? vk::ImageFormat::rgba32f : vk::ImageFormat::rgba16f;
  i.extent = {j.at(4).get<std::uint32_t>(), j.at(5).get<std::uint32_t>(), j.at(6).get<std::uint32_t>()};
  return i;
}

}  // namespace

json job_message(const CompiledVariant& variant, const TemplateLibrary& templates,
                 const std::optional<PipelineLayout>& layout) {
  json stages = json::array();
  for (const auto& stage : variant.stages) {
    const auto& plan = stage.plan;
    json s{{"file", plan.template_file},
           {"defines", plan.defines},
           {"local_size", plan.local_size},
           {"subgroup", plan.required_subgroup_size},
           {"full_subgroups", plan.require_full_subgroups},
           {"push_words", plan.push_constants.size()},
           {"specialization", plan.specialization},
           {"uniform_buffers", plan.uniform_buffers}};
    json images = json::array();
    for (const auto& image : plan.images) images.push_back(image_json(image));
    s["images"] = std::move(images);
    if (stage.spirv.empty()) {
      s["text"] = templates.text(plan.template_file);
    } else {
      s["spirv"] = bytes_of(stage.spirv.data(), stage.spirv.size() * sizeof(std::uint32_t));
    }
    stages.push_back(std::move(s));
  }
  json job{{"stages", std::move(stages)}, {"includes", templates.includes()}};
  if (layout) job["layout"] = {layout->buffers, layout->shape_dims, layout->descriptor_sets, layout->check_bounds};
  return job;
}

Job parse_job(const json& message) {
  Job job;
  job.includes = message.at("includes").get<std::map<std::string, std::string>>();
  for (const auto& s : message.at("stages")) {
    CompiledStage stage;
    stage.plan.template_file = s.at("file").get<std::string>();
    stage.plan.defines = s.at("defines").get<std::vector<std::pair<std::string, std::string>>>();
    stage.plan.local_size = s.at("local_size").get<std::array<std::uint32_t, 3>>();
    stage.plan.required_subgroup_size = s.at("subgroup").get<std::uint32_t>();
    stage.plan.require_full_subgroups = s.at("full_subgroups").get<bool>();
    stage.plan.push_constants.assign(s.at("push_words").get<std::size_t>(), 0);
    stage.plan.specialization = s.at("specialization").get<std::vector<std::pair<std::uint32_t, std::uint32_t>>>();
    stage.plan.uniform_buffers = s.at("uniform_buffers").get<std::vector<std::pair<std::uint32_t, std::uint32_t>>>();
    for (const auto& image : s.at("images")) stage.plan.images.push_back(image_from(image));
    if (s.contains("spirv")) stage.spirv = words_from(s.at("spirv"));
    if (s.contains("text")) job.templates[stage.plan.template_file] = s.at("text").get<std::string>();
    job.variant.stages.push_back(std::move(stage));
  }
  if (message.contains("layout")) {
    const auto& l = message.at("layout");
    job.layout = PipelineLayout{l.at(0).get<std::uint32_t>(), l.at(1).get<std::uint32_t>(), l.at(2).get<std::uint32_t>(),
                                l.at(3).get<bool>()};
  }
  return job;
}

json compiled_message(const CompiledVariant& variant, double ms) {
  json spirv = json::array();
  for (const auto& stage : variant.stages) {
    spirv.push_back(bytes_of(stage.spirv.data(), stage.spirv.size() * sizeof(std::uint32_t)));
  }
  return {{"compiled", std::move(spirv)}, {"ms", ms}};
}

json pipelines_message(const std::vector<std::vector<std::uint8_t>>& caches, double ms) {
  json data = json::array();
  for (const auto& cache : caches) data.push_back(bytes_of(cache.data(), cache.size()));
  return {{"caches", std::move(data)}, {"ms", ms}};
}

json error_message(ErrorKind kind, const std::string& what) {
  return {{"error", {{"kind", static_cast<int>(kind)}, {"message", what}}}};
}

bool write_message(int fd, const json& message) {
  const auto body = json::to_cbor(message);
  const auto size = static_cast<std::uint32_t>(body.size());
  std::vector<std::uint8_t> frame(4 + body.size());
  for (int i = 0; i < 4; ++i) frame[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(size >> (8 * i));
  std::memcpy(frame.data() + 4, body.data(), body.size());
  // A worker that died leaves a pipe without a reader: its write fails with
  // EPIPE, and the SIGPIPE it raises, blocked here, is taken back before it
  // could end the tuner.
  sigset_t pipe_signal, old_mask;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  std::size_t done = 0;
  bool whole = true;
  while (done < frame.size()) {
    const auto n = ::write(fd, frame.data() + done, frame.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      whole = false;
      if (errno == EPIPE) {
        const timespec now{0, 0};
        while (sigtimedwait(&pipe_signal, nullptr, &now) == SIGPIPE) {
        }
      }
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  return whole;
}

namespace {

// Reads exactly `size` bytes; false at end of file before the first byte.
bool read_exactly(int fd, std::uint8_t* into, std::size_t size,
                  const std::optional<std::chrono::steady_clock::time_point>& deadline,
                  const std::function<void()>& while_waiting) {
  std::size_t done = 0;
  while (done < size) {
    if (deadline || while_waiting) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, 20);
      if (ready < 0 && errno != EINTR) throw Error(ErrorKind::internal, std::string("poll: ") + std::strerror(errno));
      if (ready <= 0) {
        if (while_waiting) while_waiting();
        if (deadline && std::chrono::steady_clock::now() > *deadline) {
          throw Error(ErrorKind::timeout, "the worker passed its deadline");
        }
        continue;
      }
    }
    const auto n = ::read(fd, into + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (done == 0) return false;
      throw Error(ErrorKind::internal, "a worker message ended early");
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::optional<json> read_message(int fd, std::optional<std::chrono::steady_clock::time_point> deadline,
                                 const std::function<void()>& while_waiting) {
  std::uint8_t header[4];
  if (!read_exactly(fd, header, 4, deadline, while_waiting)) return std::nullopt;
  std::uint32_t size = 0;
  for (int i = 0; i < 4; ++i) size |= std::uint32_t{header[i]} << (8 * i);
  if (size > kMaxMessageBytes) throw Error(ErrorKind::internal, "a worker message claims " + std::to_string(size) + " bytes");
  std::vector<std::uint8_t> body(size);
  if (size > 0 && !read_exactly(fd, body.data(), size, deadline, while_waiting)) {
    throw Error(ErrorKind::internal, "a worker message ended early");
  }
  return json::from_cbor(body);
}

}  // namespace vktune::worker
