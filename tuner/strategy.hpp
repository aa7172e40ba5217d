#pragma once
// Search strategies: they propose configs one at a time and may learn from
// each result. The evaluate loop applies the budgets.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace vktune {

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::optional<kernels::Config> next() = 0;
  // median_ns is empty when the variant failed.
  virtual void observe(const kernels::Config& config, std::optional<double> median_ns) {
    (void)config;
    (void)median_ns;
  }
};

// Every candidate, in enumeration order.
std::unique_ptr<Strategy> make_exhaustive(std::vector<kernels::Config> candidates);
// Candidates in a random order without repetition, reproducible from seed.
std::unique_ptr<Strategy> make_random(std::vector<kernels::Config> candidates, std::uint64_t seed);
// By name ("exhaustive", "random"); throws Error(usage) for others.
std::unique_ptr<Strategy> make_strategy(const std::string& name, std::vector<kernels::Config> candidates,
                                        std::uint64_t seed);

}  // namespace vktune
