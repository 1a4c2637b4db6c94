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
DRA (resource.k8s.io/v1) objects: "deviceClasses", "resourceSlices", "resourceClaims": [JSON text,
...]; the claims as createAny makes them, those of an allocResourceClaims op allocated as the
driver allocates them (driver.allocate_claims), each with "__RV__" for its resourceVersion. A pod
op whose template takes a claim from a ResourceClaimTemplate also has "claimTemplate": the claim
the resourceclaim controller would generate for each pod (JSON text with "__NAME__" and
"__UID__", the pod's), and its pod template names that claim in status.resourceClaimStatuses, as
the controller records it. A pod template may hold __INDEX__, __INDEX_DIV_<n>__, __INDEX_MOD_<n>__
(driver.render; bench_cycle fills them with the pod's index in its op). A steadyState op becomes
"steadyState": true with "count" its cycleCount (default 2000): bench_cycle deletes each pod and
its generated claim once it is placed, as the driver and the controller do, so the utilization
stays what the setup made it.
A churn op in mode create with one Pod template becomes "churn": {"template" (as the pods'),
"namespace", "intervalMs"}: bench_cycle creates one such pod every intervalMs of its measured loop.
A workload with any other churn op, or with `cycle: false`, has no cycle form (exit status 2).
"""
import json
import sys

from driver import BenchError, Workload, allocate_claims, load_template

FINALIZER = "resource.kubernetes.io/delete-protection"


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def claim_of_template(tmpl_obj, ns, pod_claim_name):
    """The claim upstream's resourceclaim controller creates for a pod's claim pod_claim_name from
    the ResourceClaimTemplate tmpl_obj (controller.go handleClaim: generateName <pod>-<claim>-,
    the pod-claim-name annotation, the pod as controlling owner, the template's spec)."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"__NAME__-{pod_claim_name}", "namespace": ns, "uid": "claim-__UID__",
                         "resourceVersion": "__RV__",
                         "annotations": {"resource.kubernetes.io/pod-claim-name": pod_claim_name},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "__NAME__", "uid": "__UID__",
                                              "controller": True, "blockOwnerDeletion": True}]},
            "spec": tmpl_obj["spec"]["spec"]}


CHURN_NS = "bench-churn"  # the driver's churn namespace


def churn_of(path, wl, op):
    """A churn op in mode create with one Pod template (PreemptionAsync's preemptors): the pod made
    at each tick, as the driver's Churn makes it (name, schedulerName; namespace bench-churn)."""
    templates = op.get("templates") or []
    if op.get("mode", "create") != "create" or len(templates) != 1 or load_template(templates[0]).get("kind") != "Pod":
        raise BenchError(f"{path}: only a churn op creating one kind of Pod has a cycle form")
    tmpl = load_template(templates[0])
    tmpl["metadata"] = {"name": "__NAME__", "namespace": CHURN_NS, "uid": "__UID__"}
    tmpl["spec"]["schedulerName"] = wl.scheduler_name
    return {"template": json.dumps(tmpl), "namespace": CHURN_NS,
            "intervalMs": int(op.get("intervalMilliseconds", 500))}


def spec_of(path):
    wl = Workload(path, "csched")
    if wl.spec.get("cycle", True) is False:
        # the workload says its cycle would measure nothing of what it is about
        raise BenchError(f"{path}: cycle: false (no cycle form)")
    out = {"name": wl.name, "threshold": wl.spec.get("threshold"), "nodes": [],
           "namespaces": wl.namespaces(), "services": [], "pods": [],
           "deviceClasses": [], "resourceSlices": [], "resourceClaims": []}
    claims, slices, claim_templates = [], [], {}  # claim_templates: (namespace, name) -> object
    measured = False
    for i, op in enumerate(wl.ops):
        code = op["opcode"]
        if code == "createNodes":
            out["nodes"] += [json.dumps(n) for n in wl.node_manifests(op)]
        elif code == "createAny":
            ns = wl.namespace(i)
            for obj in wl.any_objects(op, ns):
                kind, md = obj["kind"], obj["metadata"]
                if kind == "Service":
                    out["services"].append({"namespace": ns, "name": md["name"],
                                            "selector": (obj.get("spec") or {}).get("selector") or {}})
                elif kind == "DeviceClass":
                    out["deviceClasses"].append(compact(obj))
                elif kind == "ResourceSlice":
                    slices.append(obj)
                elif kind == "ResourceClaim":
                    md["uid"] = f"claim-uid-{ns}-{md['name']}"
                    claims.append(obj)
                elif kind == "ResourceClaimTemplate":
                    claim_templates[(ns, md["name"])] = obj
                else:
                    raise BenchError(f"{path}: ops[{i}]: the cycle benchmark does not know {kind}")
        elif code == "allocResourceClaims":
            allocate_claims([c for c in claims if op.get("namespace") in (None, c["metadata"]["namespace"])], slices)
        elif code == "createPods":
            if measured:
                break  # the cycle times one measured op
            measured = bool(op.get("collectMetrics"))
            ns = wl.namespace(i)
            tmpl = json.loads(wl.pod_template_json(op).replace('"__NS__"', json.dumps(ns)))
            tmpl["metadata"]["uid"] = "__UID__"  # bench_cycle: "uid-<namespace>-<name>" (the cache keys pods by UID)
            entry = {"count": int(op.get("cycleCount", 2000)) if op.get("steadyState") else int(op["count"]),
                     "namespace": ns, "measured": measured, "steadyState": bool(op.get("steadyState"))}
            statuses = []
            for rc in (tmpl.get("spec") or {}).get("resourceClaims") or []:
                if not rc.get("resourceClaimTemplateName"):
                    continue
                ct = claim_templates.get((ns, rc["resourceClaimTemplateName"]))
                if ct is None:
                    raise BenchError(f"{path}: ops[{i}]: no ResourceClaimTemplate {ns}/{rc['resourceClaimTemplateName']} before it")
                if "claimTemplate" in entry:
                    raise BenchError(f"{path}: ops[{i}]: the cycle benchmark generates one claim per pod")
                entry["claimTemplate"] = compact(claim_of_template(ct, ns, rc["name"]))
                statuses.append({"name": rc["name"], "resourceClaimName": f"__NAME__-{rc['name']}"})
            if statuses:
                tmpl["status"] = {"resourceClaimStatuses": statuses}
            entry["template"] = json.dumps(tmpl)
            out["pods"].append(entry)
        elif code == "churn":
            out["churn"] = churn_of(path, wl, op)
            out["namespaces"].append(CHURN_NS)
    out["resourceSlices"] = [compact(sl) for sl in slices]
    for c in claims:
        c["metadata"]["resourceVersion"] = "__RV__"
        out["resourceClaims"].append(compact(c))
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
