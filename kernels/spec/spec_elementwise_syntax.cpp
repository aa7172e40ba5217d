#include "kernels/spec/spec_elementwise_syntax.hpp"

#include <cctype>
#include <stdexcept>

namespace vktune::kernels::spec {

namespace {

[[noreturn]] void syntax_error(const std::string& problem) { throw std::invalid_argument(problem); }

bool ew_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ew_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool ew_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::size_t ew_skip_spaces(const std::string& s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

std::string ew_trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

// The end of the name starting at i.
std::size_t ew_name_end(const std::string& s, std::size_t i) {
  while (i < s.size() && ew_name_char(s[i])) ++i;
  return i;
}

// The end of the number starting at i: digits, a point, an exponent. Its
// letters are not a name ("1e5" reads no variable e5).
std::size_t ew_number_end(const std::string& s, std::size_t i) {
  while (i < s.size() && (ew_digit(s[i]) || s[i] == '.')) ++i;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && ew_digit(s[j])) {
      i = j;
      while (i < s.size() && ew_digit(s[i])) ++i;
    }
  }
  return i;
}

// The position of the ']' closing the '[' at `open`.
std::size_t ew_closing(const std::string& s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '[') ++depth;
    if (s[i] == ']' && --depth == 0) return i;
  }
  syntax_error("the '[' at character " + std::to_string(open + 1) + " is never closed");
}

// "r, c + 1" -> {"r", "c + 1"}: the commas outside parentheses and brackets
// (those of min(a, b) stay), so that x[r, c] reads as x[r][c].
std::vector<std::string> ew_split_indices(const std::string& group, const std::string& read) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= group.size(); ++i) {
    const char c = i < group.size() ? group[i] : ',';
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      auto part = ew_trim(group.substr(start, i - start));
      if (part.empty()) syntax_error("'" + read + "' has an empty index");
      parts.push_back(std::move(part));
      start = i + 1;
    }
  }
  return parts;
}

// The position of the first '=' that is not part of ==, <=, >=, != (npos: none).
std::size_t ew_assignment(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '=') continue;
    if (i + 1 < s.size() && s[i + 1] == '=') {
      ++i;
      continue;
    }
    if (i > 0 && (s[i - 1] == '<' || s[i - 1] == '>' || s[i - 1] == '!')) continue;
    return i;
  }
  return std::string::npos;
}

void ew_left_side(const std::string& left, ElementwiseText& out) {
  const std::string form = "the left side '" + ew_trim(left) + "' is not ARRAY[i][j]...: the written array, indexed by names";
  std::size_t i = ew_skip_spaces(left, 0);
  if (i == left.size() || !ew_name_start(left[i])) syntax_error(form);
  const std::size_t end = ew_name_end(left, i);
  out.target = left.substr(i, end - i);
  i = ew_skip_spaces(left, end);
  while (i < left.size()) {
    if (left[i] != '[') syntax_error(form);
    const std::size_t close = ew_closing(left, i);
    for (auto& index : ew_split_indices(left.substr(i + 1, close - i - 1), left)) {
      if (!ew_name_start(index[0]) || ew_name_end(index, 0) != index.size()) syntax_error(form);
      out.indices.push_back(std::move(index));
    }
    i = ew_skip_spaces(left, close + 1);
  }
  if (out.indices.empty()) syntax_error(form);
}

// `s` with every read a call; reads inside an index are rewritten too.
std::string ew_rewrite(const std::string& s, const std::set<std::string>& arrays, const std::string& prefix,
                       ElementwiseText& out) {
  std::string result;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (ew_digit(c) || (c == '.' && i + 1 < s.size() && ew_digit(s[i + 1]))) {
      const std::size_t end = ew_number_end(s, i);
      result += s.substr(i, end - i);
      i = end;
      continue;
    }
    if (c == '[') syntax_error("a '[' at character " + std::to_string(i + 1) + " follows no array name");
    if (c == ']') syntax_error("a ']' at character " + std::to_string(i + 1) + " closes no '['");
    if (!ew_name_start(c)) {
      result += c;
      ++i;
      continue;
    }
    const std::size_t name_end = ew_name_end(s, i);
    const std::string name = s.substr(i, name_end - i);
    std::size_t at = ew_skip_spaces(s, name_end);
    if (at == s.size() || s[at] != '[') {
      if (arrays.count(name)) syntax_error("'" + name + "' is an array: read a value of it with an index, " + name + "[...]");
      result += name;
      i = name_end;
      continue;
    }
    if (!arrays.count(name)) syntax_error("'" + name + "[' reads an array that \"arrays\" does not declare");
    std::vector<std::string> groups;
    std::size_t end = at;
    while (at < s.size() && s[at] == '[') {
      const std::size_t close = ew_closing(s, at);
      groups.push_back(s.substr(at + 1, close - at - 1));
      end = close + 1;
      at = ew_skip_spaces(s, end);
    }
    const std::size_t id = out.reads.size();
    out.reads.push_back({name, s.substr(i, end - i), 0});
    std::vector<std::string> indices;
    for (const auto& group : groups) {
      for (auto& index : ew_split_indices(group, out.reads[id].text)) indices.push_back(std::move(index));
    }
    out.reads[id].index_count = indices.size();
    result += prefix + std::to_string(id) + "(";
    for (std::size_t k = 0; k < indices.size(); ++k) {
      result += (k ? ", " : "") + ew_rewrite(indices[k], arrays, prefix, out);
    }
    result += ")";
    i = end;
  }
  return result;
}

}  // namespace

ElementwiseText split_elementwise(const std::string& text, const std::set<std::string>& arrays,
                                  const std::string& read_prefix) {
  ElementwiseText out;
  const std::size_t equals = ew_assignment(text);
  if (equals == std::string::npos) syntax_error("expected 'ARRAY[i][j] = expression' (no '=' found)");
  ew_left_side(text.substr(0, equals), out);
  out.right = ew_trim(text.substr(equals + 1));
  if (out.right.empty()) syntax_error("the right side is empty");
  // muparser would take a second '=' as assigning to a name; here it is a typo for '=='.
  if (ew_assignment(out.right) != std::string::npos) syntax_error("a second '=' (compare with '==')");
  out.body = ew_rewrite(out.right, arrays, read_prefix, out);
  return out;
}

}  // namespace vktune::kernels::spec
