#pragma once
// Reading a spec's JSON with every error naming the file, the field as a
// JSON pointer (RFC 6901) and the problem, in one line: a Node is a value
// and where it sits.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_expression.hpp"

namespace vktune::kernels::spec {

class Node {
 public:
  Node(const nlohmann::json& value, std::string pointer, const std::string& file)
      : value_(&value), pointer_(std::move(pointer)), file_(&file) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return *file_; }

  // Error(usage): "FILE: /POINTER: PROBLEM".
  [[noreturn]] void fail(const std::string& problem) const;

  bool has(const std::string& key) const;
  // A required member (fails "missing field" when absent).
  Node at(const std::string& key) const;
  Node at(std::size_t index) const;
  // Fails on any member not listed: a misspelt optional field is an error,
  // not a silently ignored one.
  void only(std::initializer_list<const char*> keys) const;

  std::vector<Node> array(std::size_t min_size = 0) const;
  std::string string() const;
  std::string identifier() const;  // a C identifier (parameter, buffer, dim names)
  double number() const;
  bool boolean() const;
  std::int64_t integer(std::int64_t min, std::int64_t max) const;
  // A number or a string, compiled against `scope`; `what` names what the
  // scope holds when a name is unknown ("shape dimensions").
  Expression expression(const Scope& scope) const;

 private:
  const nlohmann::json* value_;
  std::string pointer_;
  const std::string* file_;
};

// "1,4096" (kernels' shape_to_string, here so the loader stands alone).
std::string shape_text(const std::vector<std::uint32_t>& shape);

// Escapes a key for a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string pointer_token(const std::string& key);

}  // namespace vktune::kernels::spec
