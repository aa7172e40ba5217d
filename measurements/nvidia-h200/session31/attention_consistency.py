#!/usr/bin/env python3
# How each attention_decode 32,8,128,8192 tune of session 31 measured the configs it shares with
# session 28's exhaustive pruned set (session28/pipelined/call1/attention_pruned_new.csv): the ratio of
# its median to session 28's per config (search rows), and how long its warm-ups took.
# Usage (repository root): python3 measurements/nvidia-h200/session31/attention_consistency.py
import csv, lzma, statistics

M = 'measurements/nvidia-h200/'

def load(path):
    f = lzma.open(path, 'rt') if path.endswith('.xz') else open(path)
    return {r['config']: r for r in csv.DictReader(f)
            if r['status'] == 'ok' and r['median_ns'] and r['phase'] == 'search'}

ref = load(M + 'session28/pipelined/call1/attention_pruned_new.csv')
for name in ['session31/call1/att_pruned.csv.xz', 'session31/call1/att_full.csv.xz',
             'session31/call4/att_pruned.csv.xz', 'session31/call4/att_full.csv.xz']:
    rows = load(M + name)
    ratios = sorted(float(r['median_ns']) / float(ref[c]['median_ns']) for c, r in rows.items() if c in ref)
    long = sorted(float(r['median_ns']) / float(ref[c]['median_ns']) for c, r in rows.items()
                  if c in ref and float(r['warmup_ms']) > 900)
    warm = [float(r['warmup_ms']) for r in rows.values()]
    n = len(ratios)
    print(f"{name}: {n} configs in common; median ratio {statistics.median(ratios):.3f}, p10 {ratios[n // 10]:.3f}, "
          f"p90 {ratios[9 * n // 10]:.3f}; of them warmed up over 900 ms: {len(long)}"
          f"{' (median ratio %.3f)' % statistics.median(long) if long else ''}; warm-up median "
          f"{statistics.median(warm):.0f} ms over its {len(warm)} timed configs, {sum(w > 900 for w in warm)} over 900 ms")
