#include "fixtures.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rt_test {
namespace {

std::string device_index() {
  const char* env = std::getenv("VKTUNE_TEST_DEVICE");
  return env && *env ? env : "0";
}

std::string shape_text(const std::vector<std::uint32_t>& shape) {
  std::string text;
  for (const auto d : shape) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

}  // namespace

fs::path fresh_dir(const std::string& name) {
  static std::atomic<int> counter{0};
  const auto dir = fs::temp_directory_path() /
                   ("vktune-rt-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

RunResult run(const std::string& command) {
  RunResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return result;
}

fs::path tuned_db() {
  // Keyed by the binary, so a rebuilt vktune (new templates) tunes afresh.
  const fs::path binary = VKTUNE_BINARY;
  const auto stamp = std::to_string(fs::last_write_time(binary).time_since_epoch().count()) + "-" +
                     std::to_string(fs::file_size(binary)) + "-dev" + device_index();
  const fs::path cached = fs::path(VKTUNE_RT_FIXTURE_DIR) / ("tuned-" + stamp + ".db");
  if (fs::exists(cached)) return cached;
  // ctest runs several tests that want it at once: one makes it, the others
  // wait for it rather than tune the same shapes beside it.
  fs::create_directories(cached.parent_path());
  const int lock = ::open((fs::path(VKTUNE_RT_FIXTURE_DIR) / "tuned.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) throw std::runtime_error("cannot lock the fixture database's folder");
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  if (fs::exists(cached)) return cached;

  const auto dir = fresh_dir("tune");
  const auto db = dir / "tuned.db";
  for (const auto& shape : {kDecodeShape, kPrefillShape}) {
    const auto r = run(std::string(VKTUNE_BINARY) + " matmul_q4k --device " + device_index() + " --shape " +
                       shape_text(shape) + " --budget 3 --seed 1 --db " + db.string());
    if (r.exit_code != 0) throw std::runtime_error("vktune failed to make the fixture database:\n" + r.output);
  }
  // Whole or not at all: a test that finds it reads it without the lock.
  const auto staged = cached.string() + "." + std::to_string(::getpid());
  fs::copy_file(db, staged, fs::copy_options::overwrite_existing);
  fs::rename(staged, cached);
  fs::remove_all(dir);
  // Databases of earlier vktune builds are stale now.
  for (const auto& entry : fs::directory_iterator(cached.parent_path())) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("tuned-") && !name.starts_with(cached.filename().string())) fs::remove(entry.path());
  }
  return cached;
}

std::vector<std::uint8_t> le_bytes(std::span<const std::uint32_t> words) {
  std::vector<std::uint8_t> bytes;
  for (const auto w : words) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
  }
  return bytes;
}

std::string base64(std::span<const std::uint8_t> bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) group = (group << 8) | (k < n ? bytes[i + k] : 0u);
    for (std::size_t k = 0; k < 4; ++k) text += k <= n ? alphabet[(group >> (18 - 6 * k)) & 0x3f] : '=';
  }
  return text;
}

std::string content_hash(std::span<const std::uint8_t> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const auto b : bytes) h = (h ^ b) * 0x100000001b3ull;
  for (int i = 0; i < 8; ++i) h = (h ^ ((static_cast<std::uint64_t>(bytes.size()) >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

void rehash(nlohmann::json& table) {
  for (auto& w : table["winners"]) {
    for (const auto& d : table["devices"]) {
      if (d["id"] != w["device"]) continue;
      auto identity = d;
      identity.erase("id");
      auto copy = w;
      copy.erase("entry_hash");
      copy.erase("device");
      const std::string text = identity.dump() + "\n" + copy.dump();
      w["entry_hash"] = content_hash({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    }
  }
}

nlohmann::json to_table_json(const vktune::runtime::Table& table) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : table.devices()) {
    devices.push_back(device_json(d.id, d.identity.vendor_id, d.identity.device_id, d.identity.driver_version,
                                  d.identity.name, d.identity.uuid));
  }
  nlohmann::json winners = nlohmann::json::array();
  for (const auto& e : table.entries()) {
    const auto bytes = le_bytes(e.contract.stages[0].spirv);
    nlohmann::json spec = nlohmann::json::object();
    for (const auto& c : e.contract.stages[0].specialization) spec[std::to_string(c.id)] = c.value;
    nlohmann::json dispatch = nlohmann::json::array();
    for (const auto& a : e.contract.stages[0].dispatch) dispatch.push_back({{"shape_dim", a.shape_dim}, {"divisor", a.divisor}});
    winners.push_back({{"device", table.devices()[e.device].id},
                       {"kernel", e.kernel},
                       {"shape", shape_text(e.shape)},
                       {"cache_mode", e.cache_mode},
                       {"variant_hash", e.variant_hash},
                       {"config", nlohmann::json::parse(e.config_json)},
                       {"spirv_hash", content_hash(bytes)},
                       {"spirv_base64", base64(bytes)},
                       {"specialization", spec},
                       {"local_size", e.contract.stages[0].local_size},
                       {"dispatch", dispatch},
                       {"required_subgroup_size", e.contract.stages[0].required_subgroup_size},
                       {"median_ns", e.median_ns},
                       {"gbps", e.gbps},
                       {"gflops", e.gflops},
                       {"rel_l2_error", e.rel_l2_error}});
  }
  return table_json(std::move(devices), std::move(winners));
}

std::vector<std::uint32_t> fake_spirv(std::uint32_t tag) { return {0x07230203u, 0x00010000u, 0u, 1u, tag}; }

nlohmann::json device_json(std::int64_t id, std::uint32_t vendor, std::uint32_t device, std::uint32_t driver,
                           const std::string& name, const std::string& uuid) {
  return {{"id", id},   {"vendor_id", vendor}, {"device_id", device}, {"driver_version", driver},
          {"name", name}, {"device_uuid", uuid},  {"ceilings", nlohmann::json::object()}};
}

nlohmann::json winner_json(std::int64_t device, const std::string& kernel, const std::string& shape,
                           std::uint32_t tag, const std::string& cache_mode) {
  const auto words = fake_spirv(tag);
  const auto bytes = le_bytes(words);
  return {{"device", device},
          {"kernel", kernel},
          {"shape", shape},
          {"cache_mode", cache_mode},
          {"variant_hash", "v" + std::to_string(tag)},
          {"config", {{"TAG", tag}}},
          {"spirv_hash", content_hash(bytes)},
          {"spirv_base64", base64(bytes)},
          {"specialization", nlohmann::json::object()},
          {"local_size", {64, 1, 1}},
          {"dispatch", nlohmann::json::array({{{"shape_dim", 1}, {"divisor", 2}},
                                              {{"shape_dim", 0}, {"divisor", 1}},
                                              {{"shape_dim", -1}, {"divisor", 1}}})},
          {"required_subgroup_size", 0},
          {"median_ns", 1000.0 + tag}};
}

nlohmann::json table_json(nlohmann::json devices, nlohmann::json winners) {
  return {{"format", "vktune-table"},
          {"version", 1},
          {"generator", "runtime tests"},
          {"devices", std::move(devices)},
          {"winners", std::move(winners)}};
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace rt_test
