#include "engine/attempt_log.hpp"

#include "harness/compiler.hpp"
#include "kernels/kernel.hpp"

namespace vktune {

namespace {
constexpr const char* kAttemptPrefix = "attempt: ";
}  // namespace

AttemptLog::AttemptLog(const std::filesystem::path& database, std::int64_t device_row, std::string kernel,
                       std::string shape, CacheMode cache_mode)
    : store_(results::Store::open(database)),
      device_row_(device_row),
      kernel_(std::move(kernel)),
      shape_(std::move(shape)),
      cache_mode_(to_string(cache_mode)) {}

void AttemptLog::begin(const CompiledVariant& variant, const std::string& step) {
  std::lock_guard lock(mutex_);
  store_.transaction([&] {
    store_.upsert_variant({variant.variant_hash, kernel_, variant.stages[0].plan.template_file,
                           kernels::config_to_json(variant.config), variant.stages[0].template_hash,
                           vk::compiler_version()});
    results::Measurement m;
    m.device_id = device_row_;
    m.variant_hash = variant.variant_hash;
    m.shape = shape_;
    m.cache_mode = cache_mode_;
    m.status = results::Status::attempt;
    m.reason = kAttemptPrefix + step;
    store_.record_measurement(m);
  });
}

void AttemptLog::end(const CompiledVariant& variant) {
  std::lock_guard lock(mutex_);
  store_.forget_attempt(device_row_, variant.variant_hash, shape_, cache_mode_);
}

bool AttemptLog::forget(const CompiledVariant& variant) noexcept {
  try {
    end(variant);
    return true;
  } catch (...) {
    return false;
  }
}

results::Measurement settle_attempt(results::Measurement m, results::Store& store) {
  if (m.status != results::Status::attempt) return m;
  std::string step = m.reason;
  if (step.rfind(kAttemptPrefix, 0) == 0) step = step.substr(std::string(kAttemptPrefix).size());
  m.status = results::Status::crashed;
  m.reason = "an earlier run ended while " + step +
             " (a crash of the driver, or the process was killed); not tried again";
  store.record_measurement(m);
  return m;
}

}  // namespace vktune
