#include "engine/device_problem.hpp"

#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "reference/fp16.hpp"

namespace vktune {

void require_device_fits(const kernels::Kernel& kernel, const kernels::Shape& shape, const vk::DeviceInfo& info) {
  const auto need = kernel.device_bytes(shape);
  if (need > info.device_local_bytes() / 2 || need > info.max_storage_buffer_range * 4ull) {
    throw Error(ErrorKind::usage, kernel.name() + " shape " + kernels::shape_to_string(shape) + " needs " +
                                      std::to_string(need >> 20) + " MiB, too large for " + info.name + "'s " +
                                      std::to_string(info.device_local_bytes() >> 20) + " MiB of device memory");
  }
}

std::uint32_t cold_cache_copies(std::uint64_t weight_bytes, std::uint64_t device_bytes, std::uint64_t target_bytes,
                                std::uint32_t max_copies) {
  if (weight_bytes == 0) return 1;
  std::uint64_t copies = (target_bytes + weight_bytes - 1) / weight_bytes;
  copies = std::min<std::uint64_t>(copies, max_copies);
  if (device_bytes > 0) copies = std::min<std::uint64_t>(copies, std::max<std::uint64_t>(1, device_bytes / 4 / weight_bytes));
  // At least two copies, so consecutive dispatches never read the same weights.
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(copies, 2));
}

VkDeviceSize validation_band(std::uint64_t data_bytes, std::uint64_t max_range) {
  VkDeviceSize band = std::clamp<VkDeviceSize>(data_bytes, kValidationBandMin, kValidationBandMax);
  if (data_bytes + band > max_range) band = max_range > data_bytes ? max_range - data_bytes : 0;
  return std::max(band, kGuardAfter);  // never narrower than the timing copies'
}

namespace {

std::size_t data_bytes(const kernels::HostBuffer& host) { return std::max<std::size_t>(host.bytes.size(), 4); }

std::vector<std::uint8_t> canary_bytes(VkDeviceSize size) {
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t i = 0; i < size; i += 4) std::memcpy(bytes.data() + i, &kCanary, 4);
  return bytes;
}

}  // namespace

DeviceProblem::DeviceProblem(vk::Device& device, const kernels::Problem& problem, std::uint32_t weight_copies)
    : problem_(problem), output_index_(problem.output_index), copies_(std::max(1u, weight_copies)) {
  buffers_.resize(problem.buffers.size());
  images_.resize(problem.buffers.size());
  for (std::size_t b = 0; b < problem.buffers.size(); ++b) {
    const auto& host = problem.buffers[b];
    validation_bands_.push_back(0);
    // An alias binds its target's buffers (bindings()): none of its own.
    if (host.alias_of >= 0) {
      if (static_cast<std::size_t>(host.alias_of) >= problem.buffers.size() ||
          problem.buffers[static_cast<std::size_t>(host.alias_of)].alias_of >= 0) {
        throw Error(ErrorKind::internal, "buffer '" + host.name + "' aliases binding " + std::to_string(host.alias_of) +
                                             ", which is no buffer of its own");
      }
      continue;
    }
    validation_bands_.pop_back();
    if (host.image) images_[b].emplace(device, *host.image);
    const std::uint32_t n = host.is_weights && !host.image ? copies_ : 1;
    if (host.is_weights) weight_bytes_ += host.bytes.size();
    validation_bands_.push_back(validation_band(data_bytes(host), device.info().max_storage_buffer_range));
    for (std::uint32_t c = 0; c < n; ++c) {
      buffers_[b].emplace_back(device, kGuardBefore + data_bytes(host) + band_after(b, c));
    }
  }
  upload_all();
}

void DeviceProblem::upload_all() {
  const auto before = canary_bytes(kGuardBefore);
  for (std::size_t b = 0; b < buffers_.size(); ++b) {
    const auto& host = problem_.buffers[b];
    for (std::size_t c = 0; c < buffers_[b].size(); ++c) {
      auto& buffer = buffers_[b][c];
      buffer.upload(before, 0);
      if (!host.is_output) buffer.upload(host.bytes, kGuardBefore);
      buffer.upload(canary_bytes(band_after(b, c)), kGuardBefore + data_bytes(host));
    }
    // An output image is poisoned before every run (poison_output).
    if (images_[b] && !host.is_output) images_[b]->copy_from(buffers_[b].front(), kGuardBefore);
  }
}

std::size_t DeviceProblem::owner(std::size_t binding) const {
  const int alias = problem_.buffers[binding].alias_of;
  return alias >= 0 ? static_cast<std::size_t>(alias) : binding;
}

std::vector<const vk::Image*> DeviceProblem::images() const {
  std::vector<const vk::Image*> list;
  for (const auto& image : images_) list.push_back(image ? &*image : nullptr);
  return list;
}

std::vector<const vk::Buffer*> DeviceProblem::bindings(std::uint32_t copy) const {
  std::vector<const vk::Buffer*> list;
  for (std::size_t b = 0; b < buffers_.size(); ++b) {
    const auto& copies = buffers_[owner(b)];
    list.push_back(&copies[copy % copies.size()]);
  }
  return list;
}

std::vector<std::uint64_t> DeviceProblem::data_lengths() const {
  std::vector<std::uint64_t> lengths;
  for (std::size_t b = 0; b < problem_.buffers.size(); ++b) lengths.push_back(data_bytes(problem_.buffers[owner(b)]));
  return lengths;
}

void DeviceProblem::poison_output(std::uint32_t pattern) {
  // Two fp16 NaNs per word for an fp16 output: the float pattern's low half is +0.
  if (problem_.output_f16) pattern = kHalfPoison;
  for (const auto index : output_indices()) {
    auto& output = buffers_[index].front();
    // vkCmdFillBuffer fills whole words only: an odd count of fp16 values ends
    // on a half word, poisoned from the host so that its element is caught too.
    const std::size_t bytes = data_bytes(problem_.buffers[index]);
    const std::size_t words = bytes / 4 * 4;
    output.fill(pattern, kGuardBefore, words);
    if (words < bytes) {
      std::vector<std::uint8_t> tail(bytes - words);
      std::memcpy(tail.data(), &pattern, tail.size());
      output.upload(tail, kGuardBefore + words);
    }
    if (images_[index]) images_[index]->copy_from(output, kGuardBefore);  // every texel NaN, padding included
  }
}

std::vector<std::size_t> DeviceProblem::output_indices() const {
  std::vector<std::size_t> indices{output_index_};
  indices.insert(indices.end(), problem_.more_outputs.begin(), problem_.more_outputs.end());
  return indices;
}

std::vector<float> DeviceProblem::download_output(std::size_t count) const {
  const std::size_t element = problem_.output_f16 ? 2 : sizeof(float);
  std::vector<float> values;
  values.reserve(count);
  for (const auto index : output_indices()) {
    if (values.size() >= count) break;
    // The first `count` elements of the outputs laid end to end: each output
    // after the first is read whole.
    const std::size_t n = std::min(count - values.size(), problem_.buffers[index].bytes.size() / element);
    if (images_[index]) images_[index]->copy_to(buffers_[index].front(), kGuardBefore);
    const auto bytes = buffers_[index].front().download(kGuardBefore, n * element);
    for (std::size_t i = 0; i < n; ++i) {
      if (problem_.output_f16) {
        std::uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        values.push_back(ref::fp16_to_fp32(h));
      } else {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        values.push_back(f);
      }
    }
  }
  return values;
}

std::optional<std::string> DeviceProblem::check_guards() {
  std::optional<std::string> found;
  for (std::size_t b = 0; b < buffers_.size() && !found; ++b) {
    const auto& host = problem_.buffers[b];
    if (buffers_[b].empty()) continue;  // an alias: its target's bands are checked
    // Validation dispatches on copy 0 only (timing rotates the others).
    const auto& buffer = buffers_[b].front();
    const auto check = [&](VkDeviceSize offset, VkDeviceSize size, const char* where) {
      const auto bytes = buffer.download(offset, size);
      for (std::size_t i = 0; i < bytes.size(); i += 4) {
        std::uint32_t word = 0;
        std::memcpy(&word, bytes.data() + i, 4);
        if (word == kCanary) continue;
        std::size_t last = i;
        for (std::size_t j = i; j < bytes.size(); j += 4)
          if (std::memcmp(bytes.data() + j, &kCanary, 4) != 0) last = j;
        found = "out of bounds: wrote the guard band " + std::string(where) + " buffer '" + host.name + "' (" +
                std::to_string(host.bytes.size()) + " bytes), bytes " + std::to_string(i) + ".." +
                std::to_string(last + 3) + " of the band";
        return;
      }
    };
    check(kGuardBefore + data_bytes(host), band_after(b, 0), "after");
    if (!found) check(0, kGuardBefore, "before");
  }
  if (found) upload_all();
  return found;
}

}  // namespace vktune
