#pragma once
// The form every field of an imported table must have. A table comes from
// another machine, and its text ends up in SQL rows, in generated C++
// (`vktune export --format header`) and in terminals, so each field is held
// to the shape vktune itself writes: hashes are lower-case hex of a fixed
// length, names are printable UTF-8 on one line, shapes are numbers.
// Each check returns "" when the text has the form, else why not (for a
// one-line message that names the field).
#include <string>
#include <string_view>

namespace vktune::results {

// A content or variant hash (common/hash.hpp): 16 lower-case hex digits.
std::string hash_problem(std::string_view text);
// A device UUID: "" or 32 lower-case hex digits.
std::string uuid_problem(std::string_view text);
// A kernel name: 1 to 128 of [A-Za-z0-9_.+-].
std::string kernel_name_problem(std::string_view text);
// A cache mode: 1 to 16 lower-case letters ("cold", "hot").
std::string cache_mode_problem(std::string_view text);
// A shape: comma-separated unsigned 32-bit numbers ("1,4096,4096").
std::string shape_problem(std::string_view text);
// A time: "" or ISO-8601 UTC as the store writes it ("2024-05-01T12:00:00.000Z"),
// no later than a day from now (a winner stamped ahead would win every later
// import of its key).
std::string timestamp_problem(std::string_view text);
// Descriptive text (device and driver names, template names, versions):
// valid UTF-8 without control characters, at most 256 bytes.
std::string text_problem(std::string_view text);

}  // namespace vktune::results
