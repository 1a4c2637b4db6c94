/* What the integration tests that run the csched binary share (test_scheduler_config,
 * test_scheduler_extender): a fixture with a cluster, a client and the csched child, and polls of
 * a namespace's pods and events until a condition holds.
 *
 * Typical use (cmocka):
 *
 *	cmocka_unit_test_setup_teardown(test_x, fx_setup, fx_teardown)   // *state is a struct fx
 *	csched_start(fx, "csched.log", args);
 *	struct poll p;
 *	wait_for(&p, fx, "default", ok_bound, (const char *const[]){ "a", NULL }, "a bound");
 *
 * Failures go through cmocka (fail_msg), with the tail of csched's log (FAILF). */
#ifndef CSCHED_IT_POLL_H
#define CSCHED_IT_POLL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "apiclient/api_client.h"
#include "common/err.h"
#include "harness.h"

#define WAIT_MS 45000 /* generous: a loaded 2-core machine; polls return as soon as the state holds */
#define MAX_PODS 64
#define MAX_EVENTS 256

struct fx {
	struct harness_cluster c;
	struct api_client *cl;
	struct api_conn *conn;
	pid_t csched; /* 0 when not running */
	char log[400];
};

/* cmocka setup: a new cluster and a client on it, *state a calloc'd struct fx; the teardown
 * (after a failed test too) stops csched and the cluster and frees it. */
int fx_setup(void **state);
int fx_teardown(void **state);

/* ---------- files and the csched child ---------- */

int write_file(const char *path, const char *text); /* 0 or -1 */
char *slurp(const char *path);                       /* malloc'd (at most 64 KiB), or NULL */
/* The last lines of the running csched's log, for failure messages (static buffer). */
const char *log_tail(const struct fx *fx);
#define FAILF(fx, fmt, ...) fail_msg(fmt "\n--- csched log (tail) ---\n%s", __VA_ARGS__, log_tail(fx))
/* Starts csched with args (NULL-terminated, without argv[0]); stdout and stderr go to fx->c.dir/log. */
void csched_start(struct fx *fx, const char *log, const char *const *args);
/* SIGTERM, then the exit status (or -1 when csched had to be killed or did not exit cleanly). */
int csched_stop(struct fx *fx);

/* ---------- reading pods and events ---------- */

struct pod_row {
	char name[64], node[64];
	char cond_status[16], cond_reason[48], cond_msg[512]; /* the PodScheduled condition */
};

struct ev_row {
	char name[64], type[16], reason[48], controller[64], instance[256], note[512];
};

/* One poll: a snapshot of the namespace's pods and events, and what is still missing. */
struct poll {
	struct fx *fx;
	const char *ns;
	bool (*ok)(struct poll *p);
	const void *arg;
	struct pod_row pods[MAX_PODS];
	size_t n_pods;
	struct ev_row evs[MAX_EVENTS];
	size_t n_evs;
	char why[1024]; /* set by ok when it returns false */
};

/* Reads p->ns's pods and events into p. */
int poll_read(struct poll *p, struct err *e);
const struct pod_row *pod_find(const struct poll *p, const char *name); /* NULL when missing */
/* Polls until ok holds for the namespace's pods and events; fails the test with what is missing. */
void wait_for(struct poll *p, struct fx *fx, const char *ns, bool (*ok)(struct poll *), const void *arg,
	      const char *what);
/* An ok for wait_for: every pod of arg (a NULL-terminated list of names) is bound. */
bool ok_bound(struct poll *p);

#endif
