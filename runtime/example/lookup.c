/* vktune_runtime_lookup: the C API from plain C99. Looks a kernel and shape up
 * in a tuned table for a device and prints what to run: the match and why,
 * every stage with its workgroup counts, every binding with its size, the
 * push-constant words.
 *
 *   vktune_runtime_lookup TABLE KERNEL VENDOR_ID DEVICE_ID "DEVICE NAME" DIM...
 *
 * Exit status: 0 found (or nothing fits: the caller's baseline), 2 bad
 * arguments, 3 the table cannot be used. */
#include <stdio.h>
#include <stdlib.h>

#include "vktune_runtime.h"

static const char* role_name(vktune_binding_role role) {
  switch (role) {
    case VKTUNE_BINDING_INPUT: return "input";
    case VKTUNE_BINDING_WEIGHTS: return "weights";
    case VKTUNE_BINDING_OUTPUT: return "output";
    case VKTUNE_BINDING_SCRATCH: return "scratch";
    case VKTUNE_BINDING_UNIFORM: return "uniform";
  }
  return "?";
}

int main(int argc, char** argv) {
  vktune_table* table = NULL;
  vktune_lookup* found = NULL;
  vktune_query query;
  uint32_t shape[8];
  size_t dims = 0, i;
  vktune_status status;
  if (argc < 7 || argc > 6 + 8) {
    fprintf(stderr, "usage: vktune_runtime_lookup TABLE KERNEL VENDOR_ID DEVICE_ID \"DEVICE NAME\" DIM...\n");
    return 2;
  }
  for (i = 6; i < (size_t)argc; ++i) shape[dims++] = (uint32_t)strtoul(argv[i], NULL, 0);
  if (vktune_table_open(argv[1], &table) != VKTUNE_OK) {
    fprintf(stderr, "vktune_runtime_lookup: %s\n", vktune_last_error());
    return 3;
  }
  query.device.vendor_id = (uint32_t)strtoul(argv[3], NULL, 0);
  query.device.device_id = (uint32_t)strtoul(argv[4], NULL, 0);
  query.device.driver_version = 0;
  query.device.name = argv[5];
  query.device.uuid = NULL;
  query.kernel = argv[2];
  query.shape = shape;
  query.shape_dims = dims;
  query.cache_mode = NULL;
  query.capabilities = NULL;
  status = vktune_table_lookup(table, &query, NULL, &found);
  if (status == VKTUNE_ERROR_NO_MATCH) {
    printf("no tuned entry fits: run your baseline\n%s\n", vktune_last_error());
    vktune_table_free(table);
    return 0;
  }
  if (status != VKTUNE_OK) {
    fprintf(stderr, "vktune_runtime_lookup: %s\n", vktune_last_error());
    vktune_table_free(table);
    return status == VKTUNE_ERROR_USAGE ? 2 : 3;
  }
  printf("%s: %s\n", found->match_name, found->match_text);
  for (i = 0; i < found->stage_count; ++i) {
    const vktune_variant* s = &found->stages[i];
    printf("stage %u: %u SPIR-V words, local size %ux%ux%u, workgroups %ux%ux%u, subgroup size %u\n", (unsigned)i,
           (unsigned)s->spirv_words, s->local_size[0], s->local_size[1], s->local_size[2],
           found->stage_workgroups[3 * i], found->stage_workgroups[3 * i + 1], found->stage_workgroups[3 * i + 2],
           s->required_subgroup_size);
  }
  for (i = 0; i < found->binding_count; ++i) {
    printf("binding %u: %s (%s), %llu bytes", (unsigned)i, found->bindings[i].name,
           role_name(found->bindings[i].role), (unsigned long long)found->bindings[i].bytes);
    if (found->bindings[i].alias_of >= 0) printf(", the buffer of binding %d", (int)found->bindings[i].alias_of);
    printf("\n");
  }
  printf("push constants:");
  for (i = 0; i < found->push_constant_count; ++i) printf(" %u", (unsigned)found->push_constants[i]);
  printf("\n%s", found->explain);
  vktune_lookup_free(found);
  vktune_table_free(table);
  return 0;
}
