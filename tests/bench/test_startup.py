#!/usr/bin/env python3
"""Unit checks of the start-up benchmark's pieces that need no cluster (ctest: unit/bench_startup):
the workload file's validation, lease durations, the watch's first/last-bind timestamps, and
report.py's start-up section (ratios, failover rows; the start-up results kept out of the
throughput tables). Exits non-zero on the first failed check."""
import json
import os
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import driver  # noqa: E402
import report  # noqa: E402
import startup  # noqa: E402

failures = []
checks = [0]


def check(cond, what):
    checks[0] += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def test_seconds():
    check(startup.seconds("15s") == 15.0, "seconds('15s') == 15")
    check(startup.seconds("500ms") == 0.5, "seconds('500ms') == 0.5")
    check(startup.seconds("1m") == 60.0, "seconds('1m') == 60")
    for bad in ("15", "s", "1h", "-1s"):
        try:
            startup.seconds(bad)
            check(False, f"seconds({bad!r}) refused")
        except driver.BenchError:
            pass


def test_load_spec():
    spec = startup.load_spec(os.path.join(HERE, "workloads", "Startup_15000Nodes_150000Pods.yaml"))
    check(spec["nodes"] == 15000 and spec["boundPods"] == 150000 and spec["pendingPods"] == 1000,
          "the shipped start-up workload: 15000 nodes, 150000 bound, 1000 pending")
    check(spec.get("default") is False, "the start-up workload is not in make bench's default set")
    for lease in spec["failover"]["leases"]:
        startup.seconds(lease["leaseDuration"])  # every lease setting parses
    try:
        startup.load_spec(os.path.join(HERE, "workloads", "Quick_100Nodes.yaml"))
        check(False, "a workload without kind: startup is refused")
    except driver.BenchError as ex:
        check("not a workload of kind startup" in str(ex), "the refusal names the kind")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write("name: x\nkind: startup\nnodes: 1\nboundPods: 1\n")
    try:
        startup.load_spec(f.name)
        check(False, "a start-up workload without pendingPods is refused")
    except driver.BenchError as ex:
        check("pendingPods" in str(ex), "the refusal names pendingPods")
    finally:
        os.unlink(f.name)


def test_watch_timestamps():
    w = startup.StartupWatch.__new__(startup.StartupWatch)  # no server: events fed by hand
    w.first_t, w.last_t, w.lock, w.bound, w.subscribers = {}, {}, threading.Lock(), {}, {}
    w.rv = "1"

    def ev(name, node, typ="MODIFIED"):
        spec = {"nodeName": node} if node else {}
        w._event({"type": typ, "object": {"metadata": {"namespace": "ns", "name": name, "resourceVersion": "2"},
                                          "spec": spec}})
    ev("a", None, "ADDED")
    check("ns" not in w.first_t, "an unbound pod sets no first-bind time")
    ev("a", "n1")
    t1 = w.first_t.get("ns")
    check(t1 is not None and w.count("ns") == 1, "the first bound pod sets the first-bind time")
    ev("a", "n1")  # the same pod again (a later update): not a new bind
    check(w.last_t["ns"] == t1, "a bound pod seen again does not move the last-bind time")
    ev("b", "n2")
    check(w.first_t["ns"] == t1 and w.last_t["ns"] >= t1 and w.count("ns") == 2,
          "the second bind moves only the last-bind time")


def test_report():
    with tempfile.TemporaryDirectory() as d:
        base = {"workload": "S", "startup": True, "nodes": 10, "bound_pods": 20}
        runs = [dict(base, scheduler="csched", round=1, pending_pods=5, first_bind_s=2.0, all_bound_s=3.0,
                     cpu_s=1.0, peak_rss_kb=2048, server_cpu_s={"kube-apiserver": 4.0}),
                dict(base, scheduler="upstream", round=1, pending_pods=5, first_bind_s=8.0, all_bound_s=6.0,
                     cpu_s=9.0, peak_rss_kb=4096, server_cpu_s={"kube-apiserver": 5.0}),
                dict(base, scheduler="csched", failover=True, lease={"leaseDuration": "15s", "renewDeadline": "10s",
                                                                     "retryPeriod": "2s"},
                     standby_synced_s=4.0, kill_to_first_bind_s=14.5, kill_to_all_bound_s=15.0, target_s=17.0)]
        names = ["startup-S-csched-r1.json", "startup-S-upstream-r1.json", "startup-S-failover-0.json"]
        for name, r in zip(names, runs):
            with open(os.path.join(d, name), "w") as f:
                json.dump(r, f)
        all_runs, _ = report.load(d)
        check(all_runs == {}, "start-up results stay out of the throughput tables")
        text = "\n".join(report.startup_section(*report.load_startup(d)))
        check("| 1 | csched | 2.00 | 3.00 | 1.00 | 2 | 4.00 | 0.25x | 0.50x |" in text,
              "the csched row with first-bind and all-bound ratios to upstream")
        check("| 1 | upstream | 8.00 | 6.00 | 9.00 | 4 | 5.00 |  |  |" in text, "the upstream row")
        check("| 15s / 10s / 2s | 4.00 | 14.50 | 15.00 | < 17.0 |" in text, "the failover row beside its target")


if __name__ == "__main__":
    test_seconds()
    test_load_spec()
    test_watch_timestamps()
    test_report()
    print(f"{checks[0] - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)
