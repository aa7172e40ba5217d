#pragma once
// A list of configs over one set of parameter names, stored as their values
// (4 bytes each) with the names once: what an enumeration keeps of a space's
// legal configs, about 70 bytes a config of attention_decode's 17
// parameters where a kernels::Config (a map) takes about 430 (issue 40,
// item 6). Configs are built when read.
#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune {

class ConfigList {
 public:
  ConfigList() = default;
  explicit ConfigList(const std::vector<kernels::Config>& configs);
  ConfigList(const ConfigList&) = default;
  ConfigList& operator=(const ConfigList&) = default;
  // A list moved from is empty.
  ConfigList(ConfigList&& other) noexcept { *this = std::move(other); }
  ConfigList& operator=(ConfigList&& other) noexcept {
    names_ = std::move(other.names_);
    values_ = std::move(other.values_);
    count_ = std::exchange(other.count_, 0);
    other.names_.clear();
    other.values_.clear();
    return *this;
  }

  // Throws Error(internal) for a config over other names than the first's.
  void push_back(const kernels::Config& config);
  // Moves `more`'s configs to the end (the same names, or either empty).
  void append(ConfigList&& more);
  void clear();

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  kernels::Config operator[](std::size_t index) const;
  kernels::Config at(std::size_t index) const;  // throws Error(internal) past the end
  kernels::Config front() const { return at(0); }
  kernels::Config back() const { return at(count_ - 1); }

  // The names every config has, in a config's order; a config's value of
  // names()[n] without building it.
  const std::vector<std::string>& names() const { return names_; }
  int value(std::size_t index, std::size_t name) const { return values_[index * names_.size() + name]; }

  std::vector<kernels::Config> to_vector() const;
  // For the interfaces that take configs as a vector (a copy of each).
  operator std::vector<kernels::Config>() const { return to_vector(); }  // NOLINT(google-explicit-constructor)

  friend bool operator==(const ConfigList& a, const ConfigList& b) {
    return a.count_ == b.count_ && (a.count_ == 0 || (a.names_ == b.names_ && a.values_ == b.values_));
  }

  // Reads configs in order, each built as it is read.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = kernels::Config;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = kernels::Config;
    const_iterator(const ConfigList* list, std::size_t index) : list_(list), index_(index) {}
    kernels::Config operator*() const { return (*list_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) { return {list_, index_++}; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.index_ == b.index_; }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) { return a.index_ != b.index_; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
    }

   private:
    const ConfigList* list_;
    std::size_t index_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, count_}; }

 private:
  std::vector<std::string> names_;
  std::vector<int> values_;  // count_ × names_
  std::size_t count_ = 0;
};

}  // namespace vktune
