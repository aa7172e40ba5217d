// `vktune spec init NAME [--dir DIR]`: a commented starting kernel spec and
// its template, to check, tune and edit (docs/SPEC_FORMAT.md); with --from
// SHADER.comp, a spec skeleton of that shader's interface beside it
// (cli/spec_skeleton.hpp).
#include <iostream>
#include <memory>
#include <string>

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
  init->add_option("NAME", *name, "The kernel's name (letters, digits and _)")->required();
  init->add_option("--dir", *dir, "Where to write the two files")->capture_default_str();
  init->add_option("--from", *from,
                   "Write NAME.json beside this GLSL compute shader, from its interface (buffers, push-constant "
                   "words, specialization constants as parameters, the shader as written as the reference)")
      ->check(CLI::ExistingFile)
      ->excludes(init->get_option("--dir"));
  init->callback([name, dir, from, &result_code] {
    const auto path = from->empty() ? kernels::spec::write_starter(*name, *dir) : write_spec_from_shader(*name, *from);
    std::cout << "wrote " << path.string() << (from->empty() ? " and its template" : "")
              << "; try: vktune check " << path.string()
              << " --device 0\n";
    result_code = exit_code::ok;
  });
}

}  // namespace vktune::cli
