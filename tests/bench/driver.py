#!/usr/bin/env python3
"""One benchmark run: a workload (tests/bench/workloads/*.yaml) against one scheduler on a fresh
control plane started by tests/cluster/up.

Flow (modelled on upstream's scheduler_perf):
  1. namespaces, a PriorityClass, a pod watch (from the current resourceVersion);
  2. the setup ops: every op before the first churn op or measured (collectMetrics) createPods:
     nodes and initial pods are created before the scheduler runs;
  3. the scheduler under test starts (its command follows `--`); the driver waits until the
     initial pods are bound;
  4. the remaining ops in order: churn starts in the background, measured pods are created while
     a throughput collector samples every second exactly as upstream's throughputCollector does
     (count of measured pods whose spec.nodeName is set, as seen by the watch; the first sample
     is skipped; an interval without progress is folded into the next one);
  5. the scheduler is stopped; its CPU seconds come from wait4's rusage, checked against
     /proc/PID/stat; its peak RSS is VmHWM, sampled every second and once more right before the
     stop. Not ru_maxrss: Popen's vfork+exec carries this driver's own high-water mark into the
     child's (the kernel keeps the larger of the old and the new image's), so a driver that has
     grown past the scheduler (tens of MB of DRA objects) was reported as the scheduler's peak.
The result is one JSON file (--out).
"""
import argparse
import base64
import copy
import http.client
import json
import math
import os
import queue
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "workloads", "templates")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class BenchError(Exception):
    pass


# ---------------------------------------------------------------- API access


class Api:
    """Minimal Kubernetes REST client: kubeconfig (token or client certificate), one keep-alive
    HTTPS connection per thread."""

    def __init__(self, kubeconfig):
        with open(kubeconfig) as f:
            kc = yaml.safe_load(f)
        ctx_name = kc.get("current-context")
        ctx = next((c["context"] for c in kc.get("contexts", []) if c["name"] == ctx_name),
                   kc["contexts"][0]["context"])
        cluster = next(c["cluster"] for c in kc["clusters"] if c["name"] == ctx["cluster"])
        user = next((u["user"] for u in kc.get("users", []) if u["name"] == ctx.get("user")), {})
        u = urllib.parse.urlparse(cluster["server"])
        self.host, self.port = u.hostname, u.port or 443
        self.tls = u.scheme == "https"
        self.headers = {"Content-Type": "application/json", "Accept": "application/json",
                        "User-Agent": "csched-bench"}
        base = os.path.dirname(os.path.abspath(kubeconfig))
        if user.get("token"):
            self.headers["Authorization"] = "Bearer " + user["token"]
        elif user.get("tokenFile"):
            with open(os.path.join(base, user["tokenFile"])) as f:
                self.headers["Authorization"] = "Bearer " + f.read().strip()
        self.ctx = None
        if self.tls:
            if cluster.get("insecure-skip-tls-verify"):
                self.ctx = ssl._create_unverified_context()
            else:
                self.ctx = ssl.create_default_context()
                if cluster.get("certificate-authority-data"):
                    self.ctx.load_verify_locations(
                        cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
                elif cluster.get("certificate-authority"):
                    self.ctx.load_verify_locations(os.path.join(base, cluster["certificate-authority"]))
                self.ctx.check_hostname = False  # loopback server; the CA pins it
            self._tmp = []
            cert, key = user.get("client-certificate"), user.get("client-key")
            if user.get("client-certificate-data"):
                cert = self._tmpfile(base64.b64decode(user["client-certificate-data"]))
                key = self._tmpfile(base64.b64decode(user["client-key-data"]))
            if cert:
                self.ctx.load_cert_chain(os.path.join(base, cert), os.path.join(base, key))
        self.local = threading.local()

    def _tmpfile(self, data):
        fd, path = tempfile.mkstemp(prefix="bench-kc-")
        os.write(fd, data)
        os.close(fd)
        self._tmp.append(path)
        return path

    def new_conn(self, timeout=60):
        if self.tls:
            return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, ok=(200, 201, 202)):
        """Returns (status, parsed JSON or None). Retries transport errors and 429/5xx."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        for attempt in range(8):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                conn = self.local.conn = self.new_conn()
            try:
                conn.request(method, path, body=body, headers=self.headers)
                resp = conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException) as ex:
                conn.close()
                self.local.conn = None
                if attempt == 7:
                    raise BenchError(f"{method} {path}: {ex}")
                time.sleep(0.05 * (attempt + 1))
                continue
            if resp.status == 429 or resp.status >= 500:
                time.sleep(0.05 * (attempt + 1))
                continue
            if resp.status not in ok:
                msg = data[:300].decode(errors="replace")
                raise BenchError(f"{method} {path}: HTTP {resp.status}: {msg}")
            return resp.status, (json.loads(data) if data else None)
        raise BenchError(f"{method} {path}: server kept failing")


def run_parallel(api, items, workers=16, done=None):
    """items: list of (method, path, body bytes, ok statuses), or ("SEQ", None, [such tuples], None)
    for requests that must run in order (a pod's PVC, PV and the pod). Runs them on `workers`
    threads. done: optional Counter, incremented after each successful item."""
    q = queue.Queue()
    for it in items:
        q.put(it)
    errors = []

    def worker():
        while not errors:
            try:
                method, path, body, ok = q.get_nowait()
            except queue.Empty:
                return
            try:
                if method == "SEQ":  # one object's requests in order (body: their tuples)
                    for m, pth, b, k in body:
                        api.request(m, pth, b, ok=k)
                else:
                    api.request(method, path, body, ok=ok)
                if done:
                    done.add(1)
            except BenchError as ex:
                errors.append(str(ex))

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(workers, len(items)) or 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise BenchError(errors[0])


class Counter:
    def __init__(self):
        self.lock = threading.Lock()  # guards n
        self.n = 0

    def add(self, k):
        with self.lock:
            self.n += k

    def get(self):
        with self.lock:
            return self.n


# ---------------------------------------------------------------- pod watch


class PodWatch:
    """Counts, per namespace, the pods whose spec.nodeName is set (what the throughput collector
    reads). A thread streams a watch of every pod from the resourceVersion of a LIST."""

    def __init__(self, api):
        self.api = api
        self.lock = threading.Lock()  # guards bound, unbound_seen
        self.bound = {}               # namespace -> set of names with spec.nodeName
        self.subscribers = {}         # namespace -> queue.Queue of names newly bound (subscribe)
        self.stop = threading.Event()
        self.error = None
        _, lst = api.request("GET", "/api/v1/pods?limit=1")
        self.rv = lst["metadata"]["resourceVersion"]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def count(self, ns):
        with self.lock:
            return len(self.bound.get(ns, ()))

    def subscribe(self, ns):
        """A queue that receives the name of every pod of ns seen bound from now on."""
        q = queue.Queue()
        with self.lock:
            self.subscribers[ns] = q
        return q

    def _event(self, ev):
        obj = ev.get("object") or {}
        md = obj.get("metadata") or {}
        if md.get("resourceVersion"):
            self.rv = md["resourceVersion"]
        if ev.get("type") not in ("ADDED", "MODIFIED"):
            return
        if (obj.get("spec") or {}).get("nodeName"):
            ns, name = md.get("namespace", ""), md.get("name")
            with self.lock:
                names = self.bound.setdefault(ns, set())
                if name not in names:
                    names.add(name)
                    if ns in self.subscribers:
                        self.subscribers[ns].put(name)

    def _run(self):
        while not self.stop.is_set():
            conn = self.api.new_conn(timeout=120)
            path = (f"/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=600"
                    f"&resourceVersion={self.rv}")
            try:
                conn.request("GET", path, headers=self.api.headers)
                resp = conn.getresponse()
                if resp.status != 200:
                    raise BenchError(f"pod watch: HTTP {resp.status}")
                while not self.stop.is_set():
                    line = resp.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    if ev.get("type") == "ERROR":
                        raise BenchError(f"pod watch: {ev.get('object', {}).get('message')}")
                    self._event(ev)
            except (OSError, http.client.HTTPException, ValueError, BenchError) as ex:
                if self.stop.is_set():
                    return
                log(f"pod watch restarts after: {ex}")
                if "too old" in str(ex) or "410" in str(ex):
                    self.error = f"pod watch lost events: {ex}"
                    return
                time.sleep(0.2)
            finally:
                conn.close()


# ---------------------------------------------------------------- process sampling


def proc_sample(pid):
    """(cpu seconds, VmRSS KiB, VmHWM KiB) of pid from /proc, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        with open(f"/proc/{pid}/status") as f:
            status = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    cpu = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
    rss = hwm = 0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    return cpu, rss, hwm


def server_pids(kubeconfig):
    """{name: pid} of the control plane of the cluster whose kubeconfig this is (tests/cluster/up
    writes DIR/pids/NAME.pid beside DIR/kubeconfig)."""
    out = {}
    d = os.path.join(os.path.dirname(os.path.abspath(kubeconfig)), "pids")
    for name in ("kube-apiserver", "etcd"):
        try:
            with open(os.path.join(d, name + ".pid")) as f:
                out[name] = int(f.read().strip())
        except (OSError, ValueError):
            pass
    return out


def cpu_snapshot(sched_pid, servers):
    """CPU seconds so far of the scheduler, each server process and this driver."""
    snap = {}
    for name, pid in [("scheduler", sched_pid)] + sorted(servers.items()):
        s = proc_sample(pid)
        if s:
            snap[name] = s[0]
    ru = os.times()
    snap["driver"] = ru.user + ru.system
    return snap


class ProcSampler:
    def __init__(self, pid, t0):
        self.pid, self.t0 = pid, t0
        self.samples = []  # [t, cpu_s, rss_kb, hwm_kb]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def sample_now(self):
        s = proc_sample(self.pid)
        if s:
            self.samples.append([round(time.monotonic() - self.t0, 3), *s])
        return s

    def _run(self):
        while not self.stop.wait(1.0):
            self.sample_now()


# ---------------------------------------------------------------- throughput (upstream's algorithm)


class ThroughputCollector:
    """upstream test/integration/scheduler_perf throughputCollector.run + collect."""

    def __init__(self, watch, ns, t0, on_tick=None, created=None):
        self.watch, self.ns, self.t0, self.on_tick, self.created = watch, ns, t0, on_tick, created
        self.samples = []   # pods/s, in time order
        self.timeline = []  # [t, scheduled] every tick (for the plot)
        self.created_timeline = []  # [t, created] every tick: created - scheduled is the backlog
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        last_count = self.watch.count(self.ns)
        last_time = time.monotonic()
        started, skipped = False, 0
        next_tick = time.monotonic() + 1.0
        while not self.stop.wait(max(0.0, next_tick - time.monotonic())):
            next_tick += 1.0
            now = time.monotonic()
            scheduled = self.watch.count(self.ns)
            self.timeline.append([round(now - self.t0, 3), scheduled])
            if self.created:
                self.created_timeline.append([round(now - self.t0, 3), self.created.get()])
            if self.on_tick:
                self.on_tick()
            if scheduled == 0:
                continue
            if not started:  # the first sample is an outlier: creation and sampling start apart
                started = True
                last_count, last_time = scheduled, now
                continue
            new = scheduled - last_count
            if new == 0:
                skipped += 1
                continue
            tput = new / (now - last_time)
            self.samples.extend([tput] * (skipped + 1))
            last_count, last_time, skipped = scheduled, now, 0

    def summary(self):
        s = sorted(self.samples)
        n = len(s)
        if n == 0:
            return {"samples": 0}

        def pct(p):
            return s[int(math.ceil(n * p / 100)) - 1]
        return {"samples": n, "average": sum(s) / n, "p50": pct(50), "p90": pct(90), "p95": pct(95),
                "p99": pct(99)}


# ---------------------------------------------------------------- extender workloads

# Histograms read from the scheduler's /metrics around a measured phase of an extender workload
# (summed over their label sets, per the label named here, "" = one total). upstream v1.37.2 and
# csched both export the first two; csched_extender_duration_seconds is csched's own (the
# scheduler's side of each extender call: JSON building, HTTP round trip, decoding).
CYCLE_METRICS = {"scheduler_scheduling_algorithm_duration_seconds": "",
                 "scheduler_scheduling_attempt_duration_seconds": "",
                 "csched_extender_duration_seconds": "verb"}
_PROM_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)')
_PROM_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def http_get(url, timeout=10):
    """GET url (http, or https without certificate checks: a loopback scheduler's self-signed
    serving certificate); returns the body as text."""
    u = urllib.parse.urlparse(url)
    if u.scheme == "https":
        conn = http.client.HTTPSConnection(u.hostname, u.port, context=ssl._create_unverified_context(),
                                           timeout=timeout)
    else:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        conn.request("GET", u.path or "/")
        resp = conn.getresponse()
        body = resp.read().decode(errors="replace")
        if resp.status != 200:
            raise BenchError(f"GET {url}: HTTP {resp.status}: {body[:200]}")
        return body
    except (OSError, http.client.HTTPException) as ex:
        raise BenchError(f"GET {url}: {ex}")
    finally:
        conn.close()


def scrape_cycle_metrics(url):
    """{metric: {label value or "": {"sum": s, "count": n}}} of CYCLE_METRICS from a Prometheus
    text page."""
    out = {}
    for line in http_get(url).splitlines():
        m = _PROM_LINE.match(line)
        if not m:
            continue
        name, labels, value = m.groups()
        for suffix in ("_sum", "_count"):
            base = name[:-len(suffix)]
            if name.endswith(suffix) and base in CYCLE_METRICS:
                key = CYCLE_METRICS[base]
                lv = dict(_PROM_LABEL.findall(labels or "")).get(key, "") if key else ""
                d = out.setdefault(base, {}).setdefault(lv, {"sum": 0.0, "count": 0.0})
                d[suffix[1:]] += float(value)
    return out


def diff_nested(after, before):
    """after - before, leaf by leaf (numbers), for the keys of after."""
    if isinstance(after, dict):
        return {k: diff_nested(v, (before or {}).get(k) if isinstance(before, dict) else None)
                for k, v in after.items()}
    if isinstance(after, (int, float)) and not isinstance(after, bool):
        return round(after - (before or 0), 6)
    return after


class ExtenderProbe:
    """Readings of the no-op extender's /stats and the scheduler's /metrics at the start and the
    end of a measured phase; a failed reading is recorded as an error, never fails the run."""

    def __init__(self, stats_url, metrics_url):
        self.stats_url, self.metrics_url = stats_url, metrics_url

    def read(self):
        r = {}
        if self.stats_url:
            try:
                r["extender"] = json.loads(http_get(self.stats_url))
            except (BenchError, ValueError) as ex:
                r["extender_error"] = str(ex)
        if self.metrics_url:
            try:
                r["metrics"] = scrape_cycle_metrics(self.metrics_url)
            except BenchError as ex:
                r["metrics_error"] = str(ex)
        return r

    @staticmethod
    def phase(r0, r1):
        """The measured phase's share: counters at the end minus at the start."""
        out = {}
        for k in ("extender", "metrics"):
            if k in r0 and k in r1:
                out[k] = diff_nested(r1[k], r0[k])
        for k in ("extender_error", "metrics_error"):
            if k in r0 or k in r1:
                out[k] = r1.get(k) or r0.get(k)
        return out


# ---------------------------------------------------------------- workload


def load_template(name):
    with open(os.path.join(TEMPLATES, name + ".yaml")) as f:
        return yaml.safe_load(f)


_INDEX_OP = re.compile(r"__INDEX_(DIV|MOD)_([0-9]+)__")


def render(text, k):
    """A template's JSON text for its k-th object: __INDEX__ is k, __INDEX_DIV_<n>__ is k / n and
    __INDEX_MOD_<n>__ is k modulo n (upstream's templates: {{.Index}}, {{DivideInt .Index n}},
    {{Mod .Index n}})."""
    text = _INDEX_OP.sub(lambda m: str(k // int(m.group(2)) if m.group(1) == "DIV" else k % int(m.group(2))), text)
    return text.replace("__INDEX__", str(k))


def expand_devices(devices, n, roots):
    """upstream resourceslice-basic-devices.yaml's {{range $numDevices}}: the one device of the
    template repeated n times, __DEVICE__ being d and __PCIROOT__ d modulo roots."""
    if len(devices) != 1 or roots < 1:
        raise BenchError("ResourceSlice template: numDevices needs exactly one device in spec.devices, numPCIRoots >= 1")
    text = json.dumps(devices[0])
    return [json.loads(text.replace("__DEVICE__", str(d)).replace("__PCIROOT__", str(d % roots))) for d in range(n)]


class Workload:
    def __init__(self, path, scheduler_name):
        with open(path) as f:
            self.spec = yaml.safe_load(f)
        self.name = self.spec["name"]
        self.ops = self.spec["ops"]
        self.scheduler_name = scheduler_name
        self.timeout = float(self.spec.get("timeoutSeconds", 600))
        for i, op in enumerate(self.ops):
            if op.get("opcode") not in ("createNodes", "createPods", "churn", "createNamespaces", "createAny",
                                        "allocResourceClaims"):
                raise BenchError(f"{path}: ops[{i}]: unknown opcode {op.get('opcode')!r}")
            lnps = op.get("labelNodePrepareStrategy")
            if lnps is not None and not (lnps.get("labelKey") and lnps.get("labelValues")):
                raise BenchError(f"{path}: ops[{i}]: labelNodePrepareStrategy needs labelKey and labelValues")
            vt = [op.get(k) for k in ("persistentVolumeTemplate", "persistentVolumeClaimTemplate")]
            if any(vt) and not (all(vt) and op["opcode"] == "createPods"):
                raise BenchError(f"{path}: ops[{i}]: persistentVolumeTemplate and persistentVolumeClaimTemplate "
                                 "go together, on createPods")
            for t in op.get("templates", [op.get("template")] if op.get("template") else []) + [t for t in vt if t]:
                if not os.path.exists(os.path.join(TEMPLATES, t + ".yaml")):
                    raise BenchError(f"{path}: ops[{i}]: no template {t}")
            if op.get("steadyState") and not (op.get("collectMetrics") and float(op.get("durationSeconds", 0)) > 0):
                raise BenchError(f"{path}: ops[{i}]: steadyState needs collectMetrics and durationSeconds > 0")
        self.classes = self.priority_classes(path)
        self.node_seq = 0

    def priority_classes(self, path):
        """{name: value} of the PriorityClasses the ops' pod templates name. A template sets
        spec.priority directly, as upstream's scheduler_perf does (it runs the apiserver without
        the Priority admission plugin); tests/cluster's apiserver runs it, and it accepts a pod
        with spec.priority only when the pod also names a class of that value, so such a template
        must name one (bench-priority-<value>) and the driver creates it."""
        classes = {}
        for i, op in enumerate(self.ops):
            for t in op.get("templates", [op.get("template")] if op.get("template") else []):
                obj = load_template(t)
                spec = obj.get("spec") or {}
                if obj.get("kind") != "Pod" or spec.get("priority") is None:
                    continue
                name, value = spec.get("priorityClassName"), int(spec["priority"])
                if not name:
                    raise BenchError(f"{path}: ops[{i}]: template {t} sets spec.priority without a "
                                     f"priorityClassName (the Priority admission plugin would reject the pod)")
                if classes.get(name, value) != value:
                    raise BenchError(f"{path}: ops[{i}]: template {t}: PriorityClass {name} given values "
                                     f"{classes[name]} and {value}")
                classes[name] = value
        return classes

    def setup_len(self):
        """Number of leading ops run before the scheduler starts."""
        for i, op in enumerate(self.ops):
            if op["opcode"] == "churn" or op.get("collectMetrics"):
                return i
        return len(self.ops)

    def namespace(self, i):
        """The namespace of ops[i] (createPods, createAny): its `namespace`, else bench-<i> (upstream:
        namespace-<opIndex>)."""
        return self.ops[i].get("namespace") or f"bench-{i}"

    def namespaces(self):
        """Every namespace the ops use, in op order: createNamespaces' <prefix>-<k> (upstream's
        createNamespaces op) and each createPods / createAny op's."""
        out = []
        for i, op in enumerate(self.ops):
            if op["opcode"] == "createNamespaces":
                out += [f"{op['prefix']}-{k}" for k in range(int(op["count"]))]
            elif op["opcode"] == "createPods" or (op["opcode"] == "createAny" and
                                                  "{}" in self.ANY_KINDS.get(load_template(op["template"]).get("kind"), "{}")):
                out.append(self.namespace(i))
        return list(dict.fromkeys(out))

    def node_manifests(self, op):
        """The nodes of a createNodes op. `labels` go on every node; `labelNodePrepareStrategy`
        ({labelKey, labelValues}) labels the op's nodes round-robin over labelValues, as upstream's
        LabelNodePrepareStrategy.PreparePatch does (node k of the op gets labelValues[k % len]).
        Nodes are named node-<n> (n counts every op's nodes), or <namePrefix><k> (k: the node's index
        in this op) when the op has a namePrefix: upstream's DRA node template names its nodes
        scheduler-perf-dra-{{.Index}}, which the per-node ResourceSlices name in turn. The
        template's own labels are kept."""
        tmpl = load_template(op.get("template", "node-default"))
        labels = op.get("labels") or {}
        lnps = op.get("labelNodePrepareStrategy")
        out = []
        for k in range(int(op["count"])):
            n = copy.deepcopy(tmpl)
            name = f"{op['namePrefix']}{k}" if op.get("namePrefix") else f"node-{self.node_seq}"
            self.node_seq += 1
            lb = {**((tmpl.get("metadata") or {}).get("labels") or {}), "kubernetes.io/hostname": name, **labels}
            if lnps:
                lb[lnps["labelKey"]] = lnps["labelValues"][k % len(lnps["labelValues"])]
            n["metadata"] = {"name": name, "labels": lb}
            nas = op.get("nodeAllocatableStrategy")
            if nas:
                n.setdefault("status", {}).setdefault("allocatable", {}).update(nas.get("nodeAllocatable") or {})
            out.append(n)
        return out

    @staticmethod
    def csinode(name, nas):
        """upstream NodeAllocatableStrategy.createCSINode: the node's CSINode with one driver per
        csiNodeAllocatable entry (allocatable.count) and the migrated-plugins annotation."""
        return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": name, "annotations": {
                    "storage.alpha.kubernetes.io/migrated-plugins": ",".join(nas.get("migratedPlugins") or [])}},
                "spec": {"drivers": [{"name": d, "nodeID": name, "allocatable": a}
                                     for d, a in (nas.get("csiNodeAllocatable") or {}).items()]}}

    def node_items(self, op):
        """A node's POST, with its CSINode after it when the op has a nodeAllocatableStrategy
        (upstream PrepareNode patches the allocatable, PrepareDependentObjects creates the CSINode)."""
        nas = op.get("nodeAllocatableStrategy")
        items = []
        for n in self.node_manifests(op):
            node = ("POST", "/api/v1/nodes", json.dumps(n).encode(), (201, 409))
            if nas:
                cn = self.csinode(n["metadata"]["name"], nas)
                items.append(("SEQ", None, [node, ("POST", "/apis/storage.k8s.io/v1/csinodes",
                                                   json.dumps(cn).encode(), (201, 409))], None))
            else:
                items.append(node)
        return items

    # createAny kinds: collection path ("{}" is the namespace for namespaced kinds).
    ANY_KINDS = {"Service": "/api/v1/namespaces/{}/services",
                 "ReplicationController": "/api/v1/namespaces/{}/replicationcontrollers",
                 "ReplicaSet": "/apis/apps/v1/namespaces/{}/replicasets",
                 "StatefulSet": "/apis/apps/v1/namespaces/{}/statefulsets",
                 "ResourceClaim": "/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims",
                 "ResourceClaimTemplate": "/apis/resource.k8s.io/v1/namespaces/{}/resourceclaimtemplates",
                 "ResourceSlice": "/apis/resource.k8s.io/v1/resourceslices",
                 "DeviceClass": "/apis/resource.k8s.io/v1/deviceclasses"}

    @staticmethod
    def any_objects(op, ns):
        """A createAny op's objects (upstream createAny: `count` objects, default 1, from a template,
        in ns when the kind is namespaced). The template is rendered per object (render(): __INDEX__
        and friends); a name the template gives is kept, else the object is named
        <kind>-<index> (op's `name` when count is 1). A ResourceSlice's one device is repeated
        numDevices times (upstream's resourceslice-basic-devices.yaml {{range}})."""
        tmpl = load_template(op["template"])
        if tmpl.get("kind") not in Workload.ANY_KINDS:
            raise BenchError(f"createAny: unsupported kind {tmpl.get('kind')}")
        count = int(op.get("count", 1))
        text = json.dumps(tmpl)
        out = []
        for k in range(count):
            obj = json.loads(render(text, k))
            md = obj.setdefault("metadata", {})
            md.pop("generateName", None)
            if not md.get("name") or md["name"] == "placeholder":
                md["name"] = op.get("name") if op.get("name") and count == 1 else f"{obj['kind'].lower()}-{k}"
            if "{}" in Workload.ANY_KINDS[obj["kind"]]:
                md["namespace"] = ns
            if obj["kind"] == "ResourceSlice" and op.get("numDevices") is not None:
                obj["spec"]["devices"] = expand_devices(obj["spec"]["devices"], int(op["numDevices"]),
                                                        int(op.get("numPCIRoots", 2)))
            out.append(obj)
        return out

    @staticmethod
    def any_items(op, ns):
        items = []
        for obj in Workload.any_objects(op, ns):
            path = Workload.ANY_KINDS[obj["kind"]].format(ns)
            items.append(("POST", path, json.dumps(obj).encode(), (201, 409)))
        return items

    def pod_body(self, tmpl_json, ns, name, k=0):
        """Pod k of an op: name, namespace and render()'s placeholders (e.g. the claim of
        pod-with-claim-ref, test-claim-__INDEX_DIV_5__) filled in."""
        return render(tmpl_json.replace('"__NAME__"', json.dumps(name)).replace('"__NS__"', json.dumps(ns)), k).encode()

    def pod_template_json(self, op):
        """The pod template of op as JSON text with "__NAME__" and "__NS__" for name and namespace;
        the template's labels and annotations are kept (affinity and spreading select on them)."""
        tmpl = load_template(op.get("template", "pod-default"))
        md = tmpl.get("metadata") or {}
        tmpl["metadata"] = {"name": "__NAME__", "namespace": "__NS__",
                            **{k: md[k] for k in ("labels", "annotations") if md.get(k)}}
        tmpl["spec"]["schedulerName"] = self.scheduler_name
        return json.dumps(tmpl)

    def pod_items(self, op, ns, prefix="pod"):
        tj = self.pod_template_json(op)
        path = f"/api/v1/namespaces/{ns}/pods"
        if op.get("persistentVolumeTemplate"):
            return [self.pod_with_volume(op, ns, tj, f"{prefix}-{k}", k) for k in range(int(op["count"]))]
        return [("POST", path, self.pod_body(tj, ns, f"{prefix}-{k}", k), (201, 409))
                for k in range(int(op["count"]))]

    def pod_with_volume(self, op, ns, tj, name, k):
        """upstream CreatePodWithPersistentVolume with bindVolume (scheduler_perf runners.go): claim
        pvc-k from the claim template, PV <ns>-vol-k from the PV template (getCustomVolumeFactory:
        AWS EBS volumeID vol-k; a CSI handle is the PV's name), the two bound to each other
        (claimRef / volumeName, phases Bound written through /status, as create resets status), then
        the pod mounting the claim. In that order, as one item: the pod counts as created when all
        four objects exist."""
        pvc = load_template(op["persistentVolumeClaimTemplate"])
        pv = load_template(op["persistentVolumeTemplate"])
        claim, vol = f"pvc-{k}", f"{ns}-vol-{k}"
        pvc.setdefault("metadata", {})
        pvc["metadata"].update({"name": claim, "namespace": ns})
        pvc["spec"]["volumeName"] = vol
        pv["metadata"] = {**(pv.get("metadata") or {}), "name": vol}
        if pv["spec"].get("csi") is not None:
            pv["spec"]["csi"]["volumeHandle"] = vol
        elif pv["spec"].get("awsElasticBlockStore") is not None:
            pv["spec"]["awsElasticBlockStore"]["volumeID"] = f"vol-{k}"
        pv["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim, "apiVersion": "v1"}
        pvc_status = {**pvc, "status": {"phase": "Bound"}}
        pv_status = {**pv, "status": {"phase": "Bound"}}
        pod = json.loads(self.pod_body(tj, ns, name, k))
        pod["spec"]["volumes"] = [{"name": "vol", "persistentVolumeClaim": {"claimName": claim}}]
        pvcs = f"/api/v1/namespaces/{ns}/persistentvolumeclaims"
        return ("SEQ", None, [
            ("POST", pvcs, json.dumps(pvc).encode(), (201, 409)),
            ("PUT", f"{pvcs}/{claim}/status", json.dumps(pvc_status).encode(), (200,)),
            ("POST", "/api/v1/persistentvolumes", json.dumps(pv).encode(), (201, 409)),
            ("PUT", f"/api/v1/persistentvolumes/{vol}/status", json.dumps(pv_status).encode(), (200,)),
            ("POST", f"/api/v1/namespaces/{ns}/pods", json.dumps(pod).encode(), (201, 409))], None)


class Churn:
    """upstream's churn op: mode create (keep creating) or recreate (keep `number` of each)."""

    def __init__(self, api, wl, op, ns):
        self.api, self.wl, self.op, self.ns = api, wl, op, ns
        self.interval = float(op.get("intervalMilliseconds", 500)) / 1000
        self.number = int(op.get("number", 1))
        self.templates = [load_template(t) for t in op["templates"]]
        self.live = [[] for _ in self.templates]  # delete paths, oldest first
        self.created = 0
        self.stop = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _create(self, tmpl, k):
        obj = copy.deepcopy(tmpl)
        kind = obj["kind"]
        if kind == "Node":
            name = f"churn-node-{k}"
            obj["metadata"] = {"name": name, "labels": {"kubernetes.io/hostname": name}}
            self.api.request("POST", "/api/v1/nodes", obj)
            return f"/api/v1/nodes/{name}"
        if kind == "Pod":
            name = f"churn-pod-{k}"
            obj["metadata"] = {"name": name}
            obj["spec"]["schedulerName"] = self.wl.scheduler_name
            self.api.request("POST", f"/api/v1/namespaces/{self.ns}/pods", obj)
            return f"/api/v1/namespaces/{self.ns}/pods/{name}?gracePeriodSeconds=0"
        if kind == "Service":
            name = f"churn-svc-{k}"
            obj["metadata"] = {"name": name}
            self.api.request("POST", f"/api/v1/namespaces/{self.ns}/services", obj)
            return f"/api/v1/namespaces/{self.ns}/services/{name}"
        raise BenchError(f"churn: unsupported kind {kind}")

    def _run(self):
        mode = self.op.get("mode", "create")
        try:
            while not self.stop.is_set():
                for i, tmpl in enumerate(self.templates):
                    if mode == "recreate" and len(self.live[i]) >= self.number:
                        self.api.request("DELETE", self.live[i].pop(0), ok=(200, 202, 404))
                    self.live[i].append(self._create(tmpl, self.created))
                    self.created += 1
                if self.stop.wait(self.interval):
                    break
        except BenchError as ex:
            self.error = str(ex)
            log(f"churn stopped: {ex}")


# ---------------------------------------------------------------- the run


def wait_bound(watch, ns, want, deadline, what, sched=None):
    last_log = time.monotonic()
    while True:
        have = watch.count(ns)
        if have >= want:
            return True
        if sched is not None and sched.poll() is not None:
            raise BenchError(f"{what}: the scheduler exited (status {sched.returncode}) with {have}/{want} bound")
        if watch.error:
            raise BenchError(watch.error)
        now = time.monotonic()
        if now > deadline:
            log(f"{what}: timeout with {have}/{want} pods bound")
            return False
        if now - last_log > 10:
            log(f"{what}: {have}/{want} pods bound")
            last_log = now
        time.sleep(0.05)


def allocate_claims(claims, slices):
    """upstream's allocResourceClaims op (scheduler_perf/dra.go) on the objects: an allocation for
    every claim of `claims` that has none, written into the claim's status in place; returns the
    claims it allocated. Upstream runs its structured allocator per claim over the nodes in random
    order and takes the first that fits; the claims of these workloads are one request of one
    device of a class every device matches, for which that is the first free device of a node:
    here node k % N for the k-th claim (the same utilization, spread evenly instead of at random).
    Claims of another shape are refused."""
    free = []  # per node: [node, driver, pool, [free device names]]
    for sl in sorted(slices, key=lambda x: x["metadata"]["name"]):
        sp = sl["spec"]
        if not sp.get("nodeName"):
            raise BenchError(f"allocResourceClaims: ResourceSlice {sl['metadata']['name']} is not node-local")
        free.append([sp["nodeName"], sp["driver"], sp["pool"]["name"], [d["name"] for d in sp.get("devices", [])]])
    used = set()
    for c in claims:
        for r in (((c.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or []:
            used.add((r["driver"], r["pool"], r["device"]))
    for f in free:
        f[3] = [d for d in f[3] if (f[1], f[2], d) not in used]
    out, k = [], 0
    for c in claims:
        if (c.get("status") or {}).get("allocation"):
            continue
        reqs = c["spec"].get("devices", {}).get("requests") or []
        ex = reqs[0].get("exactly") if len(reqs) == 1 else None
        if not ex or ex.get("selectors") or ex.get("count", 1) != 1 or ex.get("allocationMode", "ExactCount") != "ExactCount" \
                or c["spec"]["devices"].get("constraints"):
            raise BenchError(f"allocResourceClaims: claim {c['metadata']['name']}: only one request of one device "
                             f"without selectors or constraints is supported")
        f = next((free[(k + t) % len(free)] for t in range(len(free)) if free[(k + t) % len(free)][3]), None)
        if f is None:
            raise BenchError(f"allocResourceClaims: could not allocate claim {c['metadata']['name']}: no device left")
        k += 1
        c.setdefault("status", {})["allocation"] = {
            "devices": {"results": [{"request": reqs[0]["name"], "driver": f[1], "pool": f[2], "device": f[3].pop(0)}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [f[0]]}]}]}}
        out.append(c)
    return out


def alloc_resource_claims(api, ns, workers):
    """upstream's allocResourceClaims op against the server: allocate_claims() over the claims of
    ns (every namespace when None) and the ResourceSlices, each allocation written with an
    UpdateStatus. Returns the number of claims allocated."""
    q = f"/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims" if ns else "/apis/resource.k8s.io/v1/resourceclaims"
    _, claims = api.request("GET", q)
    _, slices = api.request("GET", "/apis/resource.k8s.io/v1/resourceslices")
    items = []
    for c in allocate_claims(claims["items"], slices["items"]):
        md = c["metadata"]
        items.append(("PUT", f"/apis/resource.k8s.io/v1/namespaces/{md['namespace']}/resourceclaims/{md['name']}/status",
                      json.dumps(c).encode(), (200,)))
    run_parallel(api, items, workers)
    return len(items)


def machine_info():
    info = {"nproc": os.cpu_count(), "loadavg_at_start": list(os.getloadavg())}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["mem_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return info


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", required=True, help="workload YAML file")
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--scheduler", required=True, help="label of the scheduler under test (csched, upstream, ceiling)")
    ap.add_argument("--scheduler-name", required=True, help="spec.schedulerName of the pods")
    ap.add_argument("--out", required=True, help="result JSON file")
    ap.add_argument("--log", required=True, help="file for the scheduler's output")
    ap.add_argument("--workers", type=int, default=16, help="client threads creating objects")
    ap.add_argument("--extra", default="{}", help="JSON object copied into the result (settings)")
    ap.add_argument("--explain-port", type=int, default=0,
                    help="csched's secure port: during each measured op, explain its pods in a loop "
                         "through /debug/explain (the csched-explain run of tests/bench/run)")
    ap.add_argument("--explain-interval", type=float, default=0.1,
                    help="seconds between two explains of the loop (default 0.1)")
    ap.add_argument("--extender-stats", help="URL of the no-op extender's GET /stats (extender workloads)")
    ap.add_argument("--metrics-url", help="the scheduler's /metrics URL, read around each measured phase")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the scheduler command")
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no scheduler command after --")
    return a, cmd


def create_namespaces(api, wl):
    """Namespaces (createNamespaces ops, one per createPods/createAny op, one for churn) and the
    PriorityClasses the pod templates name (Workload.priority_classes). All are created first, so
    setup and measured ops only add objects."""
    namespaces = wl.namespaces() + ["bench-churn"]
    for ns in namespaces:
        api.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": ns}}, ok=(201, 409))
    for name, value in {"bench-priority-10": 10, **wl.classes}.items():
        api.request("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                     "metadata": {"name": name}, "value": value}, ok=(201, 409))


def run_setup_ops(api, wl, n_setup, workers):
    """The ops before the scheduler starts; returns the (namespace, count) of pods to wait for."""
    setup_waits = []
    for i, op in enumerate(wl.ops[:n_setup]):
        ts = time.monotonic()
        if op["opcode"] == "createNodes":
            run_parallel(api, wl.node_items(op), workers)
            log(f"created {op['count']} nodes in {time.monotonic() - ts:.1f} s")
        elif op["opcode"] == "createNamespaces":
            pass  # created by create_namespaces
        elif op["opcode"] == "createAny":
            items = wl.any_items(op, wl.namespace(i))
            run_parallel(api, items, workers)
            log(f"created {len(items)} {op['template']} in {time.monotonic() - ts:.1f} s")
        elif op["opcode"] == "allocResourceClaims":
            n = alloc_resource_claims(api, op.get("namespace"), workers)
            log(f"allocated {n} ResourceClaims in {time.monotonic() - ts:.1f} s")
        else:
            ns = wl.namespace(i)
            run_parallel(api, wl.pod_items(op, ns), workers)
            log(f"created {op['count']} initial pods in {ns} in {time.monotonic() - ts:.1f} s")
            if not op.get("skipWaitToCompletion"):
                setup_waits.append((ns, int(op["count"])))
    return setup_waits


class ExplainLoop:
    """`csched explain` beside the scheduling loop: one thread asks csched's /debug/explain (secure
    port, the kubeconfig's bearer token, csched's self-signed certificate) for the measured pods,
    the latest created one each time, every `interval` seconds, until stopped. What it shows is
    the throughput of the same workload with and without explains (issue 19: explain never
    disturbs the loop)."""

    def __init__(self, api, port, ns, names, created, interval, lag):
        self.lag = lag
        self.url = f"https://127.0.0.1:{port}/debug/explain?pod="
        self.headers = {"Authorization": api.headers.get("Authorization", "")}
        self.ns, self.names, self.created, self.interval = ns, names, created, interval
        self.ctx = ssl._create_unverified_context()  # csched's in-memory self-signed certificate
        self.ok = self.failed = 0
        self.seconds = 0.0  # wall time spent inside explain requests
        self.last_error = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            # created counts finished POSTs of parallel workers: a pod some places back surely exists
            k = self.created.get() - 1 - self.lag
            if k >= 0:
                name = self.names[min(k, len(self.names) - 1)]
                t = time.monotonic()
                try:
                    req = urllib.request.Request(self.url + urllib.parse.quote(f"{self.ns}/{name}", safe=""),
                                                 headers=self.headers)
                    with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                        r.read()
                    self.ok += 1
                except (OSError, urllib.error.URLError) as ex:  # HTTPError is a URLError
                    self.failed += 1
                    self.last_error = str(ex)
                self.seconds += time.monotonic() - t
            self.stop.wait(self.interval)

    def finish(self, duration_s):
        self.stop.set()
        self.thread.join()
        out = {"explains": self.ok, "failed": self.failed, "per_s": round(self.ok / duration_s, 1) if duration_s else 0,
               "mean_ms": round(1000 * self.seconds / max(1, self.ok + self.failed), 1),
               "interval_s": self.interval}
        if self.last_error:
            out["last_error"] = self.last_error
        return out


class Run:
    """One run's state from the scheduler's start to the result file."""

    def __init__(self, a, cmd, wl, api, watch, result, t0):
        self.a, self.cmd, self.wl, self.api, self.watch, self.result, self.t0 = a, cmd, wl, api, watch, result, t0
        self.hard_deadline = t0 + wl.timeout
        self.servers = server_pids(a.kubeconfig)
        self.churns, self.collectors = [], []
        self.logf = self.sched = self.procs = None
        self.probe = ExtenderProbe(a.extender_stats, a.metrics_url) if (a.extender_stats or a.metrics_url) else None

    def start_scheduler(self):
        self.logf = open(self.a.log, "w")
        log(f"starting {self.a.scheduler}: {' '.join(self.cmd)}")
        self.sched = subprocess.Popen(self.cmd, stdout=self.logf, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, start_new_session=True)
        self.t_start = time.monotonic()
        self.procs = ProcSampler(self.sched.pid, self.t0)

    def wait_initial(self, setup_waits):
        for ns, want in setup_waits:
            if not wait_bound(self.watch, ns, want, self.hard_deadline, f"initial pods in {ns}", self.sched):
                raise BenchError(f"initial pods in {ns} were not all bound before the timeout")
        self.result["initial_pods_bound_s"] = round(time.monotonic() - self.t_start, 3)
        log(f"initial pods bound {self.result['initial_pods_bound_s']} s after the scheduler started")

    def run_op(self, i, op):
        if op["opcode"] == "createNodes":
            run_parallel(self.api, self.wl.node_items(op), self.a.workers)
        elif op["opcode"] == "createNamespaces":
            pass  # created by create_namespaces
        elif op["opcode"] == "createAny":
            run_parallel(self.api, self.wl.any_items(op, self.wl.namespace(i)), self.a.workers)
        elif op["opcode"] == "allocResourceClaims":
            alloc_resource_claims(self.api, op.get("namespace"), self.a.workers)
        elif op["opcode"] == "churn":
            self.churns.append(Churn(self.api, self.wl, op, "bench-churn"))
        elif op.get("collectMetrics"):
            self.measure(self.wl.namespace(i), op)
        else:
            ns = self.wl.namespace(i)
            run_parallel(self.api, self.wl.pod_items(op, ns), self.a.workers)
            if not op.get("skipWaitToCompletion"):
                wait_bound(self.watch, ns, int(op["count"]), self.hard_deadline, f"pods in {ns}", self.sched)

    def measure(self, ns, op):
        """A measured createPods op: pods created while the throughput collector samples. With
        steadyState, upstream's createPodsSteadily: `count` pods are created, then for
        durationSeconds every pod seen bound is deleted and replaced by a new one, so the backlog
        stays at `count`; pod names are never reused, so the watch's count of bound names keeps
        counting scheduled pods."""
        want = int(op["count"])
        steady = bool(op.get("steadyState"))
        items = self.wl.pod_items(op, ns)
        cpu0 = self.procs.sample_now()
        all0 = cpu_snapshot(self.sched.pid, self.servers)
        probe0 = self.probe.read() if self.probe else None
        tm0 = time.monotonic()
        created = Counter()
        bound_q = self.watch.subscribe(ns) if steady else None
        col = ThroughputCollector(self.watch, ns, self.t0, on_tick=None, created=created)
        # run_parallel's order is the items' order, so created pods are a prefix of the names
        explain = (ExplainLoop(self.api, self.a.explain_port, ns, [f"pod-{k}" for k in range(want)], created,
                               self.a.explain_interval, 4 * self.a.workers) if self.a.explain_port else None)
        run_parallel(self.api, items, self.a.workers, created)
        created_s = time.monotonic() - tm0
        log(f"created {want} measured pods in {created_s:.1f} s")
        if steady:
            self.steady_state(ns, op, bound_q, created, tm0 + float(op["durationSeconds"]))
            complete = self.watch.count(ns) > 0  # upstream: at least one pod got scheduled
        else:
            complete = wait_bound(self.watch, ns, want, self.hard_deadline, f"measured pods in {ns}", self.sched)
        col.stop.set()
        col.thread.join()
        tm1 = time.monotonic()
        explained = explain.finish(tm1 - tm0) if explain else None
        cpu1 = self.procs.sample_now()
        all1 = cpu_snapshot(self.sched.pid, self.servers)
        probe1 = self.probe.read() if self.probe else None
        self.collectors.append(col)
        m = {"namespace": ns, "pods": created.get() if steady else want, "bound": self.watch.count(ns),
             "complete": complete, "steady_state": steady,
             "create_s": round(created_s, 3), "duration_s": round(tm1 - tm0, 3),
             "overall_pods_per_s": round(self.watch.count(ns) / (tm1 - tm0), 1),
             "start_t": round(tm0 - self.t0, 3), "end_t": round(tm1 - self.t0, 3),
             "throughput": col.summary(), "throughput_samples": [round(x, 2) for x in col.samples],
             "timeline": col.timeline, "created_timeline": col.created_timeline,
             # bound after the last create: how far the scheduler lagged behind creation
             "tail_s": round(tm1 - tm0 - created_s, 3),
             "max_backlog": max((c - b for (_, b), (_, c) in zip(col.timeline, col.created_timeline)),
                                default=0)}
        if cpu0 and cpu1:
            m["cpu_s"] = round(cpu1[0] - cpu0[0], 3)
        if explained:
            m["explain"] = explained
            log(f"explain loop: {explained}")
        # CPU seconds of every process of the measured phase: what the machine spent on it,
        # which the load of other processes does not change much (unlike wall time).
        m["phase_cpu_s"] = {k: round(all1[k] - all0[k], 3) for k in all1 if k in all0}
        if self.probe:
            m.update(ExtenderProbe.phase(probe0, probe1))
        self.result.setdefault("measured", []).append(m)
        tp = m["throughput"]
        log(f"{self.wl.name}/{self.a.scheduler}: {m['bound']}/{want} bound in {m['duration_s']} s; "
            f"throughput avg {tp.get('average', 0):.1f} p50 {tp.get('p50', 0):.1f} pods/s; "
            f"created in {m['create_s']} s, tail {m['tail_s']} s, max backlog {m['max_backlog']} pods; "
            f"CPU s {m['phase_cpu_s']}")

    def steady_state(self, ns, op, bound_q, created, t_end):
        """Until t_end: delete each pod seen bound (grace period 0, background propagation as
        upstream) and create the next one. Several client threads, so that the driver's own
        round trips do not bound the rate (upstream does it in one goroutine with a faster client)."""
        tj = self.wl.pod_template_json(op)
        path = f"/api/v1/namespaces/{ns}/pods"
        seq = Counter()
        seq.add(int(op["count"]))
        errors = []

        def worker():
            while time.monotonic() < t_end and not errors:
                try:
                    name = bound_q.get(timeout=0.05)
                except queue.Empty:
                    if self.sched.poll() is not None:
                        errors.append(f"the scheduler exited (status {self.sched.returncode})")
                    continue
                with seq.lock:
                    k = seq.n
                    seq.n += 1
                try:
                    self.api.request("DELETE", f"{path}/{name}",
                                     {"gracePeriodSeconds": 0, "propagationPolicy": "Background"}, ok=(200, 202, 404))
                    if time.monotonic() >= t_end:
                        return
                    self.api.request("POST", path, self.wl.pod_body(tj, ns, f"pod-{k}", k), ok=(201,))
                    created.add(1)
                except BenchError as ex:
                    errors.append(str(ex))

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(min(self.a.workers, 8))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise BenchError(f"steady state in {ns}: {errors[0]}")

    def stop_background(self):
        for c in self.churns:
            c.stop.set()
        for c in self.churns:
            c.thread.join()
            if c.error:
                self.result.setdefault("churn_errors", []).append(c.error)
        for col in self.collectors:
            col.stop.set()

    def stop_scheduler(self):
        """SIGTERM (SIGKILL after 15 s) and reap: (exit status, rusage, exited before the stop)."""
        exited_early = self.sched.poll() is not None
        if not exited_early:
            os.killpg(self.sched.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        status = ru = None
        while time.monotonic() < deadline:
            pid, st, r = os.wait4(self.sched.pid, os.WNOHANG)
            if pid == self.sched.pid:
                status, ru = st, r
                break
            time.sleep(0.05)
        if ru is None:
            os.killpg(self.sched.pid, signal.SIGKILL)
            _, status, ru = os.wait4(self.sched.pid, 0)
        self.sched.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
        return status, ru, exited_early

    def finish(self):
        """Stops everything and writes the result file."""
        self.stop_background()
        last = self.procs.sample_now()
        self.procs.stop.set()
        status, ru, exited_early = self.stop_scheduler()
        self.logf.close()
        self.watch.stop.set()
        hwm = max((s[3] for s in self.procs.samples), default=0)
        result = self.result
        result["process"] = {
            "pid": self.sched.pid,
            "exited_before_stop": exited_early,
            "exit_status": os.waitstatus_to_exitcode(status) if status is not None else None,
            "cpu_s": round(ru.ru_utime + ru.ru_stime, 3),
            "user_s": round(ru.ru_utime, 3), "sys_s": round(ru.ru_stime, 3),
            "peak_rss_kb": hwm or ru.ru_maxrss,  # ru_maxrss only when /proc gave nothing
            "peak_rss_kb_sampled": hwm,
            "ru_maxrss_kb": ru.ru_maxrss,  # includes the driver's high-water mark at the spawn
            "cpu_s_sampled": last[0] if last else None,
            "samples": self.procs.samples,
        }
        if exited_early:
            result["ok"] = False
            result.setdefault("error", f"the scheduler exited early (see {self.a.log})")
        result["wall_s"] = round(time.monotonic() - self.t0, 3)
        result["machine"]["loadavg_at_end"] = list(os.getloadavg())
        with open(self.a.out, "w") as f:
            json.dump(result, f, indent=1)
        log(f"wrote {self.a.out}")


def main():
    a, cmd = parse_args()
    wl = Workload(a.workload, a.scheduler_name)
    api = Api(a.kubeconfig)
    result = {"workload": wl.name, "workload_file": os.path.relpath(a.workload, HERE),
              "scheduler": a.scheduler, "scheduler_name": a.scheduler_name, "command": cmd,
              "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine_info(),
              "settings": json.loads(a.extra), "ok": False}
    t0 = time.monotonic()
    create_namespaces(api, wl)
    watch = PodWatch(api)
    n_setup = wl.setup_len()
    setup_waits = run_setup_ops(api, wl, n_setup, a.workers)
    run = Run(a, cmd, wl, api, watch, result, t0)
    run.start_scheduler()
    try:
        run.wait_initial(setup_waits)
        for i, op in enumerate(wl.ops[n_setup:], start=n_setup):
            run.run_op(i, op)
        result["ok"] = all(m["complete"] for m in result.get("measured", []))
    except BenchError as ex:
        result["error"] = str(ex)
        log(f"run failed: {ex}")
    finally:
        run.finish()
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
