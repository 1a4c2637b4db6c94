/* csched simulate (scheduler/simulate.c, cmd/simulate.c) against a real kube-apiserver + etcd: a
 * dump taken from the cluster with kubectl (nodes of different sizes in two zones, one tainted,
 * pods already bound, pending pods with zone spreading and anti-affinity, one pod that fits
 * nowhere) is simulated with `csched simulate --dump`; then the real scheduler, started on the
 * same cluster, places the pending pods exactly where the simulation said, and the pod that fits
 * nowhere stays pending in both. The what-ifs (node copies, cordon, drain) and determinism are
 * checked on the same dump. */
#include <setjmp.h>
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

#define NS "sim"
#define PENDING 24

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;

static const char *bin(void)
{
	return CSCHED_BUILD_DIR "/csched";
}

static void request(const char *method, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void request(const char *method, const char *path, const char *fmt, ...)
{
	char body[8192];
	struct err e = { 0 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (api_request(conn, method, path, NULL, body, strlen(body), NULL, &e) < 0)
		fail_msg("%s %s: %s", method, path, e.msg);
}

static void mk_node(const char *name, const char *zone, const char *cpu, const char *mem, const char *taints)
{
	request("POST", "/api/v1/nodes",
		"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\",\"labels\":{"
		"\"kubernetes.io/hostname\":\"%s\",\"topology.kubernetes.io/zone\":\"%s\"}},\"spec\":{\"taints\":[%s]},"
		"\"status\":{\"capacity\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"110\"},"
		"\"allocatable\":{\"cpu\":\"%s\",\"memory\":\"%s\",\"pods\":\"110\"},"
		"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
		name, name, zone, taints, cpu, mem, cpu, mem);
}

/* node "": pending; extra: more members of spec (leading comma included) */
static void mk_pod(const char *name, const char *app, const char *node, const char *cpu, const char *mem,
		   const char *extra)
{
	request("POST", "/api/v1/namespaces/" NS "/pods",
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"app\":\"%s\"}},"
		"\"spec\":{\"schedulerName\":\"csched\"%s%s%s,\"containers\":[{\"name\":\"c\","
		"\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":\"%s\"}}}]%s}}",
		name, app, node[0] ? ",\"nodeName\":\"" : "", node, node[0] ? "\"" : "", cpu, mem, extra);
}

static const char *node_of(const char *name)
{
	static char buf[256];
	char path[256];
	struct api_response r = { 0 };
	struct err e = { 0 };
	snprintf(path, sizeof(path), "/api/v1/namespaces/" NS "/pods/%s", name);
	if (api_request(conn, "GET", path, NULL, NULL, 0, &r, &e) < 0) {
		api_response_release(&r);
		return NULL;
	}
	struct api_pod *p = api_pod_decode_json(r.body, r.len, &e);
	api_response_release(&r);
	if (!p)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", p->node_name ? p->node_name : "");
	api_pod_unref(p);
	return buf;
}

static int setup(void **state)
{
	(void)state;
	struct err e = { 0 };
	if (harness_setup(&cluster, 0, &cl, &conn) < 0)
		return -1;
	if (harness_create_namespace(conn, NS, &e) < 0) {
		fprintf(stderr, "namespace: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}

/* The placements of a simulate -o json run: names[i] -> nodes[i] ("" when not scheduled). */
struct sim {
	int n;
	char names[64][64], nodes[64][64], status[64][32];
};

static void run_simulate(const char *dump, const char *extra, struct sim *out, char **raw)
{
	char *text = NULL;
	int rc = harness_run(&text, "'%s' simulate --dump '%s' -o json %s 2>/dev/null", bin(), dump, extra);
	if (rc != 0)
		fail_msg("csched simulate %s: %d: %s", extra, rc, text);
	char why[256];
	yajl_val root = yajl_tree_parse(text, why, sizeof(why));
	if (!root)
		fail_msg("simulate: not JSON: %s", why);
	const char *pp[] = { "placements", NULL };
	yajl_val pl = yajl_tree_get(root, pp, yajl_t_array);
	assert_non_null(pl);
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < pl->u.array.len && i < 64; i++) {
		yajl_val p = pl->u.array.values[i];
		const char *np[] = { "name", NULL }, *nd[] = { "node", NULL }, *st[] = { "status", NULL };
		yajl_val name = yajl_tree_get(p, np, yajl_t_string), node = yajl_tree_get(p, nd, yajl_t_any),
			 status = yajl_tree_get(p, st, yajl_t_string);
		snprintf(out->names[i], sizeof(out->names[i]), "%s", YAJL_GET_STRING(name));
		snprintf(out->nodes[i], sizeof(out->nodes[i]), "%s", node && YAJL_IS_STRING(node) ? YAJL_GET_STRING(node) : "");
		snprintf(out->status[i], sizeof(out->status[i]), "%s", YAJL_GET_STRING(status));
		out->n++;
	}
	yajl_tree_free(root);
	if (raw)
		*raw = text;
	else
		free(text);
}

static const char *placed(const struct sim *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return s->nodes[i];
	return NULL;
}

static void test_simulate_matches_live_scheduler(void **state)
{
	(void)state;
	struct err e = { 0 };
	/* nodes of different sizes, two zones, one tainted */
	mk_node("sim-a1", "a", "2", "4Gi", "");
	mk_node("sim-a2", "a", "3", "6Gi", "");
	mk_node("sim-a3", "a", "4", "8Gi", "{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":\"NoSchedule\"}");
	mk_node("sim-b1", "b", "5", "10Gi", "");
	mk_node("sim-b2", "b", "6", "12Gi", "");
	mk_node("sim-b3", "b", "7", "14Gi", "");
	/* pods already there (bound directly: no scheduler runs yet) */
	mk_pod("bound-0", "db", "sim-a2", "1", "1Gi", "");
	mk_pod("bound-1", "db", "sim-b2", "2", "3Gi", "");
	mk_pod("bound-2", "web", "sim-b3", "500m", "1Gi", "");
	/* pending pods: plain, spread over zones, anti-affine to db, and one that fits nowhere */
	static const char *const cpus[] = { "100m", "250m", "400m", "700m", "900m", "1200m" };
	for (int i = 0; i < PENDING; i++) {
		char name[32], mem[16];
		snprintf(name, sizeof(name), "p-%02d", i);
		snprintf(mem, sizeof(mem), "%dMi", 128 * (1 + i % 5));
		const char *extra = "";
		const char *app = "web";
		if (i % 3 == 1) {
			app = "spread";
			extra = ",\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\","
				"\"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchLabels\":{\"app\":\"spread\"}}}]";
		} else if (i % 3 == 2) {
			extra = ",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
				"\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}";
		}
		mk_pod(name, app, "", cpus[i % 6], mem, extra);
	}
	mk_pod("p-zz-huge", "web", "", "64", "1Gi", "");

	/* the dump, as an operator would take it */
	char dump[400];
	snprintf(dump, sizeof(dump), "%s/dump.json", cluster.dir);
	char *out = NULL;
	int rc = harness_kubectl(cluster.kubeconfig, NULL, &out,
				 "get nodes,pods,namespaces,pvc,pdb,services,replicasets,statefulsets,replicationcontrollers "
				 "-A -o json > '%s'",
				 dump);
	if (rc != 0)
		fail_msg("kubectl get: %s", out);
	free(out);

	struct sim sim, again;
	char *raw = NULL, *raw2 = NULL;
	run_simulate(dump, "", &sim, &raw);
	assert_int_equal(sim.n, PENDING + 1);
	/* deterministic: the same input, the same output */
	run_simulate(dump, "", &again, &raw2);
	assert_string_equal(raw, raw2);
	free(raw);
	free(raw2);
	assert_string_equal(placed(&sim, "p-zz-huge"), "");

	/* the real scheduler on the same cluster */
	struct config cfg;
	if (config_init_default(&cfg, fw_registry(), &e) < 0)
		fail_msg("config: %s", e.msg);
	struct sched_options so = { .cfg = &cfg, .client = cl, .binders = 4 };
	struct scheduler *s = sched_new(&so, &e);
	if (!s || sched_start_scheduling(s, &e) < 0)
		fail_msg("scheduler: %s", e.msg);
	int64_t end = harness_now_ms() + 60000;
	struct sched_stats st;
	do {
		sched_stats(s, &st);
		if (st.scheduled >= PENDING && st.unschedulable >= 1)
			break;
		usleep(50 * 1000);
	} while (harness_now_ms() < end);
	assert_int_equal(st.scheduled, PENDING);
	int same = 0;
	for (int i = 0; i < PENDING; i++) {
		char name[32];
		snprintf(name, sizeof(name), "p-%02d", i);
		const char *want = placed(&sim, name);
		assert_non_null(want);
		const char *got = NULL;
		for (int64_t t = harness_now_ms() + 10000; harness_now_ms() < t; usleep(50 * 1000))
			if ((got = node_of(name)) && got[0])
				break;
		if (!got || strcmp(got, want) != 0)
			fail_msg("%s: the scheduler bound it to %s, the simulation said %s", name, got ? got : "(none)", want);
		same++;
	}
	printf("simulate: %d of %d pods placed where the live scheduler bound them\n", same, PENDING);
	assert_string_equal(node_of("p-zz-huge"), "");
	sched_free(s);
	config_free(&cfg);

	/* what-ifs on the same dump */
	struct sim w;
	run_simulate(dump, "--cordon sim-b3 --cordon sim-b2", &w, NULL);
	for (int i = 0; i < w.n; i++)
		assert_true(strcmp(w.nodes[i], "sim-b3") && strcmp(w.nodes[i], "sim-b2"));
	run_simulate(dump, "--drain sim-b2", &w, NULL);
	assert_int_equal(w.n, PENDING + 2); /* bound-1 is re-placed too */
	assert_non_null(placed(&w, "bound-1"));
	for (int i = 0; i < w.n; i++)
		assert_true(strcmp(w.nodes[i], "sim-b2") != 0);
	run_simulate(dump, "--add-node sim-b3=3", &w, NULL);
	int on_copies = 0;
	for (int i = 0; i < w.n; i++)
		on_copies += strncmp(w.nodes[i], "sim-b3-sim-", 11) == 0;
	assert_true(on_copies > 0);
	/* bad what-ifs name the node */
	rc = harness_run(&out, "'%s' simulate --dump '%s' --cordon nope", bin(), dump);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "--cordon: node \"nope\" is not in the dump"));
	free(out);
	/* the table, and the chart */
	char svg[400];
	snprintf(svg, sizeof(svg), "%s/chart.svg", cluster.dir);
	rc = harness_run(&out, "'%s' simulate --dump '%s' --svg '%s' 2>/dev/null", bin(), dump, svg);
	assert_int_equal(rc, 0);
	FILE *sf = fopen(svg, "r");
	assert_non_null(sf);
	char head[64] = "";
	assert_non_null(fgets(head, sizeof(head), sf));
	fclose(sf);
	assert_true(strncmp(head, "<svg ", 5) == 0);
	assert_non_null(strstr(out, "Placements, in scheduling order:"));
	assert_non_null(strstr(out, "sim/p-zz-huge"));
	assert_non_null(strstr(out, "Node utilization"));
	printf("%s", out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simulate_matches_live_scheduler),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
