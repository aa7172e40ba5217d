#!/usr/bin/env python3
"""How much a sibling shape's measurements say about a target shape's best
configs (issue 39, item 4: transfer). For each ordered pair of a kernel's two
exhaustive sets that tests/tuner/replay_test.cpp replays with transfer, prints
how many configs of the target are within 1% of its best, the target's time
(over its best) of the sibling's ten fastest configs, and the sibling's rank of
each target config within 1%. A tune seeds from a sibling's kTransferTop + 1 = 4
fastest (tuner/search/transfer.hpp). Run from the repository root."""
import csv

S28 = 'measurements/nvidia-h200/session28/'
PAIRS = [
    ('matmul_q4k', S28 + 'pipelined/call3/gpu0/q4k14336_pruned.csv', S28 + 'pipelined/call3/gpu0/q4k4096_pruned.csv'),
    ('matmul_q6k', S28 + 'pipelined/call3/gpu0/q6k_pruned.csv', S28 + 'exhaustive/gpu0/q6k_1x14336x4096_pruned.csv'),
    ('matmul_q4_0', S28 + 'pipelined/call3/gpu1/q4_0_pruned.csv', S28 + 'exhaustive/gpu1/q4_0_1x14336x4096_pruned.csv'),
    ('matmul_q8_0', S28 + 'pipelined/call3/gpu1/q8_0_pruned.csv', S28 + 'exhaustive/gpu0/q8_0_1x4096x14336_pruned.csv'),
    ('matmul_q5k', S28 + 'exhaustive/gpu1/q5k_1x14336x4096_pruned.csv', S28 + 'exhaustive/gpu1/q5k_1x4096x14336_pruned.csv'),
]


def load(path):
    times, shape = {}, None
    for r in csv.DictReader(open(path)):
        if r['phase'] != 'search' or not r['median_ns']:
            continue
        shape, t = r['shape'], float(r['median_ns'])
        if r['config'] not in times or t < times[r['config']]:
            times[r['config']] = t
    return times, shape


for kernel, a_path, b_path in PAIRS:
    a, b = load(a_path), load(b_path)
    for (target, target_shape), (sibling, sibling_shape) in ((a, b), (b, a)):
        best = min(target.values())
        within = [c for c in target if target[c] <= best * 1.01]
        order = sorted(sibling, key=sibling.get)
        print(f'{kernel} {target_shape} from {sibling_shape}: {len(target)} configs timed, '
              f'{len(within)} within 1% of the best ({best / 1000:.2f} us)')
        print('  the sibling\'s 10 fastest, their time on the target over its best: ' +
              ' '.join(f'{target[c] / best:.3f}' if c in target else 'absent' for c in order[:10]))
        ranks = [order.index(c) + 1 if c in order else None for c in within]
        print(f'  the sibling ranks the target\'s configs within 1% at {ranks} (1 = its fastest); '
              f'measuring in the sibling\'s order reaches 1% after {min(r for r in ranks if r)} of '
              f'{len(target)} ({min(r for r in ranks if r) / len(target):.1%})')
