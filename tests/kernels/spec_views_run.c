/* spec_views_run: a tuned spec kernel whose contract binds more than storage
 * buffers of their own, run from an exported table through the C API and
 * vktune_runtime_vulkan.h, as an application would: a uniform block the
 * lookup computed for the shape (examples/uniform_softmax), or one buffer
 * bound at two bindings (examples/aliased_views). Checked against a
 * double-precision answer worked out here.
 *
 *   spec_views_run TABLE uniform_softmax ROWS N
 *   spec_views_run TABLE aliased_reverse_add N
 *
 * Prints each binding as it binds it; exit 0 on a match (relative L2 below
 * 1e-5), 1 on a mismatch, 2 on bad arguments, 3 on any other error. */
#include "app_vulkan.h" /* runtime/example: the Vulkan an application already has */

#include <math.h>
#include <stdlib.h>

#include "vktune_runtime.h"
#include "vktune_runtime_vulkan.h"

enum { MAX_BINDINGS = 8 };

/* The relative L2 error of the output against the kernel's answer. */
static double error_of(const char* kernel, const uint32_t* shape, const float* x, const float* y) {
  double diff = 0, norm = 0;
  size_t i, r;
  if (strcmp(kernel, "uniform_softmax") == 0) { /* y = softmax(x / sqrt(n)) by rows */
    const size_t rows = shape[0], n = shape[1];
    const double scale = 1.0 / sqrt((double)n);
    for (r = 0; r < rows; ++r) {
      double most = x[r * n] * scale, sum = 0;
      for (i = 1; i < n; ++i) most = x[r * n + i] * scale > most ? x[r * n + i] * scale : most;
      for (i = 0; i < n; ++i) sum += exp(x[r * n + i] * scale - most);
      for (i = 0; i < n; ++i) {
        const double expected = exp(x[r * n + i] * scale - most) / sum;
        diff += (y[r * n + i] - expected) * (y[r * n + i] - expected);
        norm += expected * expected;
      }
    }
  } else { /* y[i] = x[i] + x[n - 1 - i] */
    const size_t n = shape[0];
    for (i = 0; i < n; ++i) {
      const double expected = (double)x[i] + (double)x[n - 1 - i];
      diff += (y[i] - expected) * (y[i] - expected);
      norm += expected * expected;
    }
  }
  return sqrt(diff / (norm > 0 ? norm : 1));
}

static int run(app_vulkan* app, const char* kernel, const vktune_lookup* found, const uint32_t* shape, size_t dims) {
  vktune_vulkan_launch launch;
  app_buffer buffers[MAX_BINDINGS];
  VkCommandBuffer commands = VK_NULL_HANDLE;
  uint64_t state = 1;
  const float* x = NULL;
  const float* y = NULL;
  double error;
  size_t b, i;
  int status = 3;
  memset(buffers, 0, sizeof buffers);
  if (found->binding_count > MAX_BINDINGS) return 3;
  if (vktune_vulkan_launch_create(app->device, found, shape, dims, &launch) != VK_SUCCESS) {
    fprintf(stderr, "spec_views_run: %s failed\n", launch.failed);
    return 3;
  }
  for (b = 0; b < found->binding_count; ++b) {
    const vktune_binding* binding = &found->bindings[b];
    if (binding->alias_of >= 0) { /* its target's buffer: bound with it */
      printf("binding %u: the buffer of binding %d\n", (unsigned)b, (int)binding->alias_of);
      continue;
    }
    if (app_buffer_create(app, binding->bytes, &buffers[b]) != 0) goto done;
    if (binding->role == VKTUNE_BINDING_UNIFORM) {
      memcpy(buffers[b].mapped, binding->uniform_data, binding->bytes);
      printf("binding %u: a uniform block of %u bytes\n", (unsigned)b, (unsigned)binding->bytes);
    } else if (binding->role == VKTUNE_BINDING_OUTPUT) {
      memset(buffers[b].mapped, 0xff, binding->bytes); /* NaN: an unwritten output fails the check */
      y = (const float*)buffers[b].mapped;
      printf("binding %u: the output\n", (unsigned)b);
    } else {
      for (i = 0; i < binding->bytes / 4; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ((float*)buffers[b].mapped)[i] = -8.0f + 16.0f * (float)((state >> 40) * (1.0 / 16777216.0));
      }
      x = (const float*)buffers[b].mapped;
      printf("binding %u: an input of %u bytes\n", (unsigned)b, (unsigned)binding->bytes);
    }
    vktune_vulkan_launch_bind(&launch, (uint32_t)b, buffers[b].buffer, 0);
  }
  if (x == NULL || y == NULL) {
    fprintf(stderr, "spec_views_run: the entry has no input or no output\n");
    goto done;
  }
  if (app_begin(app, &commands) != 0) goto done;
  vktune_vulkan_launch_record(&launch, commands);
  if (app_submit_and_wait(app, commands) != 0) goto done;
  error = error_of(kernel, shape, x, y);
  status = error < 1e-5 ? 0 : 1; /* NaN compares false: a mismatch */
  printf("relative L2 error %.3e (tolerance 1.0e-05): %s\n", error, status == 0 ? "OK" : "MISMATCH");
done:
  if (status == 3 && app->error[0] != '\0') fprintf(stderr, "spec_views_run: %s\n", app->error);
  for (b = 0; b < MAX_BINDINGS; ++b) app_buffer_destroy(app, &buffers[b]);
  vktune_vulkan_launch_destroy(&launch);
  return status;
}

int main(int argc, char** argv) {
  uint32_t shape[2];
  size_t dims = 0;
  int a;
  char end;
  app_vulkan app;
  vktune_vulkan_identity id;
  vktune_vulkan_features enable;
  vktune_table* table = NULL;
  vktune_query query;
  vktune_lookup* found = NULL;
  const char* missing = NULL;
  int status = 3;
  const int softmax = argc > 2 && strcmp(argv[2], "uniform_softmax") == 0;
  const int reverse = argc > 2 && strcmp(argv[2], "aliased_reverse_add") == 0;
  if (!(softmax && argc == 5) && !(reverse && argc == 4)) {
    fprintf(stderr, "usage: spec_views_run TABLE uniform_softmax ROWS N | TABLE aliased_reverse_add N\n");
    return 2;
  }
  for (a = 3; a < argc; ++a) {
    unsigned v = 0;
    if (sscanf(argv[a], "%u%c", &v, &end) != 1 || v == 0) {
      fprintf(stderr, "spec_views_run: '%s' is no dimension\n", argv[a]);
      return 2;
    }
    shape[dims++] = v;
  }
  if (app_open_instance(&app, 0) != 0) {
    fprintf(stderr, "spec_views_run: %s\n", app.error);
    app_close(&app);
    return 3;
  }
  vktune_vulkan_identity_of(app.physical, &id);
  memset(&query, 0, sizeof query);
  query.device = id.device;
  query.kernel = argv[2];
  query.shape = shape;
  query.shape_dims = dims;
  if (vktune_table_open(argv[1], &table) != VKTUNE_OK || vktune_table_lookup(table, &query, NULL, &found) != VKTUNE_OK) {
    fprintf(stderr, "spec_views_run: %s\n", vktune_last_error());
    goto done;
  }
  if (vktune_vulkan_features_for(app.physical, found->features, found->feature_count, &enable, &missing) != VK_SUCCESS) {
    fprintf(stderr, "spec_views_run: the device lacks %s\n", missing);
    goto done;
  }
  if (app_open_device(&app, &enable) != 0) {
    fprintf(stderr, "spec_views_run: %s\n", app.error);
    goto done;
  }
  status = run(&app, argv[2], found, shape, dims);
done:
  vktune_lookup_free(found);
  vktune_table_free(table);
  app_close(&app);
  return status;
}
