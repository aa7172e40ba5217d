#include "tuner/space.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "common/error.hpp"

namespace vktune {

SpaceScope parse_space_scope(const std::string& text) {
  if (text == "pruned") return SpaceScope::pruned;
  if (text == "full") return SpaceScope::full;
  throw Error(ErrorKind::usage, "--space must be pruned or full, not '" + text + "'");
}

const char* to_string(SpaceScope scope) { return scope == SpaceScope::full ? "full" : "pruned"; }

std::vector<const kernels::PruningRule*> active_pruning(const kernels::Space& space, const vk::DeviceInfo& device,
                                                        SpaceScope scope) {
  std::vector<const kernels::PruningRule*> rules;
  if (scope == SpaceScope::full) return rules;
  for (const auto& rule : space.pruning) {
    if (rule.measured_on.matches(device)) rules.push_back(&rule);
  }
  return rules;
}

namespace {

// What one stretch of a path's cartesian product gave.
struct Stretch {
  ConfigList valid;
  std::size_t filtered = 0;
  std::map<std::string, std::size_t> filter_reasons, pruned_by;
  std::map<std::string, std::string> filter_examples;

  // `count` configs broke the rule `why` names.
  void illegal(const Violation& why, std::size_t count) {
    filtered += count;
    filter_reasons[why.rule] += count;
    filter_examples.emplace(why.rule, why.detail);
  }
};

// Where configs [first, last) of `path`'s cartesian product stand, in
// odometer order (the last parameter fastest).
std::vector<std::size_t> positions_at(const kernels::Path& path, std::size_t index) {
  const auto& params = path.parameters;
  std::vector<std::size_t> position(params.size(), 0);
  for (std::size_t i = params.size(); i > 0; --i) {
    position[i - 1] = index % params[i - 1].values.size();
    index /= params[i - 1].values.size();
  }
  return position;
}

// Configs [first, last) of `path`'s cartesian product, checked one by one,
// on top of `base` (the pinned values and the shape's).
Stretch enumerate_stretch(const kernels::Kernel& kernel, const kernels::Shape& shape, const vk::DeviceInfo& device,
                          const std::vector<const kernels::PruningRule*>& rules, const kernels::Path& path,
                          const kernels::Config& base, std::size_t first, std::size_t last) {
  const auto& params = path.parameters;
  auto position = positions_at(path, first);
  kernels::Config config = base;
  // Each parameter's entry in `config`, so that a step rewrites only the
  // values that changed (map lookups by name dominated enumeration).
  std::vector<kernels::Config::iterator> slots;
  for (std::size_t i = 0; i < params.size(); ++i) {
    slots.push_back(config.insert_or_assign(params[i].name, params[i].values[position[i]]).first);
  }
  Stretch out;
  for (std::size_t index = first; index < last; ++index) {
    const auto pruned_by = std::find_if(rules.begin(), rules.end(),
                                        [&](const kernels::PruningRule* r) { return r->prunes(config, shape); });
    if (pruned_by != rules.end()) {
      ++out.filtered;
      ++out.pruned_by[(*pruned_by)->name];
    } else if (auto why = kernel.constraint_violation(config, shape, device); !why.empty()) {
      out.illegal(why, 1);
    } else {
      out.valid.push_back(config);
    }
    for (std::size_t i = params.size(); i > 0; --i) {
      const bool carry = ++position[i - 1] == params[i - 1].values.size();
      if (carry) position[i - 1] = 0;
      slots[i - 1]->second = params[i - 1].values[position[i - 1]];
      if (!carry) break;
    }
  }
  return out;
}

// The same stretch through the kernel's prefix checker: each prefix is
// checked once, and a failing one skips every config under it.
Stretch enumerate_stretch(kernels::PrefixChecker& checker, const kernels::Path& path,
                          const kernels::Config& base, std::size_t first, std::size_t last) {
  const auto& params = path.parameters;
  const std::size_t n = params.size();
  // block[d]: configs sharing one prefix of d parameters.
  std::vector<std::size_t> block(n + 1, 1);
  for (std::size_t d = n; d > 0; --d) block[d - 1] = block[d] * params[d - 1].values.size();
  Stretch out;
  auto record = [&](const kernels::PrefixChecker::Verdict& v, std::size_t count) {
    if (v.outcome == kernels::PrefixChecker::Outcome::pruned) {
      out.filtered += count;
      out.pruned_by[v.why.rule] += count;
    } else {
      out.illegal(v.why, count);
    }
  };
  std::vector<int> values(n);
  if (const auto v = checker.check(0, values.data()); v.outcome != kernels::PrefixChecker::Outcome::keep) {
    record(v, last - first);
    return out;
  }
  kernels::Config config = base;
  std::vector<kernels::Config::iterator> slots;
  for (const auto& p : params) slots.push_back(config.insert_or_assign(p.name, p.values.front()).first);
  auto position = positions_at(path, first);
  std::size_t checked = 0;  // prefixes of length 1..checked of the current position were kept
  for (std::size_t index = first; index < last;) {
    for (std::size_t i = checked; i < n; ++i) values[i] = params[i].values[position[i]];
    std::size_t failed_at = 0;
    for (std::size_t d = checked + 1; d <= n; ++d) {
      const auto v = checker.check(d, values.data());
      if (v.outcome == kernels::PrefixChecker::Outcome::keep) continue;
      failed_at = d;
      const std::size_t next = std::min(last, (index / block[d] + 1) * block[d]);
      record(v, next - index);
      index = next;
      break;
    }
    if (failed_at == 0) {
      for (std::size_t i = 0; i < n; ++i) slots[i]->second = values[i];
      out.valid.push_back(config);
      if (++index >= last) break;
      // One odometer step: the prefixes before the digit that moved stay kept.
      std::size_t i = n;
      while (i > 0 && ++position[i - 1] == params[i - 1].values.size()) position[--i] = 0;
      checked = i - 1;
      continue;
    }
    if (index >= last) break;
    // After a skip: the prefixes (shorter than the failed one) the jump left unchanged stay kept.
    const auto moved = positions_at(path, index);
    std::size_t same = 0;
    while (same < failed_at - 1 && moved[same] == position[same]) ++same;
    checked = same;
    position = moved;
  }
  return out;
}

// Configs per stretch: enough to keep a thread busy, few enough to spread
// a path of a few thousand over the cores.
constexpr std::size_t kStretch = 1024;

}  // namespace

SpaceEnumeration enumerate_space(const kernels::Kernel& kernel, const kernels::Shape& shape,
                                 const vk::DeviceInfo& device, SpaceScope scope) {
  const auto& spaces = kernel.spaces();
  const auto& space = spaces.at(kernel.space_index(shape));
  const auto rules = active_pruning(space, device, scope);
  const kernels::Config shape_values = space.shape_values ? space.shape_values(shape) : kernels::Config{};
  const auto paths = space.effective_paths();
  // Every path's cartesian product in stretches, checked on all cores (the
  // kernels' constraint checks are const and touch no shared state), then
  // joined in order: the result is the same as one thread's.
  struct Job {
    std::size_t path, first, last;
  };
  std::vector<Job> jobs;
  std::vector<kernels::Config> bases;
  SpaceEnumeration result;
  result.space_name = space.name;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    PathEnumeration counts{paths[p].name, 1, 0, paths[p].covering_strength};
    for (const auto& param : paths[p].parameters) {
      if (!param.values.empty() && counts.cartesian > kMaxPathConfigs / param.values.size()) {
        const std::string where = paths.size() > 1 ? "path '" + paths[p].name + "' of the " + space.name + " space"
                                                   : "the " + space.name + " space";
        throw Error(ErrorKind::usage, kernel.name() + ": " + where + " has more than " +
                                          std::to_string(kMaxPathConfigs) +
                                          " configs (the product of its parameters' value counts); split it into "
                                          "paths or narrow its values");
      }
      counts.cartesian *= param.values.size();
    }
    result.total += counts.cartesian;
    result.paths.push_back(counts);
    auto base = paths[p].pinned;
    for (const auto& [name, value] : shape_values) base[name] = value;
    bases.push_back(std::move(base));
    for (std::size_t first = 0; first < counts.cartesian; first += kStretch) {
      jobs.push_back({p, first, std::min(counts.cartesian, first + kStretch)});
    }
  }
  std::vector<Stretch> stretches(jobs.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto work = [&] {
    // This thread's prefix checker per path, made on first use.
    std::vector<std::unique_ptr<kernels::PrefixChecker>> checkers(paths.size());
    std::vector<bool> asked(paths.size(), false);
    for (std::size_t j = next++; j < jobs.size(); j = next++) {
      try {
        const auto& job = jobs[j];
        if (!asked[job.path]) {
          checkers[job.path] = kernel.prefix_checker(paths[job.path], shape, device, rules);
          asked[job.path] = true;
        }
        stretches[j] = checkers[job.path]
                           ? enumerate_stretch(*checkers[job.path], paths[job.path], bases[job.path], job.first, job.last)
                           : enumerate_stretch(kernel, shape, device, rules, paths[job.path], bases[job.path],
                                               job.first, job.last);
      } catch (...) {
        const std::lock_guard lock(failure_lock);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), jobs.size());
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    auto& stretch = stretches[j];
    result.filtered += stretch.filtered;
    for (const auto& [rule, n] : stretch.filter_reasons) result.filter_reasons[rule] += n;
    for (const auto& [rule, detail] : stretch.filter_examples) result.filter_examples.emplace(rule, detail);
    for (const auto& [rule, n] : stretch.pruned_by) result.pruned_by[rule] += n;
    result.paths[jobs[j].path].valid += stretch.valid.size();
    result.path_of.insert(result.path_of.end(), stretch.valid.size(), jobs[j].path);
    result.valid.append(std::move(stretch.valid));
  }
  return result;
}

namespace {

const kernels::Parameter* find_parameter(const kernels::Space& space, const std::string& name) {
  const auto p = std::find_if(space.parameters.begin(), space.parameters.end(),
                              [&](const kernels::Parameter& q) { return q.name == name; });
  return p == space.parameters.end() ? nullptr : &*p;
}

}  // namespace

std::vector<std::string> check_only(const kernels::Kernel& kernel, const std::vector<kernels::Shape>& shapes,
                                    const std::map<std::string, std::vector<int>>& only) {
  // The spaces of the run, in the order their first shape comes.
  std::vector<std::size_t> spaces;
  std::map<std::size_t, std::vector<std::string>> shapes_of;
  for (const auto& shape : shapes) {
    const auto index = kernel.space_index(shape);
    if (!shapes_of.count(index)) spaces.push_back(index);
    shapes_of[index].push_back(kernels::shape_to_string(shape));
  }
  auto describe = [&](std::size_t index) {
    std::string text;
    for (const auto& s : shapes_of[index]) text += (text.empty() ? "" : " ") + s;
    return "the " + kernel.spaces().at(index).name + " space (" + text + ")";
  };
  std::vector<std::string> notes;
  for (const auto& [name, values] : only) {
    std::vector<std::size_t> with, without;
    for (auto index : spaces) (find_parameter(kernel.spaces().at(index), name) ? with : without).push_back(index);
    if (with.empty()) {
      std::string names;
      for (auto index : spaces) {
        for (const auto& q : kernel.spaces().at(index).parameters)
          if (names.find(" " + q.name + ",") == std::string::npos) names += " " + q.name + ",";
      }
      names = names.empty() ? "none" : names.substr(1, names.size() - 2);
      throw Error(ErrorKind::usage, "--only: " + kernel.name() + " has no parameter " + name +
                                        (spaces.size() == 1 ? " in " + describe(spaces[0]) + "; it has "
                                                            : " in any space of this run; they have ") +
                                        names);
    }
    for (int v : values) {
      const bool offered = std::any_of(with.begin(), with.end(), [&](std::size_t index) {
        const auto& candidates = find_parameter(kernel.spaces().at(index), name)->values;
        return std::find(candidates.begin(), candidates.end(), v) != candidates.end();
      });
      if (!offered) throw Error(ErrorKind::usage, "--only: " + std::to_string(v) + " is not a candidate value of " + name);
    }
    if (without.empty()) continue;
    std::string applies, lacks;
    for (auto index : with) applies += (applies.empty() ? "" : ", ") + describe(index);
    for (auto index : without) lacks += (lacks.empty() ? "" : ", ") + describe(index);
    notes.push_back("note: --only " + name + " applies to " + applies + "; " + lacks + " has no " + name +
                    ", so --only " + name + " does not narrow it");
  }
  return notes;
}

ConfigList select_only(const kernels::Kernel& kernel, const kernels::Shape& shape, const ConfigList& valid,
                       const std::map<std::string, std::vector<int>>& only) {
  const auto& space = kernel.spaces().at(kernel.space_index(shape));
  std::vector<std::pair<std::string, std::vector<int>>> applicable;
  for (const auto& entry : only)
    if (find_parameter(space, entry.first)) applicable.push_back(entry);
  ConfigList kept;
  for (const auto& config : valid) {
    const bool keep = std::all_of(applicable.begin(), applicable.end(), [&](const auto& entry) {
      return std::find(entry.second.begin(), entry.second.end(), config.at(entry.first)) != entry.second.end();
    });
    if (keep) kept.push_back(config);
  }
  return kept;
}

}  // namespace vktune
