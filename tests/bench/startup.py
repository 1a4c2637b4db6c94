#!/usr/bin/env python3
"""The start-up benchmark of issue 20 (a workload of `kind: startup`): how long a scheduler takes,
from its start, to bind its first pod and all its pending pods on a large cluster, and how long a
leader-elected csched pair takes to fail over after a kill -9 of the leader.

One control plane (tests/cluster/up, started by tests/bench/run) is populated once and reused by
every run, so the schedulers see the very same cluster:
  1. `nodes` nodes and `boundPods` pods that are already bound (spec.nodeName set, so no scheduler
     binds them, spread round-robin over the nodes), in `boundNamespaces` namespaces;
  2. per round and scheduler: `pendingPods` fresh pods for that scheduler (its schedulerName) in a
     namespace of their own, created while no scheduler runs; then the scheduler starts and a pod
     watch (driver.PodWatch, as the throughput collector reads) times start -> first bind and
     start -> all pending bound; the scheduler's CPU seconds and peak RSS (VmHWM) at that moment
     and the API server's and etcd's CPU seconds over the same interval come from /proc. The
     scheduler is then stopped (SIGTERM) before the next one starts;
  3. failover (`failover:` in the workload): two csched replicas with leader election on the same
     cluster, for each lease setting listed; the leader is the one that binds `warmPods` pods
     while the other is still stopped; the standby starts, and once its caches are synced
     (its log's "informer pods: synced") the leader gets SIGKILL, `pendingPods` pods are created at once,
     and kill -> first bind (by the standby, the only scheduler left) is measured beside the lease
     duration in use.
The results: DIR/startup-<workload>-<scheduler>-r<round>.json and DIR/startup-<workload>-failover-
<k>.json; report.py puts them into results.md.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402  (Api, run_parallel, PodWatch, proc_sample, Workload templates)
from driver import BenchError, log  # noqa: E402


class StartupWatch(driver.PodWatch):
    """driver.PodWatch that also remembers when (time.monotonic()) each namespace saw its first
    and its n-th bound pod: the timestamps are taken by the watch thread as events arrive, not by
    a poll."""

    def __init__(self, api):
        self.first_t = {}  # namespace -> monotonic time of the first pod seen bound
        self.last_t = {}   # namespace -> monotonic time of the latest pod seen bound
        super().__init__(api)

    def _event(self, ev):
        obj = ev.get("object") or {}
        md = obj.get("metadata") or {}
        ns = md.get("namespace", "")
        before = self.count(ns)
        super()._event(ev)
        if self.count(ns) > before:
            now = time.monotonic()
            with self.lock:
                self.first_t.setdefault(ns, now)
                self.last_t[ns] = now


def load_spec(path):
    with open(path) as f:
        spec = yaml.safe_load(f)
    if spec.get("kind") != "startup":
        raise BenchError(f"{path}: not a workload of kind startup")
    for k in ("name", "nodes", "boundPods", "pendingPods"):
        if k not in spec:
            raise BenchError(f"{path}: startup workload without {k}")
    return spec


# ---------------------------------------------------------------- population


def count_objects(api, path):
    """Number of objects of a collection, from a LIST of limit 1 (remainingItemCount)."""
    _, lst = api.request("GET", path + ("&" if "?" in path else "?") + "limit=1")
    md = lst.get("metadata") or {}
    return len(lst.get("items") or []) + int(md.get("remainingItemCount") or 0)


def populate(api, spec, workers):
    """Nodes and bound pods, unless the cluster already holds them (a second run on the same
    cluster reuses them). Returns the seconds spent."""
    t0 = time.monotonic()
    n_nodes, n_bound = int(spec["nodes"]), int(spec["boundPods"])
    n_ns = int(spec.get("boundNamespaces", 10))
    have = count_objects(api, "/api/v1/nodes")
    if have < n_nodes:
        wl = driver.Workload.__new__(driver.Workload)  # only its node and pod templating
        wl.node_seq, wl.scheduler_name = 0, "bench-none"
        op = {"opcode": "createNodes", "count": n_nodes, "template": spec.get("nodeTemplate", "node-default")}
        ts = time.monotonic()
        driver.run_parallel(api, wl.node_items(op), workers)
        log(f"created {n_nodes} nodes in {time.monotonic() - ts:.1f} s")
    for k in range(n_ns):
        api.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": f"startup-bound-{k}"}}, ok=(201, 409))
    # (a LIST with a field selector has no remainingItemCount: count namespace by namespace)
    have = sum(count_objects(api, f"/api/v1/namespaces/startup-bound-{k}/pods") for k in range(n_ns))
    if have < n_bound:
        tmpl = driver.load_template(spec.get("podTemplate", "pod-default"))
        tmpl["metadata"] = {"name": "__NAME__", "namespace": "__NS__"}
        tmpl["spec"]["schedulerName"] = "bench-none"  # bound: no scheduler ever looks at them
        tmpl["spec"]["nodeName"] = "__NODE__"
        text = json.dumps(tmpl)
        items = []
        for k in range(n_bound):
            ns = f"startup-bound-{k % n_ns}"
            body = (text.replace('"__NAME__"', json.dumps(f"bound-{k}")).replace('"__NS__"', json.dumps(ns))
                    .replace('"__NODE__"', json.dumps(f"node-{k % n_nodes}")))
            items.append(("POST", f"/api/v1/namespaces/{ns}/pods", body.encode(), (201, 409)))
        ts = time.monotonic()
        done = driver.Counter()
        stop = threading.Event()

        def progress():
            while not stop.wait(15):
                log(f"bound pods: {done.get()}/{n_bound} created")
        threading.Thread(target=progress, daemon=True).start()
        try:
            driver.run_parallel(api, items, workers, done)
        finally:
            stop.set()
        log(f"created {n_bound} bound pods in {time.monotonic() - ts:.1f} s")
    return time.monotonic() - t0


def settle(servers, quiet=0.25, limit=120.0):
    """Waits (at most limit seconds) until the API server and etcd together use less than `quiet`
    of a CPU over 2 s: after 150,000 creates, or a scheduler's exit, the server is busy for a while
    (watch cache catching up, garbage collection, compaction), and a scheduler started then would
    be timed on that work. Returns the seconds waited."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        c0 = sum(driver.proc_sample(p)[0] for p in servers.values() if driver.proc_sample(p))
        time.sleep(2)
        c1 = sum(driver.proc_sample(p)[0] for p in servers.values() if driver.proc_sample(p))
        if c1 - c0 < 2 * quiet:
            break
    return time.monotonic() - t0


def create_pending(api, spec, ns, sched_name, count, workers):
    api.request("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                               "metadata": {"name": ns}}, ok=(201, 409))
    tmpl = driver.load_template(spec.get("podTemplate", "pod-default"))
    tmpl["metadata"] = {"name": "__NAME__", "namespace": ns}
    tmpl["spec"]["schedulerName"] = sched_name
    text = json.dumps(tmpl)
    items = [("POST", f"/api/v1/namespaces/{ns}/pods",
              text.replace('"__NAME__"', json.dumps(f"pod-{k}")).encode(), (201, 409)) for k in range(count)]
    driver.run_parallel(api, items, workers)


# ---------------------------------------------------------------- one scheduler's start-up


def start(cmd, logpath):
    logf = open(logpath, "w")
    try:
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
    except OSError as ex:
        logf.close()
        raise BenchError(f"cannot start {cmd[0]}: {ex}")
    p.logf = logf
    return p


def stop(p, sig=signal.SIGTERM):
    """Stops and reaps p: (exit status or None, rusage)."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 15
    status = ru = None
    while time.monotonic() < deadline:
        try:
            pid, st, r = os.wait4(p.pid, os.WNOHANG)
        except ChildProcessError:  # already reaped (subprocess reaps dead children it tracks)
            p.logf.close()
            return None, None
        if pid == p.pid:
            status, ru = st, r
            break
        time.sleep(0.05)
    if ru is None:
        os.killpg(p.pid, signal.SIGKILL)
        _, status, ru = os.wait4(p.pid, 0)
    p.returncode = 0  # reaped above; keep Popen from waiting again
    p.logf.close()
    return os.waitstatus_to_exitcode(status), ru


def wait_for(watch, ns, want, deadline, p):
    while watch.count(ns) < want:
        if p is not None and p.poll() is not None:
            raise BenchError(f"the scheduler exited (status {p.returncode}) with {watch.count(ns)}/{want} bound")
        if watch.error:
            raise BenchError(watch.error)
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def one_startup(api, watch, spec, label, sched_name, cmd, ns, logpath, servers, workers):
    want = int(spec["pendingPods"])
    create_pending(api, spec, ns, sched_name, want, workers)
    quiet_s = settle(servers)
    log(f"{label}: {want} pending pods in {ns}; the server settled in {quiet_s:.1f} s; starting {' '.join(cmd)}")
    cpu0 = driver.cpu_snapshot(os.getpid(), servers)
    t_start = time.monotonic()
    p = start(cmd, logpath)
    r = {"namespace": ns, "pending_pods": want, "settle_s": round(quiet_s, 1), "loadavg_at_start": list(os.getloadavg())}
    try:
        ok = wait_for(watch, ns, want, t_start + float(spec.get("timeoutSeconds", 300)), p)
        t_end = time.monotonic()
        sample = driver.proc_sample(p.pid)
        cpu1 = driver.cpu_snapshot(os.getpid(), servers)
        r["complete"] = ok
        r["bound"] = watch.count(ns)
        with watch.lock:
            first, last = watch.first_t.get(ns), watch.last_t.get(ns)
        r["first_bind_s"] = round(first - t_start, 3) if first else None
        r["all_bound_s"] = round(last - t_start, 3) if ok and last else None
        r["observed_s"] = round(t_end - t_start, 3)
        if sample:
            r["cpu_s"], r["rss_kb"], r["peak_rss_kb"] = round(sample[0], 3), sample[1], sample[2]
        r["server_cpu_s"] = {k: round(cpu1[k] - cpu0[k], 3) for k in ("kube-apiserver", "etcd") if k in cpu0 and k in cpu1}
    finally:
        status, ru = stop(p)
    r["exit_status"] = status
    if ru is not None:
        r["total_cpu_s"] = round(ru.ru_utime + ru.ru_stime, 3)
        r["peak_rss_kb"] = max(r.get("peak_rss_kb", 0), ru.ru_maxrss)
    log(f"{label}: first bind {r['first_bind_s']} s, all {r['bound']}/{want} bound {r['all_bound_s']} s, "
        f"CPU {r.get('cpu_s')} s, peak RSS {r['peak_rss_kb'] // 1024} MiB, server CPU {r['server_cpu_s']}")
    return r


# ---------------------------------------------------------------- failover


def wait_log(path, needle, deadline, p):
    while time.monotonic() < deadline:
        try:
            with open(path, errors="replace") as f:
                if needle in f.read():
                    return True
        except OSError:
            pass
        if p.poll() is not None:
            raise BenchError(f"{path}: the process exited (status {p.returncode}) before logging {needle!r}")
        time.sleep(0.1)
    return False


def leader_config(base_cfg, path, lease, name):
    """The csched configuration of base_cfg with leader election on (lease: leaseDuration,
    renewDeadline, retryPeriod as durations) on the Lease kube-system/<name>."""
    with open(base_cfg) as f:
        cfg = yaml.safe_load(f)
    cfg["leaderElection"] = {"leaderElect": True, "resourceNamespace": "kube-system", "resourceName": name,
                             "leaseDuration": lease["leaseDuration"], "renewDeadline": lease["renewDeadline"],
                             "retryPeriod": lease["retryPeriod"]}
    with open(path, "w") as f:
        yaml.safe_dump(cfg, f)


def seconds(d):
    """A duration as the configuration writes it (15s, 500ms, 1m) in seconds."""
    for suffix, mult in (("ms", 0.001), ("s", 1), ("m", 60)):
        if d.endswith(suffix) and d[:-len(suffix)].replace(".", "", 1).isdigit():
            return float(d[:-len(suffix)]) * mult
    raise BenchError(f"failover: duration {d!r} is not of the form 15s, 500ms, 1m")


def one_failover(api, watch, spec, k, lease, sched_name, bin_, base_cfg, out, workers, servers):
    fo = spec["failover"]
    warm, want = int(fo.get("warmPods", 100)), int(fo.get("pendingPods", 100))
    lease_name = f"csched-bench-{k}"
    cfg = os.path.join(out, f"failover-{k}.config.yaml")
    leader_config(base_cfg, cfg, lease, lease_name)
    cmd = [bin_, f"--config={cfg}", "--secure-port=0", "-v=2"]
    deadline = time.monotonic() + float(spec.get("timeoutSeconds", 300))
    r = {"lease": lease, "lease_duration_s": seconds(lease["leaseDuration"]), "lease_name": lease_name}
    run_id = time.strftime("%H%M%S")  # fresh namespaces when the same cluster runs this again
    ns_warm, ns = f"failover-{k}-{run_id}-warm", f"failover-{k}-{run_id}"
    create_pending(api, spec, ns_warm, sched_name, warm, workers)
    settle(servers)
    a = start(cmd, os.path.join(out, f"failover-{k}-a.log"))
    b = None
    try:
        if not wait_for(watch, ns_warm, warm, deadline, a):
            raise BenchError(f"failover {k}: the first replica did not bind {warm} pods")
        log(f"failover {k}: replica a leads; starting the standby")
        t_b = time.monotonic()
        b = start(cmd, os.path.join(out, f"failover-{k}-b.log"))
        # A standby logs no "caches synced" (its scheduling loop waits for the lease); its pod
        # informer, the last by far, logs "synced" at -v=1 and up.
        for inf in ("nodes", "pods"):
            if not wait_log(b.logf.name, f"informer {inf}: synced", deadline, b):
                raise BenchError(f"failover {k}: the standby did not sync its {inf} informer")
        r["standby_synced_s"] = round(time.monotonic() - t_b, 3)
        time.sleep(float(fo.get("settleSeconds", 3)))  # a few renewals seen by the standby
        t_kill = time.monotonic()
        os.killpg(a.pid, signal.SIGKILL)
        create_pending(api, spec, ns, sched_name, want, workers)
        r["pending_created_s"] = round(time.monotonic() - t_kill, 3)
        ok = wait_for(watch, ns, want, deadline, b)
        with watch.lock:
            first, last = watch.first_t.get(ns), watch.last_t.get(ns)
        r["complete"] = ok
        r["kill_to_first_bind_s"] = round(first - t_kill, 3) if first else None
        r["kill_to_all_bound_s"] = round(last - t_kill, 3) if ok and last else None
        r["target_s"] = r["lease_duration_s"] + 2
        log(f"failover {k} (leaseDuration {lease['leaseDuration']}): kill -> first bind by the standby "
            f"{r['kill_to_first_bind_s']} s, all {want} {r['kill_to_all_bound_s']} s")
    finally:
        stop(a, signal.SIGKILL)
        if b is not None:
            r["standby_exit_status"] = stop(b)[0]
    return r


# ---------------------------------------------------------------- main


def run_and_save(r, measure, what, path):
    """One measurement into the result r: measure()'s figures, ok when it completed, its error
    otherwise; r written to path as JSON. Returns r["ok"]."""
    try:
        r.update(measure())
        r["ok"] = bool(r.get("complete"))
    except BenchError as ex:
        r["error"] = str(ex)
        log(f"{what}: {ex}")
    with open(path, "w") as f:
        json.dump(r, f, indent=1)
    return r["ok"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--out", required=True, help="results directory")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--scheduler", action="append", default=[], metavar="LABEL:NAME:CONFIG:BINARY",
                    help="a scheduler to start (csched, upstream), its schedulerName, its configuration")
    ap.add_argument("--first-round", type=int, default=1,
                    help="number of the first round (another run on the same cluster needs fresh namespaces)")
    ap.add_argument("--no-failover", action="store_true")
    ap.add_argument("--extra", default="{}", help="JSON object copied into every result (settings)")
    a = ap.parse_args()
    spec = load_spec(a.workload)
    scheds = []
    for s in a.scheduler:
        parts = s.split(":", 3)
        if len(parts) != 4 or parts[0] not in ("csched", "upstream"):
            ap.error(f"--scheduler {s!r}: LABEL:NAME:CONFIG:BINARY with LABEL csched or upstream")
        scheds.append(parts)
    api = driver.Api(a.kubeconfig)
    servers = driver.server_pids(a.kubeconfig)
    base = {"workload": spec["name"], "workload_file": os.path.relpath(a.workload, driver.HERE), "startup": True,
            "machine": driver.machine_info(), "settings": json.loads(a.extra),
            "nodes": int(spec["nodes"]), "bound_pods": int(spec["boundPods"])}
    populate_s = populate(api, spec, a.workers)
    watch = StartupWatch(api)  # from now: only the pending pods' events matter
    failed = False
    for rnd in range(a.first_round, a.first_round + a.rounds):
        # Odd rounds start csched first, even rounds upstream first: neither always runs in the
        # wake of the other (or of the population).
        for label, name, cfg, bin_ in (scheds if rnd % 2 else scheds[::-1]):
            cmd = [bin_, f"--config={cfg}", "--secure-port=0"] + (["-v=1"] if label == "upstream" else [])
            r = {**base, "scheduler": label, "scheduler_name": name, "round": rnd, "command": cmd,
                 "populate_s": round(populate_s, 1), "ok": False,
                 "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
            failed |= not run_and_save(r, lambda: one_startup(
                api, watch, spec, label, name, cmd, f"startup-{label}-r{rnd}",
                os.path.join(a.out, f"startup-{spec['name']}-{label}-r{rnd}.log"), servers, a.workers),
                f"{label} round {rnd}", os.path.join(a.out, f"startup-{spec['name']}-{label}-r{rnd}.json"))
    csched = next((s for s in scheds if s[0] == "csched"), None)
    if spec.get("failover") and csched and not a.no_failover:
        for k, lease in enumerate(spec["failover"].get("leases") or
                                  [{"leaseDuration": "15s", "renewDeadline": "10s", "retryPeriod": "2s"}]):
            r = {**base, "scheduler": "csched", "failover": True, "ok": False, "lease": lease,
                 "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
            failed |= not run_and_save(r, lambda: one_failover(
                api, watch, spec, k, lease, csched[1], csched[3], csched[2], a.out, a.workers, servers),
                f"failover {k}", os.path.join(a.out, f"startup-{spec['name']}-failover-{k}.json"))
    watch.stop.set()
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as ex:
        log(f"startup: {ex}")
        sys.exit(1)
