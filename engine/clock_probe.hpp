#pragma once
// The clock gauge a tune's timer reads (harness/clock_gauge.hpp): the fp32
// FMA ceiling's template (templates/ceiling_fma.comp) as one subgroup-sized
// workgroup running one dependent chain, so its time is the chain's latency
// in clocks over the clock rate (about 33 us on an H200 at 1980 MHz).
#include <memory>

#include "harness/clock_gauge.hpp"
#include "harness/device.hpp"

namespace vktune {

std::unique_ptr<vk::ClockGauge> make_clock_probe(vk::Device& device);

}  // namespace vktune
