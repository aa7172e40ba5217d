// The C API: every entry point catches everything and turns it into a status
// and a thread-local message.
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
  std::vector<vktune_specialization> specialization;
  std::string match_text, device_name, variant_hash, config_json;
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

vktune::runtime::Variant variant_from(const vktune_variant& v) {
  if (v.spirv == nullptr || v.spirv_words == 0) throw Error(Error::Kind::usage, "vktune: the baseline has no SPIR-V");
  if (v.specialization_count != 0 && v.specialization == nullptr) {
    throw Error(Error::Kind::usage, "vktune: the baseline's specialization pointer is NULL");
  }
  vktune::runtime::Variant out;
  out.spirv.assign(v.spirv, v.spirv + v.spirv_words);
  for (std::size_t i = 0; i < v.specialization_count; ++i) {
    out.specialization.push_back({v.specialization[i].constant_id, v.specialization[i].value});
  }
  for (int i = 0; i < 3; ++i) {
    out.local_size[i] = v.local_size[i];
    out.dispatch[i] = {v.dispatch[i].shape_dim < 0 ? -1 : static_cast<int>(v.dispatch[i].shape_dim),
                       v.dispatch[i].divisor};
  }
  out.required_subgroup_size = v.required_subgroup_size;
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
  return guarded([&] {
    vktune::runtime::Query q;
    q.device = {query->device.vendor_id, query->device.device_id, query->device.driver_version,
                query->device.name ? query->device.name : ""};
    q.kernel = query->kernel;
    if (query->shape_dims != 0) q.shape.assign(query->shape, query->shape + query->shape_dims);
    q.cache_mode = query->cache_mode ? query->cache_mode : "";
    std::optional<vktune::runtime::Variant> fallback;
    if (baseline != nullptr) fallback = variant_from(*baseline);

    auto data = std::make_unique<LookupData>();
    data->result = table->table.lookup(q, fallback);
    const auto& r = data->result;
    for (const auto& c : r.variant.specialization) data->specialization.push_back({c.id, c.value});
    data->match_text = r.match_text;
    data->device_name = r.tuned_device ? r.tuned_device->name : "";
    data->variant_hash = r.entry ? r.entry->variant_hash : "";
    data->config_json = r.entry ? r.entry->config_json : "";

    auto owner = std::make_unique<LookupOwner>();
    auto& v = owner->view;
    v.match = static_cast<vktune_match>(static_cast<int>(r.match));
    v.match_name = vktune::runtime::to_string(r.match);
    v.match_text = data->match_text.c_str();
    v.exact_shape = r.exact_shape ? 1 : 0;
    v.tuned_shape = r.tuned_shape.empty() ? nullptr : r.tuned_shape.data();
    v.tuned_shape_dims = r.tuned_shape.size();
    v.shape_distance = r.shape_distance;
    v.variant.spirv = r.variant.spirv.data();
    v.variant.spirv_words = r.variant.spirv.size();
    v.variant.specialization = data->specialization.empty() ? nullptr : data->specialization.data();
    v.variant.specialization_count = data->specialization.size();
    for (int i = 0; i < 3; ++i) {
      v.variant.local_size[i] = r.variant.local_size[i];
      v.variant.dispatch[i] = {r.variant.dispatch[i].shape_dim, r.variant.dispatch[i].divisor};
      v.workgroups[i] = r.workgroups[i];
    }
    v.variant.required_subgroup_size = r.variant.required_subgroup_size;
    v.tuned_device_name = data->device_name.c_str();
    v.variant_hash = data->variant_hash.c_str();
    v.config_json = data->config_json.c_str();
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
    for (int i = 0; i < 3; ++i) rule[i] = {dispatch[i].shape_dim < 0 ? -1 : static_cast<int>(dispatch[i].shape_dim), dispatch[i].divisor};
    const auto groups = vktune::runtime::workgroup_counts(rule, std::span<const std::uint32_t>(shape, shape_dims));
    for (int i = 0; i < 3; ++i) out[i] = groups[i];
  });
}

const char* vktune_last_error(void) { return last_error.c_str(); }

}  // extern "C"
