#include "reference/gguf_reader.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <string>

#include "common/error.hpp"
#include "common/text_escape.hpp"
#include "reference/dequantize.hpp"

namespace vktune::ref {

namespace {

// Names in messages are quoted and escaped: they come from the file, and a
// control character in them must not reach the user's terminal raw.
std::string printable(std::string_view text) { return "'" + escape_text(text, '\'') + "'"; }

// Thrown when GgufFile::open read too short a prefix of the file to parse it:
// `end` is the first byte offset the parser needs and did not have.
struct NeedMoreBytes {
  std::uint64_t end;
};

// Reads little-endian fields from the file's bytes, checking every length
// against what remains first. `bytes` may be only a prefix of a file of
// `file_size` bytes: lengths are checked against the whole file (so errors
// and allocation bounds are the same as with all of it in memory), and
// reading past the prefix throws NeedMoreBytes.
class Cursor {
 public:
  Cursor(std::span<const std::uint8_t> bytes, std::uint64_t file_size, std::string_view source)
      : bytes_(bytes), file_size_(file_size), source_(source) {}

  [[noreturn]] void fail(const std::string& problem, std::uint64_t at) const {
    throw Error(ErrorKind::format, std::string(source_) + ": " + problem + " at byte " + std::to_string(at));
  }

  std::size_t position() const { return position_; }
  std::uint64_t remaining() const { return file_size_ - position_; }
  std::uint64_t size() const { return file_size_; }

  void need(std::uint64_t count, std::string_view what) const {
    if (count > remaining()) {
      fail("truncated: " + std::string(what) + " needs " + std::to_string(count) + " bytes but only " +
               std::to_string(remaining()) + " remain",
           position_);
    }
    if (count > bytes_.size() - position_) throw NeedMoreBytes{position_ + count};
  }

  template <class T>
  T read(std::string_view what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }

  std::string read_string(std::string_view what, std::uint64_t max_length) {
    const std::size_t at = position_;
    const auto length = read<std::uint64_t>(what);
    if (length > max_length) {
      fail(std::string(what) + " is " + std::to_string(length) + " bytes long (at most " +
               std::to_string(max_length) + " allowed)",
           at);
    }
    need(length, what);
    std::string text(reinterpret_cast<const char*>(bytes_.data() + position_), static_cast<std::size_t>(length));
    position_ += static_cast<std::size_t>(length);
    return text;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::uint64_t file_size_;
  std::string_view source_;
  std::size_t position_ = 0;
};

class Parser {
 public:
  Parser(std::span<const std::uint8_t> bytes, std::uint64_t file_size, std::string_view source)
      : in_(bytes, file_size, source) {}

  GgufContents parse() {
    read_header();
    read_metadata();
    read_alignment();
    read_tensor_infos();
    locate_tensor_data();
    return std::move(out_);
  }

 private:
  void read_header() {
    const auto magic = in_.read<std::uint32_t>("the GGUF magic");
    if (magic != gguf_magic) {
      std::string seen(4, '\0');
      std::memcpy(seen.data(), &magic, 4);
      in_.fail("not a GGUF file (magic is " + printable(seen) + ", expected 'GGUF')", 0);
    }
    const auto version = in_.read<std::uint32_t>("the version");
    if (version == 1) in_.fail("GGUF version 1 is not supported (only 2 and 3)", 4);
    if (version == 0x02000000u || version == 0x03000000u) in_.fail("big-endian GGUF files are not supported (the version field reads " + std::to_string(version) + ")", 4);
    if (version != 2 && version != 3) in_.fail("unsupported GGUF version " + std::to_string(version), 4);
    out_.version = version;
    tensor_count_at_ = in_.position();
    tensor_count_ = in_.read<std::uint64_t>("the tensor count");
    kv_count_at_ = in_.position();
    kv_count_ = in_.read<std::uint64_t>("the metadata count");
  }

  // Fails unless `count` items of at least `min_bytes` each can fit in what remains.
  void check_count(std::uint64_t count, std::uint64_t min_bytes, std::string_view what, std::size_t at) const {
    if (count > in_.remaining() / min_bytes) {
      in_.fail(std::string(what) + " of " + std::to_string(count) + " needs at least " +
                   (count > UINT64_MAX / min_bytes ? std::string("2^64") : std::to_string(count * min_bytes)) +
                   " bytes but only " + std::to_string(in_.remaining()) + " remain",
               at);
    }
  }

  GgufValueType read_value_type(std::string_view what) {
    const std::size_t at = in_.position();
    const auto id = in_.read<std::uint32_t>(what);
    if (id >= gguf_value_type_count) in_.fail("unknown metadata value type " + std::to_string(id), at);
    return static_cast<GgufValueType>(id);
  }

  void count_values(std::uint64_t count, std::size_t at) {
    if (count > gguf_max_metadata_values - values_) {
      in_.fail("more than " + std::to_string(gguf_max_metadata_values) + " metadata values in all", at);
    }
    values_ += count;
  }

  template <class T>
  GgufValue scalar() {
    return GgufValue(in_.read<T>("a metadata value"));
  }

  GgufValue read_value(GgufValueType type, std::size_t depth) {
    const std::size_t at = in_.position();
    switch (type) {
      case GgufValueType::uint8: return scalar<std::uint8_t>();
      case GgufValueType::int8: return scalar<std::int8_t>();
      case GgufValueType::uint16: return scalar<std::uint16_t>();
      case GgufValueType::int16: return scalar<std::int16_t>();
      case GgufValueType::uint32: return scalar<std::uint32_t>();
      case GgufValueType::int32: return scalar<std::int32_t>();
      case GgufValueType::float32: return scalar<float>();
      case GgufValueType::uint64: return scalar<std::uint64_t>();
      case GgufValueType::int64: return scalar<std::int64_t>();
      case GgufValueType::float64: return scalar<double>();
      case GgufValueType::boolean: {
        const auto byte = in_.read<std::uint8_t>("a bool value");
        if (byte > 1) in_.fail("bool value " + std::to_string(byte) + " is neither 0 nor 1", at);
        return GgufValue(byte == 1);
      }
      case GgufValueType::string: {
        std::string text = in_.read_string("a string value", UINT64_MAX);
        // The specification makes every GGUF string UTF-8; a value that is
        // not is a damaged or hostile file, not text to pass on.
        if (!is_valid_utf8(text)) in_.fail("the string value of " + field_ + " is not valid UTF-8", at);
        return GgufValue(std::move(text));
      }
      case GgufValueType::array: return read_array(depth + 1);
    }
    in_.fail("unknown metadata value type", at);
  }

  GgufValue read_array(std::size_t depth) {
    const std::size_t at = in_.position();
    if (depth > gguf_max_array_depth) {
      in_.fail("arrays nested more than " + std::to_string(gguf_max_array_depth) + " deep", at);
    }
    GgufArray array;
    array.element_type = read_value_type("an array element type");
    const std::size_t count_at = in_.position();
    const auto count = in_.read<std::uint64_t>("an array length");
    check_count(count, value_min_bytes(array.element_type),
                "an array of " + std::string(value_type_name(array.element_type)), count_at);
    count_values(count, count_at);
    array.items.reserve(static_cast<std::size_t>(count));
    const std::string field = field_;
    for (std::uint64_t i = 0; i < count; ++i) {
      field_ = "item " + std::to_string(i) + " of " + field;
      array.items.push_back(read_value(array.element_type, depth));
    }
    field_ = field;
    return GgufValue(std::move(array));
  }

  void read_metadata() {
    // A key/value pair takes at least 8 (key length) + 1 (key) + 4 (type) + 1 bytes.
    check_count(kv_count_, 14, "a metadata count", kv_count_at_);
    std::set<std::string, std::less<>> keys;
    for (std::uint64_t i = 0; i < kv_count_; ++i) {
      const std::size_t at = in_.position();
      std::string key = in_.read_string("a metadata key", gguf_max_key);
      if (key.empty()) in_.fail("empty metadata key", at);
      if (!is_valid_utf8(key)) in_.fail("metadata key " + printable(key) + " is not valid UTF-8", at);
      if (!keys.insert(key).second) in_.fail("duplicate metadata key " + printable(key), at);
      const GgufValueType type = read_value_type("a metadata value type");
      count_values(1, at);
      key_offsets_.push_back(at);
      field_ = "metadata key " + printable(key);
      GgufValue value = read_value(type, 0);
      out_.metadata.push_back(GgufKeyValue{std::move(key), std::move(value)});
    }
  }

  void read_alignment() {
    for (std::size_t i = 0; i < out_.metadata.size(); ++i) {
      const auto& [key, value] = out_.metadata[i];
      if (key != gguf_alignment_key) continue;
      const auto* alignment = std::get_if<std::uint32_t>(&value.data);
      if (alignment == nullptr) {
        in_.fail(std::string(gguf_alignment_key) + " must be a uint32, not " +
                     std::string(value_type_name(value.type())),
                 key_offsets_[i]);
      }
      if (!is_valid_alignment(*alignment)) {
        in_.fail(std::string(gguf_alignment_key) + " " + std::to_string(*alignment) + " is not a power of two",
                 key_offsets_[i]);
      }
      out_.alignment = *alignment;
    }
  }

  void read_tensor_infos() {
    // name length 8 + name 1 + n_dims 4 + one dimension 8 + type 4 + offset 8.
    check_count(tensor_count_, 33, "a tensor count", tensor_count_at_);
    std::set<std::string, std::less<>> names;
    out_.tensors.reserve(static_cast<std::size_t>(tensor_count_));
    for (std::uint64_t i = 0; i < tensor_count_; ++i) {
      const std::size_t at = in_.position();
      GgufTensorInfo tensor;
      tensor.name = in_.read_string("a tensor name", gguf_max_tensor_name);
      if (tensor.name.empty()) in_.fail("empty tensor name", at);
      if (!is_valid_utf8(tensor.name)) in_.fail("tensor name " + printable(tensor.name) + " is not valid UTF-8", at);
      if (!names.insert(tensor.name).second) in_.fail("duplicate tensor name " + printable(tensor.name), at);
      const std::string what = "tensor " + printable(tensor.name);

      const std::size_t dims_at = in_.position();
      const auto n_dims = in_.read<std::uint32_t>("a tensor dimension count");
      if (n_dims == 0 || n_dims > gguf_max_dims) {
        in_.fail(what + " has " + std::to_string(n_dims) + " dimensions (1 to " + std::to_string(gguf_max_dims) +
                     " allowed)",
                 dims_at);
      }
      for (std::uint32_t d = 0; d < n_dims; ++d) tensor.shape.push_back(in_.read<std::uint64_t>("a tensor dimension"));

      const std::size_t type_at = in_.position();
      const auto type_id = in_.read<std::uint32_t>("a tensor type");
      const auto type = ggml_type_from_id(type_id);
      if (!type) {
        in_.fail(what + " has ggml type id " + std::to_string(type_id) +
                     ", which vktune does not support (" + ggml_type_list() + ")",
                 type_at);
      }
      tensor.type = *type;
      const TensorSize size = compute_tensor_size(tensor.type, tensor.shape);
      if (!size.problem.empty()) in_.fail(what + ": " + size.problem, dims_at);
      tensor.elements = size.elements;
      tensor.bytes = size.bytes;

      const std::size_t offset_at = in_.position();
      tensor.offset = in_.read<std::uint64_t>("a tensor offset");
      if (tensor.offset % out_.alignment != 0) {
        in_.fail(what + " offset " + std::to_string(tensor.offset) + " is not a multiple of the alignment " +
                     std::to_string(out_.alignment),
                 offset_at);
      }
      tensor_offsets_.push_back(offset_at);
      out_.tensors.push_back(std::move(tensor));
    }
  }

  void locate_tensor_data() {
    const std::uint64_t end_of_infos = in_.position();
    const std::uint64_t padding = (out_.alignment - end_of_infos % out_.alignment) % out_.alignment;
    out_.data_offset = end_of_infos + padding;  // cannot overflow: both are far below 2^63
    const std::uint64_t file_size = in_.size();
    for (std::size_t i = 0; i < out_.tensors.size(); ++i) {
      GgufTensorInfo& tensor = out_.tensors[i];
      const bool fits = out_.data_offset <= file_size && tensor.offset <= file_size - out_.data_offset &&
                        tensor.bytes <= file_size - out_.data_offset - tensor.offset;
      if (!fits) {
        in_.fail("tensor " + printable(tensor.name) + " claims " + std::to_string(tensor.bytes) +
                     " bytes at data offset " + std::to_string(tensor.offset) + " but the file holds only " +
                     std::to_string(file_size) + " bytes",
                 tensor_offsets_[i]);
      }
      tensor.file_offset = out_.data_offset + tensor.offset;
    }
    std::vector<std::size_t> order(out_.tensors.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return out_.tensors[a].offset < out_.tensors[b].offset; });
    for (std::size_t i = 1; i < order.size(); ++i) {
      const GgufTensorInfo& before = out_.tensors[order[i - 1]];
      const GgufTensorInfo& after = out_.tensors[order[i]];
      if (before.offset + before.bytes > after.offset) {
        in_.fail("tensors " + printable(before.name) + " and " + printable(after.name) + " overlap",
                 tensor_offsets_[order[i]]);
      }
    }
  }

  Cursor in_;
  GgufContents out_;
  std::uint64_t tensor_count_ = 0;
  std::uint64_t kv_count_ = 0;
  std::size_t tensor_count_at_ = 0;
  std::size_t kv_count_at_ = 0;
  std::uint64_t values_ = 0;
  std::string field_;  // the value being read, for messages: "item 3 of metadata key 'k'"
  std::vector<std::size_t> key_offsets_;
  std::vector<std::size_t> tensor_offsets_;
};

}  // namespace

const GgufValue* GgufContents::find(std::string_view key) const {
  for (const auto& kv : metadata) {
    if (kv.key == key) return &kv.value;
  }
  return nullptr;
}

const GgufTensorInfo* GgufContents::find_tensor(std::string_view name) const {
  for (const auto& tensor : tensors) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

GgufContents parse_gguf(std::span<const std::uint8_t> bytes, std::string_view source) {
  return Parser(bytes, bytes.size(), source).parse();
}

GgufFile GgufFile::open(const std::filesystem::path& path) {
  GgufFile file;
  file.file_.emplace(path);
  file.size_ = file.file_->size();
  // Metadata sits at the start of the file: read a prefix, and a longer one
  // while the parser asks for more (a large tokenizer vocabulary), never the
  // tensor data.
  std::uint64_t want = std::min<std::uint64_t>(file.size_, std::uint64_t{1} << 20);
  for (;;) {
    std::vector<std::uint8_t> prefix(static_cast<std::size_t>(want));
    file.file_->read_at(0, prefix, "the GGUF metadata");
    try {
      file.contents_ = Parser(prefix, file.size_, path.string()).parse();
      return file;
    } catch (const NeedMoreBytes& more) {
      want = std::min(file.size_, std::max(want * 2, more.end));
    }
  }
}

GgufFile GgufFile::from_bytes(std::vector<std::uint8_t> bytes, std::string source) {
  GgufFile file;
  file.owned_ = std::move(bytes);
  file.size_ = file.owned_.size();
  file.contents_ = parse_gguf(file.owned_, source);
  return file;
}

void GgufFile::read_tensor(const GgufTensorInfo& tensor, std::uint64_t offset, std::span<std::uint8_t> out) const {
  if (tensor.file_offset > size_ || tensor.bytes > size_ - tensor.file_offset || offset > tensor.bytes ||
      out.size() > tensor.bytes - offset) {
    throw Error(ErrorKind::usage, "tensor " + printable(tensor.name) + " does not belong to this file");
  }
  if (file_) {
    file_->read_at(tensor.file_offset + offset, out, "tensor " + printable(tensor.name));
  } else {
    std::memcpy(out.data(), owned_.data() + tensor.file_offset + offset, out.size());
  }
}

std::vector<std::uint8_t> GgufFile::tensor_data(const GgufTensorInfo& tensor) const {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(tensor.bytes));
  read_tensor(tensor, 0, bytes);
  return bytes;
}

std::vector<float> GgufFile::dequantize_row_range(const GgufTensorInfo& tensor, std::uint64_t first_row,
                                                  std::size_t rows) const {
  const auto k = static_cast<std::size_t>(tensor.row_length());
  const std::size_t stride = row_bytes(tensor.type, k);
  if (first_row > tensor.rows() || rows > tensor.rows() - first_row) {
    throw Error(ErrorKind::usage, "rows " + std::to_string(first_row) + " to " + std::to_string(first_row + rows) +
                                      " are outside tensor " + printable(tensor.name));
  }
  std::vector<std::uint8_t> bytes(rows * stride);
  read_tensor(tensor, first_row * stride, bytes);
  return dequantize_rows(tensor.type, bytes.data(), rows, k);
}

std::vector<float> GgufFile::dequantize(const GgufTensorInfo& tensor) const {
  return dequantize_row_range(tensor, 0, static_cast<std::size_t>(tensor.rows()));
}

}  // namespace vktune::ref
