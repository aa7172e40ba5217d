// TuneSession's transfer seeds: the stored winners and best variants of the
// nearest tuned shapes, on this device and on others of the same model,
// evaluated before the strategy's own proposals.
#include <algorithm>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "tuner/search/transfer.hpp"
#include "tuner/session.hpp"
#include "engine/stale_config.hpp"

namespace vktune {

std::vector<kernels::Config> TuneSession::transfer_seeds(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                                         CacheMode cache_mode, std::vector<std::string>& from) const {
  if (!store_ || !device_row_) return {};
  // This device first, then other devices of the same model (vendor and
  // device id): their best configs are the likeliest to win here too.
  std::vector<std::int64_t> rows{*device_row_};
  const auto self = identity_of(device_->info());
  for (const auto& [row, id] : store_->devices())
    if (row != *device_row_ && id.vendor_id == self.vendor_id && id.device_id == self.device_id) rows.push_back(row);
  std::vector<kernels::Config> seeds;
  for (auto row : rows) {
    std::vector<kernels::Shape> tuned;
    for (const auto& w : store_->winners(row, kernel.name())) {
      if (w.cache_mode != to_string(cache_mode)) continue;
      try {
        tuned.push_back(kernels::parse_shape(w.shape, kernel.shape_dims().size()));
      } catch (const Error&) {
      }
    }
    // The same shape measured on a sibling device is the nearest of all.
    const auto near = nearest_shapes(kernel, shape, tuned, row == *device_row_ ? 2 : 1);
    std::vector<kernels::Shape> picks = near;
    if (row != *device_row_ && std::find(tuned.begin(), tuned.end(), shape) != tuned.end()) picks.insert(picks.begin(), shape);
    for (const auto& s : picks) {
      const auto text = kernels::shape_to_string(s);
      const auto measured = store_->measurements(row, kernel.name(), text, cache_mode);
      std::size_t taken = 0;
      // Stored before the kernel gained a parameter: completed where a path
      // fixes it, else left out.
      auto take = [&](const std::string& config_json) {
        if (auto current = update_config(kernel, s, kernels::config_from_json(config_json)).config) {
          seeds.push_back(std::move(*current));
          ++taken;
        }
      };
      if (auto w = store_->find_winner(row, kernel.name(), text, cache_mode)) take(w->config_json);
      for (const auto& m : measured) {
        if (taken >= kTransferTop + 1 || m.status != results::Status::ok) break;
        if (auto v = store_->find_variant(m.variant_hash)) take(v->config_json);
      }
      from.push_back(text + (row == *device_row_ ? "" : " (device #" + std::to_string(row) + ")"));
    }
  }
  return seeds;
}

}  // namespace vktune
