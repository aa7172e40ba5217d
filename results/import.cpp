#include "results/import.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "results/capped_json.hpp"
#include "results/export.hpp"
#include "results/import_fields.hpp"
#include "results/spirv_bytes.hpp"

namespace vktune::results {
namespace {

using nlohmann::json;

// Reads typed fields, throwing one-line Error(format) messages that say
// where in the table the problem is.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw Error(ErrorKind::format, "table '" + source_ + "': " + where + (where.empty() ? "" : ": ") + why);
  }

  const json& field(const json& object, const char* key, const std::string& where) const {
    if (!object.contains(key)) fail(where, std::string("missing field '") + key + "'");
    return object[key];
  }

  std::string text(const json& object, const char* key, const std::string& where, bool required = true) const {
    if (!required && !object.contains(key)) return "";
    const auto& value = field(object, key, where);
    if (!value.is_string()) fail(where, std::string("field '") + key + "' must be a string");
    return value.get<std::string>();
  }

  std::uint32_t uint32_value(const json& value, const std::string& what, const std::string& where) const {
    if (!value.is_number_unsigned() || value.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
      fail(where, what + " must be an unsigned 32-bit integer");
    }
    return value.get<std::uint32_t>();
  }

  std::uint32_t uint32(const json& object, const char* key, const std::string& where) const {
    return uint32_value(field(object, key, where), std::string("field '") + key + "'", where);
  }

  std::int64_t integer(const json& object, const char* key, const std::string& where) const {
    const auto& value = field(object, key, where);
    if (!value.is_number_integer()) fail(where, std::string("field '") + key + "' must be an integer");
    return value.get<std::int64_t>();
  }

  // Fails unless check(text) finds nothing wrong with the field's form.
  void form(const std::string& where, const std::string& field, const std::string& problem) const {
    if (!problem.empty()) fail(where, "field '" + field + "' " + problem);
  }

  // A string field that must have a form (import_fields.hpp).
  std::string checked(const json& object, const char* key, const std::string& where,
                      std::string (*check)(std::string_view), bool required = true) const {
    auto value = text(object, key, where, required);
    form(where, key, check(value));
    return value;
  }

  double number(const json& object, const char* key, const std::string& where) const {
    if (!object.contains(key)) return 0;
    const auto& value = object[key];
    if (!value.is_number()) fail(where, std::string("field '") + key + "' must be a number");
    return value.get<double>();
  }

 private:
  const std::string& source_;
};

std::string optional_hash_problem(std::string_view text) { return text.empty() ? std::string() : hash_problem(text); }

// The inverse of the exporter's embedded JSON: null -> "", a string stays
// text, anything else is its compact JSON text (sorted keys, as stored).
std::string embedded_text(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

TableDevice read_device(const Reader& r, const json& d, std::size_t index) {
  const std::string where = "devices[" + std::to_string(index) + "]";
  if (!d.is_object()) r.fail(where, "must be an object");
  TableDevice device;
  device.id = r.integer(d, "id", where);
  auto& identity = device.identity;
  identity.vendor_id = r.uint32(d, "vendor_id", where);
  identity.device_id = r.uint32(d, "device_id", where);
  identity.driver_version = r.uint32(d, "driver_version", where);
  identity.name = r.checked(d, "name", where, text_problem);
  identity.driver_name = r.checked(d, "driver_name", where, text_problem, false);
  identity.driver_version_text = r.checked(d, "driver_version_text", where, text_problem, false);
  identity.device_uuid = r.checked(d, "device_uuid", where, uuid_problem, false);
  identity.api_version_text = r.checked(d, "api_version_text", where, text_problem, false);
  if (d.contains("ceilings")) {
    const auto& ceilings = d["ceilings"];
    if (!ceilings.is_object()) r.fail(where, "field 'ceilings' must be an object");
    for (const auto& [name, c] : ceilings.items()) {
      if (const auto problem = text_problem(name); !problem.empty()) r.fail(where + ".ceilings", "a name " + problem);
      const std::string at = where + ".ceilings." + name;
      if (!c.is_object()) r.fail(at, "must be an object with 'value' and 'unit'");
      if (!r.field(c, "value", at).is_number()) r.fail(at, "field 'value' must be a number");
      device.ceilings.push_back(Ceiling{name, c["value"].get<double>(), r.checked(c, "unit", at, text_problem), ""});
    }
  }
  return device;
}

// A version-2 winner's launch facts: its contract (kept as JSON text), and
// its first stage in the store's launch columns, every stage's SPIR-V from
// the table's "spirv" object. The entry must match its entry_hash.
void read_contract(const Reader& r, const json& row, const json& device, const json& modules, const std::string& where,
                   Winner& w) {
  const auto stored = r.text(row, "entry_hash", where);
  if (table_entry_hash(device, row) != stored) {
    r.fail(where + ".entry_hash", "the entry does not match its hash " + stored + " (a field was edited or the table is corrupt)");
  }
  const auto& contract = r.field(row, "contract", where);
  if (!contract.is_object()) r.fail(where + ".contract", "must be an object");
  const auto& stages = r.field(contract, "stages", where + ".contract");
  if (!stages.is_array() || stages.empty()) r.fail(where + ".contract.stages", "must be a non-empty array");
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const auto at = where + ".contract.stages[" + std::to_string(s) + "]";
    if (!stages[s].is_object()) r.fail(at, "must be an object");
    const auto hash = r.checked(stages[s], "spirv_hash", at, hash_problem);
    if (!modules.contains(hash) || !modules[hash].is_string()) r.fail(at + ".spirv_hash", "names no SPIR-V of the table");
    std::vector<std::uint32_t> words;
    try {
      words = spirv_from_base64(modules[hash].get<std::string>());
    } catch (const Error& e) {
      r.fail("spirv[" + hash + "]", e.what());
    }
    if (s == 0) {
      w.spirv_hash = hash;
      w.spirv = std::move(words);
      const auto& local_size = r.field(stages[s], "local_size", at);
      if (!local_size.is_array() || local_size.size() != 3) r.fail(at, "field 'local_size' must be an array of 3 integers");
      for (std::size_t i = 0; i < 3; ++i) w.local_size[i] = r.uint32_value(local_size[i], "each of 'local_size'", at);
      const auto& dispatch = r.field(stages[s], "dispatch", at);
      if (!dispatch.is_array() || dispatch.size() != 3) r.fail(at, "field 'dispatch' must be an array of 3 axes");
      w.dispatch_json = dispatch.dump();
      w.required_subgroup_size = r.uint32(stages[s], "required_subgroup_size", at);
      w.specialization_json = stages[s].contains("specialization") ? embedded_text(stages[s]["specialization"]) : "{}";
    } else {
      w.later_stage_spirv.push_back(std::move(words));
    }
  }
  w.contract_json = contract.dump();
}

TableWinner read_winner(const Reader& r, const json& row, std::size_t index, const json* device, const json* modules) {
  const std::string where = "winners[" + std::to_string(index) + "]";
  if (!row.is_object()) r.fail(where, "must be an object");
  TableWinner t;
  t.device = r.integer(row, "device", where);
  auto& w = t.winner;
  w.kernel = r.text(row, "kernel", where);
  w.shape = r.text(row, "shape", where);
  w.cache_mode = r.text(row, "cache_mode", where);
  w.variant_hash = r.text(row, "variant_hash", where);
  for (const auto* value : {&w.kernel, &w.shape, &w.cache_mode, &w.variant_hash}) {
    if (value->empty()) r.fail(where, "kernel, shape, cache_mode and variant_hash must not be empty");
  }
  r.form(where, "kernel", kernel_name_problem(w.kernel));
  r.form(where, "shape", shape_problem(w.shape));
  r.form(where, "cache_mode", cache_mode_problem(w.cache_mode));
  r.form(where, "variant_hash", hash_problem(w.variant_hash));
  w.config_json = embedded_text(r.field(row, "config", where));
  if (modules != nullptr) {
    if (device == nullptr) r.fail(where, "device " + std::to_string(t.device) + " is not in 'devices'");
    read_contract(r, row, *device, *modules, where, w);
  } else {
    w.spirv_hash = r.checked(row, "spirv_hash", where, optional_hash_problem, false);
    try {
      w.spirv = spirv_from_base64(r.text(row, "spirv_base64", where));
    } catch (const Error& e) {
      r.fail(where, e.what());
    }
    if (w.spirv.empty()) r.fail(where, "field 'spirv_base64' is empty");
    // Recomputed, never trusted: the store keys SPIR-V by it.
    if (!w.spirv_hash.empty() && w.spirv_hash != spirv_content_hash(w.spirv)) {
      r.fail(where + ".spirv_hash", "the SPIR-V does not match its hash " + w.spirv_hash);
    }
    w.specialization_json = row.contains("specialization") ? embedded_text(row["specialization"]) : "";
    const auto& local_size = r.field(row, "local_size", where);
    if (!local_size.is_array() || local_size.size() != 3) r.fail(where, "field 'local_size' must be an array of 3 integers");
    for (std::size_t i = 0; i < 3; ++i) w.local_size[i] = r.uint32_value(local_size[i], "each of 'local_size'", where);
    w.dispatch_json = embedded_text(r.field(row, "dispatch", where));
    w.required_subgroup_size = row.contains("required_subgroup_size") ? r.uint32(row, "required_subgroup_size", where) : 0;
  }
  w.median_ns = r.number(row, "median_ns", where);
  w.gbps = r.number(row, "gbps", where);
  w.gflops = r.number(row, "gflops", where);
  w.rel_l2_error = r.number(row, "rel_l2_error", where);
  w.baseline_variant_hash = r.checked(row, "baseline_variant_hash", where, optional_hash_problem, false);
  w.baseline_median_ns = r.number(row, "baseline_median_ns", where);
  w.updated_at = r.checked(row, "updated_at", where, timestamp_problem, false);
  t.variant = VariantRecord{w.variant_hash,
                            w.kernel,
                            r.checked(row, "template_name", where, text_problem, false),
                            w.config_json,
                            r.checked(row, "template_hash", where, optional_hash_problem, false),
                            r.checked(row, "compiler_version", where, text_problem, false)};
  return t;
}

}  // namespace

std::string describe(const ImportConflict& c) {
  return "conflict: " + c.device.name + " " + c.kernel + " " + c.shape + " (" + c.cache_mode + "): stored " +
         c.stored_variant + " (" + (c.stored_updated_at.empty() ? "no time" : c.stored_updated_at) + ") vs imported " +
         c.imported_variant + " (" + (c.imported_updated_at.empty() ? "no time" : c.imported_updated_at) +
         "): kept the " + (c.imported_won ? "imported" : "stored") + " one";
}

ImportReport import_table_text(Store& store, std::string_view text, const std::string& source) {
  return import_table(store, read_table_text(text, source));
}

TableContents read_table_text(std::string_view text, const std::string& source) {
  auto parsed = parse_capped_json(text);
  if (!parsed.error.empty()) throw Error(ErrorKind::format, "table '" + source + "': " + parsed.error);
  return read_table(parsed.value, source);
}

TableContents read_table(const json& table, const std::string& source) {
  const Reader r(source);
  // Check everything first: nothing is written for a table with a problem.
  if (!table.is_object() || !table.contains("format") || table["format"] != table_format_name) {
    r.fail("", "not a " + std::string(table_format_name) + " document (its \"format\" must be \"" +
                   std::string(table_format_name) + "\")");
  }
  const auto& version = r.field(table, "version", "");
  if (!version.is_number_integer() || version.get<std::int64_t>() < oldest_table_format_version ||
      version.get<std::int64_t>() > table_format_version) {
    r.fail("", "format version " + version.dump() + " is not one this vktune reads (" +
                   std::to_string(oldest_table_format_version) + " to " + std::to_string(table_format_version) + ")");
  }
  const json* modules = nullptr;
  if (version.get<std::int64_t>() >= 2) {
    modules = &r.field(table, "spirv", "");
    if (!modules->is_object()) r.fail("", "'spirv' must be an object {hash: base64}");
    // Every module's key is recomputed from its words: the store keys SPIR-V
    // by it, and a key naming other words would replace another winner's code.
    for (const auto& [hash, text] : modules->items()) {
      if (!hash_problem(hash).empty()) r.fail("spirv", "a key is not 16 lower-case hex digits: " + json(hash).dump());
      if (!text.is_string()) r.fail("spirv[" + hash + "]", "must be a base64 string");
      std::vector<std::uint32_t> words;
      try {
        words = spirv_from_base64(text.get<std::string>());
      } catch (const Error& e) {
        r.fail("spirv[" + hash + "]", e.what());
      }
      if (spirv_content_hash(words) != hash) r.fail("spirv[" + hash + "]", "the SPIR-V does not match its hash");
    }
  }
  const auto& device_rows = r.field(table, "devices", "");
  const auto& winner_rows = r.field(table, "winners", "");
  if (!device_rows.is_array() || !winner_rows.is_array()) r.fail("", "'devices' and 'winners' must be arrays");

  std::vector<TableDevice> devices;
  std::map<std::int64_t, std::size_t> device_index;
  for (std::size_t i = 0; i < device_rows.size(); ++i) {
    devices.push_back(read_device(r, device_rows[i], i));
    if (!device_index.emplace(devices.back().id, i).second) {
      r.fail("devices[" + std::to_string(i) + "]", "id " + std::to_string(devices.back().id) + " appears twice");
    }
  }
  std::vector<TableWinner> winners;
  std::set<std::tuple<std::int64_t, std::string, std::string, std::string>> keys;
  for (std::size_t i = 0; i < winner_rows.size(); ++i) {
    const json* device = nullptr;
    if (winner_rows[i].is_object() && winner_rows[i].contains("device") && winner_rows[i]["device"].is_number_integer()) {
      const auto found = device_index.find(winner_rows[i]["device"].get<std::int64_t>());
      if (found != device_index.end()) device = &device_rows[found->second];
    }
    winners.push_back(read_winner(r, winner_rows[i], i, device, modules));
    const auto& t = winners.back();
    const std::string where = "winners[" + std::to_string(i) + "]";
    if (!device_index.contains(t.device)) r.fail(where, "device " + std::to_string(t.device) + " is not in 'devices'");
    if (!keys.emplace(t.device, t.winner.kernel, t.winner.shape, t.winner.cache_mode).second) {
      r.fail(where, "a second winner for " + t.winner.kernel + " " + t.winner.shape + " (" + t.winner.cache_mode + ")");
    }
  }

  return TableContents{std::move(devices), std::move(winners)};
}

ImportReport import_table(Store& store, const json& table, const std::string& source) {
  return import_table(store, read_table(table, source));
}

namespace {

// Among the GPUs of `device`'s model, keeps only the newest winner of the key;
// returns how many were removed.
std::size_t keep_newest_of_model(Store& store, const DeviceIdentity& device, const Winner& key) {
  std::vector<std::pair<std::int64_t, std::string>> found;  // device row, updated_at
  for (const auto& [row, identity] : store.devices()) {
    if (identity.vendor_id != device.vendor_id || identity.device_id != device.device_id) continue;
    if (const auto w = store.find_winner(row, key.kernel, key.shape, key.cache_mode)) found.emplace_back(row, w->updated_at);
  }
  if (found.size() < 2) return 0;
  const auto newest = std::max_element(found.begin(), found.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
  std::size_t removed = 0;
  for (const auto& [row, updated_at] : found) {
    if (row != newest->first && store.remove_winner(row, key.kernel, key.shape, key.cache_mode)) ++removed;
  }
  return removed;
}

}  // namespace

ImportReport import_table(Store& store, TableContents table, const ImportOptions& options) {
  auto& devices = table.devices;
  auto& winners = table.winners;
  std::map<std::int64_t, std::size_t> device_index;
  for (std::size_t i = 0; i < devices.size(); ++i) device_index[devices[i].id] = i;
  ImportReport report;
  report.devices = devices.size();
  store.transaction([&] {
    std::map<std::int64_t, std::int64_t> rows;  // table id -> store row id
    for (const auto& d : devices) {
      const auto row = store.upsert_device(d.identity);
      rows[d.id] = row;
      for (const auto& c : d.ceilings) {
        if (!store.ceiling(row, c.name)) store.put_ceiling(row, c.name, c.value, c.unit);
      }
    }
    for (auto& t : winners) {
      auto& w = t.winner;
      w.device_id = rows.at(t.device);
      if (!store.find_variant(w.variant_hash)) store.upsert_variant(t.variant);
      const auto stored = store.find_winner(w.device_id, w.kernel, w.shape, w.cache_mode);
      const bool newer = !stored || w.updated_at > stored->updated_at;
      if (stored && stored->variant_hash != w.variant_hash) {
        report.conflicts.push_back(ImportConflict{devices[device_index.at(t.device)].identity, w.kernel, w.shape,
                                                  w.cache_mode, stored->variant_hash, stored->updated_at,
                                                  w.variant_hash, w.updated_at, newer});
      }
      if (!newer) {
        ++report.winners_kept;
        continue;
      }
      ++(stored ? report.winners_replaced : report.winners_added);
      store.set_winner(w);
    }
    if (options.newest_per_model) {
      for (const auto& t : winners) {
        report.winners_superseded +=
            keep_newest_of_model(store, devices[device_index.at(t.device)].identity, t.winner);
      }
    }
  });
  return report;
}

}  // namespace vktune::results
