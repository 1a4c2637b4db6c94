/* Memory and CPU of csched's informers, cache and queue alone, on a real cluster.
 *
 * Usage: bench_informer_mem --kubeconfig=FILE [--events=N] [--timeout=S] [--scheduler-name=csched]
 *                           [--paged-list] [--content-type=application/json]
 *
 * Starts the node and pod informers (the scheduler's field selector) with the scheduler's handler
 * wiring: nodes and assigned pods into a cache, unassigned pods of --scheduler-name into a queue.
 * --paged-list syncs with paged LISTs instead of streaming lists (to compare the two).
 * --content-type: what the informers read, as clientConnection.contentType (default
 * application/vnd.kubernetes.protobuf, as csched's; application/json to compare).
 * Once both are synced it prints a line of figures; with --events it then keeps watching until the
 * pod informer has applied N more events (adds, updates, deletes: create or delete pods meanwhile,
 * e.g. with tests/bench/driver.py's helpers) and prints a second line. Figures: wall and CPU
 * seconds (user, system) of the process, VmRSS and VmHWM, malloc's bytes in use and held
 * (mallinfo2), objects stored and strings interned. Run it under `valgrind --tool=massif` or
 * heaptrack to see who holds the bytes. Everything is freed before exit.
 *
 * DESIGN: the informer threads run the handlers below (as scheduler.c's, without the scheduling
 * loop); the main thread only waits and reads counters. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "apiclient/api_client.h"
#include "apiclient/informer.h"
#include "cache/cache.h"
#include "common/intern.h"
#include "queue/queue.h"

struct ctx {
	struct cache *cache;
	struct queue *queue;
	const char *sched_name; /* interned */
};

static bool ours(const struct ctx *c, const struct api_pod *p)
{
	return !api_pod_is_assigned(p) && p->scheduler_name == c->sched_name;
}

static void on_pod_add(void *vc, void *obj)
{
	struct ctx *c = vc;
	struct api_pod *p = obj;
	struct err e = { 0 };
	if (api_pod_is_assigned(p))
		cache_add_pod(c->cache, p, &e);
	else if (ours(c, p))
		queue_add(c->queue, p, &e);
}

static void on_pod_update(void *vc, void *o, void *n)
{
	struct ctx *c = vc;
	struct api_pod *op = o, *np = n;
	struct err e = { 0 };
	bool oa = api_pod_is_assigned(op), na = api_pod_is_assigned(np);
	if (oa && na)
		cache_update_pod(c->cache, op, np, &e);
	else if (na)
		cache_add_pod(c->cache, np, &e);
	else if (oa)
		cache_remove_pod(c->cache, op, &e);
	if (ours(c, op) && ours(c, np))
		queue_update(c->queue, op, np, &e);
	else if (ours(c, np))
		queue_add(c->queue, np, &e);
	else if (ours(c, op))
		queue_delete(c->queue, op);
}

static void on_pod_delete(void *vc, void *obj)
{
	struct ctx *c = vc;
	struct api_pod *p = obj;
	struct err e = { 0 };
	if (api_pod_is_assigned(p))
		cache_remove_pod(c->cache, p, &e);
	else if (ours(c, p))
		queue_delete(c->queue, p);
}

static void on_node_add(void *vc, void *obj)
{
	struct err e = { 0 };
	cache_add_node(((struct ctx *)vc)->cache, obj, &e);
}

static void on_node_update(void *vc, void *o, void *n)
{
	struct err e = { 0 };
	cache_update_node(((struct ctx *)vc)->cache, o, n, &e);
}

static void on_node_delete(void *vc, void *obj)
{
	struct err e = { 0 };
	cache_remove_node(((struct ctx *)vc)->cache, obj, &e);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long status_kb(const char *field)
{
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

static void report(const char *phase, double t0, struct api_informer *pi, struct api_informer *ni)
{
	struct rusage ru;
	struct mallinfo2 mi = mallinfo2();
	struct api_informer_stats ps, ns;
	getrusage(RUSAGE_SELF, &ru);
	api_informer_stats(pi, &ps);
	api_informer_stats(ni, &ns);
	printf("{\"phase\":\"%s\",\"wall_s\":%.2f,\"user_s\":%.2f,\"sys_s\":%.2f,\"rss_kb\":%ld,\"hwm_kb\":%ld,"
	       "\"malloc_in_use_kb\":%zu,\"malloc_held_kb\":%zu,\"pods\":%zu,\"nodes\":%zu,\"pod_events\":%lu,"
	       "\"interned\":%zu}\n",
	       phase, now_s() - t0, (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, status_kb("VmRSS"), status_kb("VmHWM"),
	       (mi.uordblks + mi.hblkhd) / 1024, (mi.arena + mi.hblkhd) / 1024, api_informer_len(pi), api_informer_len(ni),
	       ps.added + ps.updated + ps.deleted, intern_count());
	fflush(stdout);
}

static unsigned long pod_events(struct api_informer *pi)
{
	struct api_informer_stats s;
	api_informer_stats(pi, &s);
	return s.added + s.updated + s.deleted;
}

int main(int argc, char **argv)
{
	const char *kubeconfig = NULL, *sched = "csched";
	long events = 0, timeout_s = 600;
	bool paged = false;
	const char *content_type = "application/vnd.kubernetes.protobuf";
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--kubeconfig=", 13))
			kubeconfig = argv[i] + 13;
		else if (!strncmp(argv[i], "--events=", 9))
			events = atol(argv[i] + 9);
		else if (!strncmp(argv[i], "--timeout=", 10))
			timeout_s = atol(argv[i] + 10);
		else if (!strncmp(argv[i], "--scheduler-name=", 17))
			sched = argv[i] + 17;
		else if (!strcmp(argv[i], "--paged-list"))
			paged = true;
		else if (!strncmp(argv[i], "--content-type=", 15))
			content_type = argv[i] + 15;
		else {
			fprintf(stderr,
				"usage: %s --kubeconfig=FILE [--events=N] [--timeout=S] [--scheduler-name=NAME] "
				"[--paged-list] [--content-type=TYPE]\n",
				argv[0]);
			return 2;
		}
	}
	if (!kubeconfig) {
		fprintf(stderr, "%s: --kubeconfig is required\n", argv[0]);
		return 2;
	}

	int status = 1;
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	struct api_client *client = NULL;
	struct api_informer *pi = NULL, *ni = NULL;
	struct ctx c = { .sched_name = intern_str(sched) };
	double t0 = now_s();
	struct queue_options qo = { 0 };

	if (api_global_init(&e) < 0 || api_config_load_kubeconfig(&cfg, kubeconfig, NULL, &e) < 0)
		goto out;
	cfg.qps = 5000;
	cfg.burst = 5000;
	cfg.protobuf = !strcmp(content_type, "application/vnd.kubernetes.protobuf");
	if (!(client = api_client_new(&cfg, &e)) || !(c.cache = cache_new()) || !(c.queue = queue_new(&qo, &e)))
		goto out;
	struct api_informer_options po = { .field_selector = "status.phase!=Succeeded,status.phase!=Failed",
					   .paged_list = paged };
	struct api_informer_options no = { .paged_list = paged };
	struct api_informer_handlers ph = { on_pod_add, on_pod_update, on_pod_delete, NULL, &c };
	struct api_informer_handlers nh = { on_node_add, on_node_update, on_node_delete, NULL, &c };
	if (!(pi = api_informer_new(client, API_KIND_POD, &po, &ph, &e)) ||
	    !(ni = api_informer_new(client, API_KIND_NODE, &no, &nh, &e)) || api_informer_start(ni, &e) < 0 ||
	    api_informer_start(pi, &e) < 0)
		goto out;
	if (!api_informer_wait_synced(ni, timeout_s * 1000) || !api_informer_wait_synced(pi, timeout_s * 1000)) {
		err_set(&e, ERR_TIMEOUT, "informers not synced after %ld s", timeout_s);
		goto out;
	}
	report("synced", t0, pi, ni);
	if (events > 0) {
		unsigned long want = pod_events(pi) + (unsigned long)events;
		double deadline = now_s() + (double)timeout_s;
		while (pod_events(pi) < want && now_s() < deadline) {
			struct timespec ts = { 0, 50 * 1000000L };
			nanosleep(&ts, NULL);
		}
		report(pod_events(pi) >= want ? "events" : "events-timeout", t0, pi, ni);
	}
	status = 0;
out:
	if (status)
		fprintf(stderr, "%s: %s\n", argv[0], e.msg);
	api_informer_free(pi); /* stops the thread before the handlers' targets go */
	api_informer_free(ni);
	queue_free(c.queue);
	cache_free(c.cache);
	api_client_free(client);
	api_config_release(&cfg);
	api_global_cleanup();
	return status;
}
