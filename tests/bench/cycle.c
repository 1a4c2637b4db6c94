/* In-process benchmark of the scheduling cycle alone (no API server): a cache of N nodes (upstream's
 * node-default template), the default plugins, and P pods (pod-default) scheduled one after the
 * other the way the scheduler thread does it: refresh the snapshot, fw_schedule_pod, assume the pod
 * on the chosen host. Reports pods/s and the p50/p99 of one cycle, then a per-extension-point,
 * per-plugin breakdown measured single-threaded on a sample of pods (each plugin run over the nodes
 * the cycle examined, timed per plugin).
 *
 * Usage: bench_cycle [--nodes 5000] [--pods 5000] [--parallelism 16] [--pct 0]
 *                    [--breakdown-pods 300] [--json FILE] [--dump-decisions FILE] [--mixed]
 *
 * --mixed replaces the uniform nodes and pods by varied ones (zones, sizes, images, taints,
 * tolerations, an extended resource, best-effort pods), to compare decisions across builds on
 * inputs where every default plugin matters.
 *
 * --dump-decisions writes one line per pod: its name, the chosen node (or "-"), and the numbers of
 * evaluated and feasible nodes, so that two builds can be compared with diff (the tie-break RNG is
 * seeded with 1; with parallelism 1 the outcome is deterministic).
 *
 * White-box: it includes algorithm/framework_internal.h to drive plugins one at a time for the
 * breakdown (the same plugin instances, cycle state and node list fw_schedule_pod uses). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithm/framework.h"
#include "algorithm/framework_internal.h"
#include "cache/cache.h"
#include "cache/snapshot.h"
#include "common/err.h"
#include "testobj.h"

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* upstream's percentile index on sorted samples: ceil(n*p/100)-1. */
static int64_t pct_of(const int64_t *sorted, size_t n, double p)
{
	if (!n)
		return 0;
	size_t i = (size_t)ceil((double)n * p / 100.0);
	return sorted[i ? i - 1 : 0];
}

static int noop_bind(void *ctx, const struct api_pod *pod, const char *node_name, struct err *e)
{
	(void)ctx, (void)pod, (void)node_name, (void)e;
	return 0;
}

static struct api_node *make_node(int i, bool mixed)
{
	char name[32], uid[32], labels[128], alloc[128], images[512];
	snprintf(name, sizeof(name), "node-%d", i);
	snprintf(uid, sizeof(uid), "node-uid-%d", i);
	if (!mixed) {
		snprintf(labels, sizeof(labels), "kubernetes.io/hostname=%s", name);
		return TOBJ_NODE(.name = name, .uid = uid, .labels = labels, .cap = "pods=110,cpu=4,memory=32Gi",
				 .alloc = "pods=110,cpu=4,memory=32Gi", .ready = true);
	}
	/* --mixed: three zones, four sizes, images spread unevenly (tagged, untagged, several names
	 * per image), PreferNoSchedule and NoSchedule taints, an extended resource on some nodes */
	int cpu = 2 + (i % 4) * 2, mem_gi = 8 * (1 + i % 3), pods = i % 9 == 0 ? 20 : 110;
	bool gpu = i % 13 == 0, pref = i % 10 == 0;
	snprintf(labels, sizeof(labels), "kubernetes.io/hostname=%s,topology.kubernetes.io/zone=zone-%d", name, i % 3);
	snprintf(alloc, sizeof(alloc), "pods=%d,cpu=%d,memory=%dGi%s", pods, cpu, mem_gi, gpu ? ",example.com/gpu=4" : "");
	int k = snprintf(images, sizeof(images), "registry.k8s.io/pause:3.10=736000");
	if (i % 2 == 0)
		k += snprintf(images + k, sizeof(images) - (size_t)k, ",docker.io/library/nginx:1.25|nginx:1.25=%d",
			      60000000 + (i % 7) * 1000000);
	if (i % 5 == 0)
		k += snprintf(images + k, sizeof(images) - (size_t)k, ",busybox=5000000");
	if (i % 7 == 0)
		snprintf(images + k, sizeof(images) - (size_t)k, ",example.com/big/img:v1|example.com/big/img=500000000");
	const char *taints = pref && gpu ? "pref=x:PreferNoSchedule,dedicated=gpu:NoSchedule"
			     : pref	 ? "pref=x:PreferNoSchedule"
			     : gpu	 ? "dedicated=gpu:NoSchedule"
				         : NULL;
	return TOBJ_NODE(.name = name, .uid = uid, .labels = labels, .cap = alloc, .alloc = alloc, .taints = taints,
			 .images = images, .ready = true);
}

static struct api_pod *make_pod(int i, bool mixed)
{
	char name[32], uid[32], req[128];
	snprintf(name, sizeof(name), "pod-%d", i);
	snprintf(uid, sizeof(uid), "pod-uid-%d", i);
	if (!mixed)
		return TOBJ_POD(.name = name, .ns = "bench", .uid = uid, .scheduler = "csched",
				.containers = { { .name = "pause", .image = "registry.k8s.io/pause:3.10", .ports = "0:80",
						  .lim = "cpu=100m,memory=500Mi", .req = "cpu=100m,memory=500Mi" } });
	/* --mixed: varied requests (some best-effort, some with an extended resource), images that
	 * nodes have or not, with and without tags, init containers, tolerations */
	static const char *const image_of[] = { "registry.k8s.io/pause:3.10", "nginx:1.25", "busybox",
						"example.com/big/img", "docker.io/library/nginx:1.25" };
	bool gpu = i % 17 == 0, pref = i % 3 == 0;
	snprintf(req, sizeof(req), "cpu=%dm,memory=%dMi%s", 100 + (i % 5) * 100, 200 + (i % 6) * 300,
		 gpu ? ",example.com/gpu=1" : "");
	const char *tolerations = pref && gpu ? "pref:PreferNoSchedule,dedicated=gpu:NoSchedule"
				  : pref      ? "pref:PreferNoSchedule"
				  : gpu	      ? "dedicated=gpu:NoSchedule"
					      : NULL;
	return TOBJ_POD(.name = name, .ns = "bench", .uid = uid, .scheduler = "csched",
			.inits = { { .name = i % 4 == 1 ? "init" : NULL, .image = i % 4 == 1 ? "busybox" : NULL } },
			.containers = { { .name = "app", .image = image_of[i % 5], .req = i % 11 ? req : NULL },
					{ .name = i % 6 == 0 ? "side" : NULL,
					  .image = i % 6 == 0 ? "example.com/big/img:v1" : NULL } },
			.tolerations = tolerations);
}

/* ---------- per-plugin breakdown ---------- */

#define MAX_ROWS (CFG_EP_COUNT * FW_MAX_PLUGINS)

struct row {
	const char *point, *plugin;
	int64_t ns;
};

struct breakdown {
	struct row rows[MAX_ROWS];
	size_t n;
	uint64_t pods;
};

static struct row *row_of(struct breakdown *b, const char *point, const char *plugin)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].point == point && strcmp(b->rows[i].plugin, plugin) == 0)
			return &b->rows[i];
	if (b->n == MAX_ROWS)
		return &b->rows[MAX_ROWS - 1];
	b->rows[b->n] = (struct row){ point, plugin, 0 };
	return &b->rows[b->n++];
}

/* Runs the cycle of pod plugin by plugin, single-threaded, timing each plugin at each point:
 * PreFilter, Filter (over the nodes the generic algorithm examines: from a rotating start until
 * enough feasible nodes are found), PreScore, Score and NormalizeScore over the feasible ones. */
static int breakdown_pod(struct breakdown *b, struct fw_profile *p, struct fw_cycle *c,
			 const struct fw_node_list *list, const struct api_pod *pod, uint32_t *start,
			 int32_t pct, struct err *e)
{
	struct fw_status st;
	uint32_t n_pl, n = list->n;
	const struct fw_pl *const *pls;
	bool skip_f[FW_MAX_PLUGINS] = { 0 }, skip_s[FW_MAX_PLUGINS] = { 0 };
	int rc = 0;
	const struct node_info **examined = calloc(n ? n : 1, sizeof(*examined));
	const struct node_info **feasible = calloc(n ? n : 1, sizeof(*feasible));
	struct fw_node_score *scores = calloc(n ? n : 1, sizeof(*scores));
	if (!examined || !feasible || !scores) {
		rc = err_set(e, ERR_NOMEM, "breakdown: node arrays");
		goto out;
	}
	fw_cycle_reset(c);
	c->nodes = list;

	pls = fw_profile_plugins(p, CFG_EP_PRE_FILTER, &n_pl);
	for (uint32_t i = 0; i < n_pl; i++) {
		struct fw_node_names names = { .all = true };
		fw_status_reset(&st);
		int64_t t = now_ns();
		enum fw_code code = pls[i]->plugin->pre_filter(pls[i], c, pod, &names, &st);
		row_of(b, "PreFilter", pls[i]->plugin->name)->ns += now_ns() - t;
		if (code == FW_SKIP)
			skip_f[pls[i]->index] = true;
		else if (code != FW_SUCCESS) {
			rc = err_set(e, ERR_INVALID, "breakdown: PreFilter %s rejected the pod", pls[i]->plugin->name);
			goto out;
		}
	}

	/* Which nodes the generic algorithm examines, and which pass. */
	uint32_t want = fw_num_feasible_nodes_to_find(pct, n), n_ex = 0, n_feas = 0;
	pls = fw_profile_plugins(p, CFG_EP_FILTER, &n_pl);
	for (uint32_t k = 0; k < n && n_feas < want; k++) {
		const struct node_info *ni = list->nodes[(*start + k) % n];
		bool ok = true;
		for (uint32_t i = 0; i < n_pl && ok; i++) {
			if (skip_f[pls[i]->index])
				continue;
			fw_status_reset(&st);
			ok = pls[i]->plugin->filter(pls[i], c, pod, ni, &st) == FW_SUCCESS;
		}
		examined[n_ex++] = ni;
		if (ok)
			feasible[n_feas++] = ni;
	}
	*start = n ? (*start + n_ex) % n : 0;
	/* Per-plugin Filter time over the examined nodes (a second, timed pass per plugin). */
	for (uint32_t i = 0; i < n_pl; i++) {
		if (skip_f[pls[i]->index])
			continue;
		int64_t t = now_ns();
		for (uint32_t k = 0; k < n_ex; k++) {
			fw_status_reset(&st);
			(void)pls[i]->plugin->filter(pls[i], c, pod, examined[k], &st);
		}
		row_of(b, "Filter", pls[i]->plugin->name)->ns += now_ns() - t;
	}

	pls = fw_profile_plugins(p, CFG_EP_PRE_SCORE, &n_pl);
	for (uint32_t i = 0; i < n_pl; i++) {
		fw_status_reset(&st);
		int64_t t = now_ns();
		enum fw_code code = pls[i]->plugin->pre_score(pls[i], c, pod, feasible, n_feas, &st);
		row_of(b, "PreScore", pls[i]->plugin->name)->ns += now_ns() - t;
		if (code == FW_SKIP)
			skip_s[pls[i]->index] = true;
	}
	pls = fw_profile_plugins(p, CFG_EP_SCORE, &n_pl);
	for (uint32_t i = 0; i < n_pl; i++) {
		if (skip_s[pls[i]->index])
			continue;
		int64_t t = now_ns();
		/* as the cycle does: a plugin's per-pod preparation, which may skip its Score (counted
		 * in its Score row) */
		fw_pre_score_fn prepare = fw_score_prepare_of(pls[i]->plugin);
		if (prepare) {
			fw_status_reset(&st);
			if (prepare(pls[i], c, pod, feasible, n_feas, &st) == FW_SKIP) {
				row_of(b, "Score", pls[i]->plugin->name)->ns += now_ns() - t;
				continue;
			}
		}
		for (uint32_t k = 0; k < n_feas; k++) {
			fw_status_reset(&st);
			scores[k].ni = feasible[k];
			scores[k].score = 0;
			(void)pls[i]->plugin->score(pls[i], c, pod, feasible[k], &scores[k].score, &st);
		}
		row_of(b, "Score", pls[i]->plugin->name)->ns += now_ns() - t;
		if (pls[i]->plugin->normalize_score) {
			fw_status_reset(&st);
			t = now_ns();
			(void)pls[i]->plugin->normalize_score(pls[i], c, pod, scores, n_feas, &st);
			row_of(b, "NormalizeScore", pls[i]->plugin->name)->ns += now_ns() - t;
		}
	}
	b->pods++;
out:
	c->nodes = NULL;
	fw_cycle_reset(c);
	free(examined);
	free(feasible);
	free(scores);
	return rc;
}

/* ---------- main ---------- */

struct opts {
	int nodes, pods, parallelism, pct, breakdown_pods;
	const char *json;
	const char *dump;
	bool mixed;
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ 5000, 5000, FW_DEFAULT_PARALLELISM, 0, 300, NULL, NULL, false };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int *dst = NULL;
		if (!strcmp(a, "--nodes"))
			dst = &o->nodes;
		else if (!strcmp(a, "--pods"))
			dst = &o->pods;
		else if (!strcmp(a, "--parallelism"))
			dst = &o->parallelism;
		else if (!strcmp(a, "--pct"))
			dst = &o->pct;
		else if (!strcmp(a, "--breakdown-pods"))
			dst = &o->breakdown_pods;
		else if (!strcmp(a, "--json") && v) {
			o->json = v;
			i++;
			continue;
		} else if (!strcmp(a, "--mixed")) {
			o->mixed = true;
			continue;
		} else if (!strcmp(a, "--dump-decisions") && v) {
			o->dump = v;
			i++;
			continue;
		} else {
			fprintf(stderr, "bench_cycle: unknown argument '%s'\nusage: bench_cycle [--nodes N] [--pods P] "
					"[--parallelism K] [--pct PCT] [--breakdown-pods B] [--json FILE] "
					"[--dump-decisions FILE] [--mixed]\n", a);
			return -1;
		}
		char *end;
		long x = v ? strtol(v, &end, 10) : -1;
		if (!v || *end || x < 0 || x > 10000000) {
			fprintf(stderr, "bench_cycle: %s needs a non-negative integer\n", a);
			return -1;
		}
		*dst = (int)x;
		i++;
	}
	if (o->nodes < 1 || o->pods < 1 || o->parallelism < 1 || o->pct > 100) {
		fprintf(stderr, "bench_cycle: --nodes, --pods, --parallelism must be >= 1, --pct 0..100\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	if (parse_args(argc, argv, &o) < 0)
		return 2;
	struct err e = { 0 };
	int rc = 1;
	struct cache *cache = cache_new();
	struct snapshot *snap = snapshot_new();
	struct fw_pool *pool = NULL;
	struct fw_profile *prof = NULL;
	struct fw_cycle *cyc = NULL;
	struct api_pod **pods = calloc((size_t)o.pods, sizeof(*pods));
	int64_t *cycle_ns = calloc((size_t)o.pods, sizeof(*cycle_ns));
	int64_t *algo_ns = calloc((size_t)o.pods, sizeof(*algo_ns));
	struct breakdown *bd = calloc(1, sizeof(*bd));
	/* decisions are recorded during the loop and written after it, outside the timing */
	const char **chosen = calloc((size_t)o.pods, sizeof(*chosen));
	uint32_t *dec_eval = calloc((size_t)o.pods, sizeof(*dec_eval));
	uint32_t *dec_feas = calloc((size_t)o.pods, sizeof(*dec_feas));
	uint64_t evaluated = 0, unschedulable = 0;
	FILE *jf = NULL;
	if (!cache || !snap || !pods || !cycle_ns || !algo_ns || !bd || !chosen || !dec_eval || !dec_feas) {
		err_set(&e, ERR_NOMEM, "bench_cycle: setup");
		goto out;
	}

	for (int i = 0; i < o.nodes; i++) {
		struct api_node *n = make_node(i, o.mixed);
		int r = cache_add_node(cache, n, &e);
		api_node_unref(n);
		if (r < 0)
			goto out;
	}
	for (int i = 0; i < o.pods; i++)
		pods[i] = make_pod(i, o.mixed);

	if (o.parallelism > 1 && !(pool = fw_pool_new(o.parallelism, &e)))
		goto out;
	struct fw_profile_config pc;
	fw_default_profile_config("csched", &pc);
	struct fw_profile_options po = { .percentage_of_nodes_to_score = o.pct, .pool = pool, .bind = noop_bind, .seed = 1 };
	if (!(prof = fw_profile_new(&pc, &po, &e)) || !(cyc = fw_cycle_new(prof))) {
		if (!e.msg[0])
			err_set(&e, ERR_NOMEM, "bench_cycle: cycle state");
		goto out;
	}
	if (cache_update_snapshot(cache, snap, &e) < 0)
		goto out;

	/* The measured loop: what the scheduler thread does per pod. */
	struct fw_node_list list;
	struct fw_schedule_result *res = calloc(1, sizeof(*res));
	if (!res) {
		err_set(&e, ERR_NOMEM, "bench_cycle: result");
		goto out;
	}
	int64_t t_all = now_ns();
	for (int i = 0; i < o.pods; i++) {
		int64_t t0 = now_ns();
		if (cache_update_snapshot(cache, snap, &e) < 0)
			break;
		fw_node_list_from_snapshot(snap, &list);
		fw_cycle_reset(cyc);
		int64_t t1 = now_ns();
		if (fw_schedule_pod(prof, cyc, &list, pods[i], NULL, res, &e) < 0)
			break;
		int64_t t2 = now_ns();
		if (res->code == FW_SUCCESS) {
			if (cache_assume_pod(cache, pods[i], res->suggested_host, &e) < 0)
				break;
			chosen[i] = res->suggested_host;
		} else
			unschedulable++;
		evaluated += res->evaluated_nodes;
		dec_eval[i] = res->evaluated_nodes;
		dec_feas[i] = res->feasible_nodes;
		cycle_ns[i] = now_ns() - t0;
		algo_ns[i] = t2 - t1;
	}
	int64_t total_ns = now_ns() - t_all;
	free(res);
	if (e.code) {
		err_prefix(&e, "bench_cycle: scheduling loop");
		goto out;
	}

	if (o.dump) {
		FILE *df = fopen(o.dump, "w");
		if (!df) {
			err_set(&e, ERR_IO, "bench_cycle: %s: cannot write", o.dump);
			goto out;
		}
		for (int i = 0; i < o.pods; i++)
			fprintf(df, "%s %s %u %u\n", pods[i]->meta.name, chosen[i] ? chosen[i] : "-", dec_eval[i],
				dec_feas[i]);
		if (fclose(df) != 0) {
			err_set(&e, ERR_IO, "bench_cycle: %s: write failed", o.dump);
			goto out;
		}
	}

	/* The breakdown, single-threaded: the pods above stay assumed, so these pods see partly
	 * filled nodes, as in a running cluster. They are not assumed themselves. */
	uint32_t start = 0;
	for (int i = 0; i < o.breakdown_pods; i++) {
		struct api_pod *p = make_pod(o.pods + i, o.mixed);
		if (cache_update_snapshot(cache, snap, &e) < 0)
			goto out;
		fw_node_list_from_snapshot(snap, &list);
		if (breakdown_pod(bd, prof, cyc, &list, p, &start, o.pct, &e) < 0) {
			api_pod_unref(p);
			goto out;
		}
		api_pod_unref(p);
	}

	qsort(cycle_ns, (size_t)o.pods, sizeof(*cycle_ns), cmp_i64);
	qsort(algo_ns, (size_t)o.pods, sizeof(*algo_ns), cmp_i64);
	double pods_per_s = (double)o.pods / ((double)total_ns / 1e9);
	printf("bench_cycle: %d nodes, %d pods, parallelism %d: %.0f pods/s; cycle p50 %.1f us p99 %.1f us "
	       "(fw_schedule_pod alone p50 %.1f us p99 %.1f us); %.0f nodes evaluated per pod; %" PRIu64 " unschedulable\n",
	       o.nodes, o.pods, o.parallelism, pods_per_s, pct_of(cycle_ns, (size_t)o.pods, 50) / 1e3,
	       pct_of(cycle_ns, (size_t)o.pods, 99) / 1e3, pct_of(algo_ns, (size_t)o.pods, 50) / 1e3,
	       pct_of(algo_ns, (size_t)o.pods, 99) / 1e3, (double)evaluated / o.pods, unschedulable);
	if (bd->pods) {
		printf("per extension point and plugin, single-threaded, us per pod (%" PRIu64 " pods):\n", bd->pods);
		for (size_t i = 0; i < bd->n; i++)
			printf("  %-15s %-32s %9.1f\n", bd->rows[i].point, bd->rows[i].plugin,
			       (double)bd->rows[i].ns / 1e3 / (double)bd->pods);
	}
	if (o.json) {
		if (!(jf = fopen(o.json, "w"))) {
			err_set(&e, ERR_IO, "bench_cycle: %s: cannot write", o.json);
			goto out;
		}
		fprintf(jf, "{\"nodes\": %d, \"pods\": %d, \"parallelism\": %d, \"percentageOfNodesToScore\": %d,\n"
			    " \"pods_per_s\": %.1f, \"p50_us\": %.1f, \"p99_us\": %.1f, \"algo_p50_us\": %.1f, \"algo_p99_us\": %.1f,\n"
			    " \"evaluated_nodes\": %.0f, \"unschedulable\": %" PRIu64 ", \"breakdown_pods\": %" PRIu64 ",\n"
			    " \"extension_points\": [",
			o.nodes, o.pods, o.parallelism, o.pct, pods_per_s, pct_of(cycle_ns, (size_t)o.pods, 50) / 1e3,
			pct_of(cycle_ns, (size_t)o.pods, 99) / 1e3, pct_of(algo_ns, (size_t)o.pods, 50) / 1e3,
			pct_of(algo_ns, (size_t)o.pods, 99) / 1e3, (double)evaluated / o.pods, unschedulable, bd->pods);
		for (size_t i = 0; i < bd->n; i++)
			fprintf(jf, "%s\n  {\"point\": \"%s\", \"plugin\": \"%s\", \"us_per_pod\": %.2f}", i ? "," : "",
				bd->rows[i].point, bd->rows[i].plugin,
				(double)bd->rows[i].ns / 1e3 / (double)(bd->pods ? bd->pods : 1));
		fprintf(jf, "]}\n");
		if (fclose(jf) != 0) {
			jf = NULL;
			err_set(&e, ERR_IO, "bench_cycle: %s: write failed", o.json);
			goto out;
		}
		jf = NULL;
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "%s\n", e.msg[0] ? e.msg : "bench_cycle: failed");
	if (jf)
		fclose(jf);
	fw_cycle_free(cyc);
	fw_profile_free(prof);
	fw_pool_free(pool);
	snapshot_free(snap);
	cache_free(cache);
	for (int i = 0; pods && i < o.pods; i++)
		api_pod_unref(pods[i]);
	free(pods);
	free(cycle_ns);
	free(algo_ns);
	free(bd);
	free(chosen);
	free(dec_eval);
	free(dec_feas);
	return rc;
}
