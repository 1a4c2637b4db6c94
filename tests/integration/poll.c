/* What the integration tests that run the csched binary share (poll.h). */
#include "poll.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "testutil.h"

/* ---------- files and the csched child ---------- */

int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The last lines of the running csched's log, for failure messages (static buffer). */
const char *log_tail(const struct fx *fx)
{
	static char buf[4096];
	char *out = NULL;
	buf[0] = '\0';
	if (fx->log[0] && harness_run(&out, "tail -n 25 '%s'", fx->log) == 0 && out)
		snprintf(buf, sizeof(buf), "%s", out);
	free(out);
	return buf;
}

/* Starts csched with args (NULL-terminated, without argv[0]); stdout and stderr go to log. */
void csched_start(struct fx *fx, const char *log, const char *const *args)
{
	char *argv[16];
	size_t n = 0;
	struct err e = { 0 };
	argv[n++] = CSCHED_BUILD_DIR "/csched";
	for (; *args && n < 15; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	snprintf(fx->log, sizeof(fx->log), "%s/%s", fx->c.dir, log);
	pid_t pid = harness_spawn(argv, fx->log, NULL, &e);
	if (pid <= 0)
		fail_msg("csched: %s", e.msg);
	fx->csched = pid;
}

/* SIGTERM, then the exit status (or -1 when csched had to be killed or did not exit cleanly). */
int csched_stop(struct fx *fx)
{
	int status = 0;
	struct err e = { 0 };
	pid_t pid = fx->csched;
	if (pid <= 0)
		return 0;
	fx->csched = 0;
	kill(pid, SIGTERM);
	if (harness_wait_child(pid, 20000, &status, &e) < 0) {
		kill(pid, SIGKILL);
		harness_wait_child(pid, 5000, &status, &e);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---------- reading pods and events ---------- */

static void copy_str(yajl_val root, const char *const *path, char *dst, size_t size)
{
	yajl_val v = yajl_tree_get(root, (const char **)path, yajl_t_string);
	snprintf(dst, size, "%s", v ? YAJL_GET_STRING(v) : "");
}

static int pod_item(void *ctx, struct yajl_val_s *item)
{
	static const char *const name_p[] = { "metadata", "name", NULL }, *const node_p[] = { "spec", "nodeName", NULL },
			  *const conds_p[] = { "status", "conditions", NULL }, *const type_p[] = { "type", NULL },
			  *const status_p[] = { "status", NULL }, *const reason_p[] = { "reason", NULL },
			  *const msg_p[] = { "message", NULL };
	struct poll *p = ctx;
	if (p->n_pods == MAX_PODS)
		return ERR_INVALID;
	struct pod_row *r = &p->pods[p->n_pods++];
	memset(r, 0, sizeof(*r));
	copy_str(item, name_p, r->name, sizeof(r->name));
	copy_str(item, node_p, r->node, sizeof(r->node));
	yajl_val conds = yajl_tree_get(item, (const char **)conds_p, yajl_t_array);
	for (size_t i = 0; conds && i < conds->u.array.len; i++) {
		yajl_val c = conds->u.array.values[i];
		char type[32];
		copy_str(c, type_p, type, sizeof(type));
		if (strcmp(type, "PodScheduled") != 0)
			continue;
		copy_str(c, status_p, r->cond_status, sizeof(r->cond_status));
		copy_str(c, reason_p, r->cond_reason, sizeof(r->cond_reason));
		copy_str(c, msg_p, r->cond_msg, sizeof(r->cond_msg));
	}
	return 0;
}

static int event_item(void *ctx, struct yajl_val_s *item)
{
	static const char *const name_p[] = { "regarding", "name", NULL }, *const type_p[] = { "type", NULL },
			  *const reason_p[] = { "reason", NULL }, *const ctl_p[] = { "reportingController", NULL },
			  *const inst_p[] = { "reportingInstance", NULL }, *const note_p[] = { "note", NULL };
	struct poll *p = ctx;
	if (p->n_evs == MAX_EVENTS)
		return ERR_INVALID;
	struct ev_row *r = &p->evs[p->n_evs++];
	copy_str(item, name_p, r->name, sizeof(r->name));
	copy_str(item, type_p, r->type, sizeof(r->type));
	copy_str(item, reason_p, r->reason, sizeof(r->reason));
	copy_str(item, ctl_p, r->controller, sizeof(r->controller));
	copy_str(item, inst_p, r->instance, sizeof(r->instance));
	copy_str(item, note_p, r->note, sizeof(r->note));
	return 0;
}

int poll_read(struct poll *p, struct err *e)
{
	char path[256];
	p->n_pods = p->n_evs = 0;
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods", p->ns);
	int rc = harness_list(p->fx->conn, path, pod_item, p, NULL, e);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/apis/events.k8s.io/v1/namespaces/%s/events", p->ns);
	return harness_list(p->fx->conn, path, event_item, p, NULL, e);
}

const struct pod_row *pod_find(const struct poll *p, const char *name)
{
	for (size_t i = 0; i < p->n_pods; i++)
		if (strcmp(p->pods[i].name, name) == 0)
			return &p->pods[i];
	return NULL;
}

static bool poll_pred(void *ctx)
{
	struct poll *p = ctx;
	struct err e = { 0 };
	if (poll_read(p, &e) < 0) {
		snprintf(p->why, sizeof(p->why), "reading: %s", e.msg);
		return false;
	}
	p->why[0] = '\0';
	return p->ok(p);
}

/* Polls until ok holds for the namespace's pods and events; fails the test with what is missing. */
void wait_for(struct poll *p, struct fx *fx, const char *ns, bool (*ok)(struct poll *), const void *arg,
		     const char *what)
{
	p->fx = fx;
	p->ns = ns;
	p->ok = ok;
	p->arg = arg;
	int64_t t0 = harness_now_ms();
	if (!harness_wait_until(poll_pred, p, WAIT_MS, 100))
		FAILF(fx, "%s: not within %d s: %s", what, WAIT_MS / 1000, p->why);
	printf("[ MEASURE  ] %s: %.2f s\n", what, (harness_now_ms() - t0) / 1000.0);
}

/* A NULL-terminated list of pod names. */
bool ok_bound(struct poll *p)
{
	for (const char *const *n = p->arg; *n; n++) {
		const struct pod_row *r = pod_find(p, *n);
		if (!r || !r->node[0]) {
			snprintf(p->why, sizeof(p->why), "pod %s %s", *n, r ? "not bound" : "missing");
			return false;
		}
	}
	return true;
}

/* ---------- fixtures ---------- */

int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	if (!fx)
		return -1;
	*state = fx;
	return harness_setup(&fx->c, 0, &fx->cl, &fx->conn);
}

/* Runs after a failed test too: no csched or cluster is left behind. */
int fx_teardown(void **state)
{
	struct fx *fx = *state;
	if (!fx)
		return 0;
	csched_stop(fx);
	harness_teardown(&fx->c, &fx->cl, &fx->conn);
	free(fx);
	return 0;
}
