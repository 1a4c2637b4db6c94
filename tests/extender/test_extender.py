#!/usr/bin/env python3
"""A scheduler extender for csched's tests and demo (Python stdlib only; not part of the product).

Speaks the k8s.io/kube-scheduler/extender/v1 wire format on POST <prefix>/<verb>, where the path's
first segment chooses the behaviour, so one process serves every extender a test configures:

    http://127.0.0.1:PORT/<mode>[;<mode>...]/<verb>

modes (combine with ';'):
    all               filter: keep every node
    keep:KEY=VAL      filter: keep nodes labelled KEY=VAL; the others go to FailedNodes with
                      "node(s) didn't have label KEY=VAL"
    unres:KEY=VAL     the same, but the others go to FailedAndUnresolvableNodes
    lucky             filter: keep each node with probability 1/2 ("lucky" demo extender)
    prio:KEY          prioritize: score = the node's KEY label as an integer (0..10), else 0
    bind              bind: POST a v1 Binding to the apiserver (--kubeconfig's server and token)
    sleep:SECONDS     answer after SECONDS (past an httpTimeout)
    500               answer HTTP 500
    malformed         answer 200 with invalid JSON
    error:MSG         answer with Error MSG (filter and bind results)
    (preempt)         answer every candidate as it came (its victims' UIDs, NumPDBViolations), or
                      with keep:KEY=VAL only those on nodes labelled KEY=VAL
    novictims         preempt: answer each candidate node with no victims
    baduid            preempt: answer each candidate node with a victim UID no pod has

Nodes: a request with NodeNames (nodeCacheCapable) is answered with NodeNames, and the labels are
read from the apiserver; a request with Nodes (a v1.NodeList) is answered with Nodes.

Preempt: a request with NodeNameToMetaVictims (nodeCacheCapable) or NodeNameToVictims (whole pods)
is answered with NodeNameToMetaVictims; node labels come from the apiserver (--kubeconfig).

Every request is appended to --log as one JSON line {"mode", "verb", "pod", "nodes", "nodeNames"}
(nodeNames: whether the request carried NodeNames, or for preempt NodeNameToMetaVictims; preempt
adds "victims": node -> victim UIDs, "whole": whether the victims came as whole pods, and
"victimNodeNames": their spec.nodeName), so tests can check which extender saw what.

TLS: --tls-cert/--tls-key serve HTTPS; --client-ca requires a client certificate signed by it.
"""
import argparse
import json
import random
import re
import ssl
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOG_LOCK = threading.Lock()


def kubeconfig(path):
    """server, token and CA file of the current (token) context of the harness's kubeconfig."""
    text = open(path).read()
    server = re.search(r"server:\s*(\S+)", text).group(1)
    token = re.search(r"token:\s*(\S+)", text).group(1)
    ca = re.search(r"certificate-authority:\s*(\S+)", text)
    return server, token, ca.group(1) if ca else None


def api(method, path, body=None):
    server, token, ca = kubeconfig(ARGS.kubeconfig)
    ctx = ssl.create_default_context(cafile=ca) if ca else ssl._create_unverified_context()
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(server + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
        return json.loads(r.read() or b"null")


def labels_of(args):
    """name -> labels of the nodes in the request (from the NodeList, or the apiserver)."""
    if args.get("Nodes"):
        return [(n["metadata"]["name"], n["metadata"].get("labels", {})) for n in args["Nodes"].get("items") or []]
    names = args.get("NodeNames") or []
    if not ARGS.kubeconfig:
        return [(n, {}) for n in names]
    all_nodes = {n["metadata"]["name"]: n["metadata"].get("labels", {}) for n in api("GET", "/api/v1/nodes")["items"]}
    return [(n, all_nodes.get(n, {})) for n in names]


def filter_nodes(modes, args):
    kept, failed, unres = [], {}, {}
    for name, labels in labels_of(args):
        ok, why, hard = True, None, False
        for m in modes:
            if m.startswith("keep:") or m.startswith("unres:"):
                k, v = m.split(":", 1)[1].split("=", 1)
                if labels.get(k) != v:
                    ok, why, hard = False, "node(s) didn't have label %s=%s" % (k, v), m.startswith("unres:")
            elif m == "lucky" and random.random() < 0.5:
                ok, why = False, "pod is unlucky"
        if ok:
            kept.append(name)
        elif hard:
            unres[name] = why
        else:
            failed[name] = why
    result = {"FailedNodes": failed, "FailedAndUnresolvableNodes": unres, "Error": ""}
    if args.get("NodeNames") is not None:
        result["NodeNames"] = kept
        result["Nodes"] = None
    else:
        items = [n for n in (args.get("Nodes") or {}).get("items") or [] if n["metadata"]["name"] in kept]
        result["Nodes"] = {"metadata": {}, "items": items}
        result["NodeNames"] = None
    return result


def prioritize(modes, args):
    key = next((m.split(":", 1)[1] for m in modes if m.startswith("prio:")), None)
    out = []
    for name, labels in labels_of(args):
        try:
            score = max(0, min(10, int(labels.get(key, "0")))) if key else 0
        except ValueError:
            score = 0
        out.append({"Host": name, "Score": score})
    return out


def candidates(args):
    """node -> (victim UIDs, NumPDBViolations) of an ExtenderPreemptionArgs, from either map."""
    meta, whole = args.get("NodeNameToMetaVictims"), args.get("NodeNameToVictims")
    out = {}
    for node, v in (meta if meta is not None else whole or {}).items():
        v = v or {}
        uids = [(p or {}).get("UID") if meta is not None else ((p or {}).get("metadata") or {}).get("uid")
                for p in v.get("Pods") or []]
        out[node] = (uids, v.get("NumPDBViolations", 0))
    return out


def preempt(modes, args):
    cands = candidates(args)
    keep = [m.split(":", 1)[1].split("=", 1) for m in modes if m.startswith("keep:")]
    if keep and ARGS.kubeconfig:
        labels = {n["metadata"]["name"]: n["metadata"].get("labels", {}) for n in api("GET", "/api/v1/nodes")["items"]}
        cands = {n: c for n, c in cands.items() if all(labels.get(n, {}).get(k) == v for k, v in keep)}
    result = {}
    for node, (uids, pdb) in cands.items():
        if "novictims" in modes:
            uids = []
        elif "baduid" in modes:
            uids = ["bad-uid"]
        result[node] = {"Pods": [{"UID": u} for u in uids], "NumPDBViolations": pdb}
    return {"NodeNameToMetaVictims": result}


def bind(args):
    body = {"apiVersion": "v1", "kind": "Binding",
            "metadata": {"name": args["PodName"], "namespace": args["PodNamespace"], "uid": args["PodUID"]},
            "target": {"apiVersion": "v1", "kind": "Node", "name": args["Node"]}}
    try:
        api("POST", "/api/v1/namespaces/%s/pods/%s/binding" % (args["PodNamespace"], args["PodName"]), body)
    except Exception as e:  # the extender's answer carries the failure
        return {"Error": str(e)}
    return {"Error": ""}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as csched's client expects

    def log_message(self, fmt, *a):
        pass

    def answer(self, status, text):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        parts = self.path.strip("/").split("/")
        verb, modes = parts[-1], (parts[0].split(";") if len(parts) > 1 else [])
        modes = [urllib.request.unquote(m) for m in modes]
        n = int(self.headers.get("Content-Length", "0"))
        args = json.loads(self.rfile.read(n) or b"{}")
        pod = args.get("Pod") or {}
        rec = {"mode": ";".join(modes), "verb": verb,
               "pod": (pod.get("metadata") or {}).get("name") or args.get("PodName"),
               "nodes": [x for x, _ in labels_of(args)] if verb in ("filter", "prioritize") else [args.get("Node")],
               "nodeNames": args.get("NodeNames") is not None}
        if "NodeNameToVictims" in args or "NodeNameToMetaVictims" in args:
            cands = candidates(args)
            rec.update(nodes=sorted(cands), nodeNames=args.get("NodeNameToMetaVictims") is not None,
                       victims={n: c[0] for n, c in cands.items()},
                       whole=args.get("NodeNameToVictims") is not None,
                       victimNodeNames=[((p or {}).get("spec") or {}).get("nodeName")
                                        for v in (args.get("NodeNameToVictims") or {}).values()
                                        for p in (v or {}).get("Pods") or []])
        if ARGS.log:
            with LOG_LOCK, open(ARGS.log, "a") as f:
                f.write(json.dumps(rec) + "\n")
        for m in modes:
            if m.startswith("sleep:"):
                time.sleep(float(m.split(":", 1)[1]))
        if "500" in modes:
            return self.answer(500, "internal error")
        if "malformed" in modes:
            return self.answer(200, "{not json")
        err = next((m.split(":", 1)[1] for m in modes if m.startswith("error:")), None)
        if err is not None and verb in ("filter", "bind"):
            return self.answer(200, json.dumps({"Error": err}))
        if verb == "filter":
            return self.answer(200, json.dumps(filter_nodes(modes, args)))
        if verb == "prioritize":
            return self.answer(200, json.dumps(prioritize(modes, args)))
        if verb == "bind":
            return self.answer(200, json.dumps(bind(args)))
        if verb == "preempt":
            return self.answer(200, json.dumps(preempt(modes, args)))
        return self.answer(404, "unknown verb")


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=0, help="0: any; the port is printed on stdout")
    p.add_argument("--kubeconfig", help="for bind and nodeCacheCapable label lookups: its first server, bearer "
                   "token and certificate-authority file are used (no client certificates, no exec plugins)")
    p.add_argument("--log", help="append one JSON line per request")
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--client-ca", help="require a client certificate signed by this CA")
    ARGS = p.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    if ARGS.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ARGS.tls_cert, ARGS.tls_key)
        if ARGS.client_ca:
            ctx.load_verify_locations(ARGS.client_ca)
            ctx.verify_mode = ssl.CERT_REQUIRED
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
