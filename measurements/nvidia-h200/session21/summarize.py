#!/usr/bin/env python3
"""Summarizes run_acceptance.sh's output folder: per kernel and shape, the
full space's tune against the pruned space's, from their --json reports and
the wall times the script wrote. Usage: summarize.py FOLDER"""
import collections, glob, json, os, sys

folder = sys.argv[1]
walls = {}
for line in open(os.path.join(folder, "walls.txt")):
    parts = line.split()
    walls[parts[0]] = (int(parts[2]), float(parts[4]) if len(parts) > 4 and parts[4] != "s" else None)

rows = collections.defaultdict(dict)
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    tag = os.path.basename(path)[:-5]
    space = tag.rsplit("_", 1)[1]
    report = json.load(open(path))
    for s in report["shapes"]:
        key = (s["kernel"], s["shape"])
        statuses = collections.Counter(o["status"] for o in s["outcomes"])
        rows[key][space] = {
            "winner_us": s["winner"]["median_ns"] / 1e3 if s.get("winner") else None,
            "evaluated": s["evaluated"],
            "valid": s["space_valid"],
            "per_s": s["variants_per_second"],
            "search_s": s["search_seconds"],
            "failed": {k: v for k, v in statuses.items() if k != "ok"},
            "wall": walls.get(tag, (None, None))[1],
            "exit": walls.get(tag, (None, None))[0],
            "hits": s["time_spent"].get("pipeline_cache_hits"),
        }

print("| kernel shape | full: valid, evaluated, /s, wall s, exit | full µs | pruned µs | full vs pruned | failures (full) | cache hit median ms |")
print("|---|---|---:|---:|---:|---|---:|")
for (kernel, shape), r in sorted(rows.items()):
    f, p = r.get("full"), r.get("pruned")
    if not f or not p:
        continue
    ratio = f["winner_us"] / p["winner_us"] - 1 if f["winner_us"] and p["winner_us"] else float("nan")
    hits = f["hits"]["median_ms"] if f["hits"] else float("nan")
    print(f"| {kernel} {shape} | {f['valid']}, {f['evaluated']}, {f['per_s']:.1f}, {f['wall']}, {f['exit']} | "
          f"{f['winner_us']:.2f} | {p['winner_us']:.2f} | {ratio:+.1%} | {f['failed'] or '-'} | {hits:.2f} |")
