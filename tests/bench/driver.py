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
  5. the scheduler is stopped; its CPU seconds and peak RSS come from wait4's rusage, checked
     against /proc/PID/stat and VmHWM sampled every second.
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
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

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
    """items: list of (method, path, body bytes, ok statuses). Runs them on `workers` threads.
    done: optional Counter, incremented after each successful request."""
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
        self.stop = threading.Event()
        self.error = None
        _, lst = api.request("GET", "/api/v1/pods?limit=1")
        self.rv = lst["metadata"]["resourceVersion"]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def count(self, ns):
        with self.lock:
            return len(self.bound.get(ns, ()))

    def _event(self, ev):
        obj = ev.get("object") or {}
        md = obj.get("metadata") or {}
        if md.get("resourceVersion"):
            self.rv = md["resourceVersion"]
        if ev.get("type") not in ("ADDED", "MODIFIED"):
            return
        if (obj.get("spec") or {}).get("nodeName"):
            with self.lock:
                self.bound.setdefault(md.get("namespace", ""), set()).add(md.get("name"))

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


# ---------------------------------------------------------------- workload


def load_template(name):
    with open(os.path.join(TEMPLATES, name + ".yaml")) as f:
        return yaml.safe_load(f)


class Workload:
    def __init__(self, path, scheduler_name):
        with open(path) as f:
            self.spec = yaml.safe_load(f)
        self.name = self.spec["name"]
        self.ops = self.spec["ops"]
        self.scheduler_name = scheduler_name
        self.timeout = float(self.spec.get("timeoutSeconds", 600))
        for i, op in enumerate(self.ops):
            if op.get("opcode") not in ("createNodes", "createPods", "churn", "createNamespaces", "createAny"):
                raise BenchError(f"{path}: ops[{i}]: unknown opcode {op.get('opcode')!r}")
            lnps = op.get("labelNodePrepareStrategy")
            if lnps is not None and not (lnps.get("labelKey") and lnps.get("labelValues")):
                raise BenchError(f"{path}: ops[{i}]: labelNodePrepareStrategy needs labelKey and labelValues")
            for t in op.get("templates", [op.get("template")] if op.get("template") else []):
                if not os.path.exists(os.path.join(TEMPLATES, t + ".yaml")):
                    raise BenchError(f"{path}: ops[{i}]: no template {t}")
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
            elif op["opcode"] in ("createPods", "createAny"):
                out.append(self.namespace(i))
        return list(dict.fromkeys(out))

    def node_manifests(self, op):
        """The nodes of a createNodes op. `labels` go on every node; `labelNodePrepareStrategy`
        ({labelKey, labelValues}) labels the op's nodes round-robin over labelValues, as upstream's
        LabelNodePrepareStrategy.PreparePatch does (node k of the op gets labelValues[k % len])."""
        tmpl = load_template(op.get("template", "node-default"))
        labels = op.get("labels") or {}
        lnps = op.get("labelNodePrepareStrategy")
        out = []
        for k in range(int(op["count"])):
            n = copy.deepcopy(tmpl)
            name = f"node-{self.node_seq}"
            self.node_seq += 1
            lb = {"kubernetes.io/hostname": name, **labels}
            if lnps:
                lb[lnps["labelKey"]] = lnps["labelValues"][k % len(lnps["labelValues"])]
            n["metadata"] = {"name": name, "labels": lb}
            out.append(n)
        return out

    def node_items(self, op):
        return [("POST", "/api/v1/nodes", json.dumps(n).encode(), (201, 409)) for n in self.node_manifests(op)]

    @staticmethod
    def any_item(op, ns):
        """A createAny op's object (upstream createAny: one object from a template, in ns when the
        kind is namespaced). Kinds: Service, ReplicaSet, StatefulSet, ReplicationController."""
        obj = load_template(op["template"])
        md = obj.setdefault("metadata", {})
        md.pop("generateName", None)
        md["name"] = op.get("name") or f"{obj['kind'].lower()}-0"
        md["namespace"] = ns
        res = {"Service": "/api/v1/namespaces/{}/services",
               "ReplicationController": "/api/v1/namespaces/{}/replicationcontrollers",
               "ReplicaSet": "/apis/apps/v1/namespaces/{}/replicasets",
               "StatefulSet": "/apis/apps/v1/namespaces/{}/statefulsets"}.get(obj["kind"])
        if not res:
            raise BenchError(f"createAny: unsupported kind {obj['kind']}")
        return ("POST", res.format(ns), json.dumps(obj).encode(), (201, 409))

    def pod_body(self, tmpl_json, ns, name):
        return tmpl_json.replace('"__NAME__"', json.dumps(name)).replace('"__NS__"', json.dumps(ns)).encode()

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
        return [("POST", path, self.pod_body(tj, ns, f"{prefix}-{k}"), (201, 409))
                for k in range(int(op["count"]))]


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
            run_parallel(api, [wl.any_item(op, wl.namespace(i))], 1)
            log(f"created {op['template']} in {wl.namespace(i)}")
        else:
            ns = wl.namespace(i)
            run_parallel(api, wl.pod_items(op, ns), workers)
            log(f"created {op['count']} initial pods in {ns} in {time.monotonic() - ts:.1f} s")
            if not op.get("skipWaitToCompletion"):
                setup_waits.append((ns, int(op["count"])))
    return setup_waits


class Run:
    """One run's state from the scheduler's start to the result file."""

    def __init__(self, a, cmd, wl, api, watch, result, t0):
        self.a, self.cmd, self.wl, self.api, self.watch, self.result, self.t0 = a, cmd, wl, api, watch, result, t0
        self.hard_deadline = t0 + wl.timeout
        self.servers = server_pids(a.kubeconfig)
        self.churns, self.collectors = [], []
        self.logf = self.sched = self.procs = None

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
            run_parallel(self.api, [self.wl.any_item(op, self.wl.namespace(i))], 1)
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
        """A measured createPods op: pods created while the throughput collector samples."""
        want = int(op["count"])
        items = self.wl.pod_items(op, ns)
        cpu0 = self.procs.sample_now()
        all0 = cpu_snapshot(self.sched.pid, self.servers)
        tm0 = time.monotonic()
        created = Counter()
        col = ThroughputCollector(self.watch, ns, self.t0, on_tick=None, created=created)
        run_parallel(self.api, items, self.a.workers, created)
        created_s = time.monotonic() - tm0
        log(f"created {want} measured pods in {created_s:.1f} s")
        complete = wait_bound(self.watch, ns, want, self.hard_deadline, f"measured pods in {ns}", self.sched)
        col.stop.set()
        col.thread.join()
        tm1 = time.monotonic()
        cpu1 = self.procs.sample_now()
        all1 = cpu_snapshot(self.sched.pid, self.servers)
        self.collectors.append(col)
        m = {"namespace": ns, "pods": want, "bound": self.watch.count(ns), "complete": complete,
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
        # CPU seconds of every process of the measured phase: what the machine spent on it,
        # which the load of other processes does not change much (unlike wall time).
        m["phase_cpu_s"] = {k: round(all1[k] - all0[k], 3) for k in all1 if k in all0}
        self.result.setdefault("measured", []).append(m)
        tp = m["throughput"]
        log(f"{self.wl.name}/{self.a.scheduler}: {m['bound']}/{want} bound in {m['duration_s']} s; "
            f"throughput avg {tp.get('average', 0):.1f} p50 {tp.get('p50', 0):.1f} pods/s; "
            f"created in {m['create_s']} s, tail {m['tail_s']} s, max backlog {m['max_backlog']} pods; "
            f"CPU s {m['phase_cpu_s']}")

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
            "peak_rss_kb": max(ru.ru_maxrss, hwm),
            "peak_rss_kb_sampled": hwm,
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
