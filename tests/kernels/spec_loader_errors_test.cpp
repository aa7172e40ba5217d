// The kernel spec loader refusing what it cannot load, without a device:
// every malformed spec (a missing or unknown field, an expression that does
// not parse, sizes that do not fit, a file that is not JSON or not there) is
// one Error(usage) line naming the file, the field as a JSON pointer and the
// problem. What a valid spec becomes is spec_loader_test.cpp's.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "kernels/spec/spec_file.hpp"
#include "spec_test_support.hpp"

namespace vktune::kernels::spec {
namespace {

using nlohmann::json;
using namespace spec_test;

TEST(SpecLoader, MissingFieldsAreNamed) {
  for (const char* field : {"name", "shape", "default_shapes", "subspaces", "buffers", "metrics", "reference"}) {
    auto spec = valid_json();
    spec.erase(field);
    expect_error(spec, std::string("/") + field, "missing field");
  }
  auto spec = valid_json();
  spec["subspaces"][0].erase("stages");
  expect_error(spec, "/subspaces/0/stages", "missing field");
}

TEST(SpecLoader, UnknownTypesRolesFieldsAndOps) {
  auto spec = valid_json();
  spec["buffers"][1]["type"] = "f64";
  expect_error(spec, "/buffers/1/type", "unknown element type 'f64'");
  spec = valid_json();
  spec["buffers"][1]["role"] = "inout";
  expect_error(spec, "/buffers/1/role", "unknown role 'inout'");
  spec = valid_json();
  spec["subspaces"][0]["paramters"] = json::array();
  expect_error(spec, "/subspaces/0/paramters", "unknown field");
  spec = valid_json();
  spec["reference"]["op"] = "fft";
  expect_error(spec, "/reference/op", "unknown reference op 'fft'");
  spec = valid_json();
  spec["buffers"][1]["init"]["kind"] = "ones";
  expect_error(spec, "/buffers/1/init/kind", "unknown init kind");
}

TEST(SpecLoader, ExpressionsThatDoNotParseOrNameUnknownVariables) {
  auto spec = valid_json();
  spec["buffers"][0]["size"] = "rows * * n";
  expect_error(spec, "/buffers/0/size", "is invalid");
  spec = valid_json();
  spec["subspaces"][0]["legality"][0]["rule"] = "WG <= max_invocationz";
  expect_error(spec, "/subspaces/0/legality/0/rule", "max_invocationz");
  spec = valid_json();
  spec["push_constants"][0]["value"] = "WG";  // a parameter: push constants are the shape's
  expect_error(spec, "/push_constants/0/value", "WG");
  spec = valid_json();
  spec["metrics"]["flops"] = "5 * rows * (n";
  expect_error(spec, "/metrics/flops", "is invalid");
}

TEST(SpecLoader, TwoBuffersOnOneBindingAndGaps) {
  auto spec = valid_json();
  spec["buffers"][1]["binding"] = 0;
  expect_error(spec, "/buffers/1/binding", "two buffers on binding 0");
  spec = valid_json();
  spec["buffers"][1]["binding"] = 5;
  expect_error(spec, "/buffers/1/binding", "gap");
  spec = valid_json();
  spec["buffers"][1]["role"] = "output";
  spec["buffers"][1].erase("init");
  expect_error(spec, "/buffers", "exactly one buffer has the role output");
}

TEST(SpecLoader, ATemplateThatDoesNotExist) {
  auto spec = valid_json();
  spec["subspaces"][0]["template"] = "missing.comp";
  expect_error(spec, "/subspaces/0/template", "'missing.comp' does not exist");
  spec["subspaces"][0]["template"] = "../k.comp";
  expect_error(spec, "/subspaces/0/template", "relative path inside");
}

TEST(SpecLoader, SizesThatAreNotPositiveOrOverflowAtADeclaredShape) {
  auto spec = valid_json();
  spec["buffers"][1]["size"] = "rows * n - 40";  // -3 at the check shape 1,37
  expect_error(spec, "/buffers/1/size", "at shape 1,37");
  spec = valid_json();
  spec["default_shapes"] = json::array({json::array({4, 256}), json::array({65536, 65536})});
  expect_error(spec, "/buffers/0/size", "overflows 32-bit indexing at shape 65536,65536");
  spec = valid_json();
  spec["buffers"][1]["size"] = "rows * n / 2";  // 18.5 at 1,37
  expect_error(spec, "/buffers/1/size", "not a whole number");
}

TEST(SpecLoader, AReferenceWhoseOperandSizesDisagreeWithTheBuffers) {
  auto spec = valid_json();
  spec["reference"]["n"] = "n + 1";  // 37 values are not whole rows of 38
  expect_error(spec, "/reference/n", "not whole rows");
  spec = valid_json();
  spec["buffers"][0]["size"] = "rows * n + rows";
  expect_error(spec, "/reference/y", "holds 1028 values but softmax reads the size of x = 1024");
  spec = valid_json();
  spec["reference"]["y"] = "in";
  expect_error(spec, "/reference/y", "the output buffer");
}

TEST(SpecLoader, NestingDeeperThanTheLimit) {
  auto spec = valid_json();
  json deep = 1;
  for (int i = 0; i < kMaxSpecDepth + 4; ++i) deep = json::array({deep});
  spec["$schema"] = deep;
  const auto message = error_of(spec);
  EXPECT_NE(message.find("my/spec.json: /$schema/0/0/0"), std::string::npos) << message;
  EXPECT_NE(message.find("nested deeper than 16 levels"), std::string::npos) << message;
}

TEST(SpecLoader, NotJsonAndNotAnObject) {
  const auto message = error_of(std::string("{\"name\": "));
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  EXPECT_NE(error_of(std::string("[1, 2]")).find("a spec is a JSON object"), std::string::npos);
}

TEST(SpecLoader, SizesTheLaunchContractCannotCarryAreRefused) {
  auto spec = valid_json();
  spec["buffers"].push_back(
      {{"name", "tmp"}, {"binding", 2}, {"type", "f32"}, {"size", "ceil_div(rows * n, 64) * 64"}, {"role", "scratch"}});
  const auto message = error_of(spec);
  EXPECT_NE(message.find("/buffers/2/size"), std::string::npos) << message;
  EXPECT_NE(message.find("polynomials"), std::string::npos) << message;
}

TEST(SpecLoader, DuplicateNamesAndDefinesThatShadowParameters) {
  auto spec = valid_json();
  spec["subspaces"][0]["parameters"][1]["name"] = "WG";
  expect_error(spec, "/subspaces/0/parameters/1/name", "already a name");
  spec = valid_json();
  spec["subspaces"][0]["defines"] = {{"WG", 3}};
  expect_error(spec, "/subspaces/0/defines/WG", "already a name");
  spec = valid_json();
  spec["buffers"][1]["name"] = "out";
  expect_error(spec, "/buffers/1/name", "a second buffer named 'out'");
}

// A carriage return in a define's value ended the #define line and ran the
// rest as a line of its own (an #error ran); a template named with control
// characters was exported and then refused by import.
TEST(SpecLoader, ControlCharactersInDefinesAndTemplateNamesAreRefused) {
  for (const char* value : {"1\r#error injected", "1\n#error injected", "1\x0b", "1\x7f"}) {
    auto spec = valid_json();
    spec["subspaces"][0]["defines"] = {{"FIXED", value}};
    expect_error(spec, "/subspaces/0/defines/FIXED", "no control characters");
  }
  auto spec = valid_json();
  spec["subspaces"][0]["template"] = "k\x1b[31m.comp";
  expect_error(spec, "/subspaces/0/template", "no control characters");
}

TEST(SpecLoader, AMissingSpecFileIsBadInput) {
  try {
    load_spec("/nonexistent/spec.json");
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/spec.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace vktune::kernels::spec
