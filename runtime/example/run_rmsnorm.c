/* vktune_runtime_rmsnorm: the C API and vktune_runtime_vulkan.h from plain
 * C99. Looks rmsnorm_mul (y = x / sqrt(mean(x^2) + 1e-5) * w per row) up for
 * this device and shape, enables the features the variant needs, dispatches
 * it on buffers its contract sizes, and checks y against a double-precision
 * reference on random inputs. The Vulkan an application already has is in
 * app_vulkan.h.
 *
 *   vktune_runtime_rmsnorm TABLE [--device N] [--shape ROWS,N] [--seed S]
 *
 * Exit status: 0 when the result matches (relative L2 below 1e-5), 1 on a
 * mismatch, 2 on bad arguments, 3 on any other error (no loader, no device,
 * no usable table entry, a Vulkan failure). */
#include "app_vulkan.h"

#include <math.h>
#include <stdlib.h>

#include "vktune_runtime.h"
#include "vktune_runtime_vulkan.h"

enum { X, W, Y, BINDINGS };

/* Uniform in [lo, hi) from a 64-bit LCG (Knuth's MMIX constants). */
static float random_float(uint64_t* state, float lo, float hi) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (float)((*state >> 40) * (1.0 / 16777216.0));
}

static int usage(const char* why) {
  fprintf(stderr, "vktune_runtime_rmsnorm: %s\nusage: vktune_runtime_rmsnorm TABLE [--device N] [--shape ROWS,N] "
                  "[--seed S]\n", why);
  return 2;
}

/* Dispatches the looked-up variant and compares; 0, 1 or 3 as main returns. */
static int run(app_vulkan* app, const vktune_lookup* found, const uint32_t shape[2], uint64_t seed) {
  const size_t rows = shape[0], n = shape[1];
  vktune_vulkan_launch launch;
  app_buffer buffers[BINDINGS];
  VkCommandBuffer commands = VK_NULL_HANDLE;
  double diff = 0, norm = 0;
  size_t i, r;
  int status = 3;
  memset(buffers, 0, sizeof buffers);
  if (found->binding_count != BINDINGS) {
    fprintf(stderr, "vktune_runtime_rmsnorm: the entry has %u bindings, not rmsnorm_mul's 3\n",
            (unsigned)found->binding_count);
    return 3;
  }
  if (vktune_vulkan_launch_create(app->device, found, shape, 2, &launch) != VK_SUCCESS) {
    fprintf(stderr, "vktune_runtime_rmsnorm: %s failed\n", launch.failed);
    return 3;
  }
  for (i = 0; i < BINDINGS; ++i) {
    if (app_buffer_create(app, found->bindings[i].bytes, &buffers[i]) != 0) goto done;
    vktune_vulkan_launch_bind(&launch, (uint32_t)i, buffers[i].buffer, 0);
  }
  for (i = 0; i < rows * n; ++i) ((float*)buffers[X].mapped)[i] = random_float(&seed, -2.0f, 2.0f);
  for (i = 0; i < n; ++i) ((float*)buffers[W].mapped)[i] = random_float(&seed, 0.5f, 1.5f);
  memset(buffers[Y].mapped, 0xff, buffers[Y].size); /* NaN: an unwritten output fails the check */
  if (app_begin(app, &commands) != 0) goto done;
  vktune_vulkan_launch_record(&launch, commands);
  if (app_submit_and_wait(app, commands) != 0) goto done;

  for (r = 0; r < rows; ++r) {
    const float* x = (const float*)buffers[X].mapped + r * n;
    const float* w = (const float*)buffers[W].mapped;
    const float* y = (const float*)buffers[Y].mapped + r * n;
    double squares = 0, scale;
    for (i = 0; i < n; ++i) squares += (double)x[i] * x[i];
    scale = 1.0 / sqrt(squares / (double)n + 1e-5);
    for (i = 0; i < n; ++i) {
      const double expected = x[i] * scale * w[i];
      diff += (y[i] - expected) * (y[i] - expected);
      norm += expected * expected;
    }
  }
  diff = sqrt(diff / (norm > 0 ? norm : 1));
  status = diff < 1e-5 ? 0 : 1; /* NaN compares false: a mismatch */
  printf("relative L2 error %.3e (tolerance 1.0e-05): %s\n", diff, status == 0 ? "OK" : "MISMATCH");
done:
  if (status == 3) fprintf(stderr, "vktune_runtime_rmsnorm: %s\n", app->error);
  for (i = 0; i < BINDINGS; ++i) app_buffer_destroy(app, &buffers[i]);
  vktune_vulkan_launch_destroy(&launch);
  return status;
}

int main(int argc, char** argv) {
  const char* table_path = NULL;
  unsigned device = 0, rows = 4, n = 4096;
  unsigned long long seed = 1;
  uint32_t shape[2];
  app_vulkan app;
  vktune_vulkan_identity id;
  vktune_vulkan_capabilities offered;
  vktune_vulkan_features enable;
  vktune_table* table = NULL;
  vktune_query query;
  vktune_lookup* found = NULL;
  const char* missing = NULL;
  int i, status = 3;
  char end;
  for (i = 1; i < argc; ++i) {
    if (argv[i][0] == '-' && i + 1 == argc) return usage("an option needs a value");
    if (strcmp(argv[i], "--device") == 0) {
      if (sscanf(argv[++i], "%u%c", &device, &end) != 1) return usage("--device takes a number");
    } else if (strcmp(argv[i], "--seed") == 0) {
      if (sscanf(argv[++i], "%llu%c", &seed, &end) != 1) return usage("--seed takes a number");
    } else if (strcmp(argv[i], "--shape") == 0) {
      if (sscanf(argv[++i], "%u,%u%c", &rows, &n, &end) != 2 || rows == 0 || n == 0) {
        return usage("--shape takes ROWS,N, both positive");
      }
    } else if (table_path == NULL && argv[i][0] != '-') {
      table_path = argv[i];
    } else {
      return usage("unknown argument");
    }
  }
  if (table_path == NULL) return usage("no table given");
  shape[0] = rows;
  shape[1] = n;

  if (app_open_instance(&app, device) != 0) {
    fprintf(stderr, "vktune_runtime_rmsnorm: %s\n", app.error);
    app_close(&app);
    return 3;
  }
  /* The lookup: this device, what it offers, no baseline of our own. */
  vktune_vulkan_identity_of(app.physical, &id);
  vktune_vulkan_capabilities_of(app.physical, &offered);
  memset(&query, 0, sizeof query);
  query.device = id.device;
  query.kernel = "rmsnorm_mul";
  query.shape = shape;
  query.shape_dims = 2;
  query.capabilities = &offered.capabilities;
  if (vktune_table_open(table_path, &table) != VKTUNE_OK ||
      vktune_table_lookup(table, &query, NULL, &found) != VKTUNE_OK) {
    fprintf(stderr, "vktune_runtime_rmsnorm: %s\n", vktune_last_error());
    goto done;
  }
  printf("device %s; rmsnorm_mul %u,%u\nrule: %s (%s)\nfeatures:", id.name, rows, n, found->match_name,
         found->match_text);
  for (i = 0; i < (int)found->feature_count; ++i) printf("%s %s", i ? "," : "", found->features[i]);
  printf("%s\n", found->feature_count ? "" : " (none beyond Vulkan 1.0)");
  if (vktune_vulkan_features_for(app.physical, found->features, found->feature_count, &enable, &missing) != VK_SUCCESS) {
    fprintf(stderr, "vktune_runtime_rmsnorm: the device lacks %s, which the variant needs\n", missing);
    goto done;
  }
  if (app_open_device(&app, &enable) != 0) {
    fprintf(stderr, "vktune_runtime_rmsnorm: %s\n", app.error);
    goto done;
  }
  status = run(&app, found, shape, seed);
done:
  vktune_lookup_free(found);
  vktune_table_free(table);
  app_close(&app);
  return status;
}
