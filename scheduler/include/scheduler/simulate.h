/* csched simulate: where would these pods go? The scheduler's own cycle (the loop's framework
 * profiles, fw_schedule_pod, Reserve, the cache's assume) run over a cluster dump instead of a live
 * cluster, pod after pod, with explain's per-plugin detail for each (docs/simulate.md).
 *
 * USAGE (`csched simulate`):
 *   struct scheduler *s = sched_new(&o, &e);   // never started: a client that is never contacted
 *   struct sched_sim_request rq = { .dump = text, .dump_len = n, .json = true };
 *   char *out; size_t len;
 *   if (sched_simulate(s, &rq, &out, &len, &e) < 0) fail(e);
 *   sched_free(s);                              // once: the dump is in its cache for good
 *
 * The scheduler must be fresh and never started (its informers are filled from the dump, its loop's
 * profiles do the scheduling); one simulate per scheduler. Nothing is written anywhere. */
#ifndef CSCHED_SCHEDULER_SIMULATE_H
#define CSCHED_SCHEDULER_SIMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct scheduler;

#define SCHED_SIM_MAX_NAMES 64 /* --cordon and --drain nodes */

struct sched_sim_request {
	const char *dump; /* a v1 List (kubectl get ... -o json); every kind the informers read is used */
	size_t dump_len;
	const char *pods; /* pods to place (a v1 List or one Pod, with kind); NULL: the dump's pending pods */
	size_t pods_len;
	/* what-ifs, applied to the dump before it is loaded */
	const char *add_node; /* a node of the dump: add add_count copies of it, named <name>-sim-<i> */
	uint32_t add_count;
	uint32_t n_cordon, n_drain;
	const char *cordon[SCHED_SIM_MAX_NAMES]; /* spec.unschedulable = true */
	const char *drain[SCHED_SIM_MAX_NAMES];  /* cordoned, and its pods (but DaemonSets' and mirror pods) re-placed */
	bool json; /* else the table */
	/* Optional: an SVG bar chart of each node's CPU and memory requests before and after, made
	 * into *svg (malloc'd, *svg_len bytes) when svg is not NULL. */
	char **svg;
	size_t *svg_len;
};

/* Simulates; *out (malloc'd, *len bytes) receives the placements and the utilization table (or
 * the JSON document). ERR_INVALID: a bad dump or what-if (e names it), ERR_NOMEM. */
int sched_simulate(struct scheduler *s, const struct sched_sim_request *rq, char **out, size_t *len, struct err *e);

#endif
