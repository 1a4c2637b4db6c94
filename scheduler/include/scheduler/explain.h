/* csched explain: why a pod is pending, or why it went where it is. A dry scheduling cycle for one
 * pod on the scheduler's own framework code (algorithm/: the same PreFilter, Filter, Score,
 * NormalizeScore, weights and pick as the loop), against a private snapshot of the live cache,
 * rendered as a table or as JSON (schema: docs/explain.md).
 *
 * USAGE (the health server's /debug/explain, and `csched explain` one-shot):
 *   struct sched_explain_request rq = { .ns = "default", .name = "web-0", .format = SCHED_EXPLAIN_JSON };
 *   char *text = NULL; size_t len = 0;
 *   if (sched_explain(s, &rq, &text, &len, &e) < 0) fail(e);   // ERR_NOT_FOUND: no such pod/node
 *   ...; free(text);
 *
 * What it does not do: it runs no Reserve, Permit, PreBind or Bind, writes nothing to the cluster,
 * and observes no metric. PostFilter (DefaultPreemption) runs as a dry run for a pending pod that
 * fits nowhere: the candidate it would pick and its victims are reported, nothing is evicted and
 * no nomination is made. A bound (or assumed) pod is explained as if it were pending again: its
 * spec.nodeName is cleared and it is taken off the node that holds it, as upstream would see it
 * when re-scheduling it; no PostFilter for such a pod.
 *
 * Differences from the loop's cycle, on purpose: every node is evaluated and every feasible node
 * scored (percentageOfNodesToScore 100; on clusters of 100 nodes or more the loop samples a share
 * of the nodes from a rotating start); OpportunisticBatching's node hint is not used.
 *
 * THREADS: any thread. Explains run one at a time (the explainer's lock, a leaf taken before the
 * cache lock); the cache lock is held only while the explainer's own snapshot is refreshed (an
 * incremental copy, as the loop's), the queue lock only while the nominated pods are copied. The
 * scheduler thread's snapshot, profiles and worker pool are never touched: the explainer has its
 * own framework profiles and runs Filter and Score on the calling thread. */
#ifndef CSCHED_SCHEDULER_EXPLAIN_H
#define CSCHED_SCHEDULER_EXPLAIN_H

#include <stddef.h>

#include "common/err.h"

struct scheduler;

enum sched_explain_format {
	SCHED_EXPLAIN_TABLE, /* the human table */
	SCHED_EXPLAIN_JSON,  /* docs/explain.md */
};

struct sched_explain_request {
	const char *ns, *name; /* the pod */
	const char *node;      /* NULL or "": every node; else only this node's row (must exist) */
	enum sched_explain_format format;
};

/* Explains the pod into *out (malloc'd, NUL-terminated, *len bytes). Returns 0, or ERR_NOT_FOUND
 * (no such pod in the scheduler's informer, or no such node), ERR_INVALID (bad request, a pod of no
 * profile of this scheduler), ERR_NOMEM, with e naming the pod or node. */
int sched_explain(struct scheduler *s, const struct sched_explain_request *rq, char **out, size_t *len,
		  struct err *e);

#endif
