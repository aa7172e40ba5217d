"""Writes one line per winner of exported tables: label, kernel, shape, median us, config.

Usage: winners_summary.py OUT LABEL=TABLE.json...  (run on the device machine by this folder's scripts)
"""
import json
import sys

with open(sys.argv[1], "w") as out:
    out.write("# label, kernel, shape, median us (the cache mode its script tuned with), config\n")
    for arg in sys.argv[2:]:
        label, path = arg.split("=", 1)
        for w in json.load(open(path))["winners"]:
            out.write(f"{label} {w['kernel']} {w['shape']} {w['median_ns'] / 1000:.2f} "
                      f"{json.dumps(w['config'], sort_keys=True)}\n")
