// `vktune spec init NAME [--dir DIR]`: a commented starting kernel spec and
// its template, to check, tune and edit (docs/SPEC_FORMAT.md); with --from
// SHADER.comp, a spec skeleton of that shader's interface beside it
// (cli/spec_skeleton.hpp).
#include <cctype>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "kernels/spec/spec_starter.hpp"
#include "cli/commands/commands.hpp"
#include "cli/spec_skeleton.hpp"

namespace vktune::cli {

void add_spec_command(CLI::App& root, int& result_code) {
  auto* spec = root.add_subcommand("spec", "Kernel spec files: tune your own GLSL kernel without C++");
  spec->require_subcommand(1);
  auto* init = spec->add_subcommand("init", "Write NAME.json (a commented spec) and NAME.comp (its template)");
  auto name = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>(".");
  auto from = std::make_shared<std::string>();
  auto defines = std::make_shared<std::vector<std::string>>();
  init->add_option("NAME", *name, "The kernel's name (letters, digits and _)")->required();
  init->add_option("--dir", *dir, "Where to write the two files")->capture_default_str();
  init->add_option("--from", *from,
                   "Write NAME.json beside this GLSL compute shader, from its interface (buffers, push-constant "
                   "words, specialization constants as parameters, the shader as written as the reference)")
      ->check(CLI::ExistingFile)
      ->excludes(init->get_option("--dir"));
  init->add_option("-D,--define", *defines,
                   "With --from: compile the shader with #define NAME VALUE (repeatable); the spec delivers each, a "
                   "whole number as a parameter of that one value, anything else as a fixed define")
      ->needs(init->get_option("--from"));
  init->callback([name, dir, from, defines, &result_code] {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& d : *defines) {
      const auto eq = d.find('=');
      const auto key = d.substr(0, eq);
      bool identifier = !key.empty() && !(key[0] >= '0' && key[0] <= '9');
      for (const char c : key) identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (eq == std::string::npos || !identifier) {
        throw Error(ErrorKind::usage, "spec init: -D " + d + ": expected NAME=VALUE with NAME a C identifier");
      }
      pairs.emplace_back(key, d.substr(eq + 1));
    }
    const auto path =
        from->empty() ? kernels::spec::write_starter(*name, *dir) : write_spec_from_shader(*name, *from, pairs);
    std::cout << "wrote " << path.string() << (from->empty() ? " and its template" : "")
              << "; try: vktune check " << path.string()
              << " --device 0\n";
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
