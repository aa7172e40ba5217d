#pragma once
// The `vktune` subcommands. Each add_*_command registers one subcommand on the
// root app; its callback does the work and stores the process exit code in
// `result_code`. Problems are thrown as vktune::Error and turned into one line
// on stderr and an exit code by main().
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace vktune::cli {

void add_devices_command(CLI::App& root, int& result_code);
void add_gguf_command(CLI::App& root, int& result_code);
// `vktune model FILE.gguf`: every op of a model's decode step and prefill.
void add_model_command(CLI::App& root, int& result_code);
// `vktune step FILE.gguf`: one decode token on the GPU as a chain of kernels.
void add_step_command(CLI::App& root, int& result_code);
// `vktune mobilenet`: MobileNet V2's convolution chain on the GPU, checked and timed.
void add_mobilenet_command(CLI::App& root, int& result_code);
void add_list_command(CLI::App& root, int& result_code);
void add_check_command(CLI::App& root, int& result_code);
void add_export_command(CLI::App& root, int& result_code);
void add_import_command(CLI::App& root, int& result_code);
void add_replay_command(CLI::App& root, int& result_code);
void add_results_command(CLI::App& root, int& result_code);
void add_report_command(CLI::App& root, int& result_code);
// `benchmark_flags`: what followed `--`, passed to Google Benchmark as is.
void add_bench_command(CLI::App& root, int& result_code, const std::vector<std::string>& benchmark_flags);
// `vktune spec init NAME`: a starting kernel spec and template.
void add_spec_command(CLI::App& root, int& result_code);
// One subcommand per registered kernel: `vktune matmul_q4k ...`.
void add_tune_commands(CLI::App& root, int& result_code);

}  // namespace vktune::cli
