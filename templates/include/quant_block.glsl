// The GGUF block header a quantized matmul template reads, selected by
// QTYPE (set by the kernel's plan): 1 Q4_0, 2 Q8_0, 3 Q5_K, 4 Q6_K, 5 Q4_K. Each
// defines the interface described in quant_words.glsl.
#ifndef VKTUNE_QUANT_BLOCK_GLSL
#define VKTUNE_QUANT_BLOCK_GLSL
#if QTYPE == 1
#include "q4_0.glsl"
#elif QTYPE == 2
#include "q8_0.glsl"
#elif QTYPE == 3
#include "q5k.glsl"
#elif QTYPE == 4
#include "q6k.glsl"
#elif QTYPE == 5
#include "q4k_block.glsl"
#else
#error "QTYPE must be 1 (Q4_0), 2 (Q8_0), 3 (Q5_K), 4 (Q6_K) or 5 (Q4_K)"
#endif
#endif
