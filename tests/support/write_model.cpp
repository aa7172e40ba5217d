// vktune-write-model OUT.gguf [tiny|llama3-8b-q4_k_m]: a synthetic model
// (tests/support/synthetic_model.hpp) for measuring `vktune model` where no
// real model file is at hand: shapes and types are real, weights are zeros.
#include <cstdio>
#include <string>

#include "common/error.hpp"
#include "tests/support/synthetic_model.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: vktune-write-model OUT.gguf tiny|llama3-8b-q4_k_m\n");
    return 2;
  }
  const std::string which = argv[2];
  try {
    if (which == "tiny") {
      vktune::testing_support::tiny_model().write(argv[1]);
    } else if (which == "llama3-8b-q4_k_m") {
      vktune::testing_support::synthetic_model(vktune::testing_support::llama3_8b_q4_k_m()).write(argv[1]);
    } else {
      std::fprintf(stderr, "vktune-write-model: unknown model '%s' (tiny, llama3-8b-q4_k_m)\n", which.c_str());
      return 2;
    }
  } catch (const vktune::Error& e) {
    std::fprintf(stderr, "vktune-write-model: %s\n", e.what());
    return 5;
  }
  return 0;
}
