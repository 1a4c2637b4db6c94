#!/usr/bin/env python3
"""Renders a workload (tests/bench/workloads/*.yaml) as the JSON input of the in-process cycle
benchmark (bench_cycle --workload FILE): the same nodes, namespaces, Services and pod templates the
driver would create, with no API server. Pods of the ops before the first measured createPods are
the initial pods (scheduled and assumed first, not timed); the measured op's pods are timed.

Usage: cycle_spec.py WORKLOAD.yaml OUT.json

Output: {"name", "threshold" (upstream's CI floor or null), "nodes": [manifest JSON text, ...],
"namespaces": [name, ...], "services": [{"namespace", "name", "selector": {k: v}}],
"pods": [{"count", "namespace", "template" (manifest JSON text with "__NAME__" and "__UID__"),
"measured"}]}.
A workload with a churn op, or with `cycle: false`, has no cycle form (exit status 2).
"""
import json
import sys

from driver import BenchError, Workload, load_template


def spec_of(path):
    wl = Workload(path, "csched")
    if wl.spec.get("cycle", True) is False:
        # the workload says its cycle would measure nothing of what it is about
        raise BenchError(f"{path}: cycle: false (no cycle form)")
    out = {"name": wl.name, "threshold": wl.spec.get("threshold"), "nodes": [],
           "namespaces": wl.namespaces(), "services": [], "pods": []}
    measured = False
    for i, op in enumerate(wl.ops):
        code = op["opcode"]
        if code == "createNodes":
            out["nodes"] += [json.dumps(n) for n in wl.node_manifests(op)]
        elif code == "createAny":
            obj = load_template(op["template"])
            if obj["kind"] != "Service":
                raise BenchError(f"{path}: ops[{i}]: the cycle benchmark knows Services only")
            out["services"].append({"namespace": wl.namespace(i), "name": op.get("name") or "service-0",
                                    "selector": (obj.get("spec") or {}).get("selector") or {}})
        elif code == "createPods":
            if measured:
                break  # the cycle times one measured op
            measured = bool(op.get("collectMetrics"))
            ns = wl.namespace(i)
            tmpl = json.loads(wl.pod_template_json(op).replace('"__NS__"', json.dumps(ns)))
            tmpl["metadata"]["uid"] = "__UID__"  # bench_cycle: "uid-<namespace>-<name>" (the cache keys pods by UID)
            tmpl = json.dumps(tmpl)
            out["pods"].append({"count": int(op["count"]), "namespace": ns, "template": tmpl,
                                "measured": measured})
        elif code == "churn":
            raise BenchError(f"{path}: churn has no cycle form")
    if not measured:
        raise BenchError(f"{path}: no measured createPods op")
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        spec = spec_of(sys.argv[1])
    except BenchError as ex:
        print(f"cycle_spec.py: {ex}", file=sys.stderr)
        return 2
    with open(sys.argv[2], "w") as f:
        json.dump(spec, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
