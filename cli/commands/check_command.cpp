// `vktune check`: the correctness gate. Validates kernel variants against the
// CPU reference and prints every failure with its config.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

#include "common/error.hpp"
#include "harness/instance.hpp"
#include "kernels/registry.hpp"
#include "results/import.hpp"
#include "cli/commands/check_winners.hpp"
#include "cli/commands/commands.hpp"
#include "cli/commands/options.hpp"
#include "cli/progress.hpp"
#include "cli/report.hpp"
#include "tuner/session.hpp"
#include "tuner/covering.hpp"
#include "tuner/device_baseline.hpp"
#include "common/json_formats.hpp"
#include "tuner/space.hpp"
#include "engine/stale_config.hpp"
#include "tuner/search/search_space.hpp"
#include "tuner/search/strategy.hpp"

namespace vktune::cli {

namespace {

struct CheckArgs {
  std::vector<std::string> kernels;
  IsolationArgs isolation;
  std::uint32_t device = 0;
  std::string variants = "covering";
  std::string space = "pruned";  // the configs a tune on this device searches
  std::vector<std::string> tables;  // exported tables whose winners are checked too
  std::string shapes = "ci";
  std::vector<std::string> shape_texts;  // --shape: these shapes instead of --shapes (one kernel)
  std::string db;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string templates;
  bool json = false;
  bool validation = false;
  std::string bounds = "auto";  // bounds-instrumented validation: auto = on a CPU device
};

// The winners of every table in `files`, per kernel: (shape, config).
using TableWinners = std::map<std::string, std::vector<std::pair<std::string, kernels::Config>>>;
TableWinners read_table_winners(const std::vector<std::string>& files) {
  TableWinners winners;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(ErrorKind::io, "cannot read table " + file);
    std::ostringstream text;
    text << in.rdbuf();
    for (const auto& w : results::read_table_text(text.str(), file).winners) {
      winners[w.winner.kernel].emplace_back(w.winner.shape, kernels::config_from_json(w.winner.config_json));
    }
  }
  return winners;
}

// The table winners of `kernel` tuned in the space of `shape` and legal
// there, not already in `configs`; marks in `checked` which winners were.
void add_table_winners(const kernels::Kernel& kernel, const kernels::Shape& shape, const vk::DeviceInfo& info,
                       const std::vector<std::pair<std::string, kernels::Config>>& winners,
                       std::vector<char>& checked, std::vector<kernels::Config>& configs) {
  const auto space = kernel.space_index(shape);
  for (std::size_t i = 0; i < winners.size(); ++i) {
    kernels::Shape tuned;
    try {
      tuned = kernels::parse_shape(winners[i].first, kernel.shape_dims().size());
      kernel.validate_shape(tuned);
    } catch (const Error&) {
      continue;  // a shape this build no longer accepts: reported as unchecked
    }
    const auto current = update_config(kernel, tuned, winners[i].second).config;
    if (!current) continue;  // stale: reported as unchecked
    const auto& config = *current;
    if (kernel.space_index(tuned) != space || !kernel.constraint_violation(config, shape, info).empty()) continue;
    checked[i] = 1;
    if (std::find(configs.begin(), configs.end(), config) == configs.end()) configs.push_back(config);
  }
}

// The shape of `kernel`'s space at `tuned` on which `config` is legal with
// the least work: each dimension halved in turn while the config stays legal
// in the same space. Empty when the config is not legal at `tuned` itself.
std::optional<kernels::Shape> smallest_legal_shape(const kernels::Kernel& kernel, const kernels::Config& config,
                                                   const std::string& tuned, const vk::DeviceInfo& info) {
  kernels::Shape shape;
  try {
    shape = kernels::parse_shape(tuned, kernel.shape_dims().size());
    kernel.validate_shape(shape);
  } catch (const Error&) {
    return std::nullopt;
  }
  const auto space = kernel.space_index(shape);
  auto legal = [&](const kernels::Shape& s) {
    try {
      kernel.validate_shape(s);
    } catch (const Error&) {
      return false;
    }
    return kernel.space_index(s) == space && kernel.constraint_violation(config, s, info).empty();
  };
  if (!legal(shape)) return std::nullopt;
  for (bool shrank = true; shrank;) {
    shrank = false;
    for (auto& dim : shape) {
      if (dim < 2) continue;
      const auto kept = dim;
      dim /= 2;
      if (legal(shape)) {
        shrank = true;
      } else {
        dim = kept;
      }
    }
  }
  return shape;
}

// The configs to check at each of `shapes`, by --variants (but winners,
// which check_winners.hpp plans at the winners' own shapes). A covering
// takes the shapes of one space together (tuner/covering.hpp): every value
// at each shape, every pair at one of them; and each shape's baseline.
std::vector<std::vector<kernels::Config>> select_configs(const kernels::Kernel& kernel,
                                                         const std::vector<kernels::Shape>& shapes,
                                                         const CheckArgs& args, const vk::DeviceInfo& info) {
  const auto scope = parse_space_scope(args.space);
  std::vector<std::vector<kernels::Config>> configs(shapes.size());
  if (args.variants == "covering") {
    std::map<std::size_t, std::vector<std::size_t>> by_space;  // space index -> shapes
    for (std::size_t s = 0; s < shapes.size(); ++s) by_space[kernel.space_index(shapes[s])].push_back(s);
    for (const auto& [space, members] : by_space) {
      std::vector<SpaceEnumeration> spaces;
      for (const auto s : members) spaces.push_back(enumerate_space(kernel, shapes[s], info, scope));
      std::vector<const SpaceEnumeration*> group;
      for (const auto& e : spaces) group.push_back(&e);
      auto covering = covering_configs(group);
      for (std::size_t m = 0; m < members.size(); ++m) configs[members[m]] = std::move(covering[m]);
    }
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const auto baseline = device_baseline(kernel, shapes[s], info);
      auto& list = configs[s];
      if (std::find(list.begin(), list.end(), baseline) == list.end()) list.insert(list.begin(), baseline);
    }
    return configs;
  }
  const std::string prefix = "sample:";
  const bool sample = args.variants.rfind(prefix, 0) == 0;
  std::size_t n = 0;
  if (sample) {
    try {
      n = std::stoul(args.variants.substr(prefix.size()));
    } catch (const std::exception&) {
    }
    if (n == 0) throw Error(ErrorKind::usage, "--variants sample:N needs a positive N, got '" + args.variants + "'");
  } else if (args.variants != "all") {
    throw Error(ErrorKind::usage,
                "--variants must be covering, all, winners or sample:N, not '" + args.variants + "'");
  }
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    auto space = enumerate_space(kernel, shapes[s], info, scope);
    if (!sample) {
      configs[s] = std::move(space.valid);
      continue;
    }
    const SearchSpace search(space.valid);
    auto strategy = make_strategy("random", {search, args.seed, true});
    for (auto index : strategy->propose(n)) configs[s].push_back(search.config(index));
  }
  return configs;
}

void run_check(CheckArgs args, int& result_code) {
  std::vector<const kernels::Kernel*> selected;
  if (args.kernels.empty()) selected = kernels::all_kernels();
  for (const auto& name : args.kernels) selected.push_back(&kernels::find_kernel(name));
  if (!args.seed_given) args.seed = std::random_device{}();
  auto templates = TemplateLibrary::select(args.templates.empty() ? std::nullopt : std::optional(args.templates));

  const bool winners_mode = args.variants == "winners";
  if (!args.shape_texts.empty() && selected.size() != 1) {
    throw Error(ErrorKind::usage, "--shape needs exactly one KERNEL (shapes have each kernel's own dimensions)");
  }
  const auto given_shapes = args.shape_texts.empty() ? std::vector<kernels::Shape>{}
                                                     : parse_shapes(*selected.front(), args.shape_texts);
  vk::Instance instance({.validation = args.validation});
  // --variants winners only reads the database: it must exist (a mistyped
  // path would otherwise be created empty and check nothing).
  std::optional<results::Store> store;
  if (winners_mode) {
    const std::filesystem::path db = args.db.empty() ? results::Store::default_path() : std::filesystem::path(args.db);
    if (!std::filesystem::exists(db)) {
      throw Error(ErrorKind::usage, "no results database at " + db.string() + " (tune first, or pass --db PATH)");
    }
    store = results::Store::open_for_reading(db);
  }
  const auto table_winners = read_table_winners(args.tables);  // before any device work
  Progress progress(stderr_is_terminal(), false);  // on stderr, --json or not
  TuneSession session(instance, args.device, nullptr, templates, progress);  // checks store nothing
  WorkerPool workers(isolation_settings(args.device, session.device().info().is_cpu(),
                                        args.isolation.compile_timeout, args.isolation.jobs));
  session.isolate(&workers);
  const auto& info = session.device().info();
  // On a CPU driver an access past a guard band is otherwise invisible
  // (lavapipe drops such a store and reads zero), so auto instruments there,
  // though validation then takes about ten times as long
  // (docs/TIMING_AND_NUMERICS.md); a GPU checks the modules as they ship
  // unless asked.
  const bool check_bounds = args.bounds == "on" || (args.bounds == "auto" && info.is_cpu());

  std::size_t passed = 0, failed = 0;
  nlohmann::json failures = nlohmann::json::array();
  nlohmann::json unchecked = nlohmann::json::array();  // winners legal at no shape tried
  nlohmann::json shapes_checked = nlohmann::json::array();
  auto check_shape = [&](const kernels::Kernel& kernel, const kernels::Shape& shape,
                         const std::vector<kernels::Config>& configs) {
    auto result = session.check(kernel, shape, configs, args.seed, check_bounds);
    shapes_checked.push_back({{"kernel", kernel.name()},
                              {"shape", kernels::shape_to_string(shape)},
                              {"variants", result.outcomes.size()},
                              {"failed", result.failures()}});
    // Variants that failed the same way (a missing extension fails every
    // one of them) are one line: the first config and how many more; --json
    // lists each.
    std::vector<std::pair<const Outcome*, std::size_t>> distinct;
    for (const auto& o : result.outcomes) {
      if (o.status == results::Status::ok) {
        ++passed;
        continue;
      }
      ++failed;
      auto j = outcome_json(o);
      j["kernel"] = kernel.name();
      j["shape"] = kernels::shape_to_string(shape);
      failures.push_back(j);
      const auto same = std::find_if(distinct.begin(), distinct.end(), [&](const auto& d) {
        return d.first->status == o.status && d.first->reason == o.reason;
      });
      if (same == distinct.end()) {
        distinct.emplace_back(&o, 0);
      } else {
        ++same->second;
      }
    }
    if (!args.json) {
      for (const auto& [o, more] : distinct) {
        std::cout << "FAIL " << kernel.name() << " " << kernels::shape_to_string(shape) << " ["
                  << kernels::config_to_string(o->config) << "]: " << results::to_string(o->status) << ": "
                  << o->reason;
        if (more > 0) {
          std::cout << " (and " << more << (more == 1 ? " more variant" : " more variants") << " the same way)";
        }
        std::cout << "\n";
      }
    }
    if (!args.json) {
      std::cout << kernel.name() << " " << kernels::shape_to_string(shape) << ": " << result.outcomes.size()
                << (result.outcomes.size() == 1 ? " variant" : " variants") << " checked, " << result.failures()
                << " failed\n";
    }
    return result;
  };
  for (const auto* kernel : selected) {
    const auto shapes = !given_shapes.empty()   ? given_shapes
                        : args.shapes == "ci" ? kernel->check_shapes()
                                              : kernel->default_shapes();
    const auto winners = table_winners.find(kernel->name());
    std::vector<char> winner_checked(winners == table_winners.end() ? 0 : winners->second.size(), 0);
    // With --variants winners, the database's winners are checked below at
    // their own shapes; here only a table's.
    auto planned = winners_mode ? std::vector<std::vector<kernels::Config>>(shapes.size())
                                : select_configs(*kernel, shapes, args, info);
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      auto& configs = planned[s];
      if (winners != table_winners.end()) {
        add_table_winners(*kernel, shapes[s], info, winners->second, winner_checked, configs);
      }
      if (!configs.empty()) check_shape(*kernel, shapes[s], configs);
    }
    // A winner that no check shape admits (its tiles or steps are too large
    // for them) is checked at the smallest shape of its space that it runs
    // on, found by halving its tuned shape.
    std::map<kernels::Shape, std::vector<kernels::Config>> shrunk;
    for (std::size_t i = 0; i < winner_checked.size(); ++i) {
      if (winner_checked[i]) continue;
      const auto& [tuned, stored] = winners->second[i];
      auto config = stored;
      std::string why;
      bool current = false;
      try {
        const auto update = update_config(*kernel, kernels::parse_shape(tuned, kernel->shape_dims().size()), stored);
        if (update.config) config = *update.config;
        current = update.config.has_value();
        why = update.note;
      } catch (const Error& e) {
        why = e.what();
      }
      if (auto shape = current ? smallest_legal_shape(*kernel, config, tuned, info) : std::nullopt) {
        auto& configs = shrunk[*shape];
        if (std::find(configs.begin(), configs.end(), config) == configs.end()) configs.push_back(config);
        continue;
      }
      if (current) {
        try {
          why = "not legal on this device: " +
                kernel->constraint_violation(config, kernels::parse_shape(tuned, kernel->shape_dims().size()), info)
                    .detail;
        } catch (const Error&) {
          why = "its tuned shape is not a valid shape";
        }
      }
      unchecked.push_back(
          {{"source", "table"}, {"kernel", kernel->name()}, {"shape", tuned}, {"config", config}, {"reason", why}});
      if (!args.json) {
        std::cout << "not checked: " << kernel->name() << " " << tuned << " winner [" << kernels::config_to_string(config)
                  << "]: " << why << "\n";
      }
    }
    for (const auto& [shape, configs] : shrunk) check_shape(*kernel, shape, configs);
  }
  std::optional<WinnerChecks> stored_winners;
  if (winners_mode) {
    stored_winners = plan_winner_checks(*store, info, selected, given_shapes);
    for (const auto& [key, configs] : stored_winners->to_check) {
      const auto result = check_shape(kernels::find_kernel(key.first), key.second, configs);
      record_winner_outcomes(*stored_winners, key.first, key.second, result.outcomes);
    }
    for (const auto& w : stored_winners->winners) {
      if (w.checked_somewhere()) continue;
      unchecked.push_back({{"source", "database"},
                           {"kernel", w.kernel},
                           {"shape", w.tuned_shape},
                           {"config", w.config},
                           {"reason", w.at.empty() ? std::string() : w.at.front().reason}});
    }
    if (!args.json) print_winner_checks(std::cout, *stored_winners);
  }
  if (args.json) {
    auto out = json_document(kCheckJson);
    out.update({{"device", info.name},
                {"seed", args.seed},
                {"variants", args.variants},
                {"bounds_instrumented", check_bounds},
                {"passed", passed},
                {"failed", failed},
                {"shapes", shapes_checked},
                {"failures", failures},
                {"unchecked_winners", unchecked}});
    if (stored_winners) {
      out.update(winner_checks_json(*stored_winners));
      out["database"] = stored_winners->database;
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "check: seed " << args.seed << " on " << info.name
              << (check_bounds ? " (bounds-instrumented)" : "") << "\n"
              << passed << " passed, " << failed << " failed\n";
  }
  result_code = failed == 0 ? exit_code::ok : exit_code::failure;
  // A gate that checked nothing proves nothing: it fails, and says so.
  if (passed + failed == 0) {
    std::cerr << "check: nothing was checked (no variant of the kernels asked for is legal at a shape checked here, "
                 "or there was no winner to check); exit code 1\n";
    result_code = exit_code::failure;
  }
}

}  // namespace

// covering | all | winners | sample:N with N from 1 to a billion; help shows
// the choices.
CLI::Validator variants_validator() {
  return CLI::Validator(
      [](std::string& text) {
        if (text == "covering" || text == "all" || text == "winners") return std::string();
        const std::string prefix = "sample:";
        if (text.rfind(prefix, 0) == 0) {
          const auto n = text.substr(prefix.size());
          if (!n.empty() && n.size() <= 10 && n.find_first_not_of("0123456789") == std::string::npos &&
              std::stoull(n) >= 1 && std::stoull(n) <= 1'000'000'000)
            return std::string();
          return "'" + text + "': sample:N needs N from 1 to 1000000000";
        }
        return "'" + text + "' is not one of covering, all, winners, sample:N";
      },
      "{covering,all,winners,sample:N}");
}

void add_check_command(CLI::App& root, int& result_code) {
  auto* cmd = root.add_subcommand("check", "Validate kernel variants against the CPU reference (the correctness gate)");
  // The reference text (the man page carries it too).
  cmd->footer(R"vkt(
Validates variants against the double-precision CPU reference; prints each
distinct failure with its config and how many variants failed the same way
(--json lists every one); exits 1 on any failure, and when nothing was
checked. --variants picks them:
  covering  (the default) in each path of the space (as a tune on this device
            searches it; --space full: every legal config), every value of
            every parameter at each shape and every pair of values of two
            parameters that some valid config takes at one shape at least
            (the shapes of one space share the pairs), plus each shape's
            baseline. The quantized products with fp16 or SwiGLU activations
            (and spec sub-spaces with "check_covering": "values") take every
            value only: they run their fp32 sibling's templates but for how x
            is read and y stored, and the sibling takes the pairs.
  winners   every winner the database (--db, which must exist) holds for this
            GPU, whatever driver it was tuned with, at the shape it was tuned
            at and at each --shape where it is legal, one line per winner
            saying where it passed or failed and where it could not be checked
            and why. A kernel with no winner for this GPU is said in one line
            and nothing of it is checked (no baseline in its place).
  all       every valid config of the space.
  sample:N  N valid configs drawn at random, without repetition.

--shape (one KERNEL) checks at these shapes instead of --shapes.

--bounds on validates modules instrumented by SPIRV-Tools so that every load
and store through a storage buffer past the end of its data, however far, is
skipped and fails the variant as out_of_bounds, naming the buffer; off runs
the modules as they ship, where guard bands catch what lands within 1-4 MiB
past a buffer. auto (the default): on for a CPU device (lavapipe), off on a
GPU. Instrumented, a variant's validation takes about ten times as long on
lavapipe (llvmpipe compiling the larger shader).

--table adds every winner of an exported table, at each check shape of its
space where it is legal, else at the smallest shape of its space it runs on
(its tuned shape halved dimension by dimension); a winner the device cannot
run (e.g. cooperative matrices on lavapipe) is listed as not checked.

See docs/TIMING_AND_NUMERICS.md, "Validation".
)vkt");
  auto args = std::make_shared<CheckArgs>();
  cmd->add_option("kernels", args->kernels, "Kernels to check (default: all)");
  add_device_option(*cmd, args->device, "Vulkan device index");
  cmd->add_option("--variants", args->variants,
                  "covering (every value and every pair of values of two parameters in each path, and the "
                  "baseline; every value only for the fp16- and SwiGLU-activation products, whose fp32 "
                  "siblings take the pairs) | all | winners (every winner stored for this GPU in --db, at its own "
                  "shape and each --shape) | sample:N")
      ->capture_default_str()
      ->check(variants_validator());
  add_space_option(*cmd, args->space);
  add_isolation_options(*cmd, args->isolation);
  cmd->add_option("--table", args->tables,
                  "Also check every winner of this kernel in an exported table (vktune export), at each check "
                  "shape of its space where it is legal (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--shapes", args->shapes, "ci (small check shapes) | default (the kernels' real shapes)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ci", "default"}));
  cmd->add_option("--shape,-s", args->shape_texts,
                  "Check at this shape instead of --shapes (one KERNEL; repeatable); with --variants winners, "
                  "each winner also at this shape where it is legal");
  cmd->add_option("--db", args->db,
                  "Database for --variants winners (every winner stored for this GPU, at its own shape)")
      ->check(database_validator());
  cmd->add_option("--seed", args->seed, "Seed for inputs and sampling (default: fresh each run)")
      ->transform(count_validator(std::numeric_limits<std::uint64_t>::max()))
      ->each([args](const std::string&) { args->seed_given = true; });
  cmd->add_option("--templates", args->templates, "Read templates from DIR instead of the built-in ones")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--json", args->json, "Print machine-readable results");
  cmd->add_flag("--validation", args->validation, "Enable Vulkan validation layers if installed");
  cmd->add_option("--bounds", args->bounds,
                  "Bounds-instrumented validation: on | off | auto (on for a CPU device such as lavapipe)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  cmd->callback([args, &result_code] { run_check(*args, result_code); });
}

}  // namespace vktune::cli
