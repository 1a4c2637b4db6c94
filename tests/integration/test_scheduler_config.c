/* The csched binary (CSCHED_BUILD_DIR/csched) configured from files, scheduling on a real
 * kube-apiserver + etcd (tests/cluster), one fresh cluster per test:
 *  - two profiles in one process from a KubeSchedulerConfiguration (--config): "csched-binpack"
 *    (NodeResourcesFit MostAllocated) packs its pods onto one node while "csched" (the default
 *    LeastAllocated + BalancedAllocation) spreads its pods evenly; every Scheduled event names the
 *    profile that bound the pod as reportingController;
 *  - the seed Policy file of issue #4 (--policy-config-file), JSON and YAML: --write-config-to shows
 *    the mapped profile (identical for both), and against the cluster each predicate rejects with
 *    upstream's FitError message (condition and FailedScheduling event) while the priorities spread.
 *
 * Node pools are separated by the label csched-test (harness_label_nodes) and pods pick a pool with
 * a nodeSelector, so that every placement and message asserted below is exact: the expected
 * scores are worked out at each test. Upstream breaks score ties at random, so the tests only
 * assert what holds whatever the tie-breaks choose. */
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

/* ---------- the csched child ---------- */

/* csched's --write-config-to output for args (e.g. "--config=F"), or NULL; *rc gets the exit code. */
static char *written_config(const struct fx *fx, const char *args, int *rc)
{
	char outp[400];
	char *out = NULL;
	snprintf(outp, sizeof(outp), "%s/written.yaml", fx->c.dir);
	unlink(outp);
	*rc = harness_run(&out, "'%s' %s --write-config-to='%s'", CSCHED_BUILD_DIR "/csched", args, outp);
	if (*rc != 0) {
		fprintf(stderr, "csched %s: exit %d: %s\n", args, *rc, out ? out : "");
		free(out);
		return NULL;
	}
	free(out);
	return slurp(outp);
}

/* ---------- objects ---------- */

/* One pause container requesting cpu and 500Mi memory; spec_extra (members of spec, each followed by
 * a comma) and ctr_extra (members of the container, each preceded by a comma) may be "". */
static int pod_create(struct fx *fx, const char *ns, const char *name, const char *sched, const char *cpu,
		      const char *spec_extra, const char *ctr_extra, struct err *e)
{
	char path[256], body[2048];
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods", ns);
	int n = snprintf(body, sizeof(body),
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},\"spec\":{"
			 "\"schedulerName\":\"%s\",%s\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\","
			 "\"resources\":{\"requests\":{\"cpu\":\"%s\",\"memory\":\"500Mi\"}}%s}]}}",
			 name, sched, spec_extra, cpu, ctr_extra);
	int rc = api_request(fx->conn, "POST", path, NULL, body, (size_t)n, NULL, e);
	if (rc)
		err_prefix(e, "creating pod %s/%s", ns, name);
	return rc;
}

#define POD_CREATE(fx, ns, name, sched, cpu, spec_extra, ctr_extra)                                    \
	do {                                                                                           \
		struct err e_ = { 0 };                                                                 \
		if (pod_create(fx, ns, name, sched, cpu, spec_extra, ctr_extra, &e_) < 0)              \
			FAILF(fx, "%s", e_.msg);                                                       \
	} while (0)

/* ---------- reading pods and events ---------- */

struct want_unsched {
	const char *pod, *msg;
};

/* Condition PodScheduled=False/Unschedulable with the message, and the matching FailedScheduling
 * event from csched; list ends with pod NULL. */
static bool ok_unsched(struct poll *p)
{
	for (const struct want_unsched *w = p->arg; w->pod; w++) {
		const struct pod_row *r = pod_find(p, w->pod);
		if (!r || r->node[0] || strcmp(r->cond_status, "False") || strcmp(r->cond_reason, "Unschedulable") ||
		    strcmp(r->cond_msg, w->msg)) {
			snprintf(p->why, sizeof(p->why), "pod %s: node \"%s\", PodScheduled \"%s\" \"%s\" \"%s\", want False Unschedulable \"%s\"",
				 w->pod, r ? r->node : "(missing)", r ? r->cond_status : "", r ? r->cond_reason : "",
				 r ? r->cond_msg : "", w->msg);
			return false;
		}
		bool found = false;
		for (size_t i = 0; i < p->n_evs && !found; i++) {
			const struct ev_row *v = &p->evs[i];
			found = !strcmp(v->name, w->pod) && !strcmp(v->type, "Warning") &&
				!strcmp(v->reason, "FailedScheduling") && !strcmp(v->controller, "csched") &&
				!strcmp(v->note, w->msg);
		}
		if (!found) {
			snprintf(p->why, sizeof(p->why), "no FailedScheduling event from csched for %s with note \"%s\"", w->pod,
				 w->msg);
			return false;
		}
	}
	return true;
}

/* Every bound pod in the list (NULL-terminated pod names, sched = its profile) has upstream's
 * Scheduled event reported by its profile, and no event from another controller. */
struct want_scheduled {
	const char *const *pods;
	const char *const *profiles; /* per pod */
};

static bool ok_scheduled_events(struct poll *p)
{
	const struct want_scheduled *w = p->arg;
	for (size_t k = 0; w->pods[k]; k++) {
		const struct pod_row *r = pod_find(p, w->pods[k]);
		const char *prof = w->profiles[k];
		char note[256], inst[128];
		if (!r || !r->node[0]) {
			snprintf(p->why, sizeof(p->why), "pod %s not bound", w->pods[k]);
			return false;
		}
		snprintf(note, sizeof(note), "Successfully assigned %s/%s to %s", p->ns, r->name, r->node);
		snprintf(inst, sizeof(inst), "%s-", prof);
		bool found = false;
		for (size_t i = 0; i < p->n_evs; i++) {
			const struct ev_row *v = &p->evs[i];
			if (strcmp(v->name, r->name) != 0)
				continue;
			if (strcmp(v->controller, prof) != 0) {
				snprintf(p->why, sizeof(p->why), "pod %s (profile %s): event %s reported by \"%s\"", r->name, prof,
					 v->reason, v->controller);
				return false;
			}
			found |= !strcmp(v->type, "Normal") && !strcmp(v->reason, "Scheduled") && !strcmp(v->note, note) &&
				 !strncmp(v->instance, inst, strlen(inst));
		}
		if (!found) {
			snprintf(p->why, sizeof(p->why), "no Scheduled event \"%s\" from %s", note, prof);
			return false;
		}
	}
	return true;
}

static bool ok_no_pods(struct poll *p)
{
	if (p->n_pods) {
		snprintf(p->why, sizeof(p->why), "%zu pods left, e.g. %s", p->n_pods, p->pods[0].name);
		return false;
	}
	return true;
}

/* Pods NAME<0..n-1> per node: counts[i] for nodes NODE<i>; fails on a pod elsewhere or unbound. */
static void count_per_node(struct fx *fx, const struct poll *p, const char *pod_prefix, int n, const char *node_prefix,
			   int n_nodes, int *counts)
{
	memset(counts, 0, (size_t)n_nodes * sizeof(*counts));
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s%d", pod_prefix, i);
		const struct pod_row *r = pod_find(p, name);
		int idx = -1;
		if (r && !strncmp(r->node, node_prefix, strlen(node_prefix)))
			idx = atoi(r->node + strlen(node_prefix));
		if (idx < 0 || idx >= n_nodes)
			FAILF(fx, "pod %s on \"%s\", want a node %s0..%d", name, r ? r->node : "(missing)", node_prefix,
			      n_nodes - 1);
		counts[idx]++;
	}
}

/* Nodes PREFIX0..n-1 (4 CPU, 32Gi, 110 pods) labelled csched-test=pool. */
static void make_pool(struct fx *fx, const char *prefix, int n, const char *pool)
{
	struct err e = { 0 };
	if (harness_create_nodes(fx->cl, prefix, 0, n, &e) < 0 || harness_label_nodes(fx->cl, prefix, 0, n, pool, &e) < 0)
		fail_msg("nodes %s: %s", prefix, e.msg);
}

/* ---------- two profiles, one process ---------- */

/* Scores on a 4-CPU / 32Gi node for pods of 100m / 500Mi, k of them already there (k+1 with the
 * incoming pod), by the formulas of plugins.md (integer division; Balanced = (int)((1-std)*100)
 * with std = |cpu fraction - memory fraction| / 2):
 *
 *   k                                  0    1    2    3    4    5    6    7    8    9
 *   MostAllocated (cpu+mem)/2          1    4    5    8    9   12   13   16   17   20
 *   LeastAllocated (cpu+mem)/2        97   95   93   91   89   87   85   83   81   79
 *   BalancedAllocation                99   99   98   98   97   97   96   96   95   95
 *
 * "csched-binpack" (Most + Balanced, weights 1; the other default scores are equal on every
 * node): an occupied node scores >= 103, an empty one 100, so the first pod picks one of the
 * empty nodes at random and every later pod joins it. "csched" (Least + Balanced): the total
 * falls strictly with k, so each pod goes to a least-loaded node and 10 pods on 5 nodes end
 * exactly 2 per node, whatever the ties chose. */
#define POOL_NODES 5
#define PROFILE_PODS 10

static void test_two_profiles_binpack_and_spread(void **state)
{
	struct fx *fx = *state;
	char cfgp[400], cfg[1024], arg[420];
	int rc;

	snprintf(cfgp, sizeof(cfgp), "%s/two-profiles.yaml", fx->c.dir);
	snprintf(cfg, sizeof(cfg),
		 "apiVersion: kubescheduler.config.k8s.io/v1\n"
		 "kind: KubeSchedulerConfiguration\n"
		 "clientConnection:\n"
		 "  kubeconfig: \"%s\"\n"
		 "leaderElection:\n"
		 "  leaderElect: false\n"
		 "profiles:\n"
		 "- schedulerName: csched-binpack\n"
		 "  pluginConfig:\n"
		 "  - name: NodeResourcesFit\n"
		 "    args:\n"
		 "      scoringStrategy:\n"
		 "        type: MostAllocated\n"
		 "        resources:\n"
		 "        - name: cpu\n"
		 "          weight: 1\n"
		 "        - name: memory\n"
		 "          weight: 1\n"
		 "- schedulerName: csched\n",
		 fx->c.kubeconfig);
	assert_int_equal(write_file(cfgp, cfg), 0);
	snprintf(arg, sizeof(arg), "--config=%s", cfgp);

	/* The effective configuration: MostAllocated in the first profile, the default in the second. */
	char *w = written_config(fx, arg, &rc);
	assert_non_null(w);
	const char *p0 = strstr(w, "- schedulerName: \"csched-binpack\"");
	const char *p1 = strstr(w, "- schedulerName: \"csched\"");
	assert_non_null(p0);
	assert_non_null(p1);
	assert_true(p0 < p1);
	const char *most = strstr(p0, "type: MostAllocated"), *least = strstr(p1, "type: LeastAllocated");
	if (!most || most > p1 || !least || strstr(p1, "MostAllocated"))
		fail_msg("scoring strategies not as configured:\n%s", w);
	free(w);

	make_pool(fx, "pack-", POOL_NODES, "pack");
	make_pool(fx, "spread-", POOL_NODES, "spread");
	const char *args[] = { arg, "--secure-port=0", "-v=2", NULL };
	csched_start(fx, "csched-profiles.log", args);

	int64_t t0 = harness_now_ms();
	const char *names[2 * PROFILE_PODS + 1], *profiles[2 * PROFILE_PODS + 1];
	char buf[2 * PROFILE_PODS][16];
	for (int i = 0; i < PROFILE_PODS; i++) {
		snprintf(buf[i], sizeof(buf[i]), "bp-%d", i);
		POD_CREATE(fx, "default", buf[i], "csched-binpack", "100m", "\"nodeSelector\":{\"csched-test\":\"pack\"},", "");
		names[i] = buf[i];
		profiles[i] = "csched-binpack";
	}
	for (int i = 0; i < PROFILE_PODS; i++) {
		snprintf(buf[PROFILE_PODS + i], sizeof(buf[0]), "sp-%d", i);
		POD_CREATE(fx, "default", buf[PROFILE_PODS + i], "csched", "100m",
			   "\"nodeSelector\":{\"csched-test\":\"spread\"},", "");
		names[PROFILE_PODS + i] = buf[PROFILE_PODS + i];
		profiles[PROFILE_PODS + i] = "csched";
	}
	names[2 * PROFILE_PODS] = profiles[2 * PROFILE_PODS] = NULL;

	struct poll *p = calloc(1, sizeof(*p));
	assert_non_null(p);
	wait_for(p, fx, "default", ok_bound, names, "20 pods of two profiles bound");
	printf("[ MEASURE  ] first pod created to last bound: %.2f s\n", (harness_now_ms() - t0) / 1000.0);

	int pack[POOL_NODES], spread[POOL_NODES], used = 0;
	count_per_node(fx, p, "bp-", PROFILE_PODS, "pack-", POOL_NODES, pack);
	count_per_node(fx, p, "sp-", PROFILE_PODS, "spread-", POOL_NODES, spread);
	for (int i = 0; i < POOL_NODES; i++) {
		used += pack[i] > 0;
		if (pack[i] != 0 && pack[i] != PROFILE_PODS)
			FAILF(fx, "binpack: %d pods on pack-%d, want all %d on one node", pack[i], i, PROFILE_PODS);
		if (spread[i] != PROFILE_PODS / POOL_NODES)
			FAILF(fx, "spread: %d pods on spread-%d, want %d per node", spread[i], i, PROFILE_PODS / POOL_NODES);
	}
	assert_int_equal(used, 1);

	struct want_scheduled ws = { names, profiles };
	wait_for(p, fx, "default", ok_scheduled_events, &ws, "Scheduled events of both profiles");
	free(p);
	assert_int_equal(csched_stop(fx), 0);
}

/* ---------- the seed Policy file ---------- */

/* The mapped profile, as --write-config-to writes it: the predicates' filters in upstream's
 * predicateOrdering plus the two mandatory ones, the priorities' scores (EqualPriority maps to
 * nothing), LeastAllocated on cpu and memory. */
static const char *const policy_blocks[] = {
	"- schedulerName: \"csched\"\n"
	"  plugins:\n"
	"    multiPoint:\n"
	"      disabled:\n"
	"      - name: \"*\"\n",
	"    filter:\n"
	"      enabled:\n"
	"      - name: \"NodeUnschedulable\"\n"
	"      - name: \"NodeName\"\n"
	"      - name: \"NodePorts\"\n"
	"      - name: \"NodeAffinity\"\n"
	"      - name: \"NodeResourcesFit\"\n"
	"      - name: \"VolumeRestrictions\"\n"
	"      - name: \"TaintToleration\"\n"
	"    preScore:\n",
	"    score:\n"
	"      enabled:\n"
	"      - name: \"NodeResourcesBalancedAllocation\"\n"
	"        weight: 1\n"
	"      - name: \"NodeResourcesFit\"\n"
	"        weight: 1\n"
	"    bind:\n",
	"      scoringStrategy:\n"
	"        type: LeastAllocated\n"
	"        resources:\n"
	"        - name: \"cpu\"\n"
	"          weight: 1\n"
	"        - name: \"memory\"\n"
	"          weight: 1\n",
};

#define SPREAD_NODES 4
#define SPREAD_PODS 8
#define SOLO "{\"csched-test\":\"solo\"}"

/* One csched run with the Policy file in namespace ns. Pool "spread": pol-0..3; pool "solo":
 * solo-0. Five nodes in all, so every FitError starts "0/5 nodes are available:"; a pod that
 * selects a pool fails NodeAffinity on the 4 or 1 nodes outside it (filters run in the profile's
 * order, the first failure per node counts). */
static void policy_run(struct fx *fx, const char *policy, const char *ns, const char *log)
{
	char polarg[512], kcarg[512];
	struct err e = { 0 };
	snprintf(polarg, sizeof(polarg), "--policy-config-file=%s", policy);
	snprintf(kcarg, sizeof(kcarg), "--kubeconfig=%s", fx->c.kubeconfig);
	if (harness_create_namespace(fx->conn, ns, &e) < 0)
		fail_msg("namespace %s: %s", ns, e.msg);
	const char *args[] = { polarg, kcarg, "--leader-elect=false", "--secure-port=0", "-v=2", NULL };
	csched_start(fx, log, args);

	/* HostName: a pod created with spec.nodeName is already assigned: csched must not schedule it,
	 * but must count its 3 CPU on solo-0 (PodFitsResources below depends on it). The NodeName
	 * filter itself can only reject pods whose nodeName is set, which never reach the queue. */
	POD_CREATE(fx, ns, "fixed", "csched", "3", "\"nodeName\":\"solo-0\",", "");
	char sbuf[SPREAD_PODS][16];
	const char *first[SPREAD_PODS + 3];
	for (int i = 0; i < SPREAD_PODS; i++) {
		snprintf(sbuf[i], sizeof(sbuf[i]), "s-%d", i);
		POD_CREATE(fx, ns, sbuf[i], "csched", "100m", "\"nodeSelector\":{\"csched-test\":\"spread\"},", "");
		first[i] = sbuf[i];
	}
	/* hp-1 and disk-1 both fit solo-0 (3.2 of 4 CPU with fixed): their order does not matter. */
	POD_CREATE(fx, ns, "hp-1", "csched", "100m", "\"nodeSelector\":" SOLO ",",
		   ",\"ports\":[{\"containerPort\":8080,\"hostPort\":8080}]");
	POD_CREATE(fx, ns, "disk-1", "csched", "100m",
		   "\"nodeSelector\":" SOLO ",\"volumes\":[{\"name\":\"d\",\"gcePersistentDisk\":{\"pdName\":\"x\"}}],", "");
	first[SPREAD_PODS] = "hp-1";
	first[SPREAD_PODS + 1] = "disk-1";
	first[SPREAD_PODS + 2] = NULL;
	/* Whatever the state: too big for every node, and a selector no node matches. */
	POD_CREATE(fx, ns, "huge", "csched", "5", "", "");
	POD_CREATE(fx, ns, "nosel", "csched", "100m", "\"nodeSelector\":{\"csched-test\":\"nowhere\"},", "");

	struct poll *p = calloc(1, sizeof(*p));
	assert_non_null(p);
	wait_for(p, fx, ns, ok_bound, first, "spread pods, hp-1 and disk-1 bound");
	/* Least + Balanced falls strictly with the pods on a node (table above): 2 per node. */
	int counts[SPREAD_NODES];
	count_per_node(fx, p, "s-", SPREAD_PODS, "pol-", SPREAD_NODES, counts);
	for (int i = 0; i < SPREAD_NODES; i++)
		if (counts[i] != SPREAD_PODS / SPREAD_NODES)
			FAILF(fx, "%d pods on pol-%d, want %d per node (LeastAllocated + BalancedAllocation)", counts[i], i,
			      SPREAD_PODS / SPREAD_NODES);
	assert_string_equal(pod_find(p, "hp-1")->node, "solo-0");
	assert_string_equal(pod_find(p, "disk-1")->node, "solo-0");

	/* Second pods: each conflicts with what is now on solo-0. */
	POD_CREATE(fx, ns, "hp-2", "csched", "100m", "\"nodeSelector\":" SOLO ",",
		   ",\"ports\":[{\"containerPort\":8080,\"hostPort\":8080}]");
	POD_CREATE(fx, ns, "disk-2", "csched", "100m",
		   "\"nodeSelector\":" SOLO ",\"volumes\":[{\"name\":\"d\",\"gcePersistentDisk\":{\"pdName\":\"x\"}}],", "");
	POD_CREATE(fx, ns, "big", "csched", "1500m", "\"nodeSelector\":" SOLO ",", "");
	POD_CREATE(fx, ns, "pinned", "csched", "100m", "\"nodeSelector\":{\"kubernetes.io/hostname\":\"pol-3\"},", "");

	static const char *const pinned[] = { "pinned", NULL };
	wait_for(p, fx, ns, ok_bound, pinned, "pinned bound");
	assert_string_equal(pod_find(p, "pinned")->node, "pol-3");

	static const struct want_unsched unsched[] = {
		/* the Policy's DefaultPreemption (PostFilter): see test_scheduler.c */
		{ "hp-2", "0/5 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, "
			  "4 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No "
			  "preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling." },
		{ "disk-2", "0/5 nodes are available: 1 node(s) had no available disk, "
			    "4 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 1 No "
			    "preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling." },
		{ "big", "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match Pod's node affinity/selector. "
			 "preemption: 0/5 nodes are available: 1 No preemption victims found for incoming pod, 4 Preemption "
			 "is not helpful for scheduling." },
		{ "huge", "0/5 nodes are available: 5 Insufficient cpu. preemption: 0/5 nodes are available: 5 "
			  "Preemption is not helpful for scheduling." },
		{ "nosel", "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 "
			   "nodes are available: 5 Preemption is not helpful for scheduling." },
		{ NULL, NULL },
	};
	wait_for(p, fx, ns, ok_unsched, unsched, "FitError conditions and FailedScheduling events");

	const char *bound[SPREAD_PODS + 4], *profs[SPREAD_PODS + 4];
	for (int i = 0; i < SPREAD_PODS + 3; i++) {
		bound[i] = i < SPREAD_PODS + 2 ? first[i] : "pinned";
		profs[i] = "csched";
	}
	bound[SPREAD_PODS + 3] = profs[SPREAD_PODS + 3] = NULL;
	struct want_scheduled ws = { bound, profs };
	wait_for(p, fx, ns, ok_scheduled_events, &ws, "Scheduled events");

	/* fixed: untouched, still where it was created, no event about it. */
	assert_string_equal(pod_find(p, "fixed")->node, "solo-0");
	for (size_t i = 0; i < p->n_evs; i++)
		if (!strcmp(p->evs[i].name, "fixed"))
			FAILF(fx, "event %s about the pre-assigned pod: %s", p->evs[i].reason, p->evs[i].note);
	free(p);
	assert_int_equal(csched_stop(fx), 0);
}

static void delete_all_pods(struct fx *fx, const char *ns)
{
	char path[256];
	struct err e = { 0 };
	static const char body[] = "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"gracePeriodSeconds\":0}";
	snprintf(path, sizeof(path), "/api/v1/namespaces/%s/pods", ns);
	if (api_request(fx->conn, "DELETE", path, NULL, body, sizeof(body) - 1, NULL, &e) < 0)
		fail_msg("deleting the pods of %s: %s", ns, e.msg);
	struct poll *p = calloc(1, sizeof(*p));
	assert_non_null(p);
	wait_for(p, fx, ns, ok_no_pods, NULL, "pods deleted");
	free(p);
}

static void test_seed_policy(void **state)
{
	struct fx *fx = *state;
	char json[400], yaml[400];
	snprintf(json, sizeof(json), "%s", testutil_source_path("tests/fixtures/config/seed_policy.json"));
	snprintf(yaml, sizeof(yaml), "%s", testutil_source_path("tests/fixtures/config/seed_policy.yaml"));

	/* The mapping, seen in the effective configuration: the same for JSON and YAML. */
	char arg[512];
	int rc;
	snprintf(arg, sizeof(arg), "--policy-config-file=%s", json);
	char *wj = written_config(fx, arg, &rc);
	assert_non_null(wj);
	snprintf(arg, sizeof(arg), "--policy-config-file=%s", yaml);
	char *wy = written_config(fx, arg, &rc);
	assert_non_null(wy);
	assert_string_equal(wj, wy);
	for (size_t i = 0; i < sizeof(policy_blocks) / sizeof(policy_blocks[0]); i++)
		if (!strstr(wj, policy_blocks[i]))
			fail_msg("expected in the written configuration:\n%s\n--- got ---\n%s", policy_blocks[i], wj);
	free(wj);
	free(wy);

	make_pool(fx, "pol-", SPREAD_NODES, "spread");
	make_pool(fx, "solo-", 1, "solo");
	int64_t t0 = harness_now_ms();
	policy_run(fx, json, "policy-json", "csched-policy-json.log");
	printf("[ MEASURE  ] JSON Policy run: %.2f s\n", (harness_now_ms() - t0) / 1000.0);
	/* The YAML run needs solo-0 free again (port, disk, CPU). Events stay in their namespace. */
	delete_all_pods(fx, "policy-json");
	t0 = harness_now_ms();
	policy_run(fx, yaml, "policy-yaml", "csched-policy-yaml.log");
	printf("[ MEASURE  ] YAML Policy run: %.2f s\n", (harness_now_ms() - t0) / 1000.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_profiles_binpack_and_spread, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(test_seed_policy, fx_setup, fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
