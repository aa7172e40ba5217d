#include "results/export.hpp"

#include <array>
#include <charconv>
#include <set>

#include "common/error.hpp"
#include "results/spirv_bytes.hpp"

namespace vktune::results {
namespace {

constexpr std::string_view base64_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// A field that holds JSON text becomes JSON; "" becomes null; anything that
// does not parse stays a string rather than being lost.
nlohmann::json embedded_json(const std::string& text) {
  if (text.empty()) return nullptr;
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? nlohmann::json(text) : parsed;
}

std::string shortest(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace

nlohmann::json to_json(const DeviceIdentity& d) {
  return {{"vendor_id", d.vendor_id},
          {"device_id", d.device_id},
          {"driver_version", d.driver_version},
          {"name", d.name},
          {"driver_name", d.driver_name},
          {"driver_version_text", d.driver_version_text},
          {"device_uuid", d.device_uuid},
          {"api_version_text", d.api_version_text}};
}

nlohmann::json to_json(const Measurement& m) {
  return {{"device", m.device_id},
          {"variant_hash", m.variant_hash},
          {"shape", m.shape},
          {"cache_mode", m.cache_mode},
          {"status", to_string(m.status)},
          {"reason", m.reason},
          {"median_ns", m.median_ns},
          {"min_ns", m.min_ns},
          {"p10_ns", m.p10_ns},
          {"p90_ns", m.p90_ns},
          {"mad_ns", m.mad_ns},
          {"repetitions", m.repetitions},
          {"rel_l2_error", m.rel_l2_error},
          {"max_abs_error", m.max_abs_error},
          {"gbps", m.gbps},
          {"gflops", m.gflops},
          {"created_at", m.created_at}};
}

nlohmann::json to_json(const Winner& w, bool with_spirv) {
  nlohmann::json j = {{"device", w.device_id},
                      {"kernel", w.kernel},
                      {"shape", w.shape},
                      {"cache_mode", w.cache_mode},
                      {"variant_hash", w.variant_hash},
                      {"config", embedded_json(w.config_json)},
                      {"spirv_hash", w.spirv_hash},
                      {"specialization", embedded_json(w.specialization_json)},
                      {"local_size", {w.local_size[0], w.local_size[1], w.local_size[2]}},
                      {"dispatch", embedded_json(w.dispatch_json)},
                      {"required_subgroup_size", w.required_subgroup_size},
                      {"median_ns", w.median_ns},
                      {"gbps", w.gbps},
                      {"gflops", w.gflops},
                      {"rel_l2_error", w.rel_l2_error},
                      {"baseline_variant_hash", w.baseline_variant_hash},
                      {"baseline_median_ns", w.baseline_median_ns},
                      {"updated_at", w.updated_at}};
  if (with_spirv) j["spirv_base64"] = spirv_to_base64(w.spirv);
  return j;
}

nlohmann::json export_table(const Store& store, std::optional<std::int64_t> device_id,
                            const std::string& kernel_filter) {
  const auto winners = store.winners(device_id, kernel_filter);
  std::set<std::int64_t> used;
  for (const auto& w : winners) used.insert(w.device_id);

  nlohmann::json devices = nlohmann::json::array();
  for (const auto& [id, identity] : store.devices()) {
    if (!used.contains(id)) continue;
    auto d = to_json(identity);
    d["id"] = id;
    nlohmann::json ceilings = nlohmann::json::object();
    for (const auto& c : store.ceilings(id)) ceilings[c.name] = {{"value", c.value}, {"unit", c.unit}};
    d["ceilings"] = std::move(ceilings);
    devices.push_back(std::move(d));
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& w : winners) rows.push_back(to_json(w));
  return {{"format", "vktune-table"},
          {"version", table_format_version},
          {"devices", std::move(devices)},
          {"winners", std::move(rows)}};
}

void write_measurements_csv(std::ostream& out, std::span<const Measurement> measurements) {
  out << "device,variant_hash,shape,cache_mode,status,reason,median_ns,min_ns,p10_ns,p90_ns,mad_ns,repetitions,"
         "rel_l2_error,max_abs_error,gbps,gflops,created_at\n";
  for (const auto& m : measurements) {
    out << m.device_id << ',' << csv_field(m.variant_hash) << ',' << csv_field(m.shape) << ','
        << csv_field(m.cache_mode) << ',' << to_string(m.status) << ',' << csv_field(m.reason);
    for (const double v : {m.median_ns, m.min_ns, m.p10_ns, m.p90_ns, m.mad_ns}) out << ',' << shortest(v);
    out << ',' << m.repetitions;
    for (const double v : {m.rel_l2_error, m.max_abs_error, m.gbps, m.gflops}) out << ',' << shortest(v);
    out << ',' << csv_field(m.created_at) << '\n';
  }
}

std::string spirv_to_base64(std::span<const std::uint32_t> words) {
  const auto bytes = spirv_to_bytes(words);
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      group = (group << 8) | (k < n ? std::to_integer<std::uint32_t>(bytes[i + k]) : 0u);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      text += k <= n ? base64_alphabet[(group >> (18 - 6 * k)) & 0x3fu] : '=';
    }
  }
  return text;
}

std::vector<std::uint32_t> spirv_from_base64(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return Error(ErrorKind::format, "SPIR-V base64 text is malformed: " + why);
  };
  if (text.size() % 4 != 0) throw bad("its length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::vector<std::byte> bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t group = 0;
    std::size_t padding = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      std::uint32_t value = 0;
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++padding;
      } else if (const auto at = base64_alphabet.find(c); at != std::string_view::npos && padding == 0) {
        value = static_cast<std::uint32_t>(at);
      } else {
        throw bad("unexpected character at offset " + std::to_string(i + k));
      }
      group = (group << 6) | value;
    }
    for (std::size_t k = 0; k < 3 - padding; ++k) bytes.push_back(static_cast<std::byte>((group >> (16 - 8 * k)) & 0xffu));
  }
  auto words = spirv_from_bytes(bytes);
  if (!words) throw bad(std::to_string(bytes.size()) + " bytes is not a whole number of 32-bit words");
  return std::move(*words);
}

}  // namespace vktune::results
