#pragma once
// The fp16 KV cache that the attention kernels (attention_decode,
// attention_prefill) read, as a problem's inputs: K and V uniform in
// [-1, 1) and rounded to fp16, from the problem's seed. The floats are
// rounded in place, so the reference reads exactly what the device does.
// The buffers are weights (cold-cache copies rotate), as a model's cache is
// read once per token.
#include <cstdint>
#include <vector>

#include "kernels/half_buffers.hpp"
#include "kernels/row_ops.hpp"

namespace vktune::kernels::attention_cache {

struct CacheInputs {
  std::vector<float> k, v;  // rounded to fp16
  HostBuffer k_buffer, v_buffer;
};

inline CacheInputs random_cache(std::uint64_t values, const Inputs& inputs) {
  CacheInputs c;
  c.k = rowops::random_values(values, inputs.seed ^ 0x6a09e667f3bcc909ull, -1.0f, 1.0f, inputs.kind);
  c.v = rowops::random_values(values, inputs.seed ^ 0xbb67ae8584caa73bull, -1.0f, 1.0f, inputs.kind);
  c.k_buffer = half::rounded_buffer("k", c.k, true);
  c.v_buffer = half::rounded_buffer("v", c.v, true);
  return c;
}

}  // namespace vktune::kernels::attention_cache
