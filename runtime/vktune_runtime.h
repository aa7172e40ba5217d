/* vktune runtime, C API: the C++ library (vktune_runtime.hpp) behind an
 * opaque handle, for C and for other languages' foreign-function interfaces.
 *
 *   vktune_table* table = NULL;
 *   if (vktune_table_open("tuned.json", &table) != VKTUNE_OK) {
 *     fprintf(stderr, "%s\n", vktune_last_error());
 *   }
 *   vktune_query query = {{vendor, device, driver, name}, "matmul_q4k", shape, 3, NULL};
 *   vktune_lookup* found = NULL;
 *   if (vktune_table_lookup(table, &query, &baseline_or_NULL, &found) == VKTUNE_OK) {
 *     ... found->stages, found->stage_workgroups, found->bindings, found->push_constants,
 *         found->features, found->match_text ...
 *     vktune_lookup_free(found);
 *   }
 *   vktune_table_free(table);
 *
 * Every function that can fail returns a vktune_status; on failure
 * vktune_last_error() describes it (per thread, valid until the thread's next
 * call into this API). No function throws or aborts on bad input. The rules
 * (device levels, shape regimes, distance) are those of vktune_runtime.hpp.
 */
#ifndef VKTUNE_RUNTIME_H
#define VKTUNE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vktune_status {
  VKTUNE_OK = 0,
  VKTUNE_ERROR_IO = 1,        /* the file cannot be read */
  VKTUNE_ERROR_FORMAT = 2,    /* malformed, truncated or corrupt table */
  VKTUNE_ERROR_VERSION = 3,   /* a format or schema version this runtime does not read */
  VKTUNE_ERROR_USAGE = 4,     /* a bad argument (NULL pointer, empty shape, zero dimension) */
  VKTUNE_ERROR_NO_MATCH = 5,  /* no entry fits and no baseline was given */
  VKTUNE_ERROR_INTERNAL = 6   /* out of memory or a bug */
} vktune_status;

typedef enum vktune_match {
  VKTUNE_MATCH_DEVICE_AND_DRIVER = 0, /* same device and driver */
  VKTUNE_MATCH_DEVICE = 1,            /* same device, other driver */
  VKTUNE_MATCH_ARCHITECTURE = 2,      /* same vendor and architecture */
  VKTUNE_MATCH_VENDOR = 3,            /* vendor default */
  VKTUNE_MATCH_BASELINE = 4,          /* the caller's baseline */
  VKTUNE_MATCH_MODEL = 5              /* same model, another physical GPU (between DEVICE and ARCHITECTURE) */
} vktune_match;

typedef struct vktune_table vktune_table; /* opaque */

typedef struct vktune_device {
  uint32_t vendor_id;
  uint32_t device_id;
  uint32_t driver_version;
  const char* name; /* VkPhysicalDeviceProperties::deviceName */
  const char* uuid; /* lowercase hex of VkPhysicalDeviceIDProperties::deviceUUID; NULL or "" when unknown */
} vktune_device;

/* What the device offers (optional): an entry needing more is skipped. */
typedef struct vktune_capabilities {
  const char* const* features; /* enabled Vulkan feature members' names, e.g. "shaderFloat16", and the subgroup
                                  operations supported in compute, e.g. "subgroup_shuffle" */
  size_t feature_count;
  uint32_t max_shared_memory_bytes;
  uint32_t max_invocations;
  uint32_t min_subgroup_size, max_subgroup_size;
  int subgroup_size_control; /* 1 when the pipeline may require a subgroup size */
  uint32_t max_push_constant_bytes; /* maxPushConstantsSize; 0 = not checked */
} vktune_capabilities;

typedef enum vktune_binding_role {
  VKTUNE_BINDING_INPUT = 0,
  VKTUNE_BINDING_WEIGHTS = 1,
  VKTUNE_BINDING_OUTPUT = 2,
  VKTUNE_BINDING_SCRATCH = 3, /* allocate, zero once, never read */
  VKTUNE_BINDING_UNIFORM = 4  /* a uniform buffer holding uniform_data */
} vktune_binding_role;

/* A buffer at set 0, binding = its index, sized for the queried shape: a
 * storage buffer, or (VKTUNE_BINDING_UNIFORM) a uniform buffer. */
typedef struct vktune_binding {
  const char* name;
  vktune_binding_role role;
  uint64_t bytes;
  /* >= 0: bind the buffer (and range) of binding alias_of here too, as
   * another view of it (vktune_vulkan_launch_bind does); role and bytes are
   * the target's. -1: a buffer of its own. */
  int32_t alias_of;
  /* VKTUNE_BINDING_UNIFORM: the block's bytes for the queried shape (`bytes`
   * of them), to upload into the buffer bound here; NULL otherwise. */
  const uint8_t* uniform_data;
} vktune_binding;

typedef struct vktune_dispatch_axis {
  int32_t shape_dim; /* < 0: one workgroup along this axis */
  uint32_t divisor;  /* workgroups = ceil(shape[shape_dim] / divisor) */
  uint32_t fold;     /* > 0: at most this many workgroups; the next axis carries the rest. 0: unfolded */
} vktune_dispatch_axis;

typedef struct vktune_specialization {
  uint32_t constant_id;
  uint32_t value; /* integers as uint32, booleans as 0/1, floats as their bits */
} vktune_specialization;

/* One dispatch of a variant: the caller's baseline going in (one stage), each
 * stage of the answer coming out. */
typedef struct vktune_variant {
  const uint32_t* spirv;
  size_t spirv_words;
  const vktune_specialization* specialization;
  size_t specialization_count;
  uint32_t local_size[3];
  vktune_dispatch_axis dispatch[3];
  uint32_t required_subgroup_size; /* 0 = the device's choice */
  int require_full_subgroups;      /* 1: VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT */
} vktune_variant;

typedef struct vktune_query {
  vktune_device device;
  const char* kernel;
  const uint32_t* shape;
  size_t shape_dims;
  const char* cache_mode; /* preferred "cold"/"hot"; NULL or "" prefers "cold" */
  const vktune_capabilities* capabilities; /* NULL: not checked */
} vktune_query;

/* The answer. Every pointer in it is owned by the vktune_lookup and valid
 * until vktune_lookup_free; the table may be freed before it. */
typedef struct vktune_lookup {
  vktune_match match;
  const char* match_name; /* "device_and_driver", "device", "model", "architecture", "vendor", "baseline" */
  const char* match_text; /* one line for logs */
  int exact_shape;        /* 1 when tuned for exactly the queried shape */
  const uint32_t* tuned_shape; /* NULL and 0 for the baseline */
  size_t tuned_shape_dims;
  double shape_distance;
  vktune_variant variant;  /* the first stage (the only one of most variants) */
  uint32_t workgroups[3]; /* variant.dispatch evaluated for the queried shape */
  const vktune_variant* stages; /* every stage, in dispatch order; a barrier between them */
  const uint32_t* stage_workgroups; /* 3 per stage: x, y, z of stage i at [3*i] */
  size_t stage_count;
  const vktune_binding* bindings; /* 0 of them for entries of version-1 tables */
  size_t binding_count;
  const char* explain; /* every device level tried and what was skipped, one per line */
  const char* tuned_device_name; /* "" for the baseline */
  const char* variant_hash;      /* "" for the baseline */
  const char* config_json;       /* "" for the baseline */
  /* Every device feature the stages need enabled (Vulkan member names, e.g.
   * "shaderFloat16", "subgroupSizeControl"; vktune_runtime_vulkan.h enables
   * them) and every subgroup operation they use in compute ("subgroup_basic",
   * "_vote", "_arithmetic", "_ballot", "_shuffle", "_shuffle_relative",
   * "_clustered", "_quad": supportedOperations bits, checked, not enabled). */
  const char* const* features;
  size_t feature_count;
  /* The 32-bit words every stage gets as push constants, for the queried
   * shape: the variant's own layout (a spec file's push_constants, e.g.
   * width, height, channels, batch) evaluated, or the shape itself, one word
   * per dimension, when it has none. vktune_vulkan_launch_create pushes them. */
  const uint32_t* push_constants;
  size_t push_constant_count;
} vktune_lookup;

/* A JSON table or a vktune SQLite database (read-only), told apart by content. */
vktune_status vktune_table_open(const char* path, vktune_table** out);
/* A JSON table held in memory (length bytes, need not be NUL-terminated). */
vktune_status vktune_table_open_json_text(const char* text, size_t length, vktune_table** out);
void vktune_table_free(vktune_table* table); /* NULL is fine */

size_t vktune_table_entry_count(const vktune_table* table);
size_t vktune_table_device_count(const vktune_table* table);

/* baseline may be NULL: then a query nothing fits fails with VKTUNE_ERROR_NO_MATCH. */
vktune_status vktune_table_lookup(const vktune_table* table, const vktune_query* query,
                                  const vktune_variant* baseline, vktune_lookup** out);
void vktune_lookup_free(vktune_lookup* lookup); /* NULL is fine */

/* ceil(shape[d] / q) per axis, 1 where d < 0. */
vktune_status vktune_workgroup_counts(const vktune_dispatch_axis dispatch[3], const uint32_t* shape,
                                      size_t shape_dims, uint32_t out[3]);

/* A matmul_q6k_split winner's weight: size bytes of GGUF Q6_K blocks (up to
 * 15 bytes of padding after them) written to out (size bytes, not
 * overlapping) in the split layout, as vktune::runtime::to_q6_k_split. */
vktune_status vktune_to_q6_k_split(const uint8_t* gguf, size_t size, uint8_t* out);

/* The calling thread's last error message; "" when there was none. */
const char* vktune_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* VKTUNE_RUNTIME_H */
