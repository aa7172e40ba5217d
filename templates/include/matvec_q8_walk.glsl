// The walk shared by the integer-dot decode templates (matvec_q4k_q8.comp,
// matvec_q4_0_q8.comp, matvec_q5k_q8.comp, matvec_q6k_q8.comp): y[M×N] =
// x[M×K] · Wᵀ for small M, x quantized to 8 bits in shared memory
// (x_q8.glsl), W walked in units of 256 weights (a K-quant super-block, or a
// group of eight Q4_0/Q8_0 blocks). Each template is only its format's part:
// how one invocation loads its share of a unit and multiplies it.
//
// Invocations are (part, row group, slot), part fastest:
//   PARTS invocations share a unit, each taking a fixed share of it;
//   WG_SIZE/(PARTS*S) row groups split the ROWS_PER_WG rows, each invocation
//     owning RT of them, so every x word it reads from shared memory serves
//     all of them;
//   S slots walk the units of a row side by side, U units per slot per step
//     with all loads issued before any math (the first step's before x is
//     quantized, so their latency overlaps the quantization).
// Partial sums are reduced with shuffles over the parts and through shared
// memory over the slots.
//
// x is quantized (x_q8.glsl) in one of two scopes (X_SCOPE):
//   0  the workgroup: X_SEGMENT values of every x row at a time, between
//      two barriers, before the slots walk them;
//   1  the slot: each slot quantizes the x of its own units as it walks
//      them (a unit's 256 values per x row, read by no other slot), into a
//      region of its own, synchronised by subgroup barriers only, so no
//      slot waits for the whole of x and the x loads overlap the weight
//      loads. A slot's WG_SIZE/S invocations lie inside one subgroup
//      (legality), and every slot of the workgroup steps the same number of
//      times, so the barriers are in uniform control flow.
//
// The template includes int_dot.glsl, defines PARTS, S and U (from its
// parameters) and includes this file; then declares its weight buffer
// (binding 1), `struct Unit` (what an invocation loads of one unit for its
// RT rows), and
//   void init_part(uint part, uint slot)  per-invocation state
//   uint row_start(uint row, uint nu)      a row's first index in the weight
//                                          view load_unit reads (nu units)
//   void load_unit(uint u, out Unit v)     loads unit u of each row_start[i]
//   void math_unit(uint lu, Unit v)        adds it (the lu-th unit of the
//                                          segment) to acc
// and includes matvec_q8_walk_main.glsl.
//
// Parameters (#defines): WG_SIZE, ROWS_PER_WG, COLS_PER_PASS, X_SEGMENT,
// X_SCOPE (undefined = 0).
// ACT_F16 (fp16 x and y): include/matmul_xy.glsl.
#ifndef VKTUNE_MATVEC_Q8_WALK_GLSL
#define VKTUNE_MATVEC_Q8_WALK_GLSL

#define R ROWS_PER_WG
#define C COLS_PER_PASS
#define G (WG_SIZE / (PARTS * S))  // row groups
#define RT (R / G)                 // rows per invocation
#ifndef X_SCOPE
#define X_SCOPE 0  // the host leaves X_SCOPE=0 undefined: those variants' shaders are as before it
#endif
#if X_SCOPE == 1
#define SEG (S * U * 256)  // x values of every slot's region, U units each
#else
#define SEG X_SEGMENT  // x values quantized per segment
#endif
#define SEG_UNITS (SEG / 256)

#if (WG_SIZE % (PARTS * S)) != 0 || G < 1 || (R % G) != 0 || (SEG % 256) != 0
#error "the invocations of a row must divide WG_SIZE, the row groups ROWS_PER_WG, and X_SEGMENT must be a multiple of 256"
#endif

layout(local_size_x = WG_SIZE, local_size_y = 1, local_size_z = 1) in;

#include "matvec_shape.glsl"

#include "matmul_xy.glsl"

shared float partial[S * R * C];

uint row_base[RT];  // row_start() of each row of this invocation
uint col_row[C];    // row of x of each column (clamped)
float acc[RT][C];

#include "x_q8.glsl"

#endif
