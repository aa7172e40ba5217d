// The exported JSON table, "format": "vktune-table", versions 1 and 2
// (results/export.hpp, docs/TABLE_FORMAT.md).
#include <limits>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "capped_json.hpp"
#include "table_data.hpp"

namespace vktune::runtime::detail {
namespace {

constexpr int kOldestVersion = 1;
constexpr int kNewestVersion = 2;


class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  const nlohmann::json& member(const nlohmann::json& object, const char* key, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(source_, where + " lacks \"" + key + "\"");
    return *it;
  }

  std::string text(const nlohmann::json& object, const char* key, const std::string& where) const {
    const auto& v = member(object, key, where);
    if (!v.is_string()) fail(source_, where + "." + key + " is not a string");
    return v.get<std::string>();
  }

  std::string optional_text(const nlohmann::json& object, const char* key, const std::string& where) const {
    return object.contains(key) ? text(object, key, where) : std::string();
  }

  std::uint32_t uint32(const nlohmann::json& object, const char* key, const std::string& where) const {
    const auto& v = member(object, key, where);
    const bool fits = v.is_number_unsigned() && v.get<std::uint64_t>() <= std::numeric_limits<std::uint32_t>::max();
    if (!fits) fail(source_, where + "." + key + " is not a 32-bit unsigned integer");
    return static_cast<std::uint32_t>(v.get<std::uint64_t>());
  }

  std::int64_t int64(const nlohmann::json& object, const char* key, const std::string& where) const {
    const auto& v = member(object, key, where);
    const bool fits = v.is_number_integer() &&
                      (!v.is_number_unsigned() ||
                       v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!fits) fail(source_, where + "." + key + " is not an integer");
    return v.get<std::int64_t>();
  }

  double number(const nlohmann::json& object, const char* key, const std::string& where) const {
    if (!object.contains(key)) return 0;
    const auto& v = object[key];
    if (!v.is_number()) fail(source_, where + "." + key + " is not a number");
    return v.get<double>();
  }

  // "config" is an object of parameter values; kept as compact JSON text.
  std::string embedded(const nlohmann::json& object, const char* key) const {
    if (!object.contains(key) || object[key].is_null()) return "";
    const auto& v = object[key];
    return v.is_string() ? v.get<std::string>() : v.dump();
  }

  std::vector<std::uint32_t> shape(const nlohmann::json& object, const std::string& where) const {
    const auto& v = member(object, "shape", where);
    std::vector<std::uint32_t> dims;
    if (v.is_string()) {
      dims = parse_shape_text(v.get<std::string>());
    } else if (v.is_array()) {
      for (const auto& d : v) {
        std::uint32_t value = 0;
        if (!d.is_number_unsigned() || d.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max() ||
            (value = static_cast<std::uint32_t>(d.get<std::uint64_t>())) == 0) {
          dims.clear();
          break;
        }
        dims.push_back(value);
      }
    }
    if (dims.empty()) fail(source_, where + ".shape is not a list of positive 32-bit integers (\"M,N,K\")");
    return dims;
  }

  std::array<std::uint32_t, 3> local_size(const nlohmann::json& object, const std::string& where) const {
    const auto& v = member(object, "local_size", where);
    std::array<std::uint32_t, 3> size{};
    const bool ok = v.is_array() && v.size() == 3;
    for (std::size_t i = 0; ok && i < 3; ++i) {
      if (!v[i].is_number_unsigned() || v[i].get<std::uint64_t>() == 0 ||
          v[i].get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
        fail(source_, where + ".local_size[" + std::to_string(i) + "] is not a positive 32-bit integer");
      }
      size[i] = static_cast<std::uint32_t>(v[i].get<std::uint64_t>());
    }
    if (!ok) fail(source_, where + ".local_size is not an array [x, y, z]");
    return size;
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

}  // namespace

TableData load_json_text(std::string_view text, const std::string& source) {
  auto parsed = parse_capped_json(text);
  if (!parsed.error.empty()) fail(source, parsed.error);
  const nlohmann::json root = std::move(parsed.value);
  Reader r(source);
  if (!root.is_object()) fail(source, "the top level is not a JSON object");
  if (!root.contains("format") || root["format"] != "vktune-table") {
    fail(source, "not a vktune table (\"format\" is not \"vktune-table\")");
  }
  const auto& version = r.member(root, "version", "the table");
  if (!version.is_number_integer() || version.get<std::int64_t>() < kOldestVersion ||
      version.get<std::int64_t>() > kNewestVersion) {
    throw Error(Error::Kind::version, "vktune table '" + source + "' has version " + version.dump() +
                                          ", but this runtime reads versions " + std::to_string(kOldestVersion) +
                                          " to " + std::to_string(kNewestVersion) +
                                          ": export it again with a matching vktune, or update the runtime");
  }
  const bool with_contracts = version.get<std::int64_t>() >= 2;

  TableData table;
  table.source = source;
  std::map<std::int64_t, std::size_t> device_index;
  const auto& devices = r.member(root, "devices", "the table");
  if (!devices.is_array()) fail(source, "\"devices\" is not an array");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto where = "devices[" + std::to_string(i) + "]";
    const auto& d = devices[i];
    if (!d.is_object()) fail(source, where + " is not an object");
    TableDevice device;
    device.id = r.int64(d, "id", where);
    device.identity.vendor_id = r.uint32(d, "vendor_id", where);
    device.identity.device_id = r.uint32(d, "device_id", where);
    device.identity.driver_version = r.uint32(d, "driver_version", where);
    device.identity.name = r.text(d, "name", where);
    device.identity.uuid = r.optional_text(d, "device_uuid", where);
    if (!device_index.emplace(device.id, table.devices.size()).second) {
      fail(source, where + ": device id " + std::to_string(device.id) + " appears twice");
    }
    table.devices.push_back(std::move(device));
  }

  // Version 2 keeps each SPIR-V module once, by its content hash.
  std::vector<std::uint8_t> bytes;
  SpirvByHash spirv;
  if (with_contracts) {
    const auto& modules = r.member(root, "spirv", "the table");
    if (!modules.is_object()) fail(source, "\"spirv\" is not an object {hash: base64}");
    for (const auto& [hash, text] : modules.items()) {
      const auto where = "spirv[" + hash + "]";
      if (!text.is_string() || !base64_decode(text.get<std::string>(), bytes)) fail(source, where + " is not base64");
      spirv.emplace(hash, spirv_from_bytes(bytes, hash, source, where));
    }
  }

  const auto& winners = r.member(root, "winners", "the table");
  if (!winners.is_array()) fail(source, "\"winners\" is not an array");
  for (std::size_t i = 0; i < winners.size(); ++i) {
    const auto where = "winners[" + std::to_string(i) + "]";
    const auto& w = winners[i];
    if (!w.is_object()) fail(source, where + " is not an object");
    Entry e;
    const auto device = device_index.find(r.int64(w, "device", where));
    if (device == device_index.end()) fail(source, where + ".device names no entry of \"devices\"");
    e.device = device->second;
    e.kernel = r.text(w, "kernel", where);
    e.shape = r.shape(w, where);
    e.cache_mode = r.optional_text(w, "cache_mode", where);
    e.variant_hash = r.optional_text(w, "variant_hash", where);
    e.config_json = r.embedded(w, "config");
    if (with_contracts) {
      const auto stored = r.text(w, "entry_hash", where);
      if (format::entry_hash(devices[device->second], w) != stored) {
        fail(source, where + ".entry_hash: the entry does not match its hash " + stored +
                         " (a field was edited or the table is corrupt)");
      }
      e.contract = parse_contract(r.member(w, "contract", where), e.shape.size(), spirv, source, where);
    } else {
      Stage stage;
      if (!base64_decode(r.text(w, "spirv_base64", where), bytes)) fail(source, where + ".spirv_base64 is not base64");
      stage.spirv = spirv_from_bytes(bytes, r.optional_text(w, "spirv_hash", where), source, where + ".spirv_base64");
      stage.specialization = parse_specialization(w.contains("specialization") ? w["specialization"] : nlohmann::json(),
                                                  source, where + ".specialization");
      stage.local_size = r.local_size(w, where);
      stage.dispatch = parse_dispatch(r.member(w, "dispatch", where), source, where + ".dispatch");
      stage.required_subgroup_size =
          w.contains("required_subgroup_size") ? r.uint32(w, "required_subgroup_size", where) : 0;
      e.contract = legacy_contract(e.shape, std::move(stage));
    }
    e.median_ns = r.number(w, "median_ns", where);
    e.gbps = r.number(w, "gbps", where);
    e.gflops = r.number(w, "gflops", where);
    e.rel_l2_error = r.number(w, "rel_l2_error", where);
    e.updated_at = r.optional_text(w, "updated_at", where);
    check_entry(table, e, where);
    table.entries.push_back(std::move(e));
  }
  return table;
}

}  // namespace vktune::runtime::detail
