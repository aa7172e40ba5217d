#include "results/export.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "common/lowercase.hpp"
#include "common/version.hpp"
#include "results/capped_json.hpp"
#include "results/table_format.hpp"
#include "results/spirv_bytes.hpp"

namespace vktune::results {
namespace {

constexpr std::string_view base64_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// A field that holds JSON text becomes JSON; "" becomes null; anything that
// does not parse stays a string rather than being lost.
nlohmann::json embedded_json(const std::string& text) {
  if (text.empty()) return nullptr;
  auto parsed = parse_capped_json(text);
  return parsed.error.empty() ? std::move(parsed.value) : nlohmann::json(text);
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
          {"created_at", m.created_at},
          {"phase", to_string(m.phase)},
          {"compile_ms", m.durations.compile_ms},
          {"pipeline_ms", m.durations.pipeline_ms},
          {"validation_ms", m.durations.validation_ms},
          {"warmup_ms", m.durations.warmup_ms},
          {"timing_ms", m.durations.timing_ms}};
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

std::string generator_version() { return std::string("vktune ") + VKTUNE_VERSION; }

std::string shortest(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

bool Selection::has_device(std::int64_t id) const { return device_rank(id) < devices.size(); }

bool Selection::has_kernel(std::string_view name) const {
  return std::binary_search(kernels.begin(), kernels.end(), name);
}

std::size_t Selection::device_rank(std::int64_t id) const {
  const auto found = std::find_if(devices.begin(), devices.end(), [&](const auto& d) { return d.first == id; });
  return static_cast<std::size_t>(found - devices.begin());
}

bool identity_less(const DeviceIdentity& a, const DeviceIdentity& b) {
  return std::tie(a.vendor_id, a.device_id, a.name, a.driver_version, a.device_uuid) <
         std::tie(b.vendor_id, b.device_id, b.name, b.driver_version, b.device_uuid);
}

std::optional<std::vector<std::uint32_t>> shape_dims(std::string_view text) {
  std::vector<std::uint32_t> dims;
  while (true) {
    const auto comma = text.find(',');
    const auto part = text.substr(0, comma);
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size()) return std::nullopt;
    dims.push_back(value);
    if (comma == std::string_view::npos) return dims;
    text.remove_prefix(comma + 1);
  }
}

bool shape_less(std::string_view a, std::string_view b) {
  const auto da = shape_dims(a), db = shape_dims(b);
  if (da && db && *da != *db) return *da < *db;
  if (da.has_value() != db.has_value()) return da.has_value();  // numeric shapes first
  return a < b;
}

Selection select(const Store& store, const ExportFilter& filter) {
  Selection selection;
  const auto devices = store.devices();
  const bool by_id = !filter.device.empty() &&
                     std::all_of(filter.device.begin(), filter.device.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::string wanted = lowercase(filter.device);
  for (const auto& [id, identity] : devices) {
    const bool match = filter.device.empty() || (by_id ? std::to_string(id) == filter.device
                                                        : lowercase(identity.name).find(wanted) != std::string::npos);
    if (match) selection.devices.emplace_back(id, identity);
  }
  if (selection.devices.empty() && !filter.device.empty()) {
    std::string known;
    for (const auto& [id, identity] : devices) known += (known.empty() ? "" : ", ") + std::to_string(id) + " " + identity.name;
    throw Error(ErrorKind::usage, "no device in '" + store.path().string() + "' matches --device '" + filter.device +
                                      "' (a device row id or part of the name; stored: " +
                                      (known.empty() ? "none" : known) + ")");
  }
  std::stable_sort(selection.devices.begin(), selection.devices.end(),
                   [](const auto& a, const auto& b) { return identity_less(a.second, b.second); });
  selection.kernel_shapes = filter.kernel_shapes;

  const auto kernels = store.kernels();  // sorted by name
  const bool exact = std::find(kernels.begin(), kernels.end(), filter.kernel) != kernels.end();
  for (const auto& k : kernels) {
    if (filter.kernel.empty() || (exact ? k == filter.kernel : k.find(filter.kernel) != std::string::npos)) {
      selection.kernels.push_back(k);
    }
  }
  if (selection.kernels.empty() && !filter.kernel.empty()) {
    std::string known;
    for (const auto& k : kernels) known += (known.empty() ? "" : ", ") + k;
    throw Error(ErrorKind::usage, "no kernel in '" + store.path().string() + "' matches --kernel '" + filter.kernel +
                                      "' (stored: " + (known.empty() ? "none" : known) + ")");
  }
  return selection;
}

std::vector<Winner> selected_winners(const Store& store, const Selection& selection) {
  std::vector<Winner> winners;
  for (auto& w : store.winners()) {
    const bool shape_wanted =
        selection.kernel_shapes.empty() ||
        std::find(selection.kernel_shapes.begin(), selection.kernel_shapes.end(), std::pair(w.kernel, w.shape)) !=
            selection.kernel_shapes.end();
    if (selection.has_device(w.device_id) && selection.has_kernel(w.kernel) && shape_wanted) winners.push_back(std::move(w));
  }
  std::stable_sort(winners.begin(), winners.end(), [&](const Winner& a, const Winner& b) {
    const auto ra = selection.device_rank(a.device_id), rb = selection.device_rank(b.device_id);
    if (ra != rb) return ra < rb;
    if (a.kernel != b.kernel) return a.kernel < b.kernel;
    if (a.shape != b.shape) return shape_less(a.shape, b.shape);
    return a.cache_mode < b.cache_mode;
  });
  return winners;
}

std::vector<std::string> keys_of_several_gpus_of_one_model(const nlohmann::json& table) {
  std::map<std::int64_t, const nlohmann::json*> devices;
  for (const auto& d : table.at("devices")) devices[d.at("id").get<std::int64_t>()] = &d;
  // (vendor, device id, kernel, shape, mode) -> GPUs, in the order first met.
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::string, std::string, std::string>;
  std::map<Key, std::size_t> gpus;
  std::vector<std::pair<Key, std::string>> order;
  for (const auto& w : table.at("winners")) {
    const auto& d = *devices.at(w.at("device").get<std::int64_t>());
    const Key key{d.at("vendor_id").get<std::uint32_t>(), d.at("device_id").get<std::uint32_t>(),
                  w.at("kernel").get<std::string>(), w.at("shape").get<std::string>(),
                  w.at("cache_mode").get<std::string>()};
    if (gpus[key]++ == 0) order.emplace_back(key, d.at("name").get<std::string>());
  }
  std::vector<std::string> several;
  for (const auto& [key, name] : order) {
    const auto n = gpus.at(key);
    if (n < 2) continue;
    several.push_back(std::get<2>(key) + " " + std::get<3>(key) + " " + std::get<4>(key) + " on " + name + " (" +
                      std::to_string(n) + " GPUs)");
  }
  return several;
}

std::string table_entry_hash(const nlohmann::json& device, const nlohmann::json& winner) {
  return table_format::entry_hash(device, winner);
}

nlohmann::json export_table(const Store& store, const ExportFilter& filter, const ContractSource& contracts,
                            std::vector<std::string>* skipped) {
  const auto selection = select(store, filter);
  auto winners = selected_winners(store, selection);
  // Contracts first: a winner without one is left out, with its device.
  std::vector<nlohmann::json> contract_of;
  std::vector<Winner> kept;
  for (auto& w : winners) {
    std::string why = "it stores no launch contract";
    std::optional<std::string> text;
    if (!w.contract_json.empty()) {
      text = w.contract_json;
    } else if (contracts) {
      text = contracts(w, why);
    }
    auto parsed = text ? parse_capped_json(*text) : CappedJson{};
    if (text && !parsed.error.empty()) why = "its launch contract is " + parsed.error;
    if (!text || !parsed.error.empty() || !parsed.value.is_object()) {
      if (skipped) skipped->push_back(w.kernel + " " + w.shape + " (" + w.cache_mode + "): " + why);
      continue;
    }
    contract_of.push_back(std::move(parsed.value));
    kept.push_back(std::move(w));
  }
  std::set<std::int64_t> used;
  for (const auto& w : kept) used.insert(w.device_id);

  std::map<std::int64_t, nlohmann::json> device_json;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& [id, identity] : selection.devices) {
    if (!used.contains(id)) continue;
    auto d = to_json(identity);
    d["id"] = id;
    nlohmann::json ceilings = nlohmann::json::object();
    for (const auto& c : store.ceilings(id)) ceilings[c.name] = {{"value", c.value}, {"unit", c.unit}};
    d["ceilings"] = std::move(ceilings);
    device_json[id] = d;
    devices.push_back(std::move(d));
  }
  nlohmann::json modules = nlohmann::json::object();
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const auto& w = kept[i];
    auto row = to_json(w, false);
    for (const char* legacy : {"spirv_hash", "specialization", "local_size", "dispatch", "required_subgroup_size"}) {
      row.erase(legacy);
    }
    const auto variant = store.find_variant(w.variant_hash);
    row["template_name"] = variant ? variant->template_name : "";
    row["template_hash"] = variant ? variant->template_hash : "";
    row["compiler_version"] = variant ? variant->compiler_version : "";
    const auto& contract = contract_of[i];
    if (contract.contains("stages") && contract["stages"].is_array()) {
      for (const auto& stage : contract["stages"]) {
        const auto hash = stage.value("spirv_hash", std::string());
        if (hash.empty() || modules.contains(hash)) continue;
        const auto words = hash == w.spirv_hash ? std::optional(w.spirv) : store.get_spirv(hash);
        if (!words) throw Error(ErrorKind::database, "the SPIR-V " + hash + " of a " + w.kernel + " stage is missing");
        modules[hash] = spirv_to_base64(*words);
      }
    }
    row["contract"] = contract;
    row["entry_hash"] = table_entry_hash(device_json.at(w.device_id), row);
    rows.push_back(std::move(row));
  }
  return {{"format", table_format_name},
          {"version", table_format_version},
          {"generator", generator_version()},
          {"devices", std::move(devices)},
          {"spirv", std::move(modules)},
          {"winners", std::move(rows)}};
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
