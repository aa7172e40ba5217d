#pragma once
// The layout rules every matrix-vector (decode) space shares: a workgroup of
// WG_SIZE invocations in row groups of THREADS_PER_ROW, ROWS_PER_WG rows of W
// and COLS_PER_PASS rows of x per workgroup, each invocation walking every
// THREADS_PER_ROW-th step of a row (a quantized unit, a dense chunk) UNROLL
// at a time. Used by kernels/quant_matmul.cpp, kernels/matmul_q4k.cpp and
// kernels/dense_matvec.cpp.
#include <cstdint>
#include <string>

#include "kernels/legality.hpp"

namespace vktune::kernels::matvec {

// The matrix-vector layouts' legality rules.
inline constexpr RuleId kRowGroups{"matvec.row_groups"};    // THREADS_PER_ROW | WG_SIZE, row groups | ROWS_PER_WG
inline constexpr RuleId kRowSteps{"matvec.row_steps"};      // a row keeps every invocation (and unrolled step) busy
inline constexpr RuleId kPassWidth{"matvec.pass_width"};    // COLS_PER_PASS within M's power of two, two passes at most

inline std::uint32_t next_pow2(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// The row groups (WG_SIZE / THREADS_PER_ROW) must divide ROWS_PER_WG; sets
// rows_per_invocation when they do.
inline Violation row_group_violation(int wg, int rows, int threads_per_row, int& rows_per_invocation) {
  if (wg % threads_per_row != 0) return kRowGroups("THREADS_PER_ROW must divide WG_SIZE");
  const int groups = wg / threads_per_row;
  if (rows % groups != 0) {
    return kRowGroups("the " + std::to_string(groups) +
                      " row groups (WG_SIZE/THREADS_PER_ROW) do not divide ROWS_PER_WG=" + std::to_string(rows));
  }
  rows_per_invocation = rows / groups;
  return {};
}

// Rows of W per invocation, or 0 where row_group_violation rejects the
// layout (for pruning rules, which see illegal configs too).
inline int rows_per_invocation(int wg, int rows, int threads_per_row) {
  int r = 0;
  if (threads_per_row <= 0 || wg % threads_per_row != 0 || wg / threads_per_row == 0) return 0;
  return row_group_violation(wg, rows, threads_per_row, r).empty() ? r : 0;
}

// Whether some of a row group's invocations never work on a row of `steps`
// steps, or the unrolled loop never runs.
inline bool idle_threads(int threads_per_row, std::uint32_t steps) {
  return static_cast<std::uint32_t>(threads_per_row) > steps;
}
inline bool unroll_past_row(int threads_per_row, int unroll, std::uint32_t steps) {
  return unroll > 1 && static_cast<std::uint32_t>(threads_per_row * unroll) > steps;
}

// A row of `steps` steps (named `step_name`, e.g. "units") keeps every
// invocation of a row group busy; `unroll_note` says what a too-long
// unrolled step would waste.
inline Violation row_steps_violation(int threads_per_row, int unroll, std::uint32_t steps, const char* step_name,
                                     const char* unroll_note) {
  if (idle_threads(threads_per_row, steps)) {
    return kRowSteps("THREADS_PER_ROW=" + std::to_string(threads_per_row) + " exceeds the " + std::to_string(steps) +
                     " " + step_name + " of a row (some invocations would never work)");
  }
  if (unroll_past_row(threads_per_row, unroll, steps)) {
    return kRowSteps("THREADS_PER_ROW*UNROLL = " + std::to_string(threads_per_row * unroll) + " exceeds the " +
                     std::to_string(steps) + " " + step_name + " of a row (" + unroll_note + ")");
  }
  return {};
}

// COLS_PER_PASS rows of x per workgroup for M rows: at most M rounded up to
// a power of two (more columns would be idle), in at most two passes over
// the weights. The shape narrows the choice to two widths from M = 2 (one
// at M = 1).
inline Violation pass_width_violation(int cols, std::uint32_t m) {
  if (static_cast<std::uint32_t>(cols) > next_pow2(m)) {
    return kPassWidth("COLS_PER_PASS " + std::to_string(cols) + " exceeds M=" + std::to_string(m) +
                      " rounded up to a power of two (the extra columns would be idle)");
  }
  if (static_cast<std::uint32_t>(cols) * 4 <= next_pow2(m)) {
    return kPassWidth("COLS_PER_PASS " + std::to_string(cols) + " takes more than two passes over the weights for M=" +
                      std::to_string(m));
  }
  return {};
}

// More than 16 sums (rows per invocation * COLS_PER_PASS) per invocation.
inline bool too_many_sums(int rows_per_invocation, int cols) { return rows_per_invocation * cols > 16; }

// pass_width_violation, then at most 16 sums per invocation.
inline Violation column_violation(int cols, std::uint32_t m, int rows_per_invocation) {
  if (auto problem = pass_width_violation(cols, m); !problem.empty()) return problem;
  if (too_many_sums(rows_per_invocation, cols)) {
    // The quantized matmuls prune the same configs (their rule matvec.sums).
    return legality::kRegisters("more than 16 sums (rows per invocation * COLS_PER_PASS) per invocation");
  }
  return {};
}

}  // namespace vktune::kernels::matvec
