#include "reference/gguf_value.hpp"

#include <array>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <type_traits>
#include <sstream>

#include "common/text_escape.hpp"

namespace vktune::ref {

namespace {

constexpr std::array<std::string_view, gguf_value_type_count> kNames{
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
    "bool",  "string", "array", "uint64", "int64", "float64"};
constexpr std::array<std::size_t, gguf_value_type_count> kMinBytes{1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8};

template <class T>
std::string shortest(T value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

void quote(std::ostringstream& out, const std::string& text) { out << '"' << escape_text(text, '"') << '"'; }

void describe(std::ostringstream& out, const GgufValue& value, std::size_t max_items) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          quote(out, v);
        } else if constexpr (std::is_same_v<T, GgufArray>) {
          out << '[';
          const std::size_t shown = std::min(max_items, v.items.size());
          for (std::size_t i = 0; i < shown; ++i) {
            if (i != 0) out << ", ";
            describe(out, v.items[i], max_items);
          }
          if (shown < v.items.size()) out << (shown != 0 ? ", " : "") << "... (" << v.items.size() << " items)";
          out << ']';
        } else if constexpr (std::is_same_v<T, bool>) {
          out << (v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int8_t>) {
          out << static_cast<int>(v);
        } else {
          out << shortest(v);
        }
      },
      value.data);
}

}  // namespace

std::string_view value_type_name(GgufValueType type) {
  const auto index = static_cast<std::uint32_t>(type);
  return index < gguf_value_type_count ? kNames[index] : std::string_view("unknown");
}

std::size_t value_min_bytes(GgufValueType type) {
  const auto index = static_cast<std::uint32_t>(type);
  return index < gguf_value_type_count ? kMinBytes[index] : 1;
}

bool GgufArray::operator==(const GgufArray& other) const {
  return element_type == other.element_type && items == other.items;
}

std::optional<std::uint64_t> GgufValue::as_uint64() const {
  return std::visit(
      [](const auto& v) -> std::optional<std::uint64_t> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if constexpr (std::is_signed_v<T>) {
            if (v < 0) return std::nullopt;
          }
          return static_cast<std::uint64_t>(v);
        } else {
          return std::nullopt;
        }
      },
      data);
}

std::optional<std::int64_t> GgufValue::as_int64() const {
  return std::visit(
      [](const auto& v) -> std::optional<std::int64_t> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if constexpr (std::is_same_v<T, std::uint64_t>) {
            if (v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
          }
          return static_cast<std::int64_t>(v);
        } else {
          return std::nullopt;
        }
      },
      data);
}

GgufValue make_array(GgufValueType element_type, std::vector<GgufValue> items) {
  return GgufValue(GgufArray{element_type, std::move(items)});
}

std::string describe_value(const GgufValue& value, std::size_t max_items) {
  std::ostringstream out;
  describe(out, value, max_items);
  return out.str();
}

}  // namespace vktune::ref
