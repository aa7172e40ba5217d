/* The C API from C: this file is compiled as C, so the header is proven to
 * be C. Returns 0 when every check passes, else the line of the first failure. */
#include <string.h>

#include "vktune_runtime.h"

#define CHECK(cond) \
  do {              \
    if (!(cond)) return __LINE__; \
  } while (0)

int c_api_check(const char* table_path) {
  vktune_table* table = NULL;
  vktune_lookup* found = NULL;
  const uint32_t shape[3] = {2, 64, 1024};
  vktune_query query;
  const vktune_dispatch_axis axes[3] = {{1, 2, 0}, {0, 1, 0}, {-1, 7, 0}};
  uint32_t groups[3] = {0, 0, 0};

  CHECK(vktune_table_open("/nonexistent/table.json", &table) == VKTUNE_ERROR_IO);
  CHECK(table == NULL);
  CHECK(strstr(vktune_last_error(), "/nonexistent/table.json") != NULL);

  CHECK(vktune_table_open(table_path, &table) == VKTUNE_OK);
  CHECK(strcmp(vktune_last_error(), "") == 0);
  CHECK(vktune_table_entry_count(table) == 2);
  CHECK(vktune_table_device_count(table) == 1);

  memset(&query, 0, sizeof query);
  query.device.vendor_id = 0x10de;
  query.device.device_id = 0x2330;
  query.device.driver_version = 100;
  query.device.name = "NVIDIA H100 80GB HBM3";
  query.kernel = "matmul_q4k";
  query.shape = shape;
  query.shape_dims = 3;
  CHECK(vktune_table_lookup(table, &query, NULL, &found) == VKTUNE_OK);
  vktune_table_free(table); /* the answer outlives the table */
  CHECK(found->match == VKTUNE_MATCH_DEVICE_AND_DRIVER);
  CHECK(strcmp(found->match_name, "device_and_driver") == 0);
  CHECK(found->exact_shape == 0);
  CHECK(found->tuned_shape_dims == 3 && found->tuned_shape[0] == 1 && found->tuned_shape[1] == 4096);
  CHECK(found->variant.spirv_words == 5 && found->variant.spirv[0] == 0x07230203u);
  CHECK(found->workgroups[0] == 32 && found->workgroups[1] == 2 && found->workgroups[2] == 1);
  CHECK(strstr(found->match_text, "nearest shape 1,4096,4096") != NULL);
  CHECK(strcmp(found->tuned_device_name, "NVIDIA H100 80GB HBM3") == 0);
  vktune_lookup_free(found);
  vktune_lookup_free(NULL);
  vktune_table_free(NULL);

  CHECK(vktune_workgroup_counts(axes, shape, 3, groups) == VKTUNE_OK);
  CHECK(groups[0] == 32 && groups[1] == 2 && groups[2] == 1);
  return 0;
}
