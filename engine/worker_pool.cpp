#include "engine/worker_pool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/error.hpp"
#include "engine/elapsed.hpp"
#include "engine/isolated_worker.hpp"

extern char** environ;

namespace vktune {

namespace {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 10 ? "%.1f s" : "%.0f s", seconds);
  return text;
}

std::string signal_text(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : std::string());
  }
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "an unknown end";
}

// Thrown out of the wait when the worker's memory passes the cap.
struct MemoryCapReached {
  std::uint64_t bytes;
};

std::uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) : 0;
}

}  // namespace

IsolationSettings isolation_settings(std::optional<std::uint32_t> device, bool cpu_device,
                                     std::optional<double> floor, std::optional<unsigned> jobs) {
  IsolationSettings s;
  s.program = "/proc/self/exe";
  std::error_code ec;
  if (auto self = std::filesystem::read_symlink("/proc/self/exe", ec); !ec) s.program = self.string();
  s.device = device;
  // At most 8 unless asked: on a 16-core H200 host 16 workers measured no
  // more variants a second than 8 (matmul_q6k --space full, 1.11 and 1.13)
  // and ran 40 compiles past their deadline against 15
  // (measurements/nvidia-h200/session30).
  s.workers = jobs.value_or(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  s.floor_seconds = floor.value_or(cpu_device ? 120.0 : 10.0);
  if (const auto memory = physical_memory(); memory > 0) s.memory_bytes = std::min(s.memory_bytes, memory / 2);
  // VKTUNE_TEST_WORKER_MEMORY_CAP_MB: a cap a test reaches in a moment.
  if (const char* cap = std::getenv("VKTUNE_TEST_WORKER_MEMORY_CAP_MB"); cap && *cap) {
    s.memory_bytes = std::strtoull(cap, nullptr, 10) << 20;
  }
  // VKTUNE_TEST_WORKER_PROGRAM: a worker program that cannot start.
  if (const char* program = std::getenv("VKTUNE_TEST_WORKER_PROGRAM"); program && *program) s.program = program;
  return s;
}

WorkerPool::WorkerPool(IsolationSettings settings) : settings_(std::move(settings)) {
  auto first = spawn();
  std::lock_guard lock(mutex_);
  ++alive_;
  idle_.push_back(first);
}

WorkerPool::~WorkerPool() {
  std::unique_lock lock(mutex_);
  freed_.wait(lock, [&] { return idle_.size() == alive_; });  // no job in flight
  for (auto& p : idle_) {
    ::close(p.to);  // end of input: the worker leaves by itself
    ::close(p.from);
    int status = 0;
    // A worker busy elsewhere (none should be) is not waited for long.
    for (int i = 0; i < 100 && ::waitpid(p.pid, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (::waitpid(p.pid, &status, WNOHANG) == 0) {
      ::kill(p.pid, SIGKILL);
      ::waitpid(p.pid, &status, 0);
    }
  }
}

WorkerPool::Process WorkerPool::spawn() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw Error(ErrorKind::io, std::string("cannot make a pipe for a worker: ") + std::strerror(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw Error(ErrorKind::io, std::string("cannot make a pipe for a worker: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  // The driver's notes (lavapipe's "not a conformant implementation") are
  // the tuner's to print once, not each worker's.
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A process group of its own: the terminal's Ctrl-C reaches the tuner,
  // which finishes the variant in flight, and not its workers.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> args{settings_.program, worker::kWorkerFlag};
  if (settings_.device) {
    args.emplace_back("--device");
    args.push_back(std::to_string(*settings_.device));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int failed = ::posix_spawn(&pid, settings_.program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(in[0]);
  ::close(out[1]);
  if (failed != 0) {
    ::close(in[1]);
    ::close(out[0]);
    throw Error(ErrorKind::io, "cannot start a worker process (" + settings_.program + "): " + std::strerror(failed));
  }
  return {pid, in[1], out[0]};
}

void WorkerPool::end(Process& process) {
  ::kill(process.pid, SIGKILL);
  int status = 0;
  ::waitpid(process.pid, &status, 0);
  ::close(process.to);
  ::close(process.from);
  process = {};
}

WorkerPool::Process WorkerPool::acquire(const std::atomic<bool>* wanted) {
  std::unique_lock lock(mutex_);
  const auto is_wanted = [](const std::atomic<bool>* flag) { return !flag || flag->load(); };
  waiting_.push_back(wanted);
  // However this returns: no longer waiting. A guess that waited behind
  // this job may now take a worker (one still free, or one the pool may yet
  // start), so the waiters look again.
  struct Leave {
    std::vector<const std::atomic<bool>*>& waiting;
    std::condition_variable& changed;
    const std::atomic<bool>* flag;
    ~Leave() {
      waiting.erase(std::find(waiting.begin(), waiting.end(), flag));
      changed.notify_all();
    }
  } leave{waiting_, freed_, wanted};
  for (;;) {
    if (is_wanted(wanted) || std::none_of(waiting_.begin(), waiting_.end(), is_wanted)) {
      if (!idle_.empty()) {
        auto p = idle_.back();
        idle_.pop_back();
        return p;
      }
      if (alive_ < settings_.workers) {
        ++alive_;
        lock.unlock();
        try {
          auto p = spawn();
          lock.lock();  // for Leave
          return p;
        } catch (...) {
          lock.lock();
          --alive_;
          freed_.notify_all();
          throw;
        }
      }
    }
    freed_.wait(lock);
  }
}

void WorkerPool::wake() {
  std::lock_guard lock(mutex_);
  freed_.notify_all();
}

void WorkerPool::release(Process process, bool healthy) {
  if (!healthy) end(process);
  std::lock_guard lock(mutex_);
  if (healthy) {
    idle_.push_back(process);
  } else {
    --alive_;
  }
  freed_.notify_all();
}

std::uint64_t WorkerPool::resident_bytes(pid_t pid) const {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
}

double WorkerPool::deadline_seconds(const std::vector<double>& done_ms) const {
  const double adaptive = settings_.median_multiple * median_of(done_ms) / 1000.0;
  return std::min(settings_.ceiling_seconds, std::max(settings_.floor_seconds, adaptive));
}

double WorkerPool::compile_deadline_seconds() const {
  std::lock_guard lock(mutex_);
  return deadline_seconds(compile_ms_);
}

double WorkerPool::pipeline_deadline_seconds() const {
  std::lock_guard lock(mutex_);
  return deadline_seconds(pipeline_ms_);
}

std::string WorkerPool::describe() const {
  return "isolation: compiles and pipelines in up to " + std::to_string(settings_.workers) +
         (settings_.workers == 1 ? " worker process" : " worker processes") + "; each phase's deadline the larger of " +
         seconds_text(settings_.floor_seconds) + " and " + std::to_string(static_cast<int>(settings_.median_multiple)) +
         "x its median so far (at most " +
         seconds_text(settings_.ceiling_seconds) + ", never past --time), memory " +
         std::to_string(settings_.memory_bytes >> 20) + " MiB a worker";
}

void WorkerPool::run(CompiledVariant& variant, const TemplateLibrary& templates,
                     const std::optional<worker::PipelineLayout>& layout, Durations& durations,
                     std::optional<std::chrono::steady_clock::time_point> limit,
                     const std::atomic<bool>* wanted) {
  Process p = acquire(wanted);
  bool in_pipeline = false;
  const auto fail = [&](ErrorKind compile_kind, ErrorKind pipeline_kind, const std::string& what) {
    release(p, false);
    throw Error(in_pipeline ? pipeline_kind : compile_kind,
                std::string(in_pipeline ? "creating its pipeline " : "compiling it ") + what);
  };
  // One phase's reply, within its deadline and the memory cap.
  const auto reply = [&](double deadline_s, Clock::time_point start, double& elapsed_ms) -> nlohmann::json {
    auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s));
    const bool by_limit = limit && *limit < deadline;
    if (by_limit) deadline = *limit;
    std::optional<nlohmann::json> message;
    try {
      message = worker::read_message(p.from, deadline, [&] {
        if (const auto bytes = resident_bytes(p.pid); bytes > settings_.memory_bytes) throw MemoryCapReached{bytes};
      });
    } catch (const MemoryCapReached& m) {
      elapsed_ms = ms_since(start);
      fail(ErrorKind::compile_memory, ErrorKind::pipeline_memory,
           "took " + std::to_string(m.bytes >> 20) + " MiB, past the cap of " +
               std::to_string(settings_.memory_bytes >> 20) + " MiB a worker; the worker was ended");
    } catch (const Error& e) {
      elapsed_ms = ms_since(start);
      if (e.kind() == ErrorKind::timeout) {
        fail(ErrorKind::compile_timeout, ErrorKind::pipeline_timeout,
             "passed its deadline of " + seconds_text(std::chrono::duration<double>(deadline - start).count()) +
                 (by_limit ? " (what --time left)" : "") + "; the worker was ended");
      }
      fail(ErrorKind::compile_crash, ErrorKind::pipeline_crash, std::string("broke the worker's reply: ") + e.what());
    }
    elapsed_ms = ms_since(start);
    if (!message) {
      int status = 0;
      ::waitpid(p.pid, &status, 0);
      p.pid = -1;
      ::close(p.to);
      ::close(p.from);
      {
        std::lock_guard lock(mutex_);
        --alive_;
        freed_.notify_all();
      }
      throw Error(in_pipeline ? ErrorKind::pipeline_crash : ErrorKind::compile_crash,
                  std::string(in_pipeline ? "creating its pipeline" : "compiling it") + " crashed the worker (" +
                      signal_text(status) + ") after " + seconds_text(elapsed_ms / 1000));
    }
    if (message->contains("error")) {
      const auto& e = message->at("error");
      const auto kind = static_cast<ErrorKind>(e.at("kind").get<int>());
      // A device the worker lost is no use to its next job.
      release(p, kind != ErrorKind::device_lost && kind != ErrorKind::vulkan);
      throw Error(kind, e.at("message").get<std::string>());
    }
    return std::move(*message);
  };

  if (!worker::write_message(p.to, worker::job_message(variant, templates, layout))) {
    fail(ErrorKind::compile_crash, ErrorKind::pipeline_crash, "failed: the worker is gone");
  }
  const auto compile_start = Clock::now();
  const auto compiled = reply(compile_deadline_seconds(), compile_start, durations.compile_ms);
  const auto& spirv = compiled.at("compiled");
  for (std::size_t i = 0; i < variant.stages.size(); ++i) {
    const auto& bytes = spirv.at(i).get_binary();
    variant.stages[i].spirv.resize(bytes.size() / 4);
    if (!bytes.empty()) std::memcpy(variant.stages[i].spirv.data(), bytes.data(), bytes.size());
  }
  durations.compile_ms = compiled.at("ms").get<double>();
  {
    std::lock_guard lock(mutex_);
    compile_ms_.push_back(durations.compile_ms);
  }
  if (layout) {
    in_pipeline = true;
    const auto pipelines = reply(pipeline_deadline_seconds(), Clock::now(), durations.pipeline_ms);
    const auto& caches = pipelines.at("caches");
    for (std::size_t i = 0; i < variant.stages.size(); ++i) variant.stages[i].pipeline_cache = caches.at(i).get_binary();
    durations.pipeline_ms = pipelines.at("ms").get<double>();
    std::lock_guard lock(mutex_);
    pipeline_ms_.push_back(durations.pipeline_ms);
  }
  release(p, true);
}

}  // namespace vktune
