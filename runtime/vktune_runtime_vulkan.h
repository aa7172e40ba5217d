/* vktune runtime, Vulkan glue for C (C99, header only): turns a lookup's
 * answer into device features to enable, pipelines, and recorded dispatches.
 * Include it after <volk.h> or <vulkan/vulkan.h>, as the application does: it
 * calls the Vulkan functions the application has (a loader's, or volk's).
 *
 *   vktune_vulkan_features enable;                  // before vkCreateDevice
 *   const char* missing = NULL;
 *   if (vktune_vulkan_features_for(physical, found->features, found->feature_count, &enable, &missing) != VK_SUCCESS)
 *     ... the device lacks `missing` ...
 *   device_info.pNext = &enable.features2;          // plus enable.extensions
 *
 *   vktune_vulkan_launch launch;                    // after
 *   if (vktune_vulkan_launch_create(device, found, shape, dims, &launch) != VK_SUCCESS)
 *     ... launch.failed names the Vulkan call ...
 *   for (b = 0; b < found->binding_count; ++b)
 *     if (found->bindings[b].alias_of < 0)  // an alias gets its target's buffer
 *       vktune_vulkan_launch_bind(&launch, b, my_buffer[b], 0);  // found->bindings[b].bytes; scratch zeroed once;
 *                                                                // uniform: holding found->bindings[b].uniform_data
 *   vktune_vulkan_launch_record(&launch, command_buffer);      // every stage, barriers between them
 *   ...
 *   vktune_vulkan_launch_destroy(&launch);
 *
 * The C++ helpers in vktune_runtime_vulkan.hpp are built on these. */
#ifndef VKTUNE_RUNTIME_VULKAN_H
#define VKTUNE_RUNTIME_VULKAN_H

#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan_core.h>

#include "vktune_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Device identity --------------------------------------------------- */

/* A physical device as a lookup's query names it (query.device =
 * id.device), with the strings it points to. */
typedef struct vktune_vulkan_identity {
  vktune_device device;
  char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
  char uuid[2 * VK_UUID_SIZE + 1]; /* lowercase hex of VkPhysicalDeviceIDProperties::deviceUUID */
} vktune_vulkan_identity;

/* Fills `id`, which must stay where it is while id->device is used. Needs a
 * Vulkan 1.1 instance. */
static inline void vktune_vulkan_identity_of(VkPhysicalDevice physical, vktune_vulkan_identity* id) {
  static const char digits[] = "0123456789abcdef";
  VkPhysicalDeviceIDProperties ids;
  VkPhysicalDeviceProperties2 properties;
  size_t i;
  memset(id, 0, sizeof *id);
  memset(&ids, 0, sizeof ids);
  ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  memset(&properties, 0, sizeof properties);
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &ids;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  memcpy(id->name, properties.properties.deviceName, sizeof id->name);
  id->name[sizeof id->name - 1] = 0;
  for (i = 0; i < VK_UUID_SIZE; ++i) {
    id->uuid[2 * i] = digits[ids.deviceUUID[i] >> 4];
    id->uuid[2 * i + 1] = digits[ids.deviceUUID[i] & 15];
  }
  id->device.vendor_id = properties.properties.vendorID;
  id->device.device_id = properties.properties.deviceID;
  id->device.driver_version = properties.properties.driverVersion;
  id->device.name = id->name;
  id->device.uuid = id->uuid;
}

/* ---- Device features -------------------------------------------------- */

/* VK_KHR_cooperative_matrix's feature structure, from the Vulkan registry,
 * for Vulkan headers older than 1.3.255 that lack it (Debian 12's). */
#define VKTUNE_VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
typedef struct vktune_vulkan_cooperative_matrix_khr_features {
  VkStructureType sType; /* 1000506000: VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR */
  void* pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
} vktune_vulkan_cooperative_matrix_khr_features;

/* The feature structures of Vulkan 1.0-1.3 (and NV and KHR cooperative
 * matrix) as one chain: pass &features2 as VkDeviceCreateInfo::pNext and enable the
 * `extensions` beside it. The chain points into the struct itself: fill it
 * in place, never copy it. */
typedef struct vktune_vulkan_features {
  VkPhysicalDeviceFeatures2 features2;
  VkPhysicalDeviceVulkan11Features vulkan11;
  VkPhysicalDeviceVulkan12Features vulkan12;
  VkPhysicalDeviceVulkan13Features vulkan13;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV cooperative_matrix_nv;
  vktune_vulkan_cooperative_matrix_khr_features cooperative_matrix_khr;
  uint32_t api_version;        /* the device's: which structures are chained */
  int has_cooperative_matrix_nv; /* the device offers VK_NV_cooperative_matrix */
  int has_cooperative_matrix_khr; /* the device offers VK_KHR_cooperative_matrix */
  const char* extensions[2];   /* device extensions the enabled features need */
  uint32_t extension_count;
} vktune_vulkan_features;

/* Zeroes `f` and chains the structures the device's API version (and
 * extensions) allow. */
static inline void vktune_vulkan_features_chain(vktune_vulkan_features* f, uint32_t api_version,
                                                int has_cooperative_matrix_nv, int has_cooperative_matrix_khr) {
  void** next;
  memset(f, 0, sizeof *f);
  f->api_version = api_version;
  f->has_cooperative_matrix_nv = has_cooperative_matrix_nv;
  f->has_cooperative_matrix_khr = has_cooperative_matrix_khr;
  f->features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  f->vulkan11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  f->vulkan12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  f->vulkan13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  f->cooperative_matrix_nv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  f->cooperative_matrix_khr.sType = (VkStructureType)1000506000;
  next = &f->features2.pNext;
  /* VkPhysicalDeviceVulkan1xFeatures may be chained only on devices of 1.x. */
  if (api_version >= VK_API_VERSION_1_2) {
    *next = &f->vulkan11;
    next = &f->vulkan11.pNext;
    *next = &f->vulkan12;
    next = &f->vulkan12.pNext;
  }
  if (api_version >= VK_API_VERSION_1_3) {
    *next = &f->vulkan13;
    next = &f->vulkan13.pNext;
  }
  if (has_cooperative_matrix_nv) {
    *next = &f->cooperative_matrix_nv;
    next = &f->cooperative_matrix_nv.pNext;
  }
  if (has_cooperative_matrix_khr) *next = &f->cooperative_matrix_khr;
}

/* The member that holds a feature, by the name vktune's contracts use (the
 * Vulkan member's name); NULL when the name is unknown or its structure is
 * not chained on this device. */
static inline VkBool32* vktune_vulkan_feature_member(vktune_vulkan_features* f, const char* name) {
  const int v12 = f->api_version >= VK_API_VERSION_1_2, v13 = f->api_version >= VK_API_VERSION_1_3;
  if (strcmp(name, "shaderFloat64") == 0) return &f->features2.features.shaderFloat64;
  if (strcmp(name, "shaderInt16") == 0) return &f->features2.features.shaderInt16;
  if (strcmp(name, "shaderInt64") == 0) return &f->features2.features.shaderInt64;
  if (strcmp(name, "storageBuffer16BitAccess") == 0) return v12 ? &f->vulkan11.storageBuffer16BitAccess : NULL;
  if (strcmp(name, "uniformAndStorageBuffer16BitAccess") == 0) {
    return v12 ? &f->vulkan11.uniformAndStorageBuffer16BitAccess : NULL;
  }
  if (strcmp(name, "shaderFloat16") == 0) return v12 ? &f->vulkan12.shaderFloat16 : NULL;
  if (strcmp(name, "shaderInt8") == 0) return v12 ? &f->vulkan12.shaderInt8 : NULL;
  if (strcmp(name, "storageBuffer8BitAccess") == 0) return v12 ? &f->vulkan12.storageBuffer8BitAccess : NULL;
  if (strcmp(name, "uniformAndStorageBuffer8BitAccess") == 0) {
    return v12 ? &f->vulkan12.uniformAndStorageBuffer8BitAccess : NULL;
  }
  if (strcmp(name, "vulkanMemoryModel") == 0) return v12 ? &f->vulkan12.vulkanMemoryModel : NULL;
  if (strcmp(name, "shaderIntegerDotProduct") == 0) return v13 ? &f->vulkan13.shaderIntegerDotProduct : NULL;
  if (strcmp(name, "subgroupSizeControl") == 0) return v13 ? &f->vulkan13.subgroupSizeControl : NULL;
  if (strcmp(name, "computeFullSubgroups") == 0) return v13 ? &f->vulkan13.computeFullSubgroups : NULL;
  if (strcmp(name, "cooperativeMatrixNV") == 0) {
    return f->has_cooperative_matrix_nv ? &f->cooperative_matrix_nv.cooperativeMatrix : NULL;
  }
  if (strcmp(name, "cooperativeMatrixKHR") == 0) {
    return f->has_cooperative_matrix_khr ? &f->cooperative_matrix_khr.cooperativeMatrix : NULL;
  }
  return NULL;
}

/* The subgroup operations by the names a lookup's features give them, with
 * their VkSubgroupFeatureFlagBits. */
#define VKTUNE_VULKAN_SUBGROUP_OPERATION_COUNT 8
static const struct vktune_vulkan_subgroup_operation_name {
  const char* name;
  VkSubgroupFeatureFlags bit;
} vktune_vulkan_subgroup_operations[VKTUNE_VULKAN_SUBGROUP_OPERATION_COUNT] = {
    {"subgroup_basic", VK_SUBGROUP_FEATURE_BASIC_BIT},
    {"subgroup_vote", VK_SUBGROUP_FEATURE_VOTE_BIT},
    {"subgroup_arithmetic", VK_SUBGROUP_FEATURE_ARITHMETIC_BIT},
    {"subgroup_ballot", VK_SUBGROUP_FEATURE_BALLOT_BIT},
    {"subgroup_shuffle", VK_SUBGROUP_FEATURE_SHUFFLE_BIT},
    {"subgroup_shuffle_relative", VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT},
    {"subgroup_clustered", VK_SUBGROUP_FEATURE_CLUSTERED_BIT},
    {"subgroup_quad", VK_SUBGROUP_FEATURE_QUAD_BIT}};

/* The bit of a "subgroup_*" name; 0 for any other name. */
static inline VkSubgroupFeatureFlags vktune_vulkan_subgroup_operation(const char* name) {
  size_t i;
  for (i = 0; i < VKTUNE_VULKAN_SUBGROUP_OPERATION_COUNT; ++i) {
    if (strcmp(name, vktune_vulkan_subgroup_operations[i].name) == 0) return vktune_vulkan_subgroup_operations[i].bit;
  }
  return 0;
}

/* The subgroup operations the device supports in compute shaders (0 when
 * its subgroups are not offered to the compute stage). */
static inline VkSubgroupFeatureFlags vktune_vulkan_compute_subgroup_operations(VkPhysicalDevice physical) {
  VkPhysicalDeviceSubgroupProperties subgroup;
  VkPhysicalDeviceProperties2 properties;
  memset(&subgroup, 0, sizeof subgroup);
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  memset(&properties, 0, sizeof properties);
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  return (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? subgroup.supportedOperations : 0;
}

/* Fills `enable` with the named features (a lookup's `features`) after
 * checking that the physical device has each ("subgroup_*" names: that its
 * compute stage supports the operation, which needs no enabling);
 * VK_ERROR_FEATURE_NOT_PRESENT with *missing naming the first it lacks (or
 * that this helper cannot enable). Needs a Vulkan 1.1 instance. */
static inline VkResult vktune_vulkan_features_for(VkPhysicalDevice physical, const char* const* names, size_t count,
                                                  vktune_vulkan_features* enable, const char** missing) {
  vktune_vulkan_features have;
  VkPhysicalDeviceProperties properties;
  VkExtensionProperties* extensions = NULL;
  uint32_t extension_count = 0, i;
  int has_cooperative_matrix_nv = 0, has_cooperative_matrix_khr = 0;
  size_t n;
  *missing = NULL;
  vkGetPhysicalDeviceProperties(physical, &properties);
  /* On the heap: a device lists a few hundred extensions of 260 bytes each. */
  if (vkEnumerateDeviceExtensionProperties(physical, NULL, &extension_count, NULL) >= 0 && extension_count > 0) {
    extensions = (VkExtensionProperties*)calloc(extension_count, sizeof *extensions);
    if (extensions == NULL ||
        vkEnumerateDeviceExtensionProperties(physical, NULL, &extension_count, extensions) < 0) {
      extension_count = 0;
    }
  }
  for (i = 0; i < extension_count; ++i) {
    if (strcmp(extensions[i].extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) has_cooperative_matrix_nv = 1;
    if (strcmp(extensions[i].extensionName, VKTUNE_VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) {
      has_cooperative_matrix_khr = 1;
    }
  }
  free(extensions);
  vktune_vulkan_features_chain(&have, properties.apiVersion, has_cooperative_matrix_nv, has_cooperative_matrix_khr);
  vktune_vulkan_features_chain(enable, properties.apiVersion, has_cooperative_matrix_nv, has_cooperative_matrix_khr);
  vkGetPhysicalDeviceFeatures2(physical, &have.features2);
  for (n = 0; n < count; ++n) {
    const VkSubgroupFeatureFlags operation = vktune_vulkan_subgroup_operation(names[n]);
    VkBool32* offered;
    if (operation != 0) {  /* a property to have, nothing to enable */
      if ((vktune_vulkan_compute_subgroup_operations(physical) & operation) == 0) {
        *missing = names[n];
        return VK_ERROR_FEATURE_NOT_PRESENT;
      }
      continue;
    }
    offered = vktune_vulkan_feature_member(&have, names[n]);
    if (offered == NULL || *offered != VK_TRUE) {
      *missing = names[n];
      return VK_ERROR_FEATURE_NOT_PRESENT;
    }
    *vktune_vulkan_feature_member(enable, names[n]) = VK_TRUE;
    if (strcmp(names[n], "cooperativeMatrixNV") == 0) {
      enable->extensions[enable->extension_count++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
    }
    if (strcmp(names[n], "cooperativeMatrixKHR") == 0) {
      enable->extensions[enable->extension_count++] = VKTUNE_VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
    }
  }
  return VK_SUCCESS;
}

/* Every feature name vktune_vulkan_feature_member knows. */
#define VKTUNE_VULKAN_FEATURE_COUNT 15
static const char* const vktune_vulkan_feature_names[VKTUNE_VULKAN_FEATURE_COUNT] = {
    "shaderFloat64", "shaderInt16", "shaderInt64", "storageBuffer16BitAccess", "uniformAndStorageBuffer16BitAccess",
    "shaderFloat16", "shaderInt8", "storageBuffer8BitAccess", "uniformAndStorageBuffer8BitAccess",
    "vulkanMemoryModel", "shaderIntegerDotProduct", "subgroupSizeControl", "computeFullSubgroups",
    "cooperativeMatrixNV", "cooperativeMatrixKHR"};

/* What a physical device offers, as a lookup's query takes it
 * (query.capabilities = &caps.capabilities): the features it can enable, its
 * compute shared memory and invocation limits, its subgroup size range. */
typedef struct vktune_vulkan_capabilities {
  vktune_capabilities capabilities;
  const char* names[VKTUNE_VULKAN_FEATURE_COUNT + VKTUNE_VULKAN_SUBGROUP_OPERATION_COUNT]; /* capabilities.features */
} vktune_vulkan_capabilities;

static inline void vktune_vulkan_capabilities_of(VkPhysicalDevice physical, vktune_vulkan_capabilities* out) {
  vktune_vulkan_features offered;
  const char* none = NULL;
  VkPhysicalDeviceVulkan13Properties v13;
  VkPhysicalDeviceProperties2 properties;
  VkSubgroupFeatureFlags supported;
  size_t i;
  memset(out, 0, sizeof *out);
  /* vktune_vulkan_features_for with no names: the chain of what the device has. */
  vktune_vulkan_features_for(physical, NULL, 0, &offered, &none);
  vkGetPhysicalDeviceFeatures2(physical, &offered.features2);
  memset(&v13, 0, sizeof v13);
  v13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES;
  memset(&properties, 0, sizeof properties);
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  if (offered.api_version >= VK_API_VERSION_1_3) properties.pNext = &v13;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  for (i = 0; i < VKTUNE_VULKAN_FEATURE_COUNT; ++i) {
    const VkBool32* member = vktune_vulkan_feature_member(&offered, vktune_vulkan_feature_names[i]);
    if (member != NULL && *member == VK_TRUE) out->names[out->capabilities.feature_count++] = vktune_vulkan_feature_names[i];
  }
  supported = vktune_vulkan_compute_subgroup_operations(physical);
  for (i = 0; i < VKTUNE_VULKAN_SUBGROUP_OPERATION_COUNT; ++i) {
    if (supported & vktune_vulkan_subgroup_operations[i].bit) {
      out->names[out->capabilities.feature_count++] = vktune_vulkan_subgroup_operations[i].name;
    }
  }
  out->capabilities.features = out->names;
  out->capabilities.max_shared_memory_bytes = properties.properties.limits.maxComputeSharedMemorySize;
  out->capabilities.max_invocations = properties.properties.limits.maxComputeWorkGroupInvocations;
  out->capabilities.min_subgroup_size = v13.minSubgroupSize;
  out->capabilities.max_subgroup_size = v13.maxSubgroupSize;
  out->capabilities.max_push_constant_bytes = properties.properties.limits.maxPushConstantsSize;
  out->capabilities.subgroup_size_control =
      offered.vulkan13.subgroupSizeControl == VK_TRUE && (v13.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
}

/* ---- Launching a variant ---------------------------------------------- */

#define VKTUNE_VULKAN_MAX_STAGES 8
#define VKTUNE_VULKAN_MAX_BINDINGS 16
/* Push-constant words: 256 bytes, the largest maxPushConstantsSize common
 * devices offer (128 is all Vulkan guarantees: a lookup given the device's
 * capabilities skips an entry that pushes more than it takes). */
#define VKTUNE_VULKAN_MAX_DIMS 64

/* A variant made runnable on one VkDevice: a shader module and pipeline per
 * stage, one descriptor set layout (every binding a storage buffer at set 0),
 * a pipeline layout with one push-constant range of the variant's words (its
 * own layout, or the shape: one uint32 per dimension), and a descriptor set. */
typedef struct vktune_vulkan_launch {
  VkDevice device;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkDescriptorPool pool;
  VkDescriptorSet set;
  size_t stage_count;
  VkShaderModule modules[VKTUNE_VULKAN_MAX_STAGES];
  VkPipeline pipelines[VKTUNE_VULKAN_MAX_STAGES];
  uint32_t workgroups[VKTUNE_VULKAN_MAX_STAGES][3];
  uint32_t shape[VKTUNE_VULKAN_MAX_DIMS]; /* the push-constant words (the shape, by the convention) */
  uint32_t shape_dims;                    /* how many */
  uint32_t binding_count;
  VkDescriptorType types[VKTUNE_VULKAN_MAX_BINDINGS]; /* storage, or uniform for a uniform block */
  VkDeviceSize ranges[VKTUNE_VULKAN_MAX_BINDINGS];    /* a uniform block's bytes; VK_WHOLE_SIZE otherwise */
  int32_t alias_of[VKTUNE_VULKAN_MAX_BINDINGS];       /* >= 0: binding this one's buffer is taken from */
  const char* failed; /* after a failed create: the Vulkan call (or limit) that failed */
} vktune_vulkan_launch;

/* Destroys what the launch holds (NULL handles are skipped); idempotent. */
static inline void vktune_vulkan_launch_destroy(vktune_vulkan_launch* launch) {
  size_t s;
  if (launch->device == VK_NULL_HANDLE) return;
  for (s = 0; s < VKTUNE_VULKAN_MAX_STAGES; ++s) {
    if (launch->pipelines[s] != VK_NULL_HANDLE) vkDestroyPipeline(launch->device, launch->pipelines[s], NULL);
    if (launch->modules[s] != VK_NULL_HANDLE) vkDestroyShaderModule(launch->device, launch->modules[s], NULL);
  }
  if (launch->pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(launch->device, launch->pool, NULL);
  if (launch->layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(launch->device, launch->layout, NULL);
  if (launch->set_layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(launch->device, launch->set_layout, NULL);
  memset(launch, 0, sizeof *launch);
}

static inline VkResult vktune_vulkan_launch_fail_(vktune_vulkan_launch* launch, VkResult result, const char* what) {
  vktune_vulkan_launch_destroy(launch);
  launch->failed = what;
  return result;
}

/* Builds the stages with `binding_count` bindings, pushing `words`
 * (push_word_count of them: a lookup's push_constants, or the shape for a
 * variant without a layout of its own). `binding_info` (binding_count of
 * them, or NULL: every binding a storage buffer of its own) gives each
 * binding's role (VKTUNE_BINDING_UNIFORM: a uniform buffer of `bytes`) and
 * alias. stage_workgroups holds 3 counts per stage. On failure everything
 * made is destroyed and launch->failed names the call. */
static inline VkResult vktune_vulkan_launch_create_stages(VkDevice device, const vktune_variant* stages,
                                                          const uint32_t* stage_workgroups, size_t stage_count,
                                                          uint32_t binding_count, const vktune_binding* binding_info,
                                                          const uint32_t* words, size_t push_word_count,
                                                          vktune_vulkan_launch* launch) {
  VkDescriptorSetLayoutBinding bindings[VKTUNE_VULKAN_MAX_BINDINGS];
  VkDescriptorSetLayoutCreateInfo set_info;
  VkPushConstantRange push;
  VkPipelineLayoutCreateInfo layout_info;
  VkDescriptorPoolSize pool_sizes[2];
  uint32_t uniforms = 0;
  VkDescriptorPoolCreateInfo pool_info;
  VkDescriptorSetAllocateInfo alloc;
  VkResult r;
  size_t s;
  uint32_t b;
  memset(launch, 0, sizeof *launch);
  if (stage_count == 0 || stage_count > VKTUNE_VULKAN_MAX_STAGES) {
    return vktune_vulkan_launch_fail_(launch, VK_ERROR_INITIALIZATION_FAILED, "stage count (0 or over the limit)");
  }
  if (binding_count > VKTUNE_VULKAN_MAX_BINDINGS) {
    return vktune_vulkan_launch_fail_(launch, VK_ERROR_INITIALIZATION_FAILED, "binding count (over the limit)");
  }
  if (push_word_count == 0 || push_word_count > VKTUNE_VULKAN_MAX_DIMS) {
    return vktune_vulkan_launch_fail_(launch, VK_ERROR_INITIALIZATION_FAILED, "push-constant words (0 or over 64)");
  }
  launch->device = device;
  launch->stage_count = stage_count;
  launch->binding_count = binding_count;
  launch->shape_dims = (uint32_t)push_word_count;
  memcpy(launch->shape, words, push_word_count * sizeof *words);
  memcpy(launch->workgroups, stage_workgroups, stage_count * 3 * sizeof *stage_workgroups);

  memset(bindings, 0, sizeof bindings);
  for (b = 0; b < binding_count; ++b) {
    const int uniform = binding_info != NULL && binding_info[b].role == VKTUNE_BINDING_UNIFORM;
    launch->types[b] = uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    launch->ranges[b] = uniform ? binding_info[b].bytes : VK_WHOLE_SIZE;
    launch->alias_of[b] = binding_info != NULL ? binding_info[b].alias_of : -1;
    if (launch->alias_of[b] >= (int32_t)binding_count) {
      return vktune_vulkan_launch_fail_(launch, VK_ERROR_INITIALIZATION_FAILED, "binding alias (past the bindings)");
    }
    uniforms += uniform ? 1u : 0u;
    bindings[b].binding = b;
    bindings[b].descriptorType = launch->types[b];
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  memset(&set_info, 0, sizeof set_info);
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = binding_count;
  set_info.pBindings = bindings;
  r = vkCreateDescriptorSetLayout(device, &set_info, NULL, &launch->set_layout);
  if (r != VK_SUCCESS) return vktune_vulkan_launch_fail_(launch, r, "vkCreateDescriptorSetLayout");

  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.offset = 0;
  push.size = (uint32_t)(push_word_count * sizeof(uint32_t));
  memset(&layout_info, 0, sizeof layout_info);
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &launch->set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  r = vkCreatePipelineLayout(device, &layout_info, NULL, &launch->layout);
  if (r != VK_SUCCESS) return vktune_vulkan_launch_fail_(launch, r, "vkCreatePipelineLayout");

  pool_sizes[0].type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  pool_sizes[0].descriptorCount = binding_count > uniforms ? binding_count - uniforms : 1;
  pool_sizes[1].type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  pool_sizes[1].descriptorCount = uniforms;
  memset(&pool_info, 0, sizeof pool_info);
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = uniforms > 0 ? 2 : 1;
  pool_info.pPoolSizes = pool_sizes;
  r = vkCreateDescriptorPool(device, &pool_info, NULL, &launch->pool);
  if (r != VK_SUCCESS) return vktune_vulkan_launch_fail_(launch, r, "vkCreateDescriptorPool");
  memset(&alloc, 0, sizeof alloc);
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = launch->pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &launch->set_layout;
  r = vkAllocateDescriptorSets(device, &alloc, &launch->set);
  if (r != VK_SUCCESS) return vktune_vulkan_launch_fail_(launch, r, "vkAllocateDescriptorSets");

  for (s = 0; s < stage_count; ++s) {
    const vktune_variant* stage = &stages[s];
    VkShaderModuleCreateInfo module_info;
    VkSpecializationMapEntry entries[64];
    uint32_t values[64];
    VkSpecializationInfo specialization;
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup;
    VkComputePipelineCreateInfo pipeline_info;
    size_t c;
    if (stage->specialization_count > 64) {
      return vktune_vulkan_launch_fail_(launch, VK_ERROR_INITIALIZATION_FAILED, "specialization count (over 64)");
    }
    memset(&module_info, 0, sizeof module_info);
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = stage->spirv_words * sizeof(uint32_t);
    module_info.pCode = stage->spirv;
    r = vkCreateShaderModule(device, &module_info, NULL, &launch->modules[s]);
    if (r != VK_SUCCESS) return vktune_vulkan_launch_fail_(launch, r, "vkCreateShaderModule");
    for (c = 0; c < stage->specialization_count; ++c) {
      entries[c].constantID = stage->specialization[c].constant_id;
      entries[c].offset = (uint32_t)(c * sizeof(uint32_t));
      entries[c].size = sizeof(uint32_t);
      values[c] = stage->specialization[c].value;
    }
    specialization.mapEntryCount = (uint32_t)stage->specialization_count;
    specialization.pMapEntries = entries;
    specialization.dataSize = stage->specialization_count * sizeof(uint32_t);
    specialization.pData = values;
    memset(&subgroup, 0, sizeof subgroup);
    subgroup.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO;
    subgroup.requiredSubgroupSize = stage->required_subgroup_size;
    memset(&pipeline_info, 0, sizeof pipeline_info);
    pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline_info.stage.pNext = stage->required_subgroup_size != 0 ? &subgroup : NULL;
    pipeline_info.stage.flags =
        stage->require_full_subgroups ? VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT : 0;
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = launch->modules[s];
    pipeline_info.stage.pName = "main";
    pipeline_info.stage.pSpecializationInfo = stage->specialization_count != 0 ? &specialization : NULL;
    pipeline_info.layout = launch->layout;
    r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &launch->pipelines[s]);
    if (r != VK_SUCCESS) return vktune_vulkan_launch_fail_(launch, r, "vkCreateComputePipelines");
  }
  return VK_SUCCESS;
}

/* The launch of a lookup's answer for `shape` (the queried shape): it
 * pushes found->push_constants (the variant's own words, or the shape), the
 * shape only when the answer has none. A uniform binding is a uniform
 * buffer (the caller uploads found->bindings[b].uniform_data into the buffer
 * it binds there); an alias binding takes its target's buffer. Entries of
 * version-1 tables list no bindings: they get VKTUNE_VULKAN_MAX_BINDINGS,
 * and the caller binds what its kernel uses. */
static inline VkResult vktune_vulkan_launch_create(VkDevice device, const vktune_lookup* found, const uint32_t* shape,
                                                   size_t shape_dims, vktune_vulkan_launch* launch) {
  const uint32_t bindings = found->binding_count != 0 ? (uint32_t)found->binding_count : VKTUNE_VULKAN_MAX_BINDINGS;
  const int own = found->push_constant_count != 0;
  return vktune_vulkan_launch_create_stages(device, found->stages, found->stage_workgroups, found->stage_count,
                                            bindings, found->binding_count != 0 ? found->bindings : NULL,
                                            own ? found->push_constants : shape,
                                            own ? found->push_constant_count : shape_dims, launch);
}

/* Points binding `index` at `buffer` from `offset` to its end (a uniform
 * binding: its block's bytes from `offset`), and every binding that aliases
 * `index` at the same buffer and range. */
static inline void vktune_vulkan_launch_bind(vktune_vulkan_launch* launch, uint32_t index, VkBuffer buffer,
                                             VkDeviceSize offset) {
  VkDescriptorBufferInfo infos[VKTUNE_VULKAN_MAX_BINDINGS];
  VkWriteDescriptorSet writes[VKTUNE_VULKAN_MAX_BINDINGS];
  uint32_t b, count = 0;
  if (index >= launch->binding_count) return;
  for (b = 0; b < launch->binding_count; ++b) {
    if (b != index && launch->alias_of[b] != (int32_t)index) continue;
    infos[count].buffer = buffer;
    infos[count].offset = offset;
    infos[count].range = launch->ranges[index];
    memset(&writes[count], 0, sizeof writes[count]);
    writes[count].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[count].dstSet = launch->set;
    writes[count].dstBinding = b;
    writes[count].descriptorCount = 1;
    writes[count].descriptorType = launch->types[b];
    writes[count].pBufferInfo = &infos[count];
    ++count;
  }
  vkUpdateDescriptorSets(launch->device, count, writes, 0, NULL);
}

/* Records every stage into `commands`, a compute-to-compute barrier between
 * them. The caller orders the launch against its own work. */
static inline void vktune_vulkan_launch_record(const vktune_vulkan_launch* launch, VkCommandBuffer commands) {
  size_t s;
  vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, launch->layout, 0, 1, &launch->set, 0, NULL);
  vkCmdPushConstants(commands, launch->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                     launch->shape_dims * (uint32_t)sizeof(uint32_t), launch->shape);
  for (s = 0; s < launch->stage_count; ++s) {
    if (s > 0) {
      VkMemoryBarrier barrier;
      memset(&barrier, 0, sizeof barrier);
      barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
      barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                           &barrier, 0, NULL, 0, NULL);
    }
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, launch->pipelines[s]);
    vkCmdDispatch(commands, launch->workgroups[s][0], launch->workgroups[s][1], launch->workgroups[s][2]);
  }
}

#ifdef __cplusplus
}
#endif

#endif /* VKTUNE_RUNTIME_VULKAN_H */
