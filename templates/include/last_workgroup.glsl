// The election of the workgroup that finished last among the `count`
// workgroups sharing counter i, so that it can merge what they all wrote
// (attention_decode's split merge, argmax's split rows) in the same
// dispatch instead of a stage and a barrier of its own. The elected
// workgroup resets the counter to 0 once it has merged, so the scratch holds
// zeros before and after every dispatch (a contract's scratch is zeroed once).
//
// The includer declares a coherent storage buffer and defines
// LAST_WORKGROUP_COUNTERS as its uint array of counters.

shared bool last_workgroup_elected;

// After every invocation has written its results: true in the workgroup
// that finished last among the `count` sharing counter i (all its
// invocations), whose loads then see every other's results. Call in
// uniform control flow.
bool is_last_workgroup(uint lid, uint i, uint count) {
  memoryBarrierBuffer();
  barrier();
  if (lid == 0u) last_workgroup_elected = atomicAdd(LAST_WORKGROUP_COUNTERS[i], 1u) == count - 1u;
  barrier();
  if (!last_workgroup_elected) return false;
  memoryBarrierBuffer();
  return true;
}
