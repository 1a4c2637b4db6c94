/* Preemption's listers (scheduler/pdbs.c) on a scheduler that is never started (no server): the
 * informers' stores are filled through their watch-line seam (api__inf_watch_line), as watch
 * events would. fw_listers.pod answers from the pod informer's store (upstream's pod lister);
 * fw_listers.pdb_each walks the PodDisruptionBudget informer's (pdbLister.List(Everything)),
 * which exists only when a profile runs DefaultPreemption at PostFilter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm/framework.h"
#include "apiclient/informer_internal.h"
#include "config/config.h"
#include "common/intern.h"
#include "scheduler/sched_internal.h"

struct fixture {
	struct api_client *client;
	struct scheduler *s;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct err e = { 0 };
	struct api_config cfg = { 0 };
	cfg.server = strdup("http://127.0.0.1:1"); /* never contacted: nothing is started */
	assert_int_equal(api_global_init(&e), 0);
	f->client = api_client_new(&cfg, &e);
	assert_non_null(f->client);
	struct sched_options o = { .client = f->client, .binders = 1 };
	f->s = sched_new(&o, &e);
	if (!f->s)
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

/* One watch event into inf's store. */
static void event(struct api_informer *inf, const char *type, const char *object)
{
	char line[2048];
	unsigned long events = 0;
	struct err e = { 0 };
	int n = snprintf(line, sizeof(line), "{\"type\":\"%s\",\"object\":%s}", type, object);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	if (api__inf_watch_line(inf, line, (size_t)n, &events, &e))
		fail_msg("%s: %s", type, e.msg);
	assert_int_equal(events, 1);
}

#define POD_JSON(name, rv)                                                                                   \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"uid-" name "\","           \
	"\"resourceVersion\":\"" rv "\"},\"spec\":{\"schedulerName\":\"csched\",\"nodeName\":\"n1\","        \
	"\"containers\":[{\"name\":\"c\"}]}}"

static void test_pod_lister(void **state)
{
	struct fixture *f = *state;
	assert_null(sched_pod_lister(f->s, "default", "web-0"));
	event(f->s->pod_inf, "ADDED", POD_JSON("web-0", "10"));
	event(f->s->pod_inf, "ADDED", POD_JSON("web-1", "11"));
	struct api_pod *p = sched_pod_lister(f->s, "default", "web-0");
	assert_non_null(p);
	assert_string_equal(p->meta.name, "web-0");
	assert_string_equal(p->meta.resource_version, "10");
	api_pod_unref(p);
	assert_null(sched_pod_lister(f->s, "other", "web-0")); /* by namespace and name */
	/* the latest version, and gone once deleted */
	event(f->s->pod_inf, "MODIFIED", POD_JSON("web-0", "12"));
	p = sched_pod_lister(f->s, "default", "web-0");
	assert_non_null(p);
	assert_string_equal(p->meta.resource_version, "12");
	api_pod_unref(p);
	event(f->s->pod_inf, "DELETED", POD_JSON("web-0", "13"));
	assert_null(sched_pod_lister(f->s, "default", "web-0"));
	p = sched_pod_lister(f->s, "default", "web-1");
	assert_non_null(p);
	api_pod_unref(p);
}

struct seen {
	int n, stop_at;
	bool web, all, other;
};

static int visit(void *arg, const struct api_pdb *pdb)
{
	struct seen *s = arg;
	s->n++;
	if (!strcmp(pdb->meta.name, "web"))
		s->web = pdb->disruptions_allowed == 1 && pdb->n_disrupted == 1;
	else if (!strcmp(pdb->meta.name, "all"))
		s->all = pdb->selector && pdb->selector->match_labels.n == 0;
	else if (!strcmp(pdb->meta.name, "other"))
		s->other = pdb->meta.namespace == intern_str("kube-system");
	return s->n == s->stop_at ? 7 : 0;
}

static void test_pdb_each(void **state)
{
	struct fixture *f = *state;
	struct err e = { 0 };
	struct seen s = { 0 };
	/* no PDB informer (no profile runs DefaultPreemption at PostFilter): nothing, 0 */
	struct api_informer *keep = f->s->pdb_inf;
	f->s->pdb_inf = NULL;
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 0);
	assert_int_equal(s.n, 0);
	f->s->pdb_inf = keep ? keep : api_informer_new(f->client, API_KIND_PDB, NULL, NULL, &e);
	assert_non_null(f->s->pdb_inf);

	event(f->s->pdb_inf, "ADDED",
	      "{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"resourceVersion\":\"1\"},\"spec\":"
	      "{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}},\"status\":{\"disruptionsAllowed\":1,"
	      "\"disruptedPods\":{\"web-0\":\"2026-11-25T20:30:00Z\"}}}");
	event(f->s->pdb_inf, "ADDED",
	      "{\"metadata\":{\"name\":\"all\",\"namespace\":\"default\",\"resourceVersion\":\"2\"},\"spec\":"
	      "{\"selector\":{}}}");
	event(f->s->pdb_inf, "ADDED",
	      "{\"metadata\":{\"name\":\"other\",\"namespace\":\"kube-system\",\"resourceVersion\":\"3\"}}");
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.web && s.all && s.other);
	/* fn's first non-zero answer stops the walk and is returned */
	s = (struct seen){ .stop_at = 2 };
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 7);
	assert_int_equal(s.n, 2);
	/* a deleted PDB is no longer listed */
	event(f->s->pdb_inf, "DELETED", "{\"metadata\":{\"name\":\"all\",\"namespace\":\"default\",\"resourceVersion\":\"4\"}}");
	s = (struct seen){ 0 };
	assert_int_equal(sched_pdb_each(f->s, visit, &s), 0);
	assert_int_equal(s.n, 2);
	assert_false(s.all);
}

/* The PDB informer exists when some profile runs DefaultPreemption at PostFilter (upstream reads
 * the PDB lister only in PostFilter's Evaluator; v1.37's default profile has the plugin at
 * PreEnqueue and PostFilter, default_plugins.go). */
static void test_pdb_informer_only_with_postfilter(void **state)
{
	(void)state;
	static const struct {
		const char *yaml;
		bool want;
	} t[] = {
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n",
		  true },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    postFilter:\n      disabled:\n      - name: DefaultPreemption\n",
		  false },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    preEnqueue:\n      disabled:\n      - name: DefaultPreemption\n",
		  true },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultPreemption\n"
		  "- schedulerName: second\n",
		  true },
		{ "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
		  "- schedulerName: csched\n  plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultPreemption\n",
		  false },
	};
	struct err e = { 0 };
	struct api_config acfg = { 0 };
	acfg.server = strdup("http://127.0.0.1:1"); /* never contacted */
	assert_int_equal(api_global_init(&e), 0);
	struct api_client *client = api_client_new(&acfg, &e);
	assert_non_null(client);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct config cfg;
		memset(&cfg, 0, sizeof(cfg));
		if (config_load_buffer(&cfg, fw_registry(), "t.yaml", t[i].yaml, strlen(t[i].yaml), &e) < 0)
			fail_msg("case %zu: %s", i, e.msg);
		assert_int_equal(sched_pdbs_needed(&cfg), t[i].want);
		struct sched_options o = { .cfg = &cfg, .client = client, .binders = 1 };
		struct scheduler *s = sched_new(&o, &e);
		if (!s)
			fail_msg("case %zu: sched_new: %s", i, e.msg);
		if ((s->pdb_inf != NULL) != t[i].want)
			fail_msg("case %zu: PDB informer %s", i, s->pdb_inf ? "created" : "missing");
		/* without one, the caches are synced without it (nothing else started here) */
		assert_true(sched_pdbs_synced(s->pdb_inf) == !t[i].want);
		sched_free(s);
		config_free(&cfg);
	}
	api_client_free(client);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pod_lister, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdb_each, setup, teardown),
		cmocka_unit_test(test_pdb_informer_only_with_postfilter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
