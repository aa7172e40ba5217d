#include "kernels/spec/spec_node.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>

namespace vktune::kernels::spec {

std::string shape_text(const std::vector<std::uint32_t>& shape) {
  std::string text;
  for (auto d : shape) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

std::string pointer_token(const std::string& key) {
  std::string token;
  for (char c : key) {
    if (c == '~') token += "~0";
    else if (c == '/') token += "~1";
    else token += c;
  }
  return token;
}

void Node::fail(const std::string& problem) const {
  // One line whatever the input held: control characters from the file are shown escaped.
  std::string line = *file_ + ": " + (pointer_.empty() ? "/" : pointer_) + ": " + problem;
  std::string clean;
  for (unsigned char c : line) clean += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  throw Error(ErrorKind::usage, clean);
}

bool Node::has(const std::string& key) const { return value_->is_object() && value_->contains(key); }

Node Node::at(const std::string& key) const {
  if (!value_->is_object()) fail("expected an object");
  const auto it = value_->find(key);
  if (it == value_->end()) {
    static const nlohmann::json absent;
    Node(absent, pointer_ + "/" + pointer_token(key), *file_).fail("missing field '" + key + "'");
  }
  return Node(*it, pointer_ + "/" + pointer_token(key), *file_);
}

Node Node::at(std::size_t index) const {
  return Node(value_->at(index), pointer_ + "/" + std::to_string(index), *file_);
}

void Node::only(std::initializer_list<const char*> keys) const {
  if (!value_->is_object()) fail("expected an object");
  for (const auto& [key, value] : value_->items()) {
    bool known = false;
    for (const char* k : keys) known = known || key == k;
    if (!known) Node(value, pointer_ + "/" + pointer_token(key), *file_).fail("unknown field '" + key + "'");
  }
}

std::vector<Node> Node::array(std::size_t min_size) const {
  if (!value_->is_array()) fail("expected an array");
  if (value_->size() < min_size) fail("expected at least " + std::to_string(min_size) + " entries");
  std::vector<Node> nodes;
  for (std::size_t i = 0; i < value_->size(); ++i) nodes.push_back(at(i));
  return nodes;
}

std::string Node::string() const {
  if (!value_->is_string()) fail("expected a string");
  return value_->get<std::string>();
}

std::string Node::identifier() const {
  const auto text = string();
  bool ok = !text.empty() && text.size() <= 64 && !std::isdigit(static_cast<unsigned char>(text[0]));
  for (unsigned char c : text) ok = ok && (std::isalnum(c) || c == '_');
  if (!ok) fail("'" + text + "' is not a name (letters, digits and _, not starting with a digit, at most 64)");
  return text;
}

double Node::number() const {
  if (!value_->is_number()) fail("expected a number");
  const double v = value_->get<double>();
  if (!std::isfinite(v)) fail("expected a finite number");
  return v;
}

bool Node::boolean() const {
  if (!value_->is_boolean()) fail("expected true or false");
  return value_->get<bool>();
}

std::int64_t Node::integer(std::int64_t min, std::int64_t max) const {
  if (!value_->is_number_integer()) fail("expected an integer");
  if (value_->is_number_unsigned() && value_->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
    fail("expected an integer in " + std::to_string(min) + ".." + std::to_string(max));
  }
  const auto v = value_->get<std::int64_t>();
  if (v < min || v > max) fail("expected an integer in " + std::to_string(min) + ".." + std::to_string(max));
  return v;
}

Expression Node::expression(const Scope& scope) const {
  std::string text;
  if (value_->is_number()) {
    text = value_->dump();
  } else if (value_->is_string()) {
    text = value_->get<std::string>();
    if (text.size() > 1000) fail("expression longer than 1000 characters");
  } else {
    fail("expected an expression (a string or a number)");
  }
  try {
    return Expression(text, scope);
  } catch (const std::invalid_argument& e) {
    std::string names;
    for (const auto& n : scope.names()) names += (names.empty() ? "" : ", ") + n;
    fail(std::string(e.what()) + " (names it may use: " + (names.empty() ? "none" : names) + ")");
  }
}

}  // namespace vktune::kernels::spec
