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
 *  - a bind extender answering with an Error: a bind failure (SchedulerError, pod unbound);
 *  - preempt (DefaultPreemption, two more nodes pre-0/pre-1): the extender's choice of candidate
 *    decides the victim, nodeCacheCapable true and false; an unknown victim UID fails preemption. */
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
#include "poll.h"
#include "testutil.h"

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
	if (fx_setup(state) < 0)
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
	return fx_teardown(state);
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

/* ---------- preemption (upstream ProcessPreemption) ---------- */

/* A pod of priority class pc requesting cpu; bound to node (no scheduler) when node is set, else
 * csched's with nodeSelector pool=pre. Grace period 0: a victim is gone once deleted (no kubelet). */
static void pre_pod(struct fx *fx, const char *name, const char *pc, const char *cpu, const char *node)
{
	char body[1024], where[128];
	struct err e = { 0 };
	if (node)
		snprintf(where, sizeof(where), "\"nodeName\":\"%s\"", node);
	else
		snprintf(where, sizeof(where), "\"schedulerName\":\"csched\",\"nodeSelector\":{\"pool\":\"pre\"}");
	int n = snprintf(body, sizeof(body),
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{%s,"
			 "\"priorityClassName\":\"%s\",\"terminationGracePeriodSeconds\":0,\"containers\":[{\"name\":\"c\","
			 "\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]}}",
			 name, where, pc, cpu);
	if (api_request(fx->conn, "POST", "/api/v1/namespaces/default/pods", NULL, body, (size_t)n, NULL, &e) < 0)
		FAILF(fx, "creating pod %s: %s", name, e.msg);
}

static void pre_setup(struct fx *fx)
{
	struct err e = { 0 };
	static const char *const pcs[][2] = { { "ext-low", "0" }, { "ext-high", "1000" } };
	for (int i = 0; i < 2; i++) {
		char body[256];
		int n = snprintf(body, sizeof(body),
				 "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":"
				 "{\"name\":\"%s\"},\"value\":%s}",
				 pcs[i][0], pcs[i][1]);
		if (api_request(fx->conn, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", NULL, body, (size_t)n, NULL,
				&e) < 0)
			FAILF(fx, "priority class %s: %s", pcs[i][0], e.msg);
	}
	if (harness_create_nodes(fx->cl, "pre-", 0, 2, &e) < 0)
		FAILF(fx, "nodes: %s", e.msg);
	static const char *const labels[] = { "{\"metadata\":{\"labels\":{\"pool\":\"pre\"}}}",
					      "{\"metadata\":{\"labels\":{\"pool\":\"pre\",\"victim\":\"ok\"}}}" };
	for (int i = 0; i < 2; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/api/v1/nodes/pre-%d", i);
		if (api_request(fx->conn, "PATCH", path, "application/merge-patch+json", labels[i], strlen(labels[i]), NULL,
				&e) < 0)
			FAILF(fx, "labels: %s", e.msg);
	}
}

struct want_preempted {
	const char *pod, *node, *victim, *kept;
};

/* pod bound to node, victim gone, kept still there. */
static bool ok_preempted(struct poll *p)
{
	const struct want_preempted *w = p->arg;
	const struct pod_row *r = pod_find(p, w->pod);
	if (!r || strcmp(r->node, w->node)) {
		snprintf(p->why, sizeof(p->why), "pod %s on \"%s\" (PodScheduled %s %s \"%s\"), want %s", w->pod,
			 r ? r->node : "(missing)", r ? r->cond_status : "", r ? r->cond_reason : "", r ? r->cond_msg : "",
			 w->node);
		return false;
	}
	if (pod_find(p, w->victim)) {
		snprintf(p->why, sizeof(p->why), "victim %s still there", w->victim);
		return false;
	}
	if (!pod_find(p, w->kept)) {
		snprintf(p->why, sizeof(p->why), "%s was evicted", w->kept);
		return false;
	}
	return true;
}

/* The extender's preempt request lines for pod that contain want (all of them). */
static int ext_preempt_lines(struct ext_fx *x, const char *pod, const char *const *want)
{
	char *text = slurp(x->ext_log);
	int n = 0;
	char want_pod[96];
	snprintf(want_pod, sizeof(want_pod), "\"pod\": \"%s\"", pod);
	for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		bool all = strstr(line, want_pod) && strstr(line, "\"verb\": \"preempt\"");
		for (const char *const *w = want; all && *w; w++)
			all = strstr(line, *w) != NULL;
		n += all;
	}
	free(text);
	return n;
}

/* Two pool=pre nodes each full with a priority-0 pod of 3 CPUs; a priority-1000 pod of 2 CPUs
 * (nodeSelector pool=pre) can preempt on either. The preempt extender keeps only the candidate on
 * the node labelled victim=ok (pre-1): its victim is evicted and the pod binds there, the other
 * low pod stays. nodeCacheCapable: the extender gets NodeNameToMetaVictims (UIDs); not: the
 * NodeNameToVictims with whole pods (spec.nodeName included: bound pods keep their JSON). */
static void test_preempt_verb(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	struct err e = { 0 };
	pre_setup(fx);
	for (int cache_capable = 1; cache_capable >= 0; cache_capable--) {
		char ext[512], name[16], lo0[16], lo1[16], hi[16];
		snprintf(name, sizeof(name), "pre-%d", cache_capable);
		snprintf(lo0, sizeof(lo0), "lo%d-0", cache_capable);
		snprintf(lo1, sizeof(lo1), "lo%d-1", cache_capable);
		snprintf(hi, sizeof(hi), "hi%d", cache_capable);
		snprintf(ext, sizeof(ext),
			 "- urlPrefix: \"http://127.0.0.1:%%1$d/keep:victim=ok/\"\n"
			 "  preemptVerb: preempt\n"
			 "  nodeCacheCapable: %s\n",
			 cache_capable ? "true" : "false");
		pre_pod(fx, lo0, "ext-low", "3", "pre-0");
		pre_pod(fx, lo1, "ext-low", "3", "pre-1");
		csched_with_extenders(x, name, ext);
		pre_pod(fx, hi, "ext-high", "2", NULL);
		struct want_preempted w = { hi, "pre-1", lo1, lo0 };
		struct poll *p = calloc(1, sizeof(*p));
		wait_for(p, fx, "default", ok_preempted, &w, "preemption on the extender's node");
		free(p);
		/* the candidates went as the extender's kind asks */
		const char *want_meta[] = { "\"nodes\": [\"pre-0\", \"pre-1\"]", "\"nodeNames\": true", "\"whole\": false",
					    NULL };
		const char *want_whole[] = { "\"nodes\": [\"pre-0\", \"pre-1\"]", "\"whole\": true",
					     "\"victimNodeNames\": [\"pre-0\", \"pre-1\"]", NULL };
		assert_true(ext_preempt_lines(x, hi, cache_capable ? want_meta : want_whole) >= 1);
		assert_int_equal(csched_stop(fx), 0);
		harness_delete_pods(fx->cl, "default", "hi", cache_capable, 1, &e);
		char lo_prefix[16];
		snprintf(lo_prefix, sizeof(lo_prefix), "lo%d-", cache_capable);
		harness_delete_pods(fx->cl, "default", lo_prefix, 0, 2, &e);
	}
}

/* A non-ignorable preempt extender naming a victim no pod has fails the preemption with
 * upstream's convertPodUIDToPod error (DefaultPreemption's "preemption: " + the error): nothing is
 * evicted, the pod stays pending. */
static void test_preempt_verb_error(void **state)
{
	struct ext_fx *x = *state;
	struct fx *fx = &x->fx;
	struct err e = { 0 };
	pre_pod(fx, "lo2-0", "ext-low", "3", "pre-0");
	pre_pod(fx, "lo2-1", "ext-low", "3", "pre-1");
	csched_with_extenders(x, "pre-err",
			      "- urlPrefix: \"http://127.0.0.1:%1$d/baduid/\"\n"
			      "  preemptVerb: preempt\n"
			      "  nodeCacheCapable: true\n");
	pre_pod(fx, "hi2", "ext-high", "2", NULL);
	char want[256];
	snprintf(want, sizeof(want),
		 "preemption: extender: http://127.0.0.1:%d/baduid/ claims to preempt pod (UID: &{bad-uid}) on node: pre-",
		 x->port);
	struct poll *p = calloc(1, sizeof(*p));
	p->fx = fx;
	p->ns = "default";
	for (int i = 0; i < WAIT_MS / 200; i++) {
		if (poll_read(p, &e) < 0)
			FAILF(fx, "reading pods: %s", e.msg);
		const struct pod_row *r = pod_find(p, "hi2");
		if (r && strstr(r->cond_msg, want))
			break;
		usleep(200 * 1000);
	}
	const struct pod_row *r = pod_find(p, "hi2");
	if (!r || r->node[0] || !strstr(r->cond_msg, want))
		FAILF(fx, "hi2: node \"%s\", PodScheduled \"%s\", want unbound with \"...%s...\"", r ? r->node : "(missing)",
		      r ? r->cond_msg : "", want);
	assert_non_null(pod_find(p, "lo2-0"));
	assert_non_null(pod_find(p, "lo2-1"));
	free(p);
	assert_int_equal(csched_stop(fx), 0);
	harness_delete_pods(fx->cl, "default", "lo2-", 0, 2, &e);
	harness_delete_pods(fx->cl, "default", "hi", 2, 1, &e);
	harness_delete_nodes(fx->cl, "pre-", 0, 2, &e);
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
		cmocka_unit_test(test_preempt_verb),
		cmocka_unit_test(test_preempt_verb_error),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
