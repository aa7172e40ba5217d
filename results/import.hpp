#pragma once
// Merging a "vktune-table" JSON document (TABLE_FORMAT.md), typically from
// another machine, into a store:
//   - devices are upserted by identity; ceilings the local device lacks are added;
//   - a variant the store does not know is added (kernel, config, template and
//     compiler from the table); known variants are left as they are;
//   - per (device, kernel, shape, cache mode) the newer winner stays: the
//     table's winner replaces the stored one only when its "updated_at" is
//     later (ISO-8601 UTC text compares in time order; a missing one is
//     oldest). A replaced winner is stamped with the time of the import.
//   - a key where both sides have a winner of different variants is a
//     conflict: reported, and settled by the rule above.
// The whole table is checked before anything is written, and written in one
// transaction: a malformed table or one of another format version is an
// Error(format) with one line that names the problem, and the store is left
// unchanged.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/records.hpp"
#include "results/store.hpp"

namespace vktune::results {

// A table read and checked, not yet written anywhere.
struct TableDevice {
  std::int64_t id = 0;  // the table's own id
  DeviceIdentity identity;
  std::vector<Ceiling> ceilings;
};
struct TableWinner {
  std::int64_t device = 0;  // an id in TableContents::devices
  Winner winner;            // device_id unset
  VariantRecord variant;
};
struct TableContents {
  std::vector<TableDevice> devices;
  std::vector<TableWinner> winners;
};

// Checks a whole table; throws Error(format) with one line that names the
// place of the first problem. `source` names the table in messages.
TableContents read_table(const nlohmann::json& table, const std::string& source);
TableContents read_table_text(std::string_view text, const std::string& source);

struct ImportConflict {
  DeviceIdentity device;
  std::string kernel, shape, cache_mode;
  std::string stored_variant, stored_updated_at;
  std::string imported_variant, imported_updated_at;
  bool imported_won = false;
};

// How winners of other physical GPUs of the same model are treated.
struct ImportOptions {
  // Each physical GPU is its own device (keyed by UUID), so by default their
  // winners stand side by side. With this set, per model (vendor and PCI
  // device id), kernel, shape and cache mode only the newest winner of any
  // GPU of that model stays, so a table exported afterwards hands one answer
  // to a GPU of that model it has never seen.
  bool newest_per_model = false;
};

struct ImportReport {
  std::size_t devices = 0;          // devices in the table
  std::size_t winners_added = 0;    // keys the store had no winner for
  std::size_t winners_replaced = 0; // stored winners replaced by newer ones
  std::size_t winners_kept = 0;     // stored winners as new or newer than the table's
  std::size_t winners_superseded = 0;  // newest_per_model: removed for a newer one of the same model
  std::vector<ImportConflict> conflicts;
};

// Merges a checked table in one transaction.
ImportReport import_table(Store& store, TableContents table, const ImportOptions& options = {});
// read_table, then import_table.
ImportReport import_table(Store& store, const nlohmann::json& table, const std::string& source);
// Parses the text first; text that is not JSON is an Error(format).
ImportReport import_table_text(Store& store, std::string_view text, const std::string& source);

// "conflict: NAME kernel shape (mode): stored VARIANT (TIME) vs imported VARIANT (TIME): kept the imported one"
std::string describe(const ImportConflict& conflict);

}  // namespace vktune::results
