/* csched simulate (scheduler/simulate.c) on a scheduler that is never started: a dump in memory,
 * placements checked against upstream's (tests/oracle, upstream v1.37.2's own code, default
 * configuration), one placement after another:
 *  - state A of test_scheduler_explain.c (n1 cpu 2, n2 cpu 4 holding a 1-cpu pod, n3 tainted) and
 *    three pods of 500m/512Mi: the first goes to n1 (totals n1 452, n2 444); with it bound to n1,
 *    the second to n2 (n1 434, n2 444); with that one bound to n2 too, the third to n2 (n1 434,
 *    n2 435). The queue's order: the pod of priority 10 first, then as listed.
 * Also: kinds the scheduler does not read and Succeeded pods in the dump are skipped; the
 * what-ifs name a node missing from the dump; a dump that is not a List is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_client.h"
#include "config/config.h"
#include "scheduler/scheduler.h"
#include "scheduler/simulate.h"

struct fixture {
	struct api_client *client;
	struct scheduler *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	cfg.server = strdup("http://127.0.0.1:1"); /* never contacted */
	assert_int_equal(api_global_init(&e), 0);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	struct sched_options o = { .client = f->client, .binders = 1 };
	if (!(f->s = sched_new(&o, &e)))
		fail_msg("sched_new: %s", e.msg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	sched_free(f->s);
	api_client_free(f->client);
	free(f);
	return 0;
}

#define NODE(name, zone, cpu, mem, taints)                                                                        \
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" name "\",\"uid\":\"u-" name "\","      \
	"\"labels\":{\"kubernetes.io/hostname\":\"" name "\",\"topology.kubernetes.io/zone\":\"" zone "\"}},"        \
	"\"spec\":{\"taints\":[" taints "]},\"status\":{\"allocatable\":{\"cpu\":\"" cpu "\",\"memory\":\"" mem "\"," \
	"\"pods\":\"110\"}}}"
#define POD(name, node, prio, cpu, mem, phase)                                                                      \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\","     \
	"\"uid\":\"u-" name "\"},\"spec\":{\"schedulerName\":\"csched\",\"nodeName\":\"" node "\",\"priority\":" prio \
	",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{\"requests\":{\"cpu\":\"" cpu "\","    \
	"\"memory\":\"" mem "\"}}}]},\"status\":{\"phase\":\"" phase "\"}}"

static const char dump[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	NODE("n1", "a", "2", "4Gi", "") ","
	NODE("n2", "b", "4", "8Gi", "") ","
	NODE("n3", "b", "8", "16Gi", "{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}") ","
	POD("busy", "n2", "0", "1", "1Gi", "Running") ","
	POD("done", "n1", "0", "2", "4Gi", "Succeeded") "," /* the informer's field selector drops it */
	"{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":\"standard\"}},"
	POD("a", "", "0", "500m", "512Mi", "Pending") ","
	POD("b", "", "0", "500m", "512Mi", "Pending") ","
	POD("c", "", "10", "500m", "512Mi", "Pending")
	"]}";

static yajl_val simulate(struct fixture *f, const struct sched_sim_request *in)
{
	struct sched_sim_request rq = *in;
	char *out = NULL, why[256];
	size_t len = 0;
	struct err e = { 0 };
	rq.dump = dump;
	rq.dump_len = strlen(dump);
	rq.json = true;
	if (sched_simulate(f->s, &rq, &out, &len, &e) < 0)
		fail_msg("simulate: %s", e.msg);
	yajl_val v = yajl_tree_parse(out, why, sizeof(why));
	if (!v)
		fail_msg("not JSON: %s\n%s", why, out);
	free(out);
	return v;
}

static const char *str_at(yajl_val v, const char *a, const char *b, const char *c)
{
	const char *p[] = { a, b, c, NULL };
	yajl_val s = yajl_tree_get(v, p, yajl_t_string);
	return s ? YAJL_GET_STRING(s) : NULL;
}

static void test_placements_follow_upstream(void **state)
{
	struct fixture *f = *state;
	struct sched_sim_request rq = { 0 };
	yajl_val root = simulate(f, &rq);
	const char *pp[] = { "placements", NULL };
	yajl_val pl = yajl_tree_get(root, pp, yajl_t_array);
	assert_non_null(pl);
	assert_int_equal(pl->u.array.len, 3);
	static const struct {
		const char *pod, *node;
		long long total;
	} want[] = { { "c", "n1", 452 }, { "a", "n2", 444 }, { "b", "n2", 435 } };
	for (size_t i = 0; i < 3; i++) {
		yajl_val p = pl->u.array.values[i];
		assert_string_equal(str_at(p, "name", NULL, NULL), want[i].pod);
		assert_string_equal(str_at(p, "status", NULL, NULL), "Scheduled");
		assert_string_equal(str_at(p, "node", NULL, NULL), want[i].node);
		/* explain's detail: the chosen node's total */
		assert_string_equal(str_at(p, "explanation", "result", "chosenNode"), want[i].node);
		const char *rp[] = { "explanation", "nodeResults", NULL };
		yajl_val rows = yajl_tree_get(p, rp, yajl_t_array);
		bool found = false;
		for (size_t k = 0; rows && k < rows->u.array.len; k++) {
			yajl_val r = rows->u.array.values[k];
			if (strcmp(str_at(r, "name", NULL, NULL), want[i].node))
				continue;
			const char *tp[] = { "total", NULL };
			assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(r, tp, yajl_t_number)), want[i].total);
			found = true;
		}
		assert_true(found);
	}
	/* utilization: n2 before = busy's 1 cpu, after + 2 x 500m */
	const char *up[] = { "utilization", NULL };
	yajl_val u = yajl_tree_get(root, up, yajl_t_array);
	assert_int_equal(u->u.array.len, 3);
	yajl_val n2 = u->u.array.values[1];
	assert_string_equal(str_at(n2, "node", NULL, NULL), "n2");
	const char *b[] = { "cpuRequestedMillisBefore", NULL }, *a[] = { "cpuRequestedMillisAfter", NULL },
		   *pb[] = { "podsBefore", NULL }, *pa[] = { "podsAfter", NULL };
	assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(n2, b, yajl_t_number)), 1000);
	assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(n2, a, yajl_t_number)), 2000);
	assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(n2, pb, yajl_t_number)), 1);
	assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(n2, pa, yajl_t_number)), 3);
	yajl_tree_free(root);
}

/* n1 cordoned: all three go to n2, the only other untainted node (3 cpus free). */
static void test_cordon(void **state)
{
	struct fixture *f = *state;
	struct sched_sim_request rq = { .n_cordon = 1, .cordon = { "n1" } };
	yajl_val root = simulate(f, &rq);
	const char *pp[] = { "placements", NULL };
	yajl_val pl = yajl_tree_get(root, pp, yajl_t_array);
	assert_string_equal(str_at(pl->u.array.values[0], "node", NULL, NULL), "n2");
	assert_string_equal(str_at(pl->u.array.values[1], "node", NULL, NULL), "n2");
	assert_string_equal(str_at(pl->u.array.values[2], "node", NULL, NULL), "n2");
	yajl_tree_free(root);
}

/* --pods: only those pods are placed (the dump's pending ones stay as they are): state A's pod goes
 * to n1 (oracle: n1 452, n2 444). */
static void test_pods_file(void **state)
{
	struct fixture *f = *state;
	static const char pods[] = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" POD("d", "", "0", "500m", "512Mi", "Pending") "]}";
	struct sched_sim_request rq = { .pods = pods, .pods_len = strlen(pods) };
	yajl_val root = simulate(f, &rq);
	const char *pp[] = { "placements", NULL };
	yajl_val pl = yajl_tree_get(root, pp, yajl_t_array);
	assert_int_equal(pl->u.array.len, 1);
	assert_string_equal(str_at(pl->u.array.values[0], "name", NULL, NULL), "d");
	assert_string_equal(str_at(pl->u.array.values[0], "node", NULL, NULL), "n1");
	yajl_tree_free(root);
}

/* --pods as a user writes them for kubectl: no uid (the server would assign one) and, for the
 * second, no namespace (kubectl's default). Both are placed, as two pods: the one uid csched
 * derives for each must differ, or the second would replace the first in the queue. Each
 * is the only pod placed on state A, so it goes where test_pods_file's "d" goes (n1; oracle
 * n1 452, n2 444) and the second follows it there: n1 has room for both. */
static void test_pods_file_as_written(void **state)
{
	struct fixture *f = *state;
	static const char pods[] =
		"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"w1\",\"namespace\":\"default\"},"
		"\"spec\":{\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
		"\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}},"
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"w2\"},"
		"\"spec\":{\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
		"\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}}}]}}]}";
	struct sched_sim_request rq = { .pods = pods, .pods_len = strlen(pods) };
	yajl_val root = simulate(f, &rq);
	const char *pp[] = { "placements", NULL };
	yajl_val pl = yajl_tree_get(root, pp, yajl_t_array);
	assert_int_equal(pl->u.array.len, 2);
	assert_string_equal(str_at(pl->u.array.values[0], "name", NULL, NULL), "w1");
	assert_string_equal(str_at(pl->u.array.values[0], "status", NULL, NULL), "Scheduled");
	assert_string_equal(str_at(pl->u.array.values[0], "node", NULL, NULL), "n1");
	assert_string_equal(str_at(pl->u.array.values[1], "name", NULL, NULL), "w2");
	assert_string_equal(str_at(pl->u.array.values[1], "namespace", NULL, NULL), "default");
	assert_string_equal(str_at(pl->u.array.values[1], "status", NULL, NULL), "Scheduled");
	const char *u1 = str_at(pl->u.array.values[0], "explanation", "pod", "uid"),
		   *u2 = str_at(pl->u.array.values[1], "explanation", "pod", "uid");
	assert_non_null(u1);
	assert_non_null(u2);
	assert_string_not_equal(u1, u2);
	yajl_tree_free(root);
}

/* Nothing to place: no placement, the utilization unchanged. */
static void test_nothing_to_place(void **state)
{
	struct fixture *f = *state;
	static const char none[] = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}";
	struct sched_sim_request rq = { .pods = none, .pods_len = strlen(none) };
	yajl_val root = simulate(f, &rq);
	const char *pp[] = { "placements", NULL }, *up[] = { "utilization", NULL };
	assert_int_equal(yajl_tree_get(root, pp, yajl_t_array)->u.array.len, 0);
	assert_int_equal(yajl_tree_get(root, up, yajl_t_array)->u.array.len, 3);
	yajl_tree_free(root);
}

/* --svg: four bars per node (CPU and memory, before and after), each titled with its value. */
static void test_svg_chart(void **state)
{
	struct fixture *f = *state;
	char *out = NULL, *svg = NULL;
	size_t len = 0, svg_len = 0;
	struct err e = { 0 };
	struct sched_sim_request rq = { .dump = dump, .dump_len = strlen(dump), .svg = &svg, .svg_len = &svg_len };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), 0);
	assert_non_null(svg);
	assert_int_equal(strlen(svg), svg_len);
	static const char open_tag[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" ";
	assert_true(strncmp(svg, open_tag, strlen(open_tag)) == 0);
	assert_non_null(strstr(svg, "</svg>\n"));
	int bars = 0;
	for (const char *p = svg; (p = strstr(p, "<title>")); p++)
		bars++;
	assert_int_equal(bars, 3 * 4);
	/* n2: 1 of 4 cpus before, 2 after */
	assert_non_null(strstr(svg, "<title>n2 CPU before: 25.0%</title>"));
	assert_non_null(strstr(svg, "<title>n2 CPU after: 50.0%</title>"));
	free(svg);
	free(out);
}

static void test_bad_input(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	size_t len = 0;
	struct err e = { 0 };
	struct sched_sim_request rq = { .dump = dump, .dump_len = strlen(dump), .n_drain = 1, .drain = { "n9" } };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "--drain: node \"n9\" is not in the dump");
	rq = (struct sched_sim_request){ .dump = dump, .dump_len = strlen(dump), .add_node = "n9", .add_count = 1 };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "--add-node: node \"n9\" is not in the dump");
	rq = (struct sched_sim_request){ .dump = "{\"kind\":\"Node\"}", .dump_len = 15 };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "dump: not a v1 List (no items)");
	rq = (struct sched_sim_request){ .dump = "{\"items\":[", .dump_len = 10 };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), ERR_INVALID);
	assert_non_null(strstr(e.msg, "dump: not JSON"));
	assert_null(out);
	/* a JSON pods file holds Pods only, as a YAML one (apiclient/manifest.c's message): a
	 * Deployment is not placed silently as nothing */
	static const char deploy[] = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
		POD("d", "", "0", "500m", "512Mi", "Pending") ","
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"}}]}";
	rq = (struct sched_sim_request){ .dump = dump, .dump_len = strlen(dump), .pods = deploy, .pods_len = strlen(deploy) };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "pods: item 2: kind Deployment web: only kind Pod is accepted here");
	assert_null(out);
	static const char one[] = "{\"metadata\":{\"name\":\"x\"}}";
	rq = (struct sched_sim_request){ .dump = dump, .dump_len = strlen(dump), .pods = one, .pods_len = strlen(one) };
	assert_int_equal(sched_simulate(f->s, &rq, &out, &len, &e), ERR_INVALID);
	assert_string_equal(e.msg, "pods: no kind x: only kind Pod is accepted here");
	assert_null(out);
}

/* A pod whose ResourceClaim fits no node (issue 23, beyond upstream): the placement's
 * explanation carries DynamicResources' detail per node (scheduler/explain.c's
 * nodeResults[].details, from dra_allocator_diagnose), beside upstream's "cannot allocate all
 * claims". n1 publishes one GPU, already allocated to default/held; n2 publishes none. */
static const char dra_dump[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
	NODE("n1", "a", "2", "4Gi", "") ","
	NODE("n2", "b", "4", "8Gi", "") ","
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"DeviceClass\",\"metadata\":{\"name\":\"gpu\"},\"spec\":{"
	"\"selectors\":[{\"cel\":{\"expression\":\"device.driver == 'gpu.example.com'\"}}]}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{\"name\":\"n1-gpus\"},\"spec\":{"
	"\"driver\":\"gpu.example.com\",\"pool\":{\"name\":\"n1\",\"generation\":1,\"resourceSliceCount\":1},"
	"\"nodeName\":\"n1\",\"devices\":[{\"name\":\"gpu-0\"}]}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"held\","
	"\"namespace\":\"default\",\"uid\":\"u-held\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"g\",\"exactly\":{"
	"\"deviceClassName\":\"gpu\",\"allocationMode\":\"ExactCount\",\"count\":1}}]}},\"status\":{\"allocation\":{"
	"\"devices\":{\"results\":[{\"request\":\"g\",\"driver\":\"gpu.example.com\",\"pool\":\"n1\",\"device\":\"gpu-0\"}]}}}},"
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"want\","
	"\"namespace\":\"default\",\"uid\":\"u-want\"},\"spec\":{\"devices\":{\"requests\":[{\"name\":\"g\",\"exactly\":{"
	"\"deviceClassName\":\"gpu\",\"allocationMode\":\"ExactCount\",\"count\":1}}]}}},"
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"gpu-pod\",\"namespace\":\"default\","
	"\"uid\":\"u-gpu-pod\"},\"spec\":{\"schedulerName\":\"csched\",\"resourceClaims\":[{\"name\":\"g\","
	"\"resourceClaimName\":\"want\"}],\"containers\":[{\"name\":\"c\",\"image\":\"nginx\",\"resources\":{"
	"\"claims\":[{\"name\":\"g\"}]}}]},\"status\":{\"phase\":\"Pending\"}}"
	"]}";

static void test_dra_details(void **state)
{
	struct fixture *f = *state;
	struct sched_sim_request rq = { .dump = dra_dump, .dump_len = strlen(dra_dump), .json = true };
	char *out = NULL, why[256];
	size_t len = 0;
	struct err e = { 0 };
	if (sched_simulate(f->s, &rq, &out, &len, &e) < 0)
		fail_msg("simulate: %s", e.msg);
	yajl_val root = yajl_tree_parse(out, why, sizeof(why));
	if (!root)
		fail_msg("not JSON: %s\n%s", why, out);
	const char *pp[] = { "placements", NULL };
	yajl_val pl = yajl_tree_get(root, pp, yajl_t_array);
	assert_non_null(pl);
	assert_int_equal(pl->u.array.len, 1);
	yajl_val p = pl->u.array.values[0];
	assert_string_equal(str_at(p, "status", NULL, NULL), "Unschedulable");
	const char *rp[] = { "explanation", "nodeResults", NULL };
	yajl_val rows = yajl_tree_get(p, rp, yajl_t_array);
	assert_non_null(rows);
	int seen = 0;
	for (size_t i = 0; i < rows->u.array.len; i++) {
		yajl_val r = rows->u.array.values[i];
		const char *name = str_at(r, "name", NULL, NULL);
		const char *dp[] = { "details", NULL };
		yajl_val d = yajl_tree_get(r, dp, yajl_t_array);
		assert_string_equal(str_at(r, "plugin", NULL, NULL), "DynamicResources");
		assert_non_null(d);
		assert_int_equal(d->u.array.len, 1);
		const char *line = YAJL_GET_STRING(d->u.array.values[0]);
		if (strcmp(name, "n1") == 0) {
			assert_string_equal(line, "claim default/want, request g (class gpu): 0 of 1 devices usable, 1 needed: 1 "
						  "already allocated (to claims default/held)");
			seen++;
		} else if (strcmp(name, "n2") == 0) {
			assert_string_equal(line, "claim default/want, request g (class gpu): no device on this node's resource pools");
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	yajl_tree_free(root);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_placements_follow_upstream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cordon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pods_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pods_file_as_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_svg_chart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dra_details, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
