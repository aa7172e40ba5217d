// The C API: every entry point catches everything and turns it into a status
// and a thread-local message.
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "vktune_runtime.h"
#include "vktune_runtime.hpp"

struct vktune_table {
  vktune::runtime::Table table;
};

namespace {

using vktune::runtime::Error;

thread_local std::string last_error;

// What a vktune_lookup's pointers point into.
struct LookupData {
  vktune::runtime::LookupResult result;
  std::vector<std::vector<vktune_specialization>> specialization;  // per stage
  std::vector<vktune_variant> stages;
  std::vector<std::uint32_t> workgroups;  // 3 per stage
  std::vector<vktune_binding> bindings;
  std::vector<std::string> features;
  std::vector<const char*> feature_names;  // into features
  std::string match_text, device_name, variant_hash, config_json, explain;
};

// The public struct first in a standard-layout owner, so that the
// vktune_lookup* handed out and the owner's address are interconvertible.
struct LookupOwner {
  vktune_lookup view;
  LookupData* data;
};
static_assert(std::is_standard_layout_v<LookupOwner>);

vktune_status status_of(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::io: return VKTUNE_ERROR_IO;
    case Error::Kind::format: return VKTUNE_ERROR_FORMAT;
    case Error::Kind::version: return VKTUNE_ERROR_VERSION;
    case Error::Kind::usage: return VKTUNE_ERROR_USAGE;
    case Error::Kind::no_match: return VKTUNE_ERROR_NO_MATCH;
  }
  return VKTUNE_ERROR_INTERNAL;
}

template <class F>
vktune_status guarded(F&& f) {
  last_error.clear();
  try {
    f();
    return VKTUNE_OK;
  } catch (const Error& e) {
    last_error = e.what();
    return status_of(e.kind());
  } catch (const std::bad_alloc&) {
    last_error = "vktune: out of memory";
  } catch (const std::exception& e) {
    last_error = std::string("vktune: internal error: ") + e.what();
  } catch (...) {
    last_error = "vktune: internal error";
  }
  return VKTUNE_ERROR_INTERNAL;
}

vktune_status usage(const char* what) {
  last_error = std::string("vktune: ") + what;
  return VKTUNE_ERROR_USAGE;
}

vktune_match match_code(vktune::runtime::Match m) {
  using vktune::runtime::Match;
  switch (m) {
    case Match::device_and_driver: return VKTUNE_MATCH_DEVICE_AND_DRIVER;
    case Match::device: return VKTUNE_MATCH_DEVICE;
    case Match::model: return VKTUNE_MATCH_MODEL;
    case Match::architecture: return VKTUNE_MATCH_ARCHITECTURE;
    case Match::vendor: return VKTUNE_MATCH_VENDOR;
    case Match::baseline: break;
  }
  return VKTUNE_MATCH_BASELINE;
}

vktune::runtime::Stage variant_from(const vktune_variant& v) {
  if (v.spirv == nullptr || v.spirv_words == 0) throw Error(Error::Kind::usage, "vktune: the baseline has no SPIR-V");
  if (v.specialization_count != 0 && v.specialization == nullptr) {
    throw Error(Error::Kind::usage, "vktune: the baseline's specialization pointer is NULL");
  }
  vktune::runtime::Stage out;
  out.spirv.assign(v.spirv, v.spirv + v.spirv_words);
  for (std::size_t i = 0; i < v.specialization_count; ++i) {
    out.specialization.push_back({v.specialization[i].constant_id, v.specialization[i].value});
  }
  for (int i = 0; i < 3; ++i) {
    out.local_size[i] = v.local_size[i];
    out.dispatch[i] = {v.dispatch[i].shape_dim < 0 ? -1 : static_cast<int>(v.dispatch[i].shape_dim),
                       v.dispatch[i].divisor, v.dispatch[i].fold};
  }
  out.required_subgroup_size = v.required_subgroup_size;
  out.require_full_subgroups = v.require_full_subgroups != 0;
  return out;
}

}  // namespace

extern "C" {

vktune_status vktune_table_open(const char* path, vktune_table** out) {
  if (out == nullptr) return usage("vktune_table_open: out is NULL");
  *out = nullptr;
  if (path == nullptr) return usage("vktune_table_open: path is NULL");
  return guarded([&] { *out = new vktune_table{vktune::runtime::Table::open(path)}; });
}

vktune_status vktune_table_open_json_text(const char* text, size_t length, vktune_table** out) {
  if (out == nullptr) return usage("vktune_table_open_json_text: out is NULL");
  *out = nullptr;
  if (text == nullptr && length != 0) return usage("vktune_table_open_json_text: text is NULL");
  return guarded([&] {
    *out = new vktune_table{vktune::runtime::Table::from_json_text(std::string_view(text ? text : "", length))};
  });
}

void vktune_table_free(vktune_table* table) { delete table; }

size_t vktune_table_entry_count(const vktune_table* table) { return table ? table->table.entries().size() : 0; }
size_t vktune_table_device_count(const vktune_table* table) { return table ? table->table.devices().size() : 0; }

vktune_status vktune_table_lookup(const vktune_table* table, const vktune_query* query,
                                  const vktune_variant* baseline, vktune_lookup** out) {
  if (out == nullptr) return usage("vktune_table_lookup: out is NULL");
  *out = nullptr;
  if (table == nullptr || query == nullptr) return usage("vktune_table_lookup: table or query is NULL");
  if (query->kernel == nullptr) return usage("vktune_table_lookup: query->kernel is NULL");
  if (query->shape == nullptr && query->shape_dims != 0) return usage("vktune_table_lookup: query->shape is NULL");
  if (query->capabilities != nullptr && query->capabilities->features == nullptr &&
      query->capabilities->feature_count != 0) {
    return usage("vktune_table_lookup: query->capabilities->features is NULL");
  }
  return guarded([&] {
    vktune::runtime::Query q;
    q.device = {query->device.vendor_id, query->device.device_id, query->device.driver_version,
                query->device.name ? query->device.name : "", query->device.uuid ? query->device.uuid : ""};
    q.kernel = query->kernel;
    if (query->shape_dims != 0) q.shape.assign(query->shape, query->shape + query->shape_dims);
    q.cache_mode = query->cache_mode ? query->cache_mode : "";
    if (const auto* caps = query->capabilities) {
      q.capabilities.known = true;
      for (std::size_t i = 0; i < caps->feature_count; ++i) {
        if (caps->features[i] != nullptr) q.capabilities.features.emplace_back(caps->features[i]);
      }
      q.capabilities.max_shared_memory_bytes = caps->max_shared_memory_bytes;
      q.capabilities.max_invocations = caps->max_invocations;
      q.capabilities.min_subgroup_size = caps->min_subgroup_size;
      q.capabilities.max_subgroup_size = caps->max_subgroup_size;
      q.capabilities.max_push_constant_bytes = caps->max_push_constant_bytes;
      q.capabilities.subgroup_size_control = caps->subgroup_size_control != 0;
    }
    std::optional<vktune::runtime::Contract> fallback;
    if (baseline != nullptr) {
      fallback.emplace();
      fallback->stages.push_back(variant_from(*baseline));
    }

    auto data = std::make_unique<LookupData>();
    data->result = table->table.lookup(q, fallback);
    const auto& r = data->result;
    const auto& stages = r.contract.stages;
    data->specialization.resize(stages.size());
    for (std::size_t s = 0; s < stages.size(); ++s) {
      for (const auto& c : stages[s].specialization) data->specialization[s].push_back({c.id, c.value});
      vktune_variant v{};
      v.spirv = stages[s].spirv.data();
      v.spirv_words = stages[s].spirv.size();
      v.specialization = data->specialization[s].empty() ? nullptr : data->specialization[s].data();
      v.specialization_count = data->specialization[s].size();
      for (int i = 0; i < 3; ++i) {
        v.local_size[i] = stages[s].local_size[static_cast<std::size_t>(i)];
        const auto& axis = stages[s].dispatch[static_cast<std::size_t>(i)];
        v.dispatch[i] = {axis.shape_dim, axis.divisor, axis.fold};
      }
      v.required_subgroup_size = stages[s].required_subgroup_size;
      v.require_full_subgroups = stages[s].require_full_subgroups ? 1 : 0;
      data->stages.push_back(v);
    }
    for (const auto& groups : r.workgroups) data->workgroups.insert(data->workgroups.end(), groups.begin(), groups.end());
    for (std::size_t b = 0; b < r.contract.bindings.size(); ++b) {
      const auto& binding = r.contract.bindings[b];
      const auto& block = r.uniform_blocks[b];
      data->bindings.push_back({binding.name.c_str(), static_cast<vktune_binding_role>(static_cast<int>(binding.role)),
                                r.binding_bytes[b], binding.alias_of, block.empty() ? nullptr : block.data()});
    }
    data->features = vktune::runtime::device_features(r.contract);
    for (const auto& name : data->features) data->feature_names.push_back(name.c_str());
    data->match_text = r.match_text;
    for (const auto& line : r.explain) data->explain += line + "\n";
    data->device_name = r.tuned_device ? r.tuned_device->name : "";
    data->variant_hash = r.entry ? r.entry->variant_hash : "";
    data->config_json = r.entry ? r.entry->config_json : "";

    auto owner = std::make_unique<LookupOwner>();
    auto& v = owner->view;
    v.match = match_code(r.match);
    v.match_name = vktune::runtime::to_string(r.match);
    v.match_text = data->match_text.c_str();
    v.exact_shape = r.exact_shape ? 1 : 0;
    v.tuned_shape = r.tuned_shape.empty() ? nullptr : r.tuned_shape.data();
    v.tuned_shape_dims = r.tuned_shape.size();
    v.shape_distance = r.shape_distance;
    v.variant = data->stages.front();
    for (int i = 0; i < 3; ++i) v.workgroups[i] = r.workgroups.front()[static_cast<std::size_t>(i)];
    v.stages = data->stages.data();
    v.stage_workgroups = data->workgroups.data();
    v.stage_count = data->stages.size();
    v.bindings = data->bindings.empty() ? nullptr : data->bindings.data();
    v.binding_count = data->bindings.size();
    v.explain = data->explain.c_str();
    v.tuned_device_name = data->device_name.c_str();
    v.variant_hash = data->variant_hash.c_str();
    v.config_json = data->config_json.c_str();
    v.features = data->feature_names.empty() ? nullptr : data->feature_names.data();
    v.feature_count = data->feature_names.size();
    v.push_constants = r.push_constants.empty() ? nullptr : r.push_constants.data();
    v.push_constant_count = r.push_constants.size();
    owner->data = data.release();
    *out = &owner.release()->view;
  });
}

void vktune_lookup_free(vktune_lookup* lookup) {
  if (lookup == nullptr) return;
  auto* owner = reinterpret_cast<LookupOwner*>(lookup);
  delete owner->data;
  delete owner;
}

vktune_status vktune_workgroup_counts(const vktune_dispatch_axis dispatch[3], const uint32_t* shape,
                                      size_t shape_dims, uint32_t out[3]) {
  if (dispatch == nullptr || out == nullptr || (shape == nullptr && shape_dims != 0)) {
    return usage("vktune_workgroup_counts: NULL argument");
  }
  return guarded([&] {
    vktune::runtime::DispatchRule rule{};
    for (int i = 0; i < 3; ++i) {
      rule[i] = {dispatch[i].shape_dim < 0 ? -1 : static_cast<int>(dispatch[i].shape_dim), dispatch[i].divisor,
                 dispatch[i].fold};
    }
    const auto groups = vktune::runtime::workgroup_counts(rule, vktune::runtime::Shape(shape, shape + shape_dims));
    for (int i = 0; i < 3; ++i) out[i] = groups[i];
  });
}

vktune_status vktune_to_q6_k_split(const uint8_t* gguf, size_t size, uint8_t* out) {
  if (gguf == nullptr || out == nullptr) return usage("vktune_to_q6_k_split: NULL argument");
  return guarded([&] {
    const auto split = vktune::runtime::to_q6_k_split(gguf, size);
    std::memcpy(out, split.data(), split.size());
  });
}

const char* vktune_last_error(void) { return last_error.c_str(); }

}  // extern "C"
