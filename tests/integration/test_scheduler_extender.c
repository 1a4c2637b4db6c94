/* HTTP scheduler extenders end to end: the csched binary configured with `extenders`
 * (KubeSchedulerConfiguration) against tests/extender/test_extender.py, on a real kube-apiserver +
 * etcd (tests/cluster). One cluster for the whole program, four labelled nodes:
 *
 *     ext-0  zone=a w=0     ext-1  zone=a w=3     ext-2  zone=b w=6     ext-3  zone=b w=9
 *
 * The nodes are identical otherwise, so every in-tree score ties and the extenders decide:
 *  - filter (nodeCacheCapable false: the extender gets a v1.NodeList) + prioritize (score = w,
 *    weight 1, x MaxNodeScore/MaxExtenderPriority) -> ext-1; a bind extender binds the pod; an
 *    ignorable extender that sleeps past its httpTimeout is skipped;
 *  - nodeCacheCapable true (NodeNames), two extenders in sequence, managedResources: a pod
 *    without the managed resource is never sent to that extender; one requesting it is (and its
 *    ignoredByScheduler resource is not checked by NodeResourcesFit);
 *  - FailedScheduling with the extenders' reasons in upstream's FitError histogram, and a
 *    non-ignorable extender answering 500 failing the pod with upstream's error text;
 *  - the legacy Policy file's extenders;
 *  - HTTPS: serverName, client certificate and CA from files and inline data, no client
 *    certificate (fails), enableHTTPS without a CA (unverified);
 *  - a bind extender answering with an Error: a bind failure (SchedulerError, pod unbound). */
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

#include "apiclient/api_client.h"
#include "harness.h"
#include "testutil.h"

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

/* ---------- files and the csched child ---------- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static char *slurp(const char *path)
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
static const char *log_tail(const struct fx *fx)
{
	static char buf[4096];
	char *out = NULL;
	buf[0] = '\0';
	if (fx->log[0] && harness_run(&out, "tail -n 25 '%s'", fx->log) == 0 && out)
		snprintf(buf, sizeof(buf), "%s", out);
	free(out);
	return buf;
}

#define FAILF(fx, fmt, ...) fail_msg(fmt "\n--- csched log (tail) ---\n%s", __VA_ARGS__, log_tail(fx))

/* Starts csched with args (NULL-terminated, without argv[0]); stdout and stderr go to log. */
static void csched_start(struct fx *fx, const char *log, const char *const *args)
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
static int csched_stop(struct fx *fx)
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

/* ---------- objects ---------- */

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
	char why[1024];
};

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

static int poll_read(struct poll *p, struct err *e)
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

static const struct pod_row *pod_find(const struct poll *p, const char *name)
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
static void wait_for(struct poll *p, struct fx *fx, const char *ns, bool (*ok)(struct poll *), const void *arg,
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
static bool ok_bound(struct poll *p)
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

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct err e = { 0 };
	if (!fx)
		return -1;
	*state = fx;
	if (harness_cluster_start(&fx->c, 0, &e) < 0) {
		fprintf(stderr, "cluster: %s\n", e.msg);
		return -1;
	}
	if (!(fx->cl = harness_client_new(&fx->c, NULL, &e)) || !(fx->conn = api_conn_new(fx->cl, &e))) {
		fprintf(stderr, "client: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* Runs after a failed test too: no csched or cluster is left behind. */
static int teardown(void **state)
{
	struct fx *fx = *state;
	if (!fx)
		return 0;
	csched_stop(fx);
	api_conn_free(fx->conn);
	api_client_free(fx->cl);
	harness_cluster_stop(&fx->c);
	free(fx);
	return 0;
}

/* ---------- the test extender and the cluster ---------- */

struct ext_fx {
	struct fx fx;
	pid_t ext;
	int port;
	char ext_log[400]; /* one JSON line per request the extender got */
};

/* A pod of 100m / 500Mi in default, scheduled by csched; gpu also requests (and limits) 1
 * example.com/gpu. */
static void pod_make(struct fx *fx, const char *name, bool gpu)
{
	char body[1024];
	struct err e = { 0 };
	int n = snprintf(body, sizeof(body),
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
			 "\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
			 "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"500Mi\"%s}%s}}]}}",
			 name, gpu ? ",\"example.com/gpu\":\"1\"" : "", gpu ? ",\"limits\":{\"example.com/gpu\":\"1\"}" : "");
	if (api_request(fx->conn, "POST", "/api/v1/namespaces/default/pods", NULL, body, (size_t)n, NULL, &e) < 0)
		FAILF(fx, "creating pod %s: %s", name, e.msg);
}

static int group_setup(void **state)
{
	if (setup(state) < 0)
		return -1;
	struct fx *base = *state;
	struct ext_fx *x = calloc(1, sizeof(*x));
	x->fx = *base;
	free(base);
	*state = x;
	struct fx *fx = &x->fx;
	struct err e = { 0 };
	if (harness_create_nodes(fx->cl, "ext-", 0, 4, &e) < 0) {
		fprintf(stderr, "nodes: %s\n", e.msg);
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		char path[64], body[256];
		snprintf(path, sizeof(path), "/api/v1/nodes/ext-%d", i);
		int n = snprintf(body, sizeof(body), "{\"metadata\":{\"labels\":{\"zone\":\"%s\",\"w\":\"%d\"}}}",
				 i < 2 ? "a" : "b", 3 * i);
		if (api_request(fx->conn, "PATCH", path, "application/merge-patch+json", body, (size_t)n, NULL, &e) < 0) {
			fprintf(stderr, "labels: %s\n", e.msg);
			return -1;
		}
	}
	x->port = harness_free_port();
	char port[16], kc[340], logarg[420], log[400];
	snprintf(port, sizeof(port), "%d", x->port);
	snprintf(kc, sizeof(kc), "--kubeconfig=%s", fx->c.kubeconfig);
	snprintf(x->ext_log, sizeof(x->ext_log), "%s/extender-requests.log", fx->c.dir);
	snprintf(logarg, sizeof(logarg), "--log=%s", x->ext_log);
	snprintf(log, sizeof(log), "%s/extender.log", fx->c.dir);
	char *argv[] = { "/usr/bin/env", "python3", CSCHED_SOURCE_DIR "/tests/extender/test_extender.py", "--port", port,
			 kc, logarg, NULL };
	if ((x->ext = harness_spawn(argv, log, NULL, &e)) <= 0) {
		fprintf(stderr, "extender: %s\n", e.msg);
		return -1;
	}
	/* ready when it answers */
	for (int i = 0; i < 100; i++) {
		char url[64], *out = NULL;
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/x/none", x->port);
		long status = 0;
		int rc = harness_http_get(url, &status, &out, &e);
		free(out);
		if (rc == 0)
			return 0;
		usleep(100 * 1000);
	}
	fprintf(stderr, "extender did not start\n");
	return -1;
}

static int group_teardown(void **state)
{
	struct ext_fx *x = *state;
	if (!x)
		return 0;
	if (x->ext > 0) {
		struct err e = { 0 };
		kill(x->ext, SIGTERM);
		harness_wait_child(x->ext, 5000, NULL, &e);
	}
	struct fx *base = calloc(1, sizeof(*base));
	*base = x->fx;
	free(x);
	*state = base;
	return teardown(state);
}

/* Starts csched with the default profile and the extenders block (YAML lines under
 * "extenders:", with %1$d the extender's port). */
static void csched_with_extenders(struct ext_fx *x, const char *name, const char *extenders_fmt)
{
	struct fx *fx = &x->fx;
	char cfgp[400], arg[420];
	static char cfg[20480], ext[16384];
	snprintf(ext, sizeof(ext), extenders_fmt, x->port, x->port, x->port);
	snprintf(cfgp, sizeof(cfgp), "%s/%s.yaml", fx->c.dir, name);
	snprintf(cfg, sizeof(cfg),
		 "apiVersion: kubescheduler.config.k8s.io/v1\n"
		 "kind: KubeSchedulerConfiguration\n"
		 "clientConnection:\n"
		 "  kubeconfig: \"%s\"\n"
		 "leaderElection:\n"
		 "  leaderElect: false\n"
		 "profiles:\n"
		 "- schedulerName: csched\n"
		 "extenders:\n%s",
		 fx->c.kubeconfig, ext);
	assert_int_equal(write_file(cfgp, cfg), 0);
	snprintf(arg, sizeof(arg), "--config=%s", cfgp);
	char log[64];
	snprintf(log, sizeof(log), "csched-%s.log", name);
	const char *args[] = { arg, "--secure-port=0", "-v=2", NULL };
	csched_start(fx, log, args);
}

/* The extender's request log lines for pod with verb and mode, and whether one carried NodeNames. */
static int ext_requests(struct ext_fx *x, const char *pod, const char *verb, const char *mode, int *with_names)
{
	char *text = slurp(x->ext_log);
	int n = 0;
	*with_names = 0;
	char want_pod[96], want_verb[64], want_mode[160];
	snprintf(want_pod, sizeof(want_pod), "\"pod\": \"%s\"", pod);
	snprintf(want_verb, sizeof(want_verb), "\"verb\": \"%s\"", verb);
	snprintf(want_mode, sizeof(want_mode), "\"mode\": \"%s\"", mode);
	for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (strstr(line, want_pod) && strstr(line, want_verb) && strstr(line, want_mode)) {
			n++;
			*with_names += strstr(line, "\"nodeNames\": true") != NULL;
		}
	free(text);
	return n;
}

static const char *node_of(struct fx *fx, struct poll *p, const char *pod)
{
	struct err e = { 0 };
	p->fx = fx;
	p->ns = "default";
	if (poll_read(p, &e) < 0)
		FAILF(fx, "reading pods: %s", e.msg);
	const struct pod_row *r = pod_find(p, pod);
	return r ? r->node : "";
}

/* ---------- tests ---------- */

/* Filter with a NodeList (nodeCacheCapable false) keeps zone a; prioritize scores w (ext-1: 3 x
 * weight 1 x 100/10 = 30 over ext-0's 0); the bind extender binds; the ignorable extender that
 * sleeps 3 s past its 500 ms httpTimeout is skipped (the pod is bound anyway). */
static void test_filter_prioritize_bind(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	csched_with_extenders(x, "fpb",
			      "- urlPrefix: \"http://127.0.0.1:%d/keep:zone=a;prio:w/\"\n"
			      "  filterVerb: filter\n"
			      "  prioritizeVerb: prioritize\n"
			      "  weight: 1\n"
			      "- urlPrefix: \"http://127.0.0.1:%d/bind/\"\n"
			      "  bindVerb: bind\n"
			      "- urlPrefix: \"http://127.0.0.1:%d/sleep:3/\"\n"
			      "  filterVerb: filter\n"
			      "  httpTimeout: 500ms\n"
			      "  ignorable: true\n");
	pod_make(fx, "fpb-1", false);
	static const char *const names[] = { "fpb-1", NULL };
	struct poll *p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_bound, names, "fpb-1 bound");
	assert_string_equal(node_of(fx, p, "fpb-1"), "ext-1");
	int with_names;
	assert_int_equal(ext_requests(x, "fpb-1", "filter", "keep:zone=a;prio:w", &with_names), 1);
	assert_int_equal(with_names, 0); /* a NodeList */
	assert_int_equal(ext_requests(x, "fpb-1", "prioritize", "keep:zone=a;prio:w", &with_names), 1);
	assert_int_equal(ext_requests(x, "fpb-1", "bind", "bind", &with_names), 1);
	assert_int_equal(ext_requests(x, "fpb-1", "filter", "sleep:3", &with_names), 1);
	free(p);
	assert_int_equal(csched_stop(fx), 0);
}

/* nodeCacheCapable true: NodeNames both ways. Two filters in sequence (zone b, then w=9 for pods
 * with example.com/gpu only: managedResources) and a prioritizer on w (weight 2): a pod without
 * the gpu goes to ext-3 (w 9 beats 6) and is never sent to the gpu extender; one with it also goes
 * to ext-3, through the gpu extender, although no node has example.com/gpu (ignoredByScheduler). */
static void test_node_cache_capable_sequence_managed(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	csched_with_extenders(x, "ncc",
			      "- urlPrefix: \"http://127.0.0.1:%d/keep:zone=b/\"\n"
			      "  filterVerb: filter\n"
			      "  nodeCacheCapable: true\n"
			      "- urlPrefix: \"http://127.0.0.1:%d/unres:w=9/\"\n"
			      "  filterVerb: filter\n"
			      "  nodeCacheCapable: true\n"
			      "  managedResources:\n"
			      "  - name: example.com/gpu\n"
			      "    ignoredByScheduler: true\n"
			      "- urlPrefix: \"http://127.0.0.1:%d/prio:w/\"\n"
			      "  prioritizeVerb: prioritize\n"
			      "  weight: 2\n"
			      "  nodeCacheCapable: true\n");
	pod_make(fx, "ncc-plain", false);
	pod_make(fx, "ncc-gpu", true);
	static const char *const names[] = { "ncc-plain", "ncc-gpu", NULL };
	struct poll *p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_bound, names, "ncc pods bound");
	assert_string_equal(node_of(fx, p, "ncc-plain"), "ext-3");
	assert_string_equal(node_of(fx, p, "ncc-gpu"), "ext-3");
	int with_names;
	assert_int_equal(ext_requests(x, "ncc-plain", "filter", "keep:zone=b", &with_names), 1);
	assert_int_equal(with_names, 1);
	assert_int_equal(ext_requests(x, "ncc-plain", "filter", "unres:w=9", &with_names), 0);
	assert_int_equal(ext_requests(x, "ncc-gpu", "filter", "unres:w=9", &with_names), 1);
	assert_int_equal(with_names, 1);
	assert_int_equal(ext_requests(x, "ncc-gpu", "prioritize", "prio:w", &with_names), 0); /* one node left */
	assert_int_equal(ext_requests(x, "ncc-plain", "prioritize", "prio:w", &with_names), 1);
	free(p);
	assert_int_equal(csched_stop(fx), 0);
}

struct want_prefix {
	const char *pod, *reason, *prefix;
};

/* PodScheduled False with reason and a message starting with prefix, and a FailedScheduling event
 * from csched whose note starts with it. */
static bool ok_failed_prefix(struct poll *p)
{
	for (const struct want_prefix *w = p->arg; w->pod; w++) {
		const struct pod_row *r = pod_find(p, w->pod);
		if (!r || r->node[0] || strcmp(r->cond_status, "False") || strcmp(r->cond_reason, w->reason) ||
		    strncmp(r->cond_msg, w->prefix, strlen(w->prefix))) {
			snprintf(p->why, sizeof(p->why), "pod %s: node \"%s\", PodScheduled \"%s\" \"%s\" \"%s\", want False %s \"%s...\"",
				 w->pod, r ? r->node : "(missing)", r ? r->cond_status : "", r ? r->cond_reason : "",
				 r ? r->cond_msg : "", w->reason, w->prefix);
			return false;
		}
		bool found = false;
		for (size_t i = 0; i < p->n_evs && !found; i++) {
			const struct ev_row *v = &p->evs[i];
			found = !strcmp(v->name, w->pod) && !strcmp(v->reason, "FailedScheduling") &&
				!strcmp(v->controller, "csched") && !strncmp(v->note, w->prefix, strlen(w->prefix));
		}
		if (!found) {
			snprintf(p->why, sizeof(p->why), "no FailedScheduling event for %s starting \"%s\"", w->pod, w->prefix);
			return false;
		}
	}
	return true;
}

/* Zone a only, then w=9 only (FailedAndUnresolvableNodes): nothing is left, and the FitError
 * histogram carries both extenders' reasons (upstream FitError.Error over NodeToStatus). A pod
 * requesting example.com/gpu first meets a non-ignorable extender answering 500 (listed first:
 * upstream stops calling extenders once no node is left): upstream's send error fails it
 * (SchedulerError); the other pod is not sent to it (managedResources). */
static void test_fit_error_and_failure(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	csched_with_extenders(x, "fail",
			      "- urlPrefix: \"http://127.0.0.1:%d/500/\"\n"
			      "  filterVerb: filter\n"
			      "  managedResources:\n"
			      "  - name: example.com/gpu\n"
			      "    ignoredByScheduler: true\n"
			      "- urlPrefix: \"http://127.0.0.1:%d/keep:zone=a/\"\n"
			      "  filterVerb: filter\n"
			      "- urlPrefix: \"http://127.0.0.1:%d/unres:w=9/\"\n"
			      "  filterVerb: filter\n"
			      "  nodeCacheCapable: true\n");
	pod_make(fx, "fit-1", false);
	pod_make(fx, "err-1", true);
	char err_prefix[160];
	snprintf(err_prefix, sizeof(err_prefix), "failed filter with extender at URL http://127.0.0.1:%d/500/filter, code 500",
		 x->port);
	struct want_prefix w[] = {
		{ "fit-1", "Unschedulable",
		  "0/4 nodes are available: 2 node(s) didn't have label w=9, 2 node(s) didn't have label zone=a." },
		{ "err-1", "SchedulerError", err_prefix },
		{ NULL, NULL, NULL },
	};
	struct poll *p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_failed_prefix, w, "FailedScheduling with extender reasons");
	free(p);
	assert_int_equal(csched_stop(fx), 0);
	struct err e = { 0 };
	harness_delete_pods(fx->cl, "default", "fit-", 1, 1, &e);
	harness_delete_pods(fx->cl, "default", "err-", 1, 1, &e);
}

/* The legacy Policy file's extenders (seed-style JSON, enableHttps, httpTimeout in nanoseconds):
 * zone b, then w (weight 1): ext-3 (w 9 x 10 = 90 beats ext-2's 60; the two pods the second test
 * put on ext-3 cost LeastRequested only ~4 points there). */
static void test_policy_file_extender(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	char polp[400], pol[1024], polarg[440], kcarg[340];
	snprintf(polp, sizeof(polp), "%s/policy.json", fx->c.dir);
	snprintf(pol, sizeof(pol),
		 "{\"kind\":\"Policy\",\"apiVersion\":\"v1\","
		 "\"predicates\":[{\"name\":\"PodFitsResources\"}],"
		 "\"priorities\":[{\"name\":\"LeastRequestedPriority\",\"weight\":1}],"
		 "\"extenders\":[{\"urlPrefix\":\"http://127.0.0.1:%d/keep:zone=b;prio:w\",\"filterVerb\":\"filter\","
		 "\"prioritizeVerb\":\"prioritize\",\"weight\":1,\"enableHttps\":false,\"nodeCacheCapable\":true,"
		 "\"httpTimeout\":5000000000}]}",
		 x->port);
	assert_int_equal(write_file(polp, pol), 0);
	snprintf(polarg, sizeof(polarg), "--policy-config-file=%s", polp);
	snprintf(kcarg, sizeof(kcarg), "--kubeconfig=%s", fx->c.kubeconfig);
	const char *args[] = { polarg, kcarg, "--leader-elect=false", "--secure-port=0", "-v=2", NULL };
	csched_start(fx, "csched-policy.log", args);
	pod_make(fx, "pol-1", false);
	static const char *const names[] = { "pol-1", NULL };
	struct poll *p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_bound, names, "pol-1 bound");
	assert_string_equal(node_of(fx, p, "pol-1"), "ext-3");
	int with_names;
	assert_int_equal(ext_requests(x, "pol-1", "filter", "keep:zone=b;prio:w", &with_names), 1);
	assert_int_equal(with_names, 1);
	assert_int_equal(ext_requests(x, "pol-1", "prioritize", "keep:zone=b;prio:w", &with_names), 1);
	free(p);
	assert_int_equal(csched_stop(fx), 0);
}

/* HTTPS: a second test extender serving TLS with a certificate for the name extender.test only
 * (so tlsConfig.serverName must be used: the URL says 127.0.0.1) and requiring a client
 * certificate from the test CA. Filter through files (caFile, certFile, keyFile), prioritize
 * through the inline forms (caData, certData, keyData): the pod goes to ext-1 (zone a, w 3). Then
 * the same without a client certificate: the handshake fails and the pod with it (SchedulerError,
 * Go's "Post <url>: ..." shape). */
static void test_tls_client_cert(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	const char *d = fx->c.dir;
	char *out = NULL;
	int rc = harness_run(&out,
			     "cd '%s' && mkdir -p exttls && cd exttls && "
			     "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=ext-ca && "
			     "openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=extender.test && "
			     "printf 'subjectAltName=DNS:extender.test\\n' > srv.ext && "
			     "openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 1 -extfile srv.ext && "
			     "openssl req -newkey rsa:2048 -nodes -keyout cli.key -out cli.csr -subj /CN=csched && "
			     "openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out cli.crt -days 1",
			     d);
	if (rc != 0)
		fail_msg("openssl: %s", out ? out : "");
	free(out);
	char t[400], port[16], certarg[460], keyarg[460], caarg[460], log[420];
	snprintf(t, sizeof(t), "%s/exttls", d);
	int tls_port = harness_free_port();
	snprintf(port, sizeof(port), "%d", tls_port);
	snprintf(certarg, sizeof(certarg), "--tls-cert=%s/srv.crt", t);
	snprintf(keyarg, sizeof(keyarg), "--tls-key=%s/srv.key", t);
	snprintf(caarg, sizeof(caarg), "--client-ca=%s/ca.crt", t);
	snprintf(log, sizeof(log), "%s/extender-tls.log", d);
	char logarg[420];
	snprintf(logarg, sizeof(logarg), "--log=%s", x->ext_log);
	char *argv[] = { "/usr/bin/env", "python3", CSCHED_SOURCE_DIR "/tests/extender/test_extender.py", "--port", port,
			 certarg, keyarg, caarg, logarg, NULL };
	struct err e = { 0 };
	pid_t tls = harness_spawn(argv, log, NULL, &e);
	if (tls <= 0)
		fail_msg("tls extender: %s", e.msg);
	usleep(1500 * 1000); /* python's start-up; the first call would only be retried otherwise */

	char *ca64 = NULL, *cert64 = NULL, *key64 = NULL;
	harness_run(&ca64, "base64 -w0 '%s/ca.crt'", t);
	harness_run(&cert64, "base64 -w0 '%s/cli.crt'", t);
	harness_run(&key64, "base64 -w0 '%s/cli.key'", t);
	static char ext[16384];
	snprintf(ext, sizeof(ext),
		 "- urlPrefix: \"https://127.0.0.1:%d/keep:zone=a/\"\n"
		 "  filterVerb: filter\n"
		 "  enableHTTPS: true\n"
		 "  tlsConfig:\n"
		 "    serverName: extender.test\n"
		 "    caFile: %s/ca.crt\n"
		 "    certFile: %s/cli.crt\n"
		 "    keyFile: %s/cli.key\n"
		 "- urlPrefix: \"https://127.0.0.1:%d/prio:w/\"\n"
		 "  prioritizeVerb: prioritize\n"
		 "  weight: 1\n"
		 "  enableHTTPS: true\n"
		 "  tlsConfig:\n"
		 "    serverName: extender.test\n"
		 "    caData: %s\n"
		 "    certData: %s\n"
		 "    keyData: %s\n",
		 tls_port, t, t, t, tls_port, ca64, cert64, key64);
	free(ca64);
	free(cert64);
	free(key64);
	/* csched_with_extenders formats its argument again: base64 and paths hold no '%' */
	csched_with_extenders(x, "tls", ext);
	pod_make(fx, "tls-1", false);
	static const char *const names[] = { "tls-1", NULL };
	struct poll *p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_bound, names, "tls-1 bound");
	assert_string_equal(node_of(fx, p, "tls-1"), "ext-1");
	int with_names;
	assert_int_equal(ext_requests(x, "tls-1", "filter", "keep:zone=a", &with_names), 1);
	assert_int_equal(ext_requests(x, "tls-1", "prioritize", "prio:w", &with_names), 1);
	assert_int_equal(csched_stop(fx), 0);

	snprintf(ext, sizeof(ext),
		 "- urlPrefix: \"https://127.0.0.1:%d/all/\"\n"
		 "  filterVerb: filter\n"
		 "  enableHTTPS: true\n"
		 "  tlsConfig:\n"
		 "    serverName: extender.test\n"
		 "    caFile: %s/ca.crt\n",
		 tls_port, t);
	csched_with_extenders(x, "tls-nocert", ext);
	pod_make(fx, "tls-2", false);
	struct want_prefix w[] = { { "tls-2", "SchedulerError", "Post \"https://extender.test:" }, { NULL, NULL, NULL } };
	wait_for(p, fx, "default", ok_failed_prefix, w, "tls-2 fails without a client certificate");
	free(p);
	assert_int_equal(csched_stop(fx), 0);
	harness_delete_pods(fx->cl, "default", "tls-", 2, 1, &e);

	/* enableHTTPS without a CA: upstream makeTransport verifies nothing (Insecure) */
	snprintf(ext, sizeof(ext),
		 "- urlPrefix: \"https://127.0.0.1:%d/keep:zone=b/\"\n"
		 "  filterVerb: filter\n"
		 "  enableHTTPS: true\n"
		 "  tlsConfig:\n"
		 "    certFile: %s/cli.crt\n"
		 "    keyFile: %s/cli.key\n",
		 tls_port, t, t);
	csched_with_extenders(x, "tls-insecure", ext);
	pod_make(fx, "tls-3", false);
	static const char *const names3[] = { "tls-3", NULL };
	p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_bound, names3, "tls-3 bound through an unverified HTTPS extender");
	const char *n3 = node_of(fx, p, "tls-3");
	if (strcmp(n3, "ext-2") && strcmp(n3, "ext-3"))
		FAILF(fx, "tls-3 on %s, want zone b", n3);
	free(p);
	assert_int_equal(csched_stop(fx), 0);
	kill(tls, SIGTERM);
	harness_wait_child(tls, 5000, NULL, &e);
}

/* A bind extender whose ExtenderBindingResult carries an Error: the binding fails like any bind
 * failure (upstream bind: fwk.AsStatus(err) -> handleBindingCycleError: forget, requeue,
 * FailedScheduling with the error as message) and the pod stays unbound. */
static void test_bind_failure(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	csched_with_extenders(x, "bindfail",
			      "- urlPrefix: \"http://127.0.0.1:%d/error:refused/\"\n"
			      "  bindVerb: bind\n");
	pod_make(fx, "bf-1", false);
	struct want_prefix w[] = { { "bf-1", "SchedulerError", "refused" }, { NULL, NULL, NULL } };
	struct poll *p = calloc(1, sizeof(*p));
	wait_for(p, fx, "default", ok_failed_prefix, w, "bf-1 bind fails");
	int with_names;
	if (ext_requests(x, "bf-1", "bind", "error:refused", &with_names) < 1)
		FAILF(fx, "%s", "bf-1 never sent to the bind extender");
	free(p);
	assert_int_equal(csched_stop(fx), 0);
	struct err e = { 0 };
	harness_delete_pods(fx->cl, "default", "bf-", 1, 1, &e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_prioritize_bind),
		cmocka_unit_test(test_node_cache_capable_sequence_managed),
		cmocka_unit_test(test_fit_error_and_failure),
		cmocka_unit_test(test_policy_file_extender),
		cmocka_unit_test(test_tls_client_cert),
		cmocka_unit_test(test_bind_failure),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
