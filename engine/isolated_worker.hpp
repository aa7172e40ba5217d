#pragma once
// The worker side of isolation: a vktune process started as
// `vktune --vktune-worker [--device N]` (engine/worker_pool.hpp starts it)
// reads jobs on stdin and answers on stdout (engine/worker_protocol.hpp)
// until stdin closes. It compiles with shaderc and, for jobs that ask,
// creates the pipelines on device N, opened at its first such job, and
// returns their pipeline-cache data. Whatever it does to itself — a crash in
// the compiler or the driver, a compile that never ends, memory without
// bound — ends this process, not the tuner's.
namespace vktune::worker {

// The argument that makes a vktune process a worker.
inline constexpr const char* kWorkerFlag = "--vktune-worker";

// Runs the worker loop; returns the process's exit code.
int run_worker(int argc, char** argv);

}  // namespace vktune::worker
