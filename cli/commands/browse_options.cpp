#include "cli/commands/browse_options.hpp"

#include <algorithm>
#include <filesystem>

#include "common/error.hpp"
#include "kernels/registry.hpp"
#include "engine/ceilings.hpp"

namespace vktune::cli {

// Browsing reads ceilings under the names the tuner stores them as.
static_assert(results::kReadBandwidthCeiling == kCeilingRead);
static_assert(results::kFp32FmaCeiling == kCeilingFma);
static_assert(results::kDispatchFloorCeiling == kCeilingDispatchFloor);

void add_browse_filter_options(CLI::App& cmd, results::BrowseFilter& filter) {
  cmd.add_option("--device", filter.device,
                 "Only this device: its row id in the database, or a case-insensitive part of its name");
  cmd.add_option("--kernel", filter.kernel, "Only this kernel (its exact name)");
  cmd.add_option("--shape", filter.shape, "Only this shape, e.g. 1,4096,4096");
}

results::Store open_existing_store(const std::string& db_option) {
  const std::filesystem::path db =
      db_option.empty() ? results::Store::default_path() : std::filesystem::path(db_option);
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) {
    throw Error(ErrorKind::usage, "no results database at " + db.string() + " (tune first, or pass --db PATH)");
  }
  return results::Store::open_for_reading(db);
}

void check_kernel_filter(const results::Store& store, const std::string& kernel) {
  if (kernel.empty() || kernels::find_kernel_or_null(kernel)) return;
  const auto stored = store.kernels();
  if (std::find(stored.begin(), stored.end(), kernel) != stored.end()) return;
  std::string known;
  for (const auto& k : stored) known += (known.empty() ? "" : ", ") + k;
  throw Error(ErrorKind::usage, "--kernel '" + kernel + "' is not a registered kernel (see `vktune list`) nor stored in " +
                                    store.path().string() + " (stored: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace vktune::cli
