#pragma once
// GGUF metadata values: the thirteen value types of the GGUF specification,
// arrays of any of them (arrays of arrays included), and key/value pairs.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace vktune::ref {

// GGUF metadata value type ids.
enum class GgufValueType : std::uint32_t {
  uint8 = 0,
  int8 = 1,
  uint16 = 2,
  int16 = 3,
  uint32 = 4,
  int32 = 5,
  float32 = 6,
  boolean = 7,
  string = 8,
  array = 9,
  uint64 = 10,
  int64 = 11,
  float64 = 12,
};

inline constexpr std::uint32_t gguf_value_type_count = 13;

std::string_view value_type_name(GgufValueType type);  // "uint8", ..., "array"
// Bytes one value of `type` takes in a file: exact for fixed-size types, the
// minimum (the length/count fields) for strings (8) and arrays (12).
std::size_t value_min_bytes(GgufValueType type);

struct GgufValue;

// An array: every item has type `element_type` (arrays of arrays may differ
// in their own element types).
struct GgufArray {
  GgufValueType element_type = GgufValueType::uint8;
  std::vector<GgufValue> items;
  bool operator==(const GgufArray& other) const;
};

struct GgufValue {
  // Alternatives are in type-id order: data.index() is the GgufValueType.
  using Storage = std::variant<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                               float, bool, std::string, GgufArray, std::uint64_t, std::int64_t, double>;
  Storage data;

  GgufValue() = default;
  template <class T>
    requires(!std::is_same_v<std::decay_t<T>, GgufValue> && std::is_constructible_v<Storage, T>)
  GgufValue(T value) : data(std::move(value)) {}  // implicit by design: GgufValue v = 3u;
  GgufValue(const char* text) : data(std::string(text)) {}

  GgufValueType type() const { return static_cast<GgufValueType>(data.index()); }
  // The value of an integer of any width/sign that fits in the result, else nullopt.
  std::optional<std::uint64_t> as_uint64() const;
  std::optional<std::int64_t> as_int64() const;
  const std::string* as_string() const { return std::get_if<std::string>(&data); }
  const GgufArray* as_array() const { return std::get_if<GgufArray>(&data); }

  bool operator==(const GgufValue& other) const { return data == other.data; }
};

// A homogeneous array value, e.g. make_array(GgufValueType::int32, {1, 2}).
GgufValue make_array(GgufValueType element_type, std::vector<GgufValue> items);

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

// A short human-readable rendering: scalars as text, strings quoted, arrays
// with at most `max_items` items followed by "... (N items)".
std::string describe_value(const GgufValue& value, std::size_t max_items = 8);

}  // namespace vktune::ref
