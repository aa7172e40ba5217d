/* spec_softmax_run: the tuned examples/pytorch_softmax spec kernel run from
 * an exported table through the C API and vktune_runtime_vulkan.h, as an
 * application would, and checked against a double-precision softmax per
 * row. The shader reads its row length and row count from its own
 * push-constant block (width, height, channels, batch), not from the shape
 * (rows, n): pushing the shape would read rows as the row length.
 *
 *   spec_softmax_run TABLE ROWS N
 *
 * Prints the words it pushes; exit 0 on a match (relative L2 below 1e-5),
 * 1 on a mismatch, 2 on bad arguments, 3 on any other error. */
#include "app_vulkan.h" /* runtime/example: the Vulkan an application already has */

#include <math.h>
#include <stdlib.h>

#include "vktune_runtime.h"
#include "vktune_runtime_vulkan.h"

enum { OUT, IN, BINDINGS };

static int run(app_vulkan* app, const vktune_lookup* found, const uint32_t shape[2]) {
  const size_t rows = shape[0], n = shape[1];
  vktune_vulkan_launch launch;
  app_buffer buffers[BINDINGS];
  VkCommandBuffer commands = VK_NULL_HANDLE;
  uint64_t state = 1;
  double diff = 0, norm = 0;
  size_t i, r;
  int status = 3;
  memset(buffers, 0, sizeof buffers);
  if (found->binding_count != BINDINGS) {
    fprintf(stderr, "spec_softmax_run: the entry has %u bindings, not 2\n", (unsigned)found->binding_count);
    return 3;
  }
  if (vktune_vulkan_launch_create(app->device, found, shape, 2, &launch) != VK_SUCCESS) {
    fprintf(stderr, "spec_softmax_run: %s failed\n", launch.failed);
    return 3;
  }
  printf("push constants:");
  for (i = 0; i < launch.shape_dims; ++i) printf(" %u", (unsigned)launch.shape[i]);
  printf("\n");
  for (i = 0; i < BINDINGS; ++i) {
    if (app_buffer_create(app, found->bindings[i].bytes, &buffers[i]) != 0) goto done;
    vktune_vulkan_launch_bind(&launch, (uint32_t)i, buffers[i].buffer, 0);
  }
  for (i = 0; i < rows * n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    ((float*)buffers[IN].mapped)[i] = -8.0f + 16.0f * (float)((state >> 40) * (1.0 / 16777216.0));
  }
  memset(buffers[OUT].mapped, 0xff, buffers[OUT].size); /* NaN: an unwritten output fails the check */
  if (app_begin(app, &commands) != 0) goto done;
  vktune_vulkan_launch_record(&launch, commands);
  if (app_submit_and_wait(app, commands) != 0) goto done;
  for (r = 0; r < rows; ++r) {
    const float* x = (const float*)buffers[IN].mapped + r * n;
    const float* y = (const float*)buffers[OUT].mapped + r * n;
    double most = x[0], sum = 0;
    for (i = 1; i < n; ++i) most = x[i] > most ? x[i] : most;
    for (i = 0; i < n; ++i) sum += exp(x[i] - most);
    for (i = 0; i < n; ++i) {
      const double expected = exp(x[i] - most) / sum;
      diff += (y[i] - expected) * (y[i] - expected);
      norm += expected * expected;
    }
  }
  diff = sqrt(diff / (norm > 0 ? norm : 1));
  status = diff < 1e-5 ? 0 : 1; /* NaN compares false: a mismatch */
  printf("relative L2 error %.3e (tolerance 1.0e-05): %s\n", diff, status == 0 ? "OK" : "MISMATCH");
done:
  if (status == 3) fprintf(stderr, "spec_softmax_run: %s\n", app->error);
  for (i = 0; i < BINDINGS; ++i) app_buffer_destroy(app, &buffers[i]);
  vktune_vulkan_launch_destroy(&launch);
  return status;
}

int main(int argc, char** argv) {
  unsigned rows = 0, n = 0;
  uint32_t shape[2];
  char end;
  app_vulkan app;
  vktune_vulkan_identity id;
  vktune_vulkan_features enable;
  vktune_table* table = NULL;
  vktune_query query;
  vktune_lookup* found = NULL;
  const char* missing = NULL;
  int status = 3;
  if (argc != 4 || sscanf(argv[2], "%u%c", &rows, &end) != 1 || sscanf(argv[3], "%u%c", &n, &end) != 1 || rows == 0 ||
      n == 0) {
    fprintf(stderr, "usage: spec_softmax_run TABLE ROWS N\n");
    return 2;
  }
  shape[0] = rows;
  shape[1] = n;
  if (app_open_instance(&app, 0) != 0) {
    fprintf(stderr, "spec_softmax_run: %s\n", app.error);
    app_close(&app);
    return 3;
  }
  vktune_vulkan_identity_of(app.physical, &id);
  memset(&query, 0, sizeof query);
  query.device = id.device;
  query.kernel = "pytorch_softmax";
  query.shape = shape;
  query.shape_dims = 2;
  if (vktune_table_open(argv[1], &table) != VKTUNE_OK || vktune_table_lookup(table, &query, NULL, &found) != VKTUNE_OK) {
    fprintf(stderr, "spec_softmax_run: %s\n", vktune_last_error());
    goto done;
  }
  if (vktune_vulkan_features_for(app.physical, found->features, found->feature_count, &enable, &missing) != VK_SUCCESS) {
    fprintf(stderr, "spec_softmax_run: the device lacks %s\n", missing);
    goto done;
  }
  if (app_open_device(&app, &enable) != 0) {
    fprintf(stderr, "spec_softmax_run: %s\n", app.error);
    goto done;
  }
  status = run(&app, found, shape);
done:
  vktune_lookup_free(found);
  vktune_table_free(table);
  app_close(&app);
  return status;
}
