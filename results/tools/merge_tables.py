#!/usr/bin/env python3
"""Merge vktune JSON tables (results/TABLE_FORMAT.md) from several physical
GPUs of one model into one table, newest first.

vktune keys a device by its UUID, so each physical GPU a tuning run lands on
is its own device and `vktune import` keeps all their winners side by side.
The runtime library prefers the same physical GPU, then any GPU of the same
model, so on an eleventh GPU a table that mixes an old winner with a re-tuned
one of the same kernel, shape and cache mode may serve the old one. This
script keeps, per (vendor id, device id, kernel, shape, cache mode), the
winner of the newest table that has one (tables are given oldest first), and
only the devices and (version 2) SPIR-V modules those winners refer to. A
version-2 entry_hash covers neither the device's row id nor the winner's
reference to it, so merged entries keep their hashes. All inputs must have
one format version.

usage: merge_tables.py OUT.json OLDEST.json [NEWER.json ...]
"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    out_path, inputs = argv[1], argv[2:]
    devices = []  # merged device records, without "id"
    chosen = {}   # key -> (winner, device index)
    base = None
    modules = {}  # version 2: SPIR-V by hash
    for path in inputs:
        with open(path) as f:
            table = json.load(f)
        if table.get("format") != "vktune-table":
            sys.stderr.write(f"{path}: not a vktune table (format {table.get('format')!r})\n")
            return 1
        base = base or table
        if table.get("version") != base.get("version"):
            sys.stderr.write(f"{path}: version {table.get('version')} differs from the first table's "
                             f"{base.get('version')}: export them with one vktune\n")
            return 1
        modules.update(table.get("spirv", {}))
        by_id = {d["id"]: d for d in table["devices"]}
        for w in table["winners"]:
            d = by_id[w["device"]]
            record = {k: v for k, v in d.items() if k != "id"}
            if record not in devices:
                devices.append(record)
            key = (d["vendor_id"], d["device_id"], w["kernel"], w["shape"], w["cache_mode"])
            chosen[key] = (w, devices.index(record))
    used = sorted({i for _, i in chosen.values()})
    new_id = {old: n + 1 for n, old in enumerate(used)}
    out = {k: v for k, v in base.items() if k not in ("devices", "winners", "spirv")}
    out["devices"] = [dict(devices[i], id=new_id[i]) for i in used]
    out["winners"] = []
    for key in sorted(chosen, key=lambda k: (k[2], k[3], k[4])):
        w, i = chosen[key]
        out["winners"].append(dict(w, device=new_id[i]))
    if "spirv" in base:
        used_modules = {s["spirv_hash"] for w in out["winners"] for s in w["contract"]["stages"]}
        out["spirv"] = {h: modules[h] for h in sorted(used_modules)}
    with open(out_path, "w") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"{out_path}: {len(out['winners'])} winners from {len(out['devices'])} devices")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
