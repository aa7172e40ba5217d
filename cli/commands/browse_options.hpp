#pragma once
// What `vktune results` and `vktune report` share: the filter options, and
// opening an existing database for reading only (a read-only command must not
// leave an empty database behind a mistyped path).
#include <CLI/CLI.hpp>

#include <string>

#include "results/browse.hpp"
#include "results/store.hpp"

namespace vktune::cli {

// --device, --kernel and --shape on `cmd`, into `filter`.
void add_browse_filter_options(CLI::App& cmd, results::BrowseFilter& filter);

// Opens --db (else the default path) for reading, as `vktune export` does.
// A file that does not exist is Error(usage) naming it.
results::Store open_existing_store(const std::string& db_option);

// A --kernel that is neither a registered kernel nor stored in the database
// is Error(usage) naming the stored ones; a registered kernel that is not
// stored is fine (the result is empty, and says so).
void check_kernel_filter(const results::Store& store, const std::string& kernel);

}  // namespace vktune::cli
