/* The installed C API from C99: open the table named on the command line,
 * look up matmul_q4k as the H200 it was tuned on, check the answer and that
 * the Vulkan glue header (C99 too) knows every feature the answer needs.
 * Exit 0 when every check passes, else 1 with the failed check on stderr. */
#include <stdio.h>
#include <string.h>

#include <vktune/vktune_runtime.h>
#include <vktune/vktune_runtime_vulkan.h>

#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "consumer.c:%d: %s failed\n", __LINE__, #cond); \
      return 1;                                                     \
    }                                                               \
  } while (0)

int main(int argc, char** argv) {
  vktune_table* table = NULL;
  vktune_lookup* found = NULL;
  vktune_query query;
  vktune_vulkan_features chain;
  size_t i;
  const uint32_t decode[3] = {1, 4096, 4096};
  const uint32_t prefill[3] = {256, 14336, 4096};

  CHECK(argc == 2);
  if (vktune_table_open(argv[1], &table) != VKTUNE_OK) {
    fprintf(stderr, "%s\n", vktune_last_error());
    return 1;
  }
  CHECK(vktune_table_entry_count(table) == 2);

  memset(&query, 0, sizeof query);
  query.device.vendor_id = 0x10de;
  query.device.device_id = 0x2335;
  query.device.driver_version = 2435301632u;
  query.device.name = "NVIDIA H200";
  query.kernel = "matmul_q4k";
  query.shape = decode;
  query.shape_dims = 3;
  CHECK(vktune_table_lookup(table, &query, NULL, &found) == VKTUNE_OK);
  CHECK(found->match == VKTUNE_MATCH_DEVICE_AND_DRIVER && found->exact_shape == 1);
  CHECK(found->variant.spirv_words > 5 && found->variant.spirv[0] == 0x07230203u);
  CHECK(found->variant.local_size[0] == 64);
  CHECK(found->workgroups[0] == 2048 && found->workgroups[1] == 1 && found->workgroups[2] == 1);
  vktune_vulkan_features_chain(&chain, VK_API_VERSION_1_3, 1, 1);
  CHECK(chain.features2.pNext == &chain.vulkan11 && chain.vulkan13.pNext == &chain.cooperative_matrix_nv &&
        chain.cooperative_matrix_nv.pNext == &chain.cooperative_matrix_khr);
  /* Every need is a feature the helper enables or a subgroup operation it checks. */
  for (i = 0; i < found->feature_count; ++i) {
    CHECK(vktune_vulkan_feature_member(&chain, found->features[i]) != NULL ||
          vktune_vulkan_subgroup_operation(found->features[i]) != 0);
  }
  vktune_lookup_free(found);

  query.shape = prefill; /* the nearest prefill entry, 512,4096,4096 */
  CHECK(vktune_table_lookup(table, &query, NULL, &found) == VKTUNE_OK);
  CHECK(found->exact_shape == 0 && found->tuned_shape[0] == 512);
  CHECK(found->workgroups[0] == 224 && found->workgroups[1] == 4 && found->workgroups[2] == 1);
  printf("ok: %s\n", found->match_text);
  vktune_lookup_free(found);
  vktune_table_free(table);

  CHECK(vktune_table_open("/nonexistent/table.json", &table) == VKTUNE_ERROR_IO);
  CHECK(strstr(vktune_last_error(), "/nonexistent/table.json") != NULL);
  return 0;
}
