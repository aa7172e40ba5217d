#pragma once
// The expected output of a kernel whose reference runs on the device
// (kernels::DeviceReference: a spec's trusted config or reference kernel).
// The reference's stages are compiled, checked against the device (a
// trusted config against the kernel's legality too), launched once over the
// problem's own buffers, and their output becomes Problem::expected. Without
// a reference no variant can be checked, so one that cannot run, or writes
// NaN/Inf or past a buffer, stops the run with one line naming it.
#include "harness/device.hpp"
#include "kernels/kernel.hpp"
#include "engine/device_problem.hpp"
#include "engine/template_library.hpp"

namespace vktune {

// Fills problem.expected when the kernel has a device reference and it is
// still empty; `on_device` holds `problem`'s buffers. Throws Error(usage).
void complete_reference(vk::Device& device, const kernels::Kernel& kernel, kernels::Problem& problem,
                        DeviceProblem& on_device, const TemplateLibrary& templates);

}  // namespace vktune
