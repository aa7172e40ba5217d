#!/usr/bin/env python3
# The H200 table with each of its winners replaced by the most recently
# measured winner of the same kernel, shape and cache mode in an export
# (`vktune export`, every device of a database): the committed table's keys,
# today's winners. Entries are copied whole (their entry hashes stay valid);
# only the devices and SPIR-V modules the kept winners name are kept.
#   freshest.py TABLE EXPORT OUT
import json
import sys

table_path, export_path, out_path = sys.argv[1:4]
table = json.load(open(table_path))
export = json.load(open(export_path))
keys = {(w["kernel"], w["shape"], w["cache_mode"]) for w in table["winners"]}
latest = {}
for w in export["winners"]:
    key = (w["kernel"], w["shape"], w["cache_mode"])
    if key in keys and (key not in latest or w["updated_at"] > latest[key]["updated_at"]):
        latest[key] = w
missing = keys - latest.keys()
if missing:
    sys.exit(f"the export lacks {len(missing)} of the table's keys: {sorted(missing)[:5]}")
winners = [latest[(w["kernel"], w["shape"], w["cache_mode"])] for w in table["winners"]]
devices = {w["device"] for w in winners}
# Each stage of a winner's contract names its module by "spirv_hash".
modules = {stage["spirv_hash"] for w in winners for stage in w["contract"]["stages"]}
out = dict(export)
out["winners"] = winners
out["devices"] = [d for d in export["devices"] if str(d["id"]) in {str(x) for x in devices}]
out["spirv"] = {h: m for h, m in export["spirv"].items() if h in modules}
json.dump(out, open(out_path, "w"), indent=1, sort_keys=True)
changed = sum(1 for old, new in zip(table["winners"], winners) if old["updated_at"] != new["updated_at"])
print(f"{len(winners)} winners, {changed} replaced by fresher ones, {len(out['devices'])} devices, "
      f"{len(out['spirv'])} modules")
