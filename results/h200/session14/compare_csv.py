#!/usr/bin/env python3
"""Pairs the configs two `vktune export --format csv` files measured at the
same shape and prints each pair's median times and their ratio (second over
first), grouped by shape and by the value of one parameter.

Usage: compare_csv.py FIRST.csv SECOND.csv PARAMETER
"""
import csv
import json
import statistics
import sys


def medians(path):
    out = {}
    for row in csv.DictReader(open(path)):
        if row["status"] == "ok" and float(row["median_ns"]) > 0:
            out[(row["shape"], row["config"])] = float(row["median_ns"]) / 1e3
    return out


first, second, parameter = medians(sys.argv[1]), medians(sys.argv[2]), sys.argv[3]
groups = {}
for key in sorted(first.keys() & second.keys()):
    value = json.loads(key[1]).get(parameter)
    groups.setdefault((key[0], value), []).append(second[key] / first[key])
for (shape, value), ratios in sorted(groups.items()):
    print(f"{shape} {parameter}={value}: {len(ratios)} configs, second/first median {statistics.median(ratios):.3f}, "
          f"range {min(ratios):.3f}-{max(ratios):.3f}")
