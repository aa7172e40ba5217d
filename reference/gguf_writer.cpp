#include "reference/gguf_writer.hpp"

#include <cstring>
#include <fstream>

#include "common/error.hpp"

namespace vktune::ref {

namespace {

[[noreturn]] void usage(const std::string& message) { throw Error(ErrorKind::usage, "GGUF writer: " + message); }

class ByteSink {
 public:
  template <class T>
  void put(T value) {
    const std::size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
  }
  void put_string(const std::string& text) {
    put<std::uint64_t>(text.size());
    bytes_.insert(bytes_.end(), text.begin(), text.end());
  }
  void put_bytes(const std::vector<std::uint8_t>& data) { bytes_.insert(bytes_.end(), data.begin(), data.end()); }
  void pad_to(std::uint64_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(0);
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

void put_value(ByteSink& out, const GgufValue& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          out.put_string(v);
        } else if constexpr (std::is_same_v<T, GgufArray>) {
          out.put(static_cast<std::uint32_t>(v.element_type));
          out.put(static_cast<std::uint64_t>(v.items.size()));
          for (const auto& item : v.items) put_value(out, item);
        } else if constexpr (std::is_same_v<T, bool>) {
          out.put(static_cast<std::uint8_t>(v ? 1 : 0));
        } else {
          out.put(v);
        }
      },
      value.data);
}

void check_value(const std::string& key, const GgufValue& value, std::size_t depth) {
  // The reader rejects strings that are not UTF-8; never write a file it would refuse.
  if (const auto* text = value.as_string(); text != nullptr && !is_valid_utf8(*text)) {
    usage("key '" + key + "': a string value is not valid UTF-8");
  }
  const GgufArray* array = value.as_array();
  if (array == nullptr) return;
  if (depth >= 8) usage("key '" + key + "': arrays nested too deep");
  if (static_cast<std::uint32_t>(array->element_type) >= gguf_value_type_count) {
    usage("key '" + key + "': unknown array element type");
  }
  for (const auto& item : array->items) {
    if (item.type() != array->element_type) {
      usage("key '" + key + "': an array of " + std::string(value_type_name(array->element_type)) + " holds a " +
            std::string(value_type_name(item.type())));
    }
    check_value(key, item, depth + 1);
  }
}

}  // namespace

GgufWriter::GgufWriter(std::uint32_t version) : version_(version) {
  if (version != 2 && version != 3) usage("cannot write GGUF version " + std::to_string(version));
}

void GgufWriter::set(std::string key, GgufValue value) {
  if (key.empty() || key.size() > gguf_max_key || !is_valid_utf8(key)) usage("invalid metadata key '" + key + "'");
  for (const auto& kv : metadata_) {
    if (kv.key == key) usage("duplicate metadata key '" + key + "'");
  }
  check_value(key, value, 0);
  if (key == gguf_alignment_key) {
    const auto* alignment = std::get_if<std::uint32_t>(&value.data);
    if (alignment == nullptr || !is_valid_alignment(*alignment)) {
      usage(std::string(gguf_alignment_key) + " must be a uint32 power of two");
    }
    if (!tensors_.empty()) usage("set " + std::string(gguf_alignment_key) + " before adding tensors");
    alignment_ = *alignment;
  }
  metadata_.push_back(GgufKeyValue{std::move(key), std::move(value)});
}

void GgufWriter::add_tensor(std::string name, GgmlType type, std::vector<std::uint64_t> shape,
                            std::vector<std::uint8_t> data) {
  if (name.empty() || name.size() > gguf_max_tensor_name || !is_valid_utf8(name)) {
    usage("invalid tensor name '" + name + "' (1 to 64 bytes of UTF-8)");
  }
  for (const auto& tensor : tensors_) {
    if (tensor.name == name) usage("duplicate tensor name '" + name + "'");
  }
  const TensorSize size = compute_tensor_size(type, shape);
  if (!size.problem.empty()) usage("tensor '" + name + "': " + size.problem);
  if (data.size() != size.bytes) {
    usage("tensor '" + name + "' needs " + std::to_string(size.bytes) + " bytes of data, got " +
          std::to_string(data.size()));
  }
  tensors_.push_back(Tensor{std::move(name), type, std::move(shape), std::move(data)});
}

std::vector<std::uint8_t> GgufWriter::bytes() const {
  ByteSink out;
  out.put(gguf_magic);
  out.put(version_);
  out.put(static_cast<std::uint64_t>(tensors_.size()));
  out.put(static_cast<std::uint64_t>(metadata_.size()));
  for (const auto& [key, value] : metadata_) {
    out.put_string(key);
    out.put(static_cast<std::uint32_t>(value.type()));
    put_value(out, value);
  }
  std::uint64_t offset = 0;
  for (const auto& tensor : tensors_) {
    out.put_string(tensor.name);
    out.put(static_cast<std::uint32_t>(tensor.shape.size()));
    for (const auto dim : tensor.shape) out.put(dim);
    out.put(static_cast<std::uint32_t>(tensor.type));
    out.put(offset);
    offset += (tensor.data.size() + alignment_ - 1) / alignment_ * alignment_;
  }
  out.pad_to(alignment_);
  for (const auto& tensor : tensors_) {
    out.put_bytes(tensor.data);
    out.pad_to(alignment_);
  }
  return out.take();
}

void GgufWriter::write(const std::filesystem::path& path) const {
  const std::vector<std::uint8_t> data = bytes();
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw Error(ErrorKind::io, "cannot create '" + path.string() + "'");
  file.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  file.close();
  if (!file) throw Error(ErrorKind::io, "cannot write '" + path.string() + "'");
}

}  // namespace vktune::ref
