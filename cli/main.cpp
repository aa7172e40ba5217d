// vktune: autotune and benchmark Vulkan compute kernels.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/stop_request.hpp"
#include "common/suggest.hpp"
#include "common/text_escape.hpp"
#include "engine/interface_check.hpp"
#include "engine/isolated_worker.hpp"
#include "engine/template_library.hpp"
#include "harness/build_info.hpp"
#include "harness/compiler.hpp"
#include "harness/coopmat_choice.hpp"
#include "harness/device.hpp"
#include "kernels/registry.hpp"
#include "kernels/spec/spec_arguments.hpp"
#include "cli/commands/commands.hpp"

namespace {

// Ends the process with `code`. After a GPU timeout the abandoned work may
// still run on a driver thread that exit handlers (and vkDestroyInstance,
// which the instance already skipped) would wait for, perhaps forever: then
// the output is flushed and the process ends without them.
int finish(int code) {
  if (vktune::vk::any_device_abandoned()) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  std::fflush(stdout);
  return code;
}

bool is_subcommand(CLI::App& app, const std::string& name) {
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() == name) return true;
  return false;
}

// The commands and the kernels: what a first word may be.
std::vector<std::string> first_words(CLI::App& app) {
  std::vector<std::string> words;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) words.push_back(sub->get_name());
  for (const auto* kernel : vktune::kernels::all_kernels()) words.push_back(kernel->name());
  return words;
}

// For an argument CLI11 did not expect ("--budgte"): the option of the
// command it was given to that it most likely meant.
std::string option_suggestion(CLI::App& app, int argc, char** argv) {
  CLI::App* command = &app;
  if (argc > 1 && is_subcommand(app, argv[1])) command = app.get_subcommand(argv[1]);
  std::vector<std::string> names;
  for (const auto* option : command->get_options())
    for (const auto& long_name : option->get_lnames()) names.push_back("--" + long_name);
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word.rfind("--", 0) != 0) continue;
    const auto name = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    if (auto hint = vktune::did_you_mean(name, names); !hint.empty()) return hint;
  }
  return {};
}
}  // namespace

int main(int argc, char** argv) {
  using namespace vktune;
  // A worker process of a tune (engine/worker_pool.hpp): no command line, no
  // output but its replies.
  if (argc > 1 && std::string(argv[1]) == worker::kWorkerFlag) return worker::run_worker(argc, argv);
  // A kernel spec file given where a kernel name goes becomes a kernel before
  // the commands (one per kernel) are made.
  try {
    (void)vk::spirv_optimization();  // a bad VKTUNE_SPIRV_OPT is one line before anything runs
    (void)vk::coopmat_request();     // and a bad VKTUNE_COOPMAT
    kernels::spec::register_spec_arguments(argc, argv);
    // A spec whose shader wants bindings or push constants the spec does not
    // declare is bad input, refused before anything runs or is written.
    for (const auto* kernel : kernels::all_kernels()) {
      const auto path = kernels::spec::spec_path_of(kernel->name());
      if (path.empty()) continue;
      if (auto problem = baseline_interface_problem(*kernel, TemplateLibrary::embedded()); !problem.empty()) {
        throw Error(ErrorKind::usage, path + ": the shader's interface disagrees with the spec: " + problem);
      }
    }
  } catch (const Error& e) {
    std::cerr << "vktune: error: " << vktune::escape_text(e.what()) << "\n";
    return exit_code_for(e.kind());
  }
  CLI::App app{"vktune: autotuning and benchmarking for Vulkan compute kernels"};
  app.require_subcommand(1);
  app.footer(R"vkt(
vktune KERNEL --device N tunes a kernel (a registered name, or a spec file of
your own: see `vktune spec init`); `vktune KERNEL --help` says how. Every
command has --help; every --json output names its format and version
(docs/JSON_OUTPUT.md).

Exit codes: 0 success; 1 the job ran and found failures (check, or no variant
validated); 2 bad command line or input; 3 no Vulkan loader or no Vulkan
driver; 4 no such device; 5 any other error; 130 or 143 a run stopped by
SIGINT or SIGTERM.

Guides: docs/SPACES_AND_SEARCH.md, docs/TIMING_AND_NUMERICS.md,
docs/RESULTS_DATABASE.md, docs/RELIABILITY.md, docs/TUNING_A_MODEL.md,
docs/SPEC_FORMAT.md, docs/TABLE_FORMAT.md.
)vkt");
  // help2man reads --version (and --help) to write the man page.
  // The embedded templates' set hash names the GLSL this binary compiles, so
  // a measurement that records --version says which kernel code it ran.
  app.set_version_flag(
      "--version",
      [] {
        const auto templates = TemplateLibrary::embedded();
        return vk::build_info() + "\ntemplates: " + std::to_string(templates.size()) + " embedded files, set hash " +
               templates.set_hash();
      },
      "Print vktune's version, compiler, shaderc and glslang, the embedded templates' hash, and exit");
  int exit_code = exit_code::ok;
  cli::add_devices_command(app, exit_code);
  cli::add_gguf_command(app, exit_code);
  cli::add_model_command(app, exit_code);
  cli::add_step_command(app, exit_code);
  cli::add_mobilenet_command(app, exit_code);
  cli::add_list_command(app, exit_code);
  cli::add_check_command(app, exit_code);
  cli::add_export_command(app, exit_code);
  cli::add_import_command(app, exit_code);
  cli::add_replay_command(app, exit_code);
  cli::add_results_command(app, exit_code);
  cli::add_report_command(app, exit_code);
  cli::add_spec_command(app, exit_code);
  // `vktune bench ... -- FLAGS`: FLAGS belong to Google Benchmark, untouched.
  std::vector<std::string> benchmark_flags;
  if (argc > 1 && std::string(argv[1]) == "bench") {
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) != "--") continue;
      benchmark_flags.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  }
  cli::add_bench_command(app, exit_code, benchmark_flags);
  cli::add_tune_commands(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0 in CLI11.
    if (e.get_exit_code() == 0) return app.exit(e);
    // Everything else: one line that names the problem.
    std::string message = e.what();
    if (argc > 1 && argv[1][0] != '-' && !is_subcommand(app, argv[1])) {
      message = std::string("unknown command or kernel '") + argv[1] + "'" + did_you_mean(argv[1], first_words(app)) +
                " (see `vktune --help` and `vktune list`)";
    } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      message += option_suggestion(app, argc, argv);
    }
    std::cerr << "vktune: error: " << vktune::escape_text(message) << "\n";
    return exit_code::usage;
  } catch (const Error& e) {
    std::cerr << "vktune: error: " << vktune::escape_text(e.what()) << "\n";
    // A wait the user's Ctrl-C ended (the database's lock) fails as the
    // wait does; the run ends as an interrupted one, 130 or 143.
    if (const int signal_number = stop_signal(); signal_number != 0) return finish(128 + signal_number);
    return finish(exit_code_for(e.kind()));
  } catch (const std::exception& e) {
    std::cerr << "vktune: error: " << vktune::escape_text(e.what()) << "\n";
    return finish(exit_code::runtime_error);
  }
  return finish(exit_code);
}
