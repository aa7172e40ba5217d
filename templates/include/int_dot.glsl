// Dot products of packed 8-bit integers (SPV_KHR_integer_dot_product,
// VK_KHR_shader_integer_dot_product / Vulkan 1.3 shaderIntegerDotProduct),
// reached through GL_EXT_spirv_intrinsics because the glslang that shaderc
// ships here has no GLSL built-in for them. The including template declares
// `#extension GL_EXT_spirv_intrinsics : require` (an #extension line cannot
// follow code).
//
// dot4_i8(a, b): the sum of the four products of the signed bytes of a and b,
// one instruction on GPUs with a byte dot product (NVIDIA's IDP4A).
#ifndef VKTUNE_INT_DOT_GLSL
#define VKTUNE_INT_DOT_GLSL

// OpSDot (4450) with PackedVectorFormat4x8Bit (0); capabilities DotProduct
// (6019) and DotProductInput4x8BitPacked (6018).
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6018, 6019], id = 4450)
int vktune_sdot_packed(int a, int b, spirv_literal int packed_format);

int dot4_i8(uint a, uint b) { return vktune_sdot_packed(int(a), int(b), 0); }

#endif
