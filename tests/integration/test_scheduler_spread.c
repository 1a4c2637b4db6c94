/* PodTopologySpread on a real kube-apiserver + etcd (tests/cluster), csched in-process
 * (scheduler.h) beside upstream's kube-scheduler v1.37.2 (tests/cluster's binary), one cluster:
 *  - 9 nodes in 3 zones (zone-0's with 32 CPUs, the others 8, so that the resource scores alone
 *    would fill zone-0 first); 12 pods of 1 CPU with {maxSkew 1, zone, DoNotSchedule}: all bound,
 *    per-zone counts differ by at most 1; a pod spreading over a key no node has gets upstream's
 *    FailedScheduling message;
 *  - pods owned by a ReplicaSet (ownerReferences controller=true; the ReplicaSet object exists, no
 *    controller manager runs) spread by the system default constraints: csched's placement
 *    histogram (pods per zone, pods per node, sorted) equals upstream kube-scheduler's for a
 *    second ReplicaSet of the same shape scheduled by it (profile "upstream" with the same plugins);
 *    the same for pods selected only by a Service (whose selector is updated before the pods come).
 * Upstream breaks score ties at random, so only the histograms are compared, which hold whatever
 * the tie-breaks choose. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <yajl/yajl_tree.h>

#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "apiclient/api_types.h"
#include "config/config.h"
#include "harness.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NS "t"
#define WAIT_MS 60000
#define N_ZONES 3
#define NODES_PER_ZONE 3
#define N_NODES (N_ZONES * NODES_PER_ZONE)

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;
static struct scheduler *sched;
static struct config cfg;

static void request(const char *method, const char *path, char *out, size_t out_size, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void request(const char *method, const char *path, char *out, size_t out_size, const char *fmt, ...)
{
	char body[8192];
	struct api_response r = { 0 };
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (api_request(conn, method, path, NULL, body, strlen(body), &r, &e) < 0)
		fail_msg("%s %s: %s", method, path, e.msg);
	if (out)
		snprintf(out, out_size, "%.*s", (int)r.len, r.body);
	api_response_release(&r);
}

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (harness_setup(&cluster, 0, &cl, &conn) < 0)
		return -1;
	request("POST", "/api/v1/namespaces", NULL, 0, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" NS "\"}}");
	for (int z = 0; z < N_ZONES; z++)
		for (int i = 0; i < NODES_PER_ZONE; i++) {
			char name[32];
			snprintf(name, sizeof(name), "z%d-n%d", z, i);
			request("POST", "/api/v1/nodes", NULL, 0,
				"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
				"\"kubernetes.io/hostname\":\"%s\",\"topology.kubernetes.io/zone\":\"zone-%d\"}},"
				"\"status\":{\"capacity\":{\"cpu\":\"%s\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
				"\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
				"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
				name, name, z, z ? "8" : "32", z ? "8" : "32");
		}
	if (config_init_default(&cfg, fw_registry(), &e) < 0) {
		fprintf(stderr, "config: %s\n", e.msg);
		return -1;
	}
	struct sched_options o = { .cfg = &cfg, .client = cl };
	if (!(sched = sched_new(&o, &e)) || sched_start_scheduling(sched, &e) < 0 || !sched_wait_synced(sched, 30000)) {
		fprintf(stderr, "scheduler: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sched_free(sched);
	sched = NULL;
	config_free(&cfg);
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}

/* extra_meta / extra_spec: more members (leading comma included), or "" */
static void mk_pod(const char *name, const char *scheduler, const char *cpu, const char *labels, const char *extra_meta,
		   const char *extra_spec)
{
	request("POST", "/api/v1/namespaces/" NS "/pods", NULL, 0,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{%s}%s},\"spec\":{"
		"\"schedulerName\":\"%s\",\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
		"\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":\"128Mi\"}}}]%s}}",
		name, labels, extra_meta, scheduler, cpu, extra_spec);
}

/* The node of pod name: "" while unbound (static storage). */
static const char *node_of(const char *name)
{
	static char buf[256];
	char path[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", name);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) == 0) {
		struct api_pod *p = api_pod_decode_json(r.body, r.len, &e);
		if (p)
			snprintf(buf, sizeof(buf), "%s", p->node_name);
		api_pod_unref(p);
	}
	api_response_release(&r);
	return buf;
}

/* Waits until pods PREFIX0..PREFIX<n-1> are bound; fills per-zone and per-node counts. */
static void wait_placed(const char *prefix, int n, int zone[N_ZONES], int node[N_NODES])
{
	int64_t end = harness_now_ms() + WAIT_MS;
	memset(zone, 0, N_ZONES * sizeof(int));
	memset(node, 0, N_NODES * sizeof(int));
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		const char *where;
		while (!(where = node_of(name))[0]) {
			if (harness_now_ms() > end)
				fail_msg("%s not bound after %d ms", name, WAIT_MS);
			usleep(50 * 1000);
		}
		int z, k;
		if (sscanf(where, "z%d-n%d", &z, &k) != 2 || z < 0 || z >= N_ZONES || k < 0 || k >= NODES_PER_ZONE)
			fail_msg("%s on unexpected node %s", name, where);
		zone[z]++;
		node[z * NODES_PER_ZONE + k]++;
	}
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void histogram(char *out, size_t size, int *counts, int n)
{
	int sorted[N_NODES];
	memcpy(sorted, counts, n * sizeof(int));
	qsort(sorted, n, sizeof(int), cmp_int);
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		len += snprintf(out + len, size - len, "%s%d", i ? "," : "", sorted[i]);
}

/* The FailedScheduling event message of pod name, "" until there is one (static storage). */
static const char *failed_message(const char *name)
{
	static char msg[1100];
	char path[256], errbuf[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	msg[0] = '\0';
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/events?fieldSelector=involvedObject.name%%3D%s", name);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) < 0)
		fail_msg("events: %s", e.msg);
	yajl_val root = yajl_tree_parse(r.body, errbuf, sizeof(errbuf));
	api_response_release(&r);
	const char *items_path[] = { "items", NULL }, *reason_path[] = { "reason", NULL },
		   *message_path[] = { "message", NULL };
	yajl_val items = root ? yajl_tree_get(root, items_path, yajl_t_array) : NULL;
	for (size_t i = 0; items && i < YAJL_GET_ARRAY(items)->len; i++) {
		yajl_val it = YAJL_GET_ARRAY(items)->values[i];
		yajl_val reason = yajl_tree_get(it, reason_path, yajl_t_string);
		yajl_val m = yajl_tree_get(it, message_path, yajl_t_string);
		const char *rs = reason ? YAJL_GET_STRING(reason) : NULL, *ms = m ? YAJL_GET_STRING(m) : NULL;
		if (rs && ms && !strcmp(rs, "FailedScheduling"))
			snprintf(msg, sizeof(msg), "%s", ms);
	}
	yajl_tree_free(root);
	return msg;
}

#define ZONE_SPREAD                                                                                           \
	",\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\","   \
	"\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchLabels\":{\"app\":\"zs\"}}}]"

static void test_zone_spread_do_not_schedule(void **state)
{
	(void)state;
	int zone[N_ZONES], node[N_NODES];
	for (int i = 0; i < 12; i++) {
		char name[32];
		snprintf(name, sizeof(name), "zs-%d", i);
		mk_pod(name, "csched", "1", "\"app\":\"zs\"", "", ZONE_SPREAD);
	}
	wait_placed("zs-", 12, zone, node);
	int lo = zone[0], hi = zone[0];
	for (int z = 1; z < N_ZONES; z++) {
		lo = zone[z] < lo ? zone[z] : lo;
		hi = zone[z] > hi ? zone[z] : hi;
	}
	printf("[ MEASURE  ] zone spread (maxSkew 1, 12 pods): %d/%d/%d\n", zone[0], zone[1], zone[2]);
	assert_true(hi - lo <= 1);

	/* no node has the key: upstream's reason on every node (csched runs no DefaultPreemption, so
	 * the message ends before upstream's " preemption: ..." part, docs/config.md) */
	mk_pod("rack", "csched", "1", "\"app\":\"zs\"", "",
	       ",\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"rack\",\"whenUnsatisfiable\":\"DoNotSchedule\","
	       "\"labelSelector\":{\"matchLabels\":{\"app\":\"zs\"}}}]");
	int64_t end = harness_now_ms() + WAIT_MS;
	while (!failed_message("rack")[0] && harness_now_ms() < end)
		usleep(100 * 1000);
	assert_string_equal(failed_message("rack"),
			    "0/9 nodes are available: 9 node(s) didn't match pod topology spread constraints (missing required label). "
			    "preemption: 0/9 nodes are available: 9 Preemption is not helpful for scheduling.");
	assert_string_equal(node_of("rack"), "");
}

/* Creates ReplicaSet name (selector app=NAME, replicas 0: no controller manager runs anyway) and
 * returns its uid in uid. */
static void mk_replicaset(const char *name, char *uid, size_t size)
{
	char out[4096], errbuf[128];
	request("POST", "/apis/apps/v1/namespaces/" NS "/replicasets", out, sizeof(out),
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"metadata\":{\"name\":\"%s\"},\"spec\":{\"replicas\":0,"
		"\"selector\":{\"matchLabels\":{\"app\":\"%s\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"%s\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\"}]}}}}",
		name, name, name);
	yajl_val root = yajl_tree_parse(out, errbuf, sizeof(errbuf));
	const char *p[] = { "metadata", "uid", NULL };
	yajl_val v = root ? yajl_tree_get(root, p, yajl_t_string) : NULL;
	assert_non_null(v);
	snprintf(uid, size, "%s", YAJL_GET_STRING(v));
	yajl_tree_free(root);
}

/* n pods owned by ReplicaSet rs (labels app=rs), scheduled by scheduler. */
static void mk_rs_pods(const char *rs, const char *scheduler, int n)
{
	char uid[128], meta[512], labels[128];
	mk_replicaset(rs, uid, sizeof(uid));
	snprintf(meta, sizeof(meta),
		 ",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"%s\",\"uid\":\"%s\","
		 "\"controller\":true}]",
		 rs, uid);
	snprintf(labels, sizeof(labels), "\"app\":\"%s\"", rs);
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s-%d", rs, i);
		mk_pod(name, scheduler, "100m", labels, meta, "");
	}
}

/* Upstream kube-scheduler with one profile "upstream" running the plugins csched runs. */
static pid_t start_upstream(void)
{
	struct err e = { 0 };
	char *bin = NULL;
	if (harness_run(&bin, "%s/tests/cluster/bin kube-scheduler 2>/dev/null", CSCHED_SOURCE_DIR) != 0 || !bin || !bin[0])
		return 0;
	bin[strcspn(bin, "\n")] = '\0';
	char cfgp[400], logp[400], cfgarg[420];
	snprintf(cfgp, sizeof(cfgp), "%s/upstream.yaml", cluster.dir);
	snprintf(logp, sizeof(logp), "%s/upstream.log", cluster.dir);
	FILE *f = fopen(cfgp, "w");
	assert_non_null(f);
	fprintf(f,
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
		"clientConnection: {kubeconfig: \"%s\"}\nleaderElection: {leaderElect: false}\n"
		"profiles:\n- schedulerName: upstream\n  plugins:\n    multiPoint:\n      disabled:\n"
		"      - name: InterPodAffinity\n      - name: DefaultPreemption\n      - name: VolumeBinding\n"
		"      - name: VolumeZone\n      - name: NodeVolumeLimits\n",
		cluster.kubeconfig);
	fclose(f);
	snprintf(cfgarg, sizeof(cfgarg), "--config=%s", cfgp);
	char *argv[] = { bin, cfgarg, "--secure-port=0", NULL };
	pid_t pid = harness_spawn(argv, logp, NULL, &e);
	free(bin);
	if (pid < 0)
		fail_msg("kube-scheduler: %s", e.msg);
	return pid;
}

static void test_replicaset_system_defaults_vs_upstream(void **state)
{
	(void)state;
	/* 18 pods on 9 nodes: the hostname constraint (maxSkew 3) and the zone one (maxSkew 5) are
	 * what spreads them; the pods of the other tests are in other selectors and do not count */
	enum { N = 18 };
	int zone[N_ZONES], node[N_NODES], uzone[N_ZONES], unode[N_NODES];
	char hz[64], hn[64], uhz[64], uhn[64];
	mk_rs_pods("web", "csched", N);
	wait_placed("web-", N, zone, node);
	histogram(hz, sizeof(hz), zone, N_ZONES);
	histogram(hn, sizeof(hn), node, N_NODES);
	printf("[ MEASURE  ] csched ReplicaSet spread: zones %s, nodes %s\n", hz, hn);

	struct err e = { 0 };
	pid_t up = start_upstream();
	if (!up)
		skip(); /* no kube-scheduler binary: tests/cluster/bin could not build it */
	mk_rs_pods("webu", "upstream", N);
	wait_placed("webu-", N, uzone, unode);
	histogram(uhz, sizeof(uhz), uzone, N_ZONES);
	histogram(uhn, sizeof(uhn), unode, N_NODES);
	printf("[ MEASURE  ] upstream ReplicaSet spread: zones %s, nodes %s\n", uhz, uhn);
	assert_string_equal(hz, uhz);
	assert_string_equal(hn, uhn);
	/* and the spreading itself: every node got its share */
	assert_string_equal(hn, "2,2,2,2,2,2,2,2,2");

	/* pods owned by nothing but selected by a Service (first created with a selector matching
	 * nothing, then updated: the services index follows the update) */
	static const char *const svcs[2][2] = { { "svc", "csched" }, { "svcu", "upstream" } };
	char svc_hist[2][2][64];
	for (int k = 0; k < 2; k++) {
		char path[128];
		request("POST", "/api/v1/namespaces/" NS "/services", NULL, 0,
			"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
			"\"selector\":{\"app\":\"nothing\"},\"ports\":[{\"port\":80}]}}",
			svcs[k][0]);
		snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/services/%s", svcs[k][0]);
		struct api_response r = { 0 };
		char body[128];
		snprintf(body, sizeof(body), "{\"spec\":{\"selector\":{\"app\":\"%s\"}}}", svcs[k][0]);
		if (api_request(conn, "PATCH", path, "application/merge-patch+json", body, strlen(body), &r, &e) < 0)
			fail_msg("patch service: %s", e.msg);
		api_response_release(&r);
		usleep(1000 * 1000); /* both schedulers' Service informers see the update */
		char labels[64], prefix[32];
		snprintf(labels, sizeof(labels), "\"app\":\"%s\"", svcs[k][0]);
		snprintf(prefix, sizeof(prefix), "%s-", svcs[k][0]);
		for (int i = 0; i < N_NODES; i++) {
			char name[64];
			snprintf(name, sizeof(name), "%s%d", prefix, i);
			mk_pod(name, svcs[k][1], "100m", labels, "", "");
		}
		wait_placed(prefix, N_NODES, zone, node);
		histogram(svc_hist[k][0], sizeof(svc_hist[k][0]), zone, N_ZONES);
		histogram(svc_hist[k][1], sizeof(svc_hist[k][1]), node, N_NODES);
		printf("[ MEASURE  ] %s Service spread: zones %s, nodes %s\n", svcs[k][1], svc_hist[k][0], svc_hist[k][1]);
	}
	kill(up, SIGTERM);
	harness_wait_child(up, 10000, NULL, &e);
	assert_string_equal(svc_hist[0][0], svc_hist[1][0]);
	assert_string_equal(svc_hist[0][1], svc_hist[1][1]);
	assert_string_equal(svc_hist[0][1], "1,1,1,1,1,1,1,1,1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zone_spread_do_not_schedule),
		cmocka_unit_test(test_replicaset_system_defaults_vs_upstream),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
