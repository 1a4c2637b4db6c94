/* Throughput of the whole scheduler, in-process, against a real kube-apiserver + etcd started with
 * upstream scheduler_perf's flags (HARNESS_BENCH): 500 nodes and 5000 pods of scheduler_perf's
 * default templates (harness_create_nodes/pods), created while csched runs. Prints the time from
 * the first pod created to the last pod bound and checks every pod is bound with no node over
 * its pod or resource capacity. The profile is named default-scheduler because the harness's pods
 * carry no schedulerName; the client has no rate limit (as scheduler_perf's qps 5000). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "apiclient/api_types.h"
#include "config/config.h"
#include "harness.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define NODES 500
#define PODS 5000

struct tally {
	long pods, bound;
	struct {
		const char *node; /* interned */
		long pods, cpu, mem;
	} per[NODES];
	int n_nodes;
};

static int count_pod(void *ctx, struct yajl_val_s *item)
{
	struct tally *t = ctx;
	struct err e = { 0 };
	struct api_pod *p = api_pod_decode(item, &e);
	if (!p)
		return -1;
	t->pods++;
	if (p->node_name[0]) {
		t->bound++;
		int i;
		for (i = 0; i < t->n_nodes && t->per[i].node != p->node_name; i++)
			;
		if (i == t->n_nodes && t->n_nodes < NODES) {
			t->per[i].node = p->node_name;
			t->n_nodes++;
		}
		if (i < NODES) {
			t->per[i].pods++;
			t->per[i].cpu += p->containers[0].requests.cpu;
			t->per[i].mem += p->containers[0].requests.memory;
		}
	}
	api_pod_unref(p);
	return 0;
}

static void test_5000_pods_500_nodes(void **state)
{
	(void)state;
	struct harness_cluster c;
	struct err e = { 0 };
	struct config cfg = { 0 };
	static const char yaml[] = "apiVersion: kubescheduler.config.k8s.io/v1\n"
				   "kind: KubeSchedulerConfiguration\n"
				   "leaderElection: {leaderElect: false}\n"
				   "profiles:\n"
				   "- schedulerName: default-scheduler\n";
	if (harness_cluster_start(&c, HARNESS_BENCH, &e) < 0)
		fail_msg("cluster: %s", e.msg);
	struct api_client *cl = harness_client_new(&c, NULL, &e);
	assert_non_null(cl);
	if (config_load_buffer(&cfg, fw_registry(), "scale.yaml", yaml, sizeof(yaml) - 1, &e) < 0)
		fail_msg("config: %s", e.msg);
	if (harness_create_nodes(cl, "node-", 0, NODES, &e) < 0)
		fail_msg("nodes: %s", e.msg);

	struct sched_options o = { .cfg = &cfg, .client = cl };
	struct scheduler *s = sched_new(&o, &e);
	if (!s)
		fail_msg("sched_new: %s", e.msg);
	assert_int_equal(sched_start_scheduling(s, &e), 0);
	assert_true(sched_wait_synced(s, 30000));

	int64_t t0 = harness_now_ms();
	if (harness_create_pods(cl, "default", "pod-", 0, PODS, &e) < 0)
		fail_msg("pods: %s", e.msg);
	int64_t t_created = harness_now_ms();
	struct sched_stats st;
	int64_t end = t0 + 600000;
	do {
		sched_stats(s, &st);
		if (st.scheduled >= PODS)
			break;
		usleep(20 * 1000);
	} while (harness_now_ms() < end);
	int64_t t_bound = harness_now_ms();
	double secs = (double)(t_bound - t0) / 1000.0;
	printf("[ MEASURE  ] %d pods on %d nodes: pods created in %.2f s; first pod created -> last pod bound "
	       "%.2f s (%.0f pods/s); attempts %llu, errors %llu, events sent %llu (dropped %llu)\n",
	       PODS, NODES, (double)(t_created - t0) / 1000.0, secs, PODS / (secs > 0 ? secs : 1),
	       (unsigned long long)st.attempts, (unsigned long long)st.errors, (unsigned long long)st.events_sent,
	       (unsigned long long)st.events_dropped);
	assert_int_equal(st.scheduled, PODS);

	struct tally *t = calloc(1, sizeof(*t));
	struct api_conn *conn = api_conn_new(cl, &e);
	assert_non_null(t);
	assert_non_null(conn);
	if (harness_list(conn, "/api/v1/namespaces/default/pods", count_pod, t, NULL, &e) < 0)
		fail_msg("list: %s", e.msg);
	assert_int_equal(t->pods, PODS);
	assert_int_equal(t->bound, PODS);
	/* scheduler_perf's node: 110 pods, 4 cpu, 32Gi; pod: 100m, 500Mi */
	for (int i = 0; i < t->n_nodes; i++) {
		assert_true(t->per[i].pods <= 110);
		assert_true(t->per[i].cpu <= 4000);
		assert_true(t->per[i].mem <= 32LL * 1024 * 1024 * 1024);
	}
	printf("[ MEASURE  ] pods spread over %d nodes\n", t->n_nodes);
	free(t);
	sched_free(s);

	/* Throughput without the creation bottleneck: 5000 more pods created while no scheduler
	 * runs, then a fresh scheduler (LIST of 10000 pods, 5000 pending) from start to last bind. */
	if (harness_create_pods(cl, "default", "late-", 0, PODS, &e) < 0)
		fail_msg("pods: %s", e.msg);
	int64_t t_start = harness_now_ms();
	assert_non_null(s = sched_new(&o, &e));
	assert_int_equal(sched_start_scheduling(s, &e), 0);
	assert_true(sched_wait_synced(s, 60000));
	int64_t t_synced = harness_now_ms();
	end = t_start + 600000;
	do {
		sched_stats(s, &st);
		if (st.scheduled >= PODS)
			break;
		usleep(20 * 1000);
	} while (harness_now_ms() < end);
	t_bound = harness_now_ms();
	secs = (double)(t_bound - t_synced) / 1000.0;
	printf("[ MEASURE  ] %d pending pods (10000 listed) on %d nodes: start -> synced %.2f s, synced -> last pod "
	       "bound %.2f s (%.0f pods/s)\n",
	       PODS, NODES, (double)(t_synced - t_start) / 1000.0, secs, PODS / (secs > 0 ? secs : 1));
	assert_int_equal(st.scheduled, PODS);
	assert_int_equal(st.errors, 0);
	api_conn_free(conn);
	sched_free(s);
	config_free(&cfg);
	api_client_free(cl);
	harness_cluster_stop(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_5000_pods_500_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
