#version 450
// y = x transposed: x is rows x cols and y cols x rows, both row-major. A
// workgroup moves one TILE x TILE block through shared memory, so that it
// reads x along rows and writes y along rows (consecutive invocations touch
// consecutive addresses both ways); the transpose happens in the tile.
// TILE and PAD come from the spec (examples/transpose/transpose.json).
layout(local_size_x = TILE, local_size_y = TILE) in;

layout(std430, set = 0, binding = 0) readonly buffer XBuffer { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer YBuffer { float y[]; };
layout(push_constant) uniform Shape { uint rows; uint cols; };

// PAD = 1 shifts each row of the tile by one bank, so that the column read
// below does not make TILE invocations wait on the same bank.
shared float tile[TILE][TILE + PAD];

void main() {
  const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
  const uint first_row = gl_WorkGroupID.y * TILE, first_col = gl_WorkGroupID.x * TILE;
  const uint r = first_row + ly, c = first_col + lx;
  if (r < rows && c < cols) tile[ly][lx] = x[r * cols + c];
  barrier();
  // Invocation (lx, ly) writes y[first_col + ly][first_row + lx] = x[first_row + lx][first_col + ly].
  const uint out_row = first_col + ly, out_col = first_row + lx;
  if (out_row < cols && out_col < rows) y[out_row * rows + out_col] = tile[lx][ly];
}
