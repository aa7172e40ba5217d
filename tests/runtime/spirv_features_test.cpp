// required_features: the device features a SPIR-V module declares it needs.
#include <gtest/gtest.h>

#include "vktune_runtime.hpp"

namespace rt = vktune::runtime;

namespace {

constexpr std::uint32_t kCapability = (2u << 16) | 17u;  // OpCapability, 2 words

std::vector<std::uint32_t> module_with(std::initializer_list<std::uint32_t> capabilities) {
  std::vector<std::uint32_t> words = {0x07230203u, 0x00010300u, 0, 100, 0};
  for (auto c : capabilities) words.insert(words.end(), {kCapability, c});
  words.insert(words.end(), {(3u << 16) | 14u, 0, 1});  // OpMemoryModel Logical GLSL450
  words.insert(words.end(), {kCapability, 9});          // after the capabilities: not read
  return words;
}

}  // namespace

TEST(RequiredFeatures, MapsCapabilitiesToFeatureNames) {
  // Shader (1) needs nothing; DotProduct (6019) and
  // DotProductInput4x8BitPacked (6018) both mean shaderIntegerDotProduct;
  // GroupNonUniformShuffle (65) is a subgroup operation the device must have.
  EXPECT_EQ(rt::required_features(module_with({1, 65, 6019, 6018, 39})),
            (std::vector<std::string>{"shaderInt8", "shaderIntegerDotProduct", "subgroup_shuffle"}));
  EXPECT_EQ(rt::required_features(module_with({1, 4433, 5357})),
            (std::vector<std::string>{"cooperativeMatrixNV", "storageBuffer16BitAccess"}));
  // CooperativeMatrixKHR (6022, which Debian 12's spirv-headers predate), as
  // a module from the NV-to-KHR pass declares it with the memory model.
  EXPECT_EQ(rt::required_features(module_with({1, 5345, 6022})),
            (std::vector<std::string>{"cooperativeMatrixKHR", "vulkanMemoryModel"}));
  EXPECT_TRUE(rt::required_features(module_with({1})).empty());
}

// Every subgroup-operation capability of the SPIR-V specification (61 to 68:
// GroupNonUniform, Vote, Arithmetic, Ballot, Shuffle, ShuffleRelative,
// Clustered, Quad), numbers written here from the specification so that the
// mapping through spirv-headers is checked against them.
TEST(RequiredFeatures, NamesEverySubgroupOperation) {
  EXPECT_EQ(rt::required_features(module_with({61, 62, 63, 64, 65, 66, 67, 68})),
            (std::vector<std::string>{"subgroup_arithmetic", "subgroup_ballot", "subgroup_basic", "subgroup_clustered",
                                      "subgroup_quad", "subgroup_shuffle", "subgroup_shuffle_relative",
                                      "subgroup_vote"}));
}

TEST(RequiredFeatures, RejectsWhatIsNotSpirv) {
  EXPECT_THROW(rt::required_features(std::vector<std::uint32_t>{1, 2, 3}), rt::Error);
  auto words = module_with({1});
  words[0] = 0x03022307u;  // byte-swapped magic
  EXPECT_THROW(rt::required_features(words), rt::Error);
  words = module_with({1});
  words[5] = (40u << 16) | 17u;  // an instruction running past the end
  EXPECT_THROW(rt::required_features(words), rt::Error);
}
