#!/usr/bin/env python3
"""Why matmul_q4k 512,4096,14336 and matmul_f16 512,4096,14336 measured fewer
variants a second in session 30's call4 than in session 29: the timer's 1-s
re-warm-up after an idle gap over 200 ms (harness/timer.hpp, idle_gap and
warmup_after_idle). Per row: variants measured, the warm-up and validation
medians, how many were re-warmed (a warm-up of 900 ms or more) and the seconds
that took, and how the re-warm-ups relate to validations over 200 ms (the
time the GPU idles between two timings while the CPU validates). Run from the
repository root."""
import csv
import lzma
import statistics

H200 = 'measurements/nvidia-h200/'
ROWS = [('session29 matmul_f16', H200 + 'session29/call3/gpu1/f16_full.csv'),
        ('session30 matmul_f16', H200 + 'session30/call4/gpu0/f16_full.csv.xz'),
        ('session29 matmul_q4k 512', H200 + 'session29/call4/q4k512_full.csv'),
        ('session30 matmul_q4k 512', H200 + 'session30/call4/gpu0/q4k512_full.csv.xz')]

for tag, path in ROWS:
    f = lzma.open(path, 'rt') if path.endswith('.xz') else open(path)
    rows = [r for r in csv.DictReader(f) if r['phase'] == 'search' and r['median_ns']]
    warm = [float(r['warmup_ms']) for r in rows]
    valid = [float(r['validation_ms']) for r in rows]
    rewarmed = [i for i, w in enumerate(warm) if w >= 900]
    over = [i for i, v in enumerate(valid) if v > 200]
    print(f'{tag}: {len(rows)} measured; warm-up median {statistics.median(warm):.0f} ms; validation median '
          f'{statistics.median(valid):.0f} ms; re-warmed {len(rewarmed)} ({sum(warm[i] for i in rewarmed) / 1000:.0f} s); '
          f'validation over 200 ms: {len(over)}, of them re-warmed {sum(1 for i in over if warm[i] >= 900)}; '
          f're-warmed with validation of 200 ms or less: {sum(1 for i in rewarmed if valid[i] <= 200)}')
