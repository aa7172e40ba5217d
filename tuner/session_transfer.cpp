// TuneSession's transfer seeds: the stored winners and best variants of the
// nearest tuned shapes, on this device and on others of the same model,
// evaluated before the strategy's own proposals. Which seeds is decided in
// tuner/search/transfer.cpp (a replay uses the same code); this file reads
// them from the store, and the winner another device of the model stored
// for the very shape, which the search measures beside the baseline.
#include <string>
#include <vector>

#include "common/error.hpp"
#include "engine/stale_config.hpp"
#include "tuner/search/transfer.hpp"
#include "tuner/session.hpp"

namespace vktune {

namespace {

class StoreTransferSource final : public TransferSource {
 public:
  StoreTransferSource(const results::Store& store, std::vector<std::int64_t> rows, const kernels::Kernel& kernel,
                      CacheMode cache_mode)
      : store_(store), rows_(std::move(rows)), kernel_(kernel), cache_mode_(cache_mode) {}

  std::vector<std::int64_t> devices() const override { return rows_; }

  std::vector<kernels::Shape> tuned_shapes(std::int64_t row) const override {
    std::vector<kernels::Shape> tuned;
    for (const auto& w : store_.winners(row, kernel_.name())) {
      if (w.cache_mode != to_string(cache_mode_)) continue;
      try {
        tuned.push_back(kernels::parse_shape(w.shape, kernel_.shape_dims().size()));
      } catch (const Error&) {
      }
    }
    return tuned;
  }

  std::optional<kernels::Config> winner(std::int64_t row, const kernels::Shape& shape) const override {
    if (auto w = store_.find_winner(row, kernel_.name(), kernels::shape_to_string(shape), cache_mode_))
      return kernels::config_from_json(w->config_json);
    return std::nullopt;
  }

  void fastest(std::int64_t row, const kernels::Shape& shape,
               const std::function<bool(const kernels::Config&)>& take) const override {
    // Successes come first, fastest first.
    for (const auto& m : store_.measurements(row, kernel_.name(), kernels::shape_to_string(shape), cache_mode_)) {
      if (m.status != results::Status::ok) break;
      if (auto v = store_.find_variant(m.variant_hash))
        if (!take(kernels::config_from_json(v->config_json))) break;
    }
  }

 private:
  const results::Store& store_;
  std::vector<std::int64_t> rows_;
  const kernels::Kernel& kernel_;
  CacheMode cache_mode_;
};

}  // namespace

std::vector<kernels::Config> TuneSession::transfer_seeds(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                                         CacheMode cache_mode, std::vector<std::string>& from) const {
  if (!store_ || !device_row_) return {};
  // This device first, then other devices of the same model (vendor and
  // device id): their best configs are the likeliest to win here too.
  std::vector<std::int64_t> rows{*device_row_};
  const auto self = identity_of(device_->info());
  for (const auto& [row, id] : store_->devices())
    if (row != *device_row_ && id.vendor_id == self.vendor_id && id.device_id == self.device_id) rows.push_back(row);
  auto seeds = vktune::transfer_seeds(kernel, shape, StoreTransferSource(*store_, rows, kernel, cache_mode));
  from.insert(from.end(), seeds.from.begin(), seeds.from.end());
  return std::move(seeds.configs);
}

std::optional<kernels::Config> TuneSession::served_winner(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                                          CacheMode cache_mode, std::string& from) const {
  if (!store_ || !device_row_) return std::nullopt;
  const auto shape_text = kernels::shape_to_string(shape);
  // This device's own winner is compared where a new one is stored
  // (tuner/session_winner.cpp).
  if (store_->find_winner(*device_row_, kernel.name(), shape_text, cache_mode)) return std::nullopt;
  const auto self = identity_of(device_->info());
  std::optional<results::Winner> best;
  results::DeviceIdentity best_id;
  for (const auto& [row, id] : store_->devices()) {
    if (row == *device_row_ || id.vendor_id != self.vendor_id || id.device_id != self.device_id) continue;
    auto w = store_->find_winner(row, kernel.name(), shape_text, cache_mode);
    if (w && (!best || w->median_ns < best->median_ns)) best = std::move(w), best_id = id;
  }
  if (!best) return std::nullopt;
  const auto update = update_config(kernel, shape, kernels::config_from_json(best->config_json));
  if (!update.config || !kernel.constraint_violation(*update.config, shape, device_->info()).empty()) {
    return std::nullopt;
  }
  from = best_id.name + (best_id.device_uuid.empty() ? "" : " " + best_id.device_uuid.substr(0, 8));
  return update.config;
}

}  // namespace vktune
