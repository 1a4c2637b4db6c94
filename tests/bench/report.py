#!/usr/bin/env python3
"""Turns a results directory of tests/bench/run into results.md (Markdown table with csched/upstream
ratios and fractions of the ceiling) and throughput.png (scheduled pods/s over time per workload,
one line per scheduler).

Usage: report.py RESULTS_DIR
"""
import glob
import json
import os
import re
import sys

ORDER = ["csched", "csched-explain", "upstream", "ceiling", "ceiling-pb"]
COLORS = {"csched": "tab:blue", "csched-explain": "tab:cyan", "upstream": "tab:orange", "ceiling": "tab:gray",
          "ceiling-pb": "tab:brown"}
TARGETS = ("Targets (reported, not asserted): SchedulingBasic 5000 nodes >= 2x upstream and >= 90% "
           "of the ceiling; cycle-only >= 20,000 pods/s at 5000 nodes; CPU seconds <= 1/4 and peak "
           "RSS <= 1/5 of upstream. Pod affinity and topology spreading workloads (issue 14): end to "
           "end >= 3x upstream or >= 90% of the ceiling; each workload's cycle >= 10x upstream's CI floor.")


def load(out):
    """runs: {workload: {round: {scheduler: run}}}; a file WORKLOAD-SCHEDULER-rN.json is round N,
    WORKLOAD-SCHEDULER.json (a run of one round) is round 1."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        if re.fullmatch(r"cycle(-\d+)?\.json", os.path.basename(path)):
            continue
        with open(path) as f:
            try:
                r = json.load(f)
            except ValueError:
                continue
        if r.get("startup"):
            continue  # load_startup()
        if "workload" in r and "scheduler" in r:
            m = re.search(r"-r(\d+)\.json$", path)
            rnd = int(m.group(1)) if m else 1
            runs.setdefault(r["workload"], {}).setdefault(rnd, {})[r["scheduler"]] = r
    # cycle-N.json: one per run of bench_cycle (tests/bench/run); cycle.json: a single run (older
    # result directories). The median run by pods/s is reported, with every run's pods/s.
    cycles = []
    for path in glob.glob(os.path.join(out, "cycle-*.json")) or glob.glob(os.path.join(out, "cycle.json")):
        with open(path) as f:
            try:
                cycles.append(json.load(f))
            except ValueError:
                continue
    cycle = None
    if cycles:
        cycles.sort(key=lambda c: c.get("pods_per_s") or 0)
        cycle = dict(cycles[(len(cycles) - 1) // 2])
        cycle["runs_pods_per_s"] = [c.get("pods_per_s") for c in cycles]
    return runs, cycle


def load_wlcycles(out):
    """{workload: median run of wlcycle-WORKLOAD-N.json (bench_cycle --workload), with every run's
    pods/s in runs_pods_per_s}."""
    per = {}
    for path in glob.glob(os.path.join(out, "wlcycle-*.json")):
        with open(path) as f:
            try:
                c = json.load(f)
            except ValueError:
                continue
        if c.get("workload"):
            per.setdefault(c["workload"], []).append(c)
    res = {}
    for w, cs in per.items():
        cs.sort(key=lambda c: c.get("pods_per_s") or 0)
        res[w] = dict(cs[(len(cs) - 1) // 2])
        res[w]["runs_pods_per_s"] = [c.get("pods_per_s") for c in cs]
    return res


def load_startup(out):
    """The start-up workloads' results (tests/bench/startup.py): ({workload: {round: {scheduler:
    run}}}, {workload: [failover runs in lease order]})."""
    runs, failovers = {}, {}
    for path in sorted(glob.glob(os.path.join(out, "startup-*.json"))):
        with open(path) as f:
            try:
                r = json.load(f)
            except ValueError:
                continue
        if not r.get("startup"):
            continue
        if r.get("failover"):
            failovers.setdefault(r["workload"], []).append(r)
        else:
            runs.setdefault(r["workload"], {}).setdefault(r.get("round", 1), {})[r["scheduler"]] = r
    return runs, failovers


def startup_section(runs, failovers):
    """Start-up at scale (issue 20): per round, each scheduler's start -> first bind, start -> all
    pending bound, its CPU seconds and peak RSS then, the API server's CPU seconds meanwhile, and
    csched/upstream ratios; the median round's ratios; the failover runs."""
    lines = []
    for w in sorted(set(runs) | set(failovers)):
        rounds = runs.get(w, {})
        any_run = next((r for per in rounds.values() for r in per.values()), None) or failovers[w][0]
        lines.append(f"## Start-up: {w}\n")
        lines.append(f"{any_run.get('nodes'):,} nodes and {any_run.get('bound_pods'):,} bound pods on one cluster, "
                     f"populated once; per round each scheduler starts (alone) with "
                     f"{next((r.get('pending_pods') for per in rounds.values() for r in per.values()), '-')} "
                     f"fresh pending pods of its own. Times from the scheduler's start; CPU and peak RSS at the "
                     f"moment the last pending pod was seen bound. Targets (issue 20): first bind < 4 s and "
                     f"<= 1/3 of upstream's; all bound < 5 s; kill -9 of the leader -> first bind by the "
                     f"standby < leaseDuration + 2 s.\n")
        if rounds:
            table_head(lines, "| round | scheduler | first bind s | all bound s | CPU s | peak RSS MiB "
                              "| apiserver CPU s | first bind csched/upstream | all bound csched/upstream |")
            for rnd in sorted(rounds):
                per = rounds[rnd]
                c, u = per.get("csched") or {}, per.get("upstream") or {}
                for s in ORDER + sorted(set(per) - set(ORDER)):
                    r = per.get(s)
                    if not r:
                        continue
                    rss = r.get("peak_rss_kb")
                    cells = [fmt(r.get("first_bind_s"), 2), fmt(r.get("all_bound_s"), 2), fmt(r.get("cpu_s"), 2),
                             fmt(rss // 1024 if rss else None),
                             fmt((r.get("server_cpu_s") or {}).get("kube-apiserver"), 2)]
                    if s == "csched":
                        cells += [ratio(c.get("first_bind_s"), u.get("first_bind_s")),
                                  ratio(c.get("all_bound_s"), u.get("all_bound_s"))]
                    else:
                        cells += ["", ""]
                    if r.get("error"):
                        cells[0] = f"error: {r['error']}"
                    lines.append(f"| {rnd} | {s} | " + " | ".join(cells) + " |")
            lines.append("")
            firsts = [div(p.get("csched", {}).get("first_bind_s"), p.get("upstream", {}).get("first_bind_s"))
                      for p in rounds.values()]
            med = {k: median([p.get("csched", {}).get(k) for p in rounds.values()])
                   for k in ("first_bind_s", "all_bound_s", "cpu_s")}
            lines.append(f"csched, median of {len(rounds)} rounds: first bind {fmt(med['first_bind_s'], 2)} s, "
                         f"all bound {fmt(med['all_bound_s'], 2)} s, CPU {fmt(med['cpu_s'], 2)} s; "
                         f"first bind csched/upstream median {fmt(median(firsts), 2)}.\n")
        if failovers.get(w):
            table_head(lines, "| leaseDuration / renewDeadline / retryPeriod | standby synced after s "
                              "| kill -> first bind s | kill -> all bound s | target s |")
            for r in failovers[w]:
                le = r.get("lease") or {}
                first = fmt(r.get("kill_to_first_bind_s"), 2) if not r.get("error") else f"error: {r['error']}"
                lines.append(f"| {le.get('leaseDuration')} / {le.get('renewDeadline')} / {le.get('retryPeriod')} "
                             f"| {fmt(r.get('standby_synced_s'), 2)} | {first} | {fmt(r.get('kill_to_all_bound_s'), 2)} "
                             f"| < {fmt(r.get('target_s'))} |")
            lines.append("")
    return lines


def median(xs):
    xs = sorted(x for x in xs if x is not None)
    return xs[(len(xs) - 1) // 2] if xs else None


def div(a, b):
    return a / b if a is not None and b else None


def round_ratios(per):
    """csched/upstream ratios of one round: average throughput, CPU s, peak RSS (None if absent)."""
    c, u = per.get("csched"), per.get("upstream")
    if not (c and u):
        return None
    return (div(tput(c, "average"), tput(u, "average")),
            div(c.get("process", {}).get("cpu_s"), u.get("process", {}).get("cpu_s")),
            div(c.get("process", {}).get("peak_rss_kb"), u.get("process", {}).get("peak_rss_kb")))


def median_round(rounds):
    """The round whose csched/upstream throughput ratio is the median (the lower middle of an even
    count), else whose csched (or any) average is: its runs stand for the workload in the tables
    and the plot."""
    def key(rnd):
        rr = round_ratios(rounds[rnd])
        if rr and rr[0] is not None:
            return rr[0]
        per = rounds[rnd]
        return tput(per.get("csched") or next(iter(per.values())), "average") or 0
    ordered = sorted(rounds, key=key)
    return ordered[(len(ordered) - 1) // 2]


def tput(r, key):
    m = (r or {}).get("measured") or []
    if not m:
        return None
    return m[0]["throughput"].get(key)


def fmt(v, digits=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return f"{v:,}"


def ratio(a, b):
    if a is None or b in (None, 0):
        return "-"
    return f"{a / b:.2f}x"


def phase_ms_per_pod(r):
    """CPU ms per measured pod of every process of the measured phase (scheduler, kube-apiserver,
    etcd, driver), or None for a run without the accounting."""
    m = ((r or {}).get("measured") or [{}])[0]
    c = m.get("phase_cpu_s")
    if not c or not m.get("bound"):
        return None
    return 1000 * sum(c.values()) / m["bound"]


def machine(runs, cycle):
    for per in runs.values():
        for r in per.values():
            return r.get("machine", {}), r.get("settings", {})
    return (cycle or {}).get("machine", {}), {}


def schedulers(per):
    """The schedulers of one workload's runs, in table order."""
    return [s for s in ORDER + sorted(set(per) - set(ORDER)) if per.get(s)]


def table_head(lines, hdr):
    lines.append(hdr)
    lines.append("|" + "---|" * (hdr.count("|") - 1))


def intro(runs, cycle, n_rounds):
    lines = ["# csched benchmark results\n"]
    mach, settings = machine(runs, cycle)
    if mach:
        lines.append(f"Machine: {mach.get('nproc')} CPUs ({mach.get('cpu', '?')}), "
                     f"{mach.get('mem_gib', '?')} GiB memory. ")
    if settings:
        lines.append(f"Client rate limit for every scheduler: qps {settings.get('qps')}, burst "
                     f"{settings.get('burst')}; percentageOfNodesToScore "
                     f"{settings.get('percentageOfNodesToScore')} (0 = adaptive); leader election off.\n")
    lines.append("Throughput is upstream scheduler_perf's SchedulingThroughput (measured pods whose "
                 "spec.nodeName turns set, seen by a watch, 1 s samples, first sample skipped), "
                 "pods/s. CPU is the scheduler process's user+system seconds over the whole run "
                 "(wait4 rusage); RSS is its peak resident set (VmHWM / ru_maxrss).\n")
    if n_rounds > 1:
        lines.append(f"Each workload ran {n_rounds} rounds (every scheduler once per round, rounds one after "
                     "the other). The tables and the plot show, per workload, the round whose csched/upstream "
                     "throughput ratio is the median; the csched / upstream table gives the median of each "
                     "ratio over the rounds, and the last table every round.\n")
    return lines


def throughput_row(w, s, r, ceil_avg):
    m = (r.get("measured") or [{}])[0]
    p = r.get("process", {})
    avg = tput(r, "average")
    frac = f"{100 * avg / ceil_avg:.0f}%" if avg is not None and ceil_avg else "-"
    bound = f"{m.get('bound', 0)}/{m.get('pods', '?')}" if m else "failed"
    if r.get("error"):
        bound += " (error)"
    return (f"| {w} | {s} | {bound} | {fmt(avg)} | {fmt(tput(r, 'p50'))} | "
            f"{fmt(tput(r, 'p90'))} | {fmt(tput(r, 'p99'))} | {fmt(m.get('overall_pods_per_s'))} | "
            f"{fmt(p.get('cpu_s'), 2)} | {fmt(p.get('peak_rss_kb', 0) / 1024 if p else None)} | {frac} |")


def throughput_table(runs):
    lines = []
    table_head(lines, "| workload | scheduler | bound | avg | p50 | p90 | p99 | overall | CPU s | peak RSS MiB "
                      "| % of ceiling (avg) |")
    for w in sorted(runs):
        ceil_avg = tput(runs[w].get("ceiling"), "average")
        lines += [throughput_row(w, s, runs[w][s], ceil_avg) for s in schedulers(runs[w])]
    lines.append("")
    return lines


def load_row(w, s, r, ceil_ms):
    m = (r.get("measured") or [{}])[0]
    c = m.get("phase_cpu_s") or {}
    n = m.get("bound") or 0
    ms = phase_ms_per_pod(r)
    load = (r.get("machine", {}).get("loadavg_at_start") or [None])[0]
    sched_ms = 1000 * c["scheduler"] / n if n and "scheduler" in c else None
    srv = [c[k] for k in ("kube-apiserver", "etcd") if k in c]
    srv_ms = 1000 * sum(srv) / n if n and srv else None
    frac = f"{100 * ceil_ms / ms:.0f}%" if ms and ceil_ms else "-"
    return (f"| {w} | {s} | {fmt(load)} | {fmt(m.get('create_s'))} | {fmt(m.get('tail_s'))} | "
            f"{fmt(m.get('max_backlog'))} | {fmt(sched_ms, 2)} | {fmt(srv_ms, 2)} | {fmt(ms, 2)} | {frac} |")


def load_table(runs):
    lines = ["## Load, backlog and the machine's CPU per pod\n",
             "Wall-clock throughput on a shared 2-CPU machine moves with the load of other processes, "
             "and while a scheduler keeps up it equals the pod creation rate. These columns tell "
             "the runs apart: the load average at the start; the time from the last create to the "
             "last bind (tail) and the largest created-minus-bound gap (backlog), which stay small "
             "when the scheduler keeps up; and the CPU ms per measured pod of every process of the "
             "measured phase (scheduler, kube-apiserver, etcd, the driver), which does not depend "
             "much on the load: on an otherwise idle machine throughput would be about "
             "CPUs / that. Its ratio to the ceiling's is the last column (higher is better).\n"]
    table_head(lines, "| workload | scheduler | load at start | created in s | tail s | max backlog "
                      "| scheduler CPU ms/pod | kube-apiserver + etcd CPU ms/pod | machine CPU ms/pod "
                      "| % of ceiling (CPU/pod) |")
    for w in sorted(runs):
        ceil_ms = phase_ms_per_pod(runs[w].get("ceiling"))
        lines += [load_row(w, s, runs[w][s], ceil_ms) for s in schedulers(runs[w])]
    lines.append("")
    return lines


def ratio_columns(per):
    """One round's csched/upstream ratios (throughput avg, p50, p90, p99, CPU, RSS) and both
    schedulers' fractions of the ceiling; None when the round lacks either scheduler."""
    c, u, z = per.get("csched"), per.get("upstream"), per.get("ceiling")
    if not (c and u):
        return None
    cz = tput(z, "average")
    row = [div(tput(c, k), tput(u, k)) for k in ("average", "p50", "p90", "p99")]
    row.append(div(overall(c), overall(u)))
    row += list(round_ratios(per)[1:])
    row += [div(tput(r, "average"), cz) for r in (c, u)]
    return row


def overall(r):
    """Measured pods / wall time of the measured phase: the figure of a run too short for 1 s
    samples (e.g. 400 pods bound in about a second)."""
    m = ((r or {}).get("measured") or [None])[0]
    return m.get("overall_pods_per_s") if m else None


def ratio_table(all_runs, n_rounds):
    lines = ["## csched / upstream\n"]
    if n_rounds > 1:
        lines.append("Median over the rounds of each column (rounds per workload in the last table).\n")
    table_head(lines, "| workload | avg | p50 | p90 | p99 | overall | CPU s (lower is better) "
                      "| peak RSS (lower is better) | csched % of ceiling | upstream % of ceiling |")
    for w in sorted(all_runs):
        cols = [row for row in map(ratio_columns, all_runs[w].values()) if row is not None]
        if not cols:
            continue
        med = [median(col) for col in zip(*cols)]
        cells = [f"{x:.2f}x" if x is not None else "-" for x in med[:7]]
        cells += [f"{100 * x:.0f}%" if x is not None else "-" for x in med[7:]]
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def rounds_table(all_runs):
    lines = ["### Every round: csched / upstream\n",
             "| workload | round | avg throughput | CPU s | peak RSS | csched avg | upstream avg | ceiling avg |",
             "|---|---|---|---|---|---|---|---|"]
    for w in sorted(all_runs):
        for rnd in sorted(all_runs[w]):
            per = all_runs[w][rnd]
            rr = round_ratios(per) or (None, None, None)
            cells = [f"{x:.2f}x" if x is not None else "-" for x in rr]
            cells += [fmt(tput(per.get(s), "average")) for s in ("csched", "upstream", "ceiling")]
            lines.append(f"| {w} | {rnd} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def cycle_section(cycle):
    lines = ["## In-process scheduling cycle (no API server)\n",
             f"{cycle.get('nodes')} nodes, {cycle.get('pods')} pods (pod-default template), "
             f"default plugins, parallelism {cycle.get('parallelism')}: "
             f"**{fmt(cycle.get('pods_per_s'))} pods/s**, cycle p50 "
             f"{fmt(cycle.get('p50_us'))} us, p99 {fmt(cycle.get('p99_us'))} us "
             f"(evaluated nodes per pod: {cycle.get('evaluated_nodes')})."]
    rs = cycle.get("runs_pods_per_s") or []
    if len(rs) > 1:
        lines.append(f"The median of {len(rs)} runs, each in a fresh process; all runs, pods/s: "
                     + ", ".join(fmt(x) for x in rs) + ".")
    lines.append("")
    eps = cycle.get("extension_points") or []
    if eps:
        lines += ["| extension point | plugin | us per pod | share |", "|---|---|---|---|"]
        total = sum(e["us_per_pod"] for e in eps) or 1
        lines += [f"| {e['point']} | {e['plugin']} | {e['us_per_pod']:.1f} | "
                  f"{100 * e['us_per_pod'] / total:.0f}% |" for e in eps]
        lines.append("")
    return lines


def wlcycle_section(wlc):
    """Each workload's in-process cycle against upstream's CI floor for it (target: >= 10x)."""
    lines = ["## Each workload's scheduling cycle (no API server)\n",
             "bench_cycle --workload: the workload's nodes, Services and pod templates, its initial pods "
             "scheduled and assumed first (untimed), then its measured pods timed; median of the runs. "
             "The CI floor is upstream's threshold for the workload (end to end on CI machines); "
             "target: the cycle alone >= 10x it.\n"]
    table_head(lines, "| workload | nodes | initial pods | measured pods | pods/s (median) | runs | cycle p50 us "
                      "| p99 us | unschedulable | upstream CI floor | x floor |")
    for w in sorted(wlc):
        c = wlc[w]
        thr = c.get("threshold") or None
        runs = ", ".join(fmt(x, 0) for x in c.get("runs_pods_per_s") or [])
        lines.append(f"| {w} | {c.get('nodes')} | {c.get('init_pods')} | {c.get('pods')} | {fmt(c.get('pods_per_s'))} "
                     f"| {runs} | {fmt(c.get('p50_us'))} | {fmt(c.get('p99_us'))} | {c.get('unschedulable')} "
                     f"| {thr or '-'} | {ratio(c.get('pods_per_s'), thr)} |")
    lines.append("")
    for w in sorted(wlc):
        eps = sorted(wlc[w].get("extension_points") or [], key=lambda e: -e["us_per_pod"])[:6]
        if eps:
            total = sum(e["us_per_pod"] for e in wlc[w]["extension_points"]) or 1
            lines.append(f"{w}, single-threaded breakdown ({wlc[w].get('breakdown_pods')} pods), top rows: "
                         + "; ".join(f"{e['point']} {e['plugin']} {e['us_per_pod']:.1f} us "
                                     f"({100 * e['us_per_pod'] / total:.0f}%)" for e in eps)
                         + f"; all rows {total:.1f} us per pod.\n")
    return lines


def extender_row(w, s, r):
    """One run of an extender workload: calls, server-side and scheduler-side extender time, and
    their share of the scheduling algorithm's time and of the measured phase's wall time; None for a
    run without extender readings (the ceiling, or a workload without an extender)."""
    m = ((r or {}).get("measured") or [{}])[0]
    ext, met = m.get("extender"), m.get("metrics") or {}
    if not ext:
        return None
    n = m.get("bound") or 0
    srv = sum((ext.get(v) or {}).get("seconds", 0) for v in ("filter", "prioritize"))
    calls = "/".join(fmt(int((ext.get(v) or {}).get("requests", 0))) for v in ("filter", "prioritize"))
    algo = (met.get("scheduler_scheduling_algorithm_duration_seconds") or {}).get("", {}).get("sum")
    cext = met.get("csched_extender_duration_seconds")
    client = sum((cext.get(v) or {}).get("sum", 0) for v in ("filter", "prioritize")) if cext else None

    def ms(x):
        return fmt(1000 * x / n, 3) if x is not None and n else "-"

    def pct(a, b):
        return f"{100 * a / b:.0f}%" if a is not None and b else "-"
    return (f"| {w} | {s} | {calls} | {ms(srv)} | {ms(client)} | {ms(algo)} | {pct(srv, algo)} "
            f"| {pct(client, algo)} | {pct(srv, m.get('duration_s'))} |")


def extender_section(runs):
    """The extender workloads (tests/bench/run's `extender: noop`): the extender's share of the
    cycle, for csched and upstream."""
    rows = [row for w in sorted(runs) for s in schedulers(runs[w]) if (row := extender_row(w, s, runs[w][s]))]
    if not rows:
        return []
    lines = ["## HTTP extender: its share of the scheduling cycle\n",
             "Extender workloads: csched and upstream call the same no-op extender (bench_noop_extender: "
             "filter keeps every node, prioritize scores 0; nodeCacheCapable, weight 1); the ceiling has no "
             "extender. Over the measured phase: the extender's calls (filter/prioritize); its server-side "
             "time per pod (from a request's headers to its answer queued: body read, JSON parse, answer "
             "built, summed over both verbs, from its GET /stats); csched's own time per pod in its "
             "extender calls (csched_extender_duration_seconds, filter + prioritize: JSON building, HTTP "
             "round trip, decoding; upstream has no such metric); the scheduling algorithm's time per pod "
             "(scheduler_scheduling_algorithm_duration_seconds, both schedulers: filters, extenders, "
             "scores, selection). Shares: server-side time / algorithm time, csched's call time / "
             "algorithm time, and server-side time / the measured phase's wall time (the scheduling "
             "loop is serial, so this is the fraction of the run the extender spent serving it). "
             "Prioritize runs beside the in-tree scoring in both schedulers, so a share counts time "
             "that may overlap other work.\n"]
    table_head(lines, "| workload | scheduler | calls filter/prioritize | extender server ms/pod "
                      "| scheduler-side extender ms/pod | algorithm ms/pod | server / algorithm "
                      "| scheduler-side / algorithm | server / wall |")
    lines += rows
    lines.append("")
    return lines


def errors_section(runs):
    errors = [(w, s, r["error"]) for w, per in runs.items() for s, r in per.items() if r.get("error")]
    if not errors:
        return []
    return ["## Errors\n"] + [f"- {w} / {s}: {e}" for w, s, e in errors] + [""]


def explain_section(all_runs):
    """csched with `csched explain` in a loop beside it (csched-explain) against csched alone, round
    by round (each round runs both back to back on fresh control planes)."""
    rows = []
    for w in sorted(all_runs):
        for rnd in sorted(all_runs[w]):
            per = all_runs[w][rnd]
            c, x = per.get("csched"), per.get("csched-explain")
            if not (c and x):
                continue
            ex = ((x.get("measured") or [{}])[0]).get("explain") or {}
            cpu_c, cpu_x = c.get("process", {}).get("cpu_s"), x.get("process", {}).get("cpu_s")
            rows.append(f"| {w} | {rnd} | {fmt(tput(c, 'average'))} | {fmt(tput(x, 'average'))} | "
                        f"{ratio(tput(x, 'average'), tput(c, 'average'))} | {fmt(ex.get('explains'))} | "
                        f"{fmt(ex.get('failed'))} | {fmt(ex.get('per_s'))} | {fmt(ex.get('mean_ms'))} | "
                        f"{fmt(cpu_c, 2)} | {fmt(cpu_x, 2)} |")
    if not rows:
        return []
    lines = ["## Explain beside the scheduling loop\n",
             "csched-explain is csched with `csched explain` of the latest measured pod asked of its "
             "/debug/explain in a loop during the measured phase (driver.py ExplainLoop). Throughput "
             "with / without explains, round by round.\n"]
    table_head(lines, "| workload | round | csched avg | csched-explain avg | with / without | explains | "
                      "failed | explains/s | mean ms | CPU s alone | CPU s with explains |")
    return lines + rows + [""]


def table(all_runs, cycle, wlc=None, startup=None):
    runs = {w: rounds[median_round(rounds)] for w, rounds in all_runs.items()}
    n_rounds = max((len(r) for r in all_runs.values()), default=1)
    lines = intro(runs, cycle, n_rounds) + throughput_table(runs) + load_table(runs)
    lines += ratio_table(all_runs, n_rounds)
    lines += extender_section(runs)
    if n_rounds > 1:
        lines += rounds_table(all_runs)
    lines += explain_section(all_runs)
    if cycle:
        lines += cycle_section(cycle)
    if wlc:
        lines += wlcycle_section(wlc)
    lines.append(TARGETS + "\n")
    if startup:
        lines += startup_section(*startup)
    lines += errors_section(runs)
    return "\n".join(lines)


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ws = sorted(runs)
    if not ws:
        return False
    fig, axes = plt.subplots(len(ws), 1, figsize=(9, 3.2 * len(ws)), squeeze=False)
    for ax, w in zip(axes[:, 0], ws):
        for s in ORDER + sorted(set(runs[w]) - set(ORDER)):
            r = runs[w].get(s)
            m = ((r or {}).get("measured") or [None])[0]
            if not m or len(m.get("timeline", [])) < 2:
                continue
            tl = m["timeline"]
            t0 = m["start_t"]
            xs, ys = [], []
            prev_t, prev_n = t0, 0
            for t, n in tl:  # pods/s between consecutive 1 s ticks, as the collector sees them
                xs.append(t - t0)
                ys.append((n - prev_n) / max(t - prev_t, 1e-3))
                prev_t, prev_n = t, n
            avg = m["throughput"].get("average")
            label = f"{s} (avg {avg:.0f} pods/s)" if avg else s
            ax.plot(xs, ys, label=label, color=COLORS.get(s), linewidth=1.5)
        if not ax.lines:
            ax.text(0.5, 0.5, "no throughput samples", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(w)
        ax.set_xlabel("seconds since the measured pods started")
        ax.set_ylabel("pods scheduled / s")
        ax.grid(alpha=0.3)
        if ax.lines:
            ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    all_runs, cycle = load(out)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(table(all_runs, cycle, load_wlcycles(out), load_startup(out)))
    try:
        plot({w: rounds[median_round(rounds)] for w, rounds in all_runs.items()},
             os.path.join(out, "throughput.png"))
    except ImportError as ex:
        print(f"report.py: no plot ({ex})", file=sys.stderr)
    print(open(os.path.join(out, "results.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
