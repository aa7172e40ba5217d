#!/usr/bin/env python3
# One line per tune of a session folder's calls, from its --json report:
# tag, evaluated, failed, variants/s, winner us, search wall s, compile-wait s,
# proposal s, deferred (spilling) / of them not measured.
# Usage: python3 summary.py measurements/nvidia-h200/session31
import glob, json, lzma, sys

root = sys.argv[1].rstrip('/')
for p in sorted(glob.glob(root + '/call*/*.json.xz')):
    s = json.load(lzma.open(p, 'rt'))['shapes'][0]
    spent = s.get('time_spent', {}).get('search', {})
    winner = s.get('winner') or {}
    tag = p[len(root) + 1:-len('.json.xz')]
    print(f"{tag:24s} {s['evaluated']:5} {s['failures']:4} {s['variants_per_second']:6.2f} "
          f"{winner.get('median_ns', 0) / 1000:8.2f} {s['search_seconds']:6.1f} "
          f"{spent.get('compile_wait_seconds', 0):6.1f} {spent.get('proposal_seconds', 0):6.1f} "
          f"{s.get('deferred_spilling')}/{s.get('deferred_not_measured')}")
