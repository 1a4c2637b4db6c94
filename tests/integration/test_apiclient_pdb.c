/* The PodDisruptionBudget informer (API_KIND_PDB, /apis/policy/v1/poddisruptionbudgets) against a
 * real kube-apiserver + etcd: PDBs made before it starts arrive through the LIST, later ones
 * through the WATCH; a status written through the status subresource (disruptionsAllowed,
 * disruptedPods: what preemption reads) is an update; a delete removes it from the store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiclient/informer.h"
#include "common/intern.h"
#include "harness.h"
#include "testutil.h"

#define PDBS "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

static struct harness_cluster cluster;
static struct api_client *cl;
static struct api_conn *conn;

/* Handlers run on the informer thread; the test thread reads under the same lock. */
struct recorder {
	pthread_mutex_t lock; /* guards the counts; leaf lock */
	unsigned long adds, updates, deletes;
	int32_t last_allowed; /* disruptionsAllowed of the last update */
	uint32_t last_disrupted;
};
static struct recorder rec = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void on_add(void *ctx, void *obj)
{
	struct recorder *r = ctx;
	(void)obj;
	pthread_mutex_lock(&r->lock);
	r->adds++;
	pthread_mutex_unlock(&r->lock);
}

static void on_update(void *ctx, void *old_obj, void *new_obj)
{
	struct recorder *r = ctx;
	const struct api_pdb *p = new_obj;
	(void)old_obj;
	pthread_mutex_lock(&r->lock);
	r->updates++;
	r->last_allowed = p->disruptions_allowed;
	r->last_disrupted = p->n_disrupted;
	pthread_mutex_unlock(&r->lock);
}

static void on_delete(void *ctx, void *obj)
{
	struct recorder *r = ctx;
	(void)obj;
	pthread_mutex_lock(&r->lock);
	r->deletes++;
	pthread_mutex_unlock(&r->lock);
}

struct count_wait {
	unsigned long *field, want;
};

static bool count_reached(void *ctx)
{
	struct count_wait *w = ctx;
	pthread_mutex_lock(&rec.lock);
	bool ok = *w->field >= w->want;
	pthread_mutex_unlock(&rec.lock);
	return ok;
}

static void wait_count(unsigned long *field, unsigned long want, const char *what)
{
	struct count_wait w = { field, want };
	if (!harness_wait_until(count_reached, &w, 30000, 20)) {
		pthread_mutex_lock(&rec.lock);
		unsigned long have = *field;
		pthread_mutex_unlock(&rec.lock);
		fail_msg("%s: %lu of %lu events after 30 s", what, have, want);
	}
}

static void request(const char *method, const char *path, const char *content_type, const char *body)
{
	struct err e = { 0 };
	if (api_request(conn, method, path, content_type, body, body ? strlen(body) : 0, NULL, &e))
		fail_msg("%s %s: %s", method, path, e.msg);
}

static void create_pdb(const char *name, const char *spec)
{
	char body[1024];
	snprintf(body, sizeof(body),
		 "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"%s\"},"
		 "\"spec\":%s}",
		 name, spec);
	request("POST", PDBS, NULL, body);
}

static int setup(void **state)
{
	(void)state;
	return harness_setup(&cluster, 0, &cl, &conn);
}

static int teardown(void **state)
{
	(void)state;
	harness_teardown(&cluster, &cl, &conn);
	return 0;
}

static void test_list_watch_update_delete(void **state)
{
	(void)state;
	struct err e = { 0 };
	create_pdb("web", "{\"minAvailable\":2,\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}");
	create_pdb("all", "{\"maxUnavailable\":1,\"selector\":{}}");
	struct api_informer_handlers h = { on_add, on_update, on_delete, NULL, &rec };
	struct api_informer *inf = api_informer_new(cl, API_KIND_PDB, NULL, &h, &e);
	if (!inf)
		fail_msg("api_informer_new: %s", e.msg);
	if (api_informer_start(inf, &e))
		fail_msg("start: %s", e.msg);
	assert_true(api_informer_wait_synced(inf, 30000));
	assert_int_equal(api_informer_len(inf), 2);
	wait_count(&rec.adds, 2, "listed");
	struct api_pdb *p = api_informer_get(inf, "default", "web");
	assert_non_null(p);
	assert_ptr_equal(p->meta.namespace, intern_str("default"));
	assert_non_null(p->selector);
	assert_ptr_equal(api_labels_get(&p->selector->match_labels, intern_str("app")), intern_str("web"));
	assert_int_equal(p->disruptions_allowed, 0);
	api_pdb_unref(p);
	p = api_informer_get(inf, "default", "all");
	assert_non_null(p);
	assert_non_null(p->selector); /* {}: present and empty */
	assert_int_equal(p->selector->match_labels.n + p->selector->n_exprs, 0);
	api_pdb_unref(p);

	/* through the watch */
	create_pdb("late", "{\"maxUnavailable\":0}");
	wait_count(&rec.adds, 3, "watched add");
	p = api_informer_get(inf, "default", "late");
	assert_non_null(p);
	assert_null(p->selector);
	api_pdb_unref(p);

	/* the status the disruption controller (or the eviction API) writes */
	request("PATCH", PDBS "/web/status", "application/merge-patch+json",
		"{\"status\":{\"disruptionsAllowed\":1,\"currentHealthy\":3,\"desiredHealthy\":2,\"expectedPods\":3,"
		"\"disruptedPods\":{\"web-0\":\"2026-11-25T20:30:00Z\"}}}");
	wait_count(&rec.updates, 1, "status update");
	pthread_mutex_lock(&rec.lock);
	int32_t allowed = rec.last_allowed;
	uint32_t disrupted = rec.last_disrupted;
	pthread_mutex_unlock(&rec.lock);
	assert_int_equal(allowed, 1);
	assert_int_equal(disrupted, 1);
	p = api_informer_get(inf, "default", "web");
	assert_non_null(p);
	assert_int_equal(p->disruptions_allowed, 1);
	assert_int_equal(p->n_disrupted, 1);
	assert_string_equal(p->disrupted_pods[0], "web-0");
	api_pdb_unref(p);

	request("DELETE", PDBS "/all", NULL, NULL);
	wait_count(&rec.deletes, 1, "delete");
	assert_null(api_informer_get(inf, "default", "all"));
	assert_int_equal(api_informer_len(inf), 2);

	struct api_informer_stats st;
	api_informer_stats(inf, &st);
	assert_int_equal(st.decode_errors, 0);
	api_informer_free(inf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_watch_update_delete, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
