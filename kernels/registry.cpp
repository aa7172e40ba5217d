#include "kernels/registry.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "common/error.hpp"
#include "common/suggest.hpp"

namespace vktune::kernels {

namespace {
// The one piece of global mutable state DESIGN.md allows. A function-local
// static so registration from other translation units' static initialisers
// is safe whatever their order.
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};
Registry& registry() {
  static Registry instance;
  return instance;
}
}  // namespace

void register_kernel(std::unique_ptr<Kernel> kernel) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  const std::string name = kernel->name();
  if (!r.kernels.emplace(name, std::move(kernel)).second) {
    throw Error(ErrorKind::internal, "kernel '" + name + "' registered twice");
  }
}

std::vector<const Kernel*> all_kernels() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<const Kernel*> list;
  for (const auto& [name, kernel] : r.kernels) list.push_back(kernel.get());
  return list;
}

const Kernel* find_kernel_or_null(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.kernels.find(name);
  return it == r.kernels.end() ? nullptr : it->second.get();
}

const Kernel& find_kernel(const std::string& name) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.kernels.find(name);
  if (it != r.kernels.end()) return *it->second;
  std::string known;
  std::vector<std::string> names;
  for (const auto& [n, k] : r.kernels) {
    known += (known.empty() ? "" : ", ") + n;
    names.push_back(n);
  }
  throw Error(ErrorKind::usage, "unknown kernel '" + name + "'" + did_you_mean(name, names) +
                                    "; known kernels: " + (known.empty() ? "(none)" : known));
}

bool on_tensor_cores(const std::string& kernel_name, const std::string& shape_text, const std::string& config_json) {
  const auto* kernel = find_kernel_or_null(kernel_name);
  if (kernel == nullptr) return false;
  try {
    return on_tensor_cores(*kernel, config_from_json(config_json), parse_shape(shape_text, kernel->shape_dims().size()));
  } catch (const std::exception&) {
    return false;  // a row this build cannot read: the rate decides, as for a spec
  }
}

}  // namespace vktune::kernels
