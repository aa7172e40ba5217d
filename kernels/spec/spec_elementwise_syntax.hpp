#pragma once
// The text of an element-wise reference, "y[r][c] = gelu_tanh(x[r][c] + b[c])":
// its left side (the array it writes and the names of its indices) and its
// right side with every read ARRAY[e1][e2]... (or ARRAY[e1, e2]) turned into
// a call READ<k>(e1, e2) that muparser compiles, muparser having no
// brackets. Text only: which names are arrays is the caller's to say, and
// what the arrays hold and how large they are is spec_elementwise.cpp's.
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace vktune::kernels::spec {

struct ElementwiseText {
  std::string target;                // the array the left side writes
  std::vector<std::string> indices;  // its index names, outermost first
  std::string right;                 // the right side as written (trimmed)
  std::string body;                  // the right side with each read a call
  struct Read {
    std::string array;
    std::string text;  // as written, for messages
    std::size_t index_count = 0;
  };
  std::vector<Read> reads;  // read k is the call `read_prefix` + k
};

// Throws std::invalid_argument naming the problem. `arrays`: the names that
// are arrays (read with an index, never alone).
ElementwiseText split_elementwise(const std::string& text, const std::set<std::string>& arrays,
                                  const std::string& read_prefix);

}  // namespace vktune::kernels::spec
