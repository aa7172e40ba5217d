#include "tuner/search/config_list.hpp"

#include "common/error.hpp"

namespace vktune {

ConfigList::ConfigList(const std::vector<kernels::Config>& configs) {
  for (const auto& c : configs) push_back(c);
}

void ConfigList::push_back(const kernels::Config& config) {
  if (count_ == 0 && values_.empty()) {
    names_.clear();
    for (const auto& [name, value] : config) names_.push_back(name);
  }
  bool same = config.size() == names_.size();
  std::size_t n = 0;
  for (auto it = config.begin(); same && it != config.end(); ++it, ++n) same = it->first == names_[n];
  if (!same) {
    throw Error(ErrorKind::internal,
                "config list: config " + kernels::config_to_string(config) + " has other parameters than the first");
  }
  for (const auto& [name, value] : config) values_.push_back(value);
  ++count_;
}

void ConfigList::append(ConfigList&& more) {
  if (more.count_ == 0) return;
  if (count_ == 0) {
    *this = std::move(more);
    return;
  }
  if (more.names_ != names_) {
    throw Error(ErrorKind::internal, "config list: appended configs have other parameters");
  }
  values_.insert(values_.end(), more.values_.begin(), more.values_.end());
  count_ += more.count_;
  more.clear();
}

void ConfigList::clear() {
  names_.clear();
  values_.clear();
  count_ = 0;
}

kernels::Config ConfigList::operator[](std::size_t index) const {
  kernels::Config config;
  for (std::size_t n = 0; n < names_.size(); ++n) config.emplace_hint(config.end(), names_[n], value(index, n));
  return config;
}

kernels::Config ConfigList::at(std::size_t index) const {
  if (index >= count_) throw Error(ErrorKind::internal, "config list: no config " + std::to_string(index));
  return (*this)[index];
}

std::vector<kernels::Config> ConfigList::to_vector() const {
  std::vector<kernels::Config> out;
  out.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) out.push_back((*this)[i]);
  return out;
}

}  // namespace vktune
