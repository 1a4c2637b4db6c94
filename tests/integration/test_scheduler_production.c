/* Production pieces against a real kube-apiserver + etcd (tests/cluster):
 *  - manifests/ pass a server-side dry run;
 *  - with manifests/rbac.yaml applied, the csched ServiceAccount (token from the TokenRequest API)
 *    may do what csched does and is forbidden the rest (auth can-i and a real DELETE -> 403);
 *  - leader election as that ServiceAccount: two electors elect exactly one leader; a clean stop
 *    hands over within about one retry period; a crashed leader (stops renewing, no release) is
 *    replaced within leaseDuration + retryPeriod (+ one more retry period in the worst case, as
 *    client-go); a leader whose renewals are refused loses leadership after renewDeadline; a
 *    leader whose lease is taken over stops at its next renewal;
 *  - /metrics and /livez served over HTTPS (admin token, real TokenReview) by the health server beside a live elector, with a real
 *    scheduler (as the ServiceAccount) behind it: after K pods bound and one unschedulable, the
 *    scraped counters and histograms match exactly.
 * Failover times are printed (they are the numbers docs/operations.md refers to). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../unit/prom_text_check.h"
#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "config/config.h"
#include "harness.h"
#include "scheduler/health.h"
#include "scheduler/leader.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"
#include "testutil.h"

#define LEASE_NS "kube-system"
#define LEASE_NAME "csched" /* the Role grants get/update on this name only */
#define SA_USER "system:serviceaccount:kube-system:csched"

static const double LEASE_S = SCHED_LEADER_DEFAULT_LEASE_DURATION_MS / 1000.0;
static const double RENEW_S = SCHED_LEADER_DEFAULT_RENEW_DEADLINE_MS / 1000.0;
static const double RETRY_S = SCHED_LEADER_DEFAULT_RETRY_PERIOD_MS / 1000.0;

static struct harness_cluster cluster;
static char kubectl[4096]; /* path of the pinned kubectl */
static char sa_kc[512];    /* kubeconfig authenticating as the csched ServiceAccount */
static struct api_client *admin, *sa;
static struct api_conn *admin_conn;

/* ---------- Small helpers ---------- */

static double now_s(void)
{
	return (double)api_now_ns() / 1e9;
}

/* kubectl as the admin; *out (malloc'd) receives stdout+stderr. Returns the exit status. */
#define KUBECTL(out, ...) harness_kubectl(cluster.kubeconfig, NULL, out, __VA_ARGS__)

static struct api_client *client_from(const char *kubeconfig)
{
	struct api_config cfg = {0};
	struct err e = {0};
	if (api_config_load_kubeconfig(&cfg, kubeconfig, NULL, &e) != 0)
		fail_msg("%s: %s", kubeconfig, e.msg);
	struct api_client *c = api_client_new(&cfg, &e);
	if (!c)
		fail_msg("api_client_new: %s", e.msg);
	api_config_release(&cfg);
	return c;
}

/* Deletes the Lease (admin) so every scenario starts from "absent". */
static void delete_lease(void)
{
	char path[256];
	struct err e = {0};
	snprintf(path, sizeof path, "/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s", LEASE_NS, LEASE_NAME);
	int rc = api_request(admin_conn, "DELETE", path, NULL, NULL, 0, NULL, &e);
	if (rc != 0 && rc != ERR_NOT_FOUND)
		fail_msg("delete lease: %s", e.msg);
}

static void get_lease(struct api_lease *out)
{
	struct err e = {0};
	memset(out, 0, sizeof *out);
	if (api_lease_get(admin_conn, LEASE_NS, LEASE_NAME, out, &e) != 0)
		fail_msg("get lease: %s", e.msg);
}

/* ---------- Elector harness: callbacks record what happened ---------- */

struct candidate {
	const char *id;
	struct sched_leader *l;
	struct sched_metrics *m;
	atomic_int started, stopped;
	_Atomic double started_at, stopped_at;
	pthread_mutex_t lock; /* guards new_leader */
	char new_leader[256];
	int new_leader_calls;
};

static void on_started(void *ctx)
{
	struct candidate *c = ctx;
	atomic_store(&c->started_at, now_s());
	atomic_fetch_add(&c->started, 1);
}

static void on_stopped(void *ctx)
{
	struct candidate *c = ctx;
	atomic_store(&c->stopped_at, now_s());
	atomic_fetch_add(&c->stopped, 1);
}

static void on_new(void *ctx, const char *identity)
{
	struct candidate *c = ctx;
	pthread_mutex_lock(&c->lock);
	snprintf(c->new_leader, sizeof c->new_leader, "%s", identity);
	c->new_leader_calls++;
	pthread_mutex_unlock(&c->lock);
}

static void candidate_start(struct candidate *c, const char *id)
{
	memset(c, 0, sizeof *c);
	c->id = id;
	pthread_mutex_init(&c->lock, NULL);
	c->m = sched_metrics_new();
	struct sched_leader_config cfg = {
		.lease_namespace = LEASE_NS,
		.lease_name = LEASE_NAME,
		.identity = id,
		.ctx = c,
		.on_started_leading = on_started,
		.on_stopped_leading = on_stopped,
		.on_new_leader = on_new,
		.metrics = c->m,
	};
	struct err e = {0};
	c->l = sched_leader_new(sa, &cfg, &e);
	if (!c->l)
		fail_msg("sched_leader_new: %s", e.msg);
	if (sched_leader_start(c->l, &e) != 0)
		fail_msg("sched_leader_start: %s", e.msg);
}

static void candidate_free(struct candidate *c)
{
	sched_leader_free(c->l);
	sched_metrics_free(c->m);
	pthread_mutex_destroy(&c->lock);
	c->l = NULL;
	c->m = NULL;
}

/* Waits until exactly one of cs is leader; returns it, or fails after timeout_s. Along the way
 * asserts that never two lead at once. */
static struct candidate *wait_one_leader(struct candidate **cs, int n, double timeout_s)
{
	double end = now_s() + timeout_s;
	while (now_s() < end) {
		struct candidate *who = NULL;
		int leaders = 0;
		for (int i = 0; i < n; i++)
			if (cs[i]->l && sched_leader_is_leader(cs[i]->l)) {
				leaders++;
				who = cs[i];
			}
		assert_true(leaders <= 1);
		if (leaders == 1)
			return who;
		usleep(10 * 1000);
	}
	fail_msg("no leader within %.1f s", timeout_s);
	return NULL;
}

static double leader_gauge(struct candidate *c)
{
	const char *lv[] = {LEASE_NAME};
	double v = -1;
	assert_true(sched_metrics_read(c->m, "leader_election_master_status", lv, 1, &v));
	return v;
}

/* ---------- Setup ---------- */

static int setup(void **state)
{
	(void)state;
	struct err e = {0};
	if (harness_cluster_start(&cluster, 0, &e) != 0)
		fail_msg("cluster: %s", e.msg);
	char *out = NULL;
	if (harness_run(&out, "'%s/tests/cluster/bin' kubectl 2>/dev/null", CSCHED_SOURCE_DIR) != 0)
		fail_msg("tests/cluster/bin kubectl: %s", out);
	snprintf(kubectl, sizeof kubectl, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	snprintf(sa_kc, sizeof sa_kc, "%s/sa.kubeconfig", cluster.dir);
	admin = harness_client_new(&cluster, NULL, &e);
	if (!admin)
		fail_msg("admin client: %s", e.msg);
	admin_conn = api_conn_new(admin, &e);
	assert_non_null(admin_conn);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	api_conn_free(admin_conn);
	api_client_free(admin);
	api_client_free(sa);
	harness_cluster_stop(&cluster);
	return 0;
}

/* ---------- Manifests and RBAC ---------- */

static void test_manifests_dry_run(void **state)
{
	(void)state;
	char *out = NULL;
	int rc = KUBECTL(&out, "apply --dry-run=server -k '%s/manifests/'", CSCHED_SOURCE_DIR);
	if (rc != 0)
		fail_msg("kubectl apply --dry-run=server -k manifests/: %s", out);
	static const char *const objects[] = {"serviceaccount/csched", "clusterrole.rbac.authorization.k8s.io/csched",
					      "clusterrolebinding.rbac.authorization.k8s.io/csched",
					      "clusterrolebinding.rbac.authorization.k8s.io/csched:auth-delegator",
					      "role.rbac.authorization.k8s.io/csched-leader-election",
					      "configmap/csched-config", "deployment.apps/csched",
					      "poddisruptionbudget.policy/csched"};
	for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++)
		if (!strstr(out, objects[i]))
			fail_msg("dry run did not mention %s:\n%s", objects[i], out);
	free(out);
	/* the example passes too and really targets csched */
	rc = KUBECTL(&out, "apply --dry-run=server -f '%s/manifests/examples/' -o "
			   "jsonpath='{.spec.template.spec.schedulerName}'",
		     CSCHED_SOURCE_DIR);
	if (rc != 0)
		fail_msg("examples: %s", out);
	assert_string_equal(out, "csched");
	free(out);
}

static void test_rbac_service_account(void **state)
{
	(void)state;
	char *out = NULL;
	int rc = KUBECTL(&out, "apply -f '%1$s/manifests/serviceaccount.yaml' -f '%1$s/manifests/rbac.yaml'",
			 CSCHED_SOURCE_DIR);
	if (rc != 0)
		fail_msg("apply rbac: %s", out);
	free(out);
	/* a kubeconfig with the admin's cluster and a TokenRequest token for the ServiceAccount; the
	 * token stays inside the shell, never in our output */
	rc = harness_run(&out,
			 "export KUBECONFIG='%2$s' && '%1$s' config view --raw --minify --flatten > '%3$s' && "
			 "T=$('%1$s' create token csched -n kube-system --duration=1h) && "
			 "'%1$s' --kubeconfig='%3$s' config set-credentials csched-sa --token=\"$T\" >/dev/null && "
			 "'%1$s' --kubeconfig='%3$s' config set-context --current --user=csched-sa >/dev/null",
			 kubectl, cluster.kubeconfig, sa_kc);
	if (rc != 0)
		fail_msg("service account kubeconfig: %s", out);
	free(out);
	sa = client_from(sa_kc);

	/* what csched needs, and what it must not have */
	static const struct {
		const char *args;
		bool allowed;
	} cases[] = {
		{"get pods", false}, /* issue 18 item 10: only what csched calls (tests/rbac) */
		{"get nodes", false},
		{"list pods", true},
		{"watch pods", true},
		{"list nodes", true},
		{"watch nodes", true},
		{"list persistentvolumeclaims", true},
		{"watch persistentvolumeclaims", true},
		{"create persistentvolumeclaims", false},
		/* VolumeBinding: its informers and PreBind's patches (scheduler/volumes.c, volume_writes.c) */
		{"patch persistentvolumeclaims", true},
		{"list persistentvolumes", true},
		{"watch persistentvolumes", true},
		{"patch persistentvolumes", true},
		{"update persistentvolumes", false},
		{"list storageclasses.storage.k8s.io", true},
		{"watch csinodes.storage.k8s.io", true},
		{"list csidrivers.storage.k8s.io", true},
		{"watch csistoragecapacities.storage.k8s.io", true},
		{"list volumeattachments.storage.k8s.io", true}, /* NodeVolumeLimits counts attachments */
		{"watch volumeattachments.storage.k8s.io", true},
		{"update volumeattachments.storage.k8s.io", false},
		/* PodTopologySpread's default constraints (scheduler/owners.c) */
		{"list services", true},
		{"watch services", true},
		{"list replicationcontrollers", true},
		{"watch replicationcontrollers", true},
		{"list replicasets.apps", true},
		{"watch replicasets.apps", true},
		{"list statefulsets.apps", true},
		{"watch statefulsets.apps", true},
		{"get services", false},
		/* DefaultPreemption's PDB lister (scheduler/pdbs.c) */
		{"list poddisruptionbudgets.policy", true},
		{"watch poddisruptionbudgets.policy", true},
		{"get poddisruptionbudgets.policy", false},
		{"create poddisruptionbudgets.policy", false},
		/* DynamicResources: its informers (scheduler/dra.c) and writes (scheduler/dra_writes.c) */
		{"list resourceclaims.resource.k8s.io", true},
		{"watch resourceclaims.resource.k8s.io", true},
		{"get resourceclaims.resource.k8s.io", true},
		{"patch resourceclaims.resource.k8s.io", true},
		{"update resourceclaims.resource.k8s.io", false},
		{"create resourceclaims.resource.k8s.io", true},
		{"delete resourceclaims.resource.k8s.io", true},
		{"patch resourceclaims.resource.k8s.io --subresource=status", true},
		{"update resourceclaims.resource.k8s.io --subresource=status", false},
		{"list resourceslices.resource.k8s.io", true},
		{"watch resourceslices.resource.k8s.io", true},
		{"patch resourceslices.resource.k8s.io", false},
		{"list deviceclasses.resource.k8s.io", true},
		{"watch deviceclasses.resource.k8s.io", true},
		{"list devicetaintrules.resource.k8s.io", true},
		{"watch devicetaintrules.resource.k8s.io", true},
		{"list resourceclaimtemplates.resource.k8s.io", false},
		{"list deployments.apps", false},
		{"create pods --subresource=binding", true},
		{"patch pods --subresource=status", true},
		{"update pods --subresource=status", false},
		{"create events.events.k8s.io", true},
		{"patch events.events.k8s.io", false},
		{"update events.events.k8s.io", false},
		{"create leases.coordination.k8s.io -n kube-system", true},
		{"get leases.coordination.k8s.io/csched -n kube-system", true},
		{"update leases.coordination.k8s.io/csched -n kube-system", true},
		{"create tokenreviews.authentication.k8s.io", true}, /* the secure port's delegated auth */
		{"create subjectaccessreviews.authorization.k8s.io", true},
		{"delete nodes", false},
		{"update nodes", false},
		{"delete pods", true}, /* preemption victims (scheduler/preemption.c) */
		{"create pods", false},
		{"update pods", false},
		{"get secrets", false},
		{"list configmaps", false},
		{"update leases.coordination.k8s.io/kube-scheduler -n kube-system", false},
		{"create leases.coordination.k8s.io -n default", false},
		{"delete leases.coordination.k8s.io/csched -n kube-system", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* stderr dropped: kubectl warns about the context's namespace on cluster-scoped kinds */
		rc = KUBECTL(&out, "auth can-i %s --as=" SA_USER " 2>/dev/null", cases[i].args);
		bool yes = rc == 0 && strncmp(out, "yes", 3) == 0;
		if (yes != cases[i].allowed)
			fail_msg("can-i %s: got \"%s\" (rc %d), want %s", cases[i].args, out, rc,
				 cases[i].allowed ? "yes" : "no");
		free(out);
	}

	/* with the ServiceAccount's own token: reads work, a DELETE is refused with 403 */
	struct err e = {0};
	struct api_conn *c = api_conn_new(sa, &e);
	assert_non_null(c);
	struct api_response r = {0};
	rc = api_request(c, "GET", "/api/v1/nodes?limit=1", NULL, NULL, 0, &r, &e);
	if (rc != 0)
		fail_msg("list nodes as the service account: %s", e.msg);
	api_response_release(&r);
	static const char node[] = "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"it-production-node\"}}";
	rc = api_request(admin_conn, "POST", "/api/v1/nodes", NULL, node, strlen(node), NULL, &e);
	assert_true(rc == 0 || rc == ERR_CONFLICT);
	err_clear(&e);
	rc = api_request(c, "DELETE", "/api/v1/nodes/it-production-node", NULL, NULL, 0, NULL, &e);
	assert_int_equal(rc, ERR_FORBIDDEN);
	assert_int_equal(e.http_status, 403);
	err_clear(&e);
	rc = api_request(c, "GET", "/api/v1/namespaces/kube-system/secrets", NULL, NULL, 0, NULL, &e);
	assert_int_equal(rc, ERR_FORBIDDEN);
	api_conn_free(c);
	rc = api_request(admin_conn, "DELETE", "/api/v1/nodes/it-production-node", NULL, NULL, 0, NULL, &e);
	assert_int_equal(rc, 0);
}

/* can-i as the ServiceAccount, retried a few seconds: the apiserver's RBAC caches follow an apply
 * shortly after it. */
static void expect_can_i(const char *args, bool allowed)
{
	char *out = NULL;
	bool yes = false;
	for (int i = 0; i < 50; i++) {
		int rc = KUBECTL(&out, "auth can-i %s --as=" SA_USER " 2>/dev/null", args);
		yes = rc == 0 && strncmp(out, "yes", 3) == 0;
		free(out);
		if (yes == allowed)
			return;
		usleep(200 * 1000);
	}
	fail_msg("can-i %s: got %s, want %s", args, yes ? "yes" : "no", allowed ? "yes" : "no");
}

/* A renamed lock (issue 18 item 10): the deployment's --leader-elect-resource-name is the one
 * place to rename it; kustomize carries the name into the lease Role's resourceNames (upstream's
 * system:kube-scheduler grants get/update on its lease by name the same way). The Role rendered
 * from a copy of manifests/ with the argument renamed grants the new lease and no longer the old. */
static void test_rbac_renamed_lock(void **state)
{
	(void)state;
	char *out = NULL;
	int rc = harness_run(&out,
			     "D=$(mktemp -d) && cp -r '%1$s/manifests/.' \"$D\" && "
			     "sed -i 's/--leader-elect-resource-name=csched$/--leader-elect-resource-name=renamed-lock/' "
			     "\"$D/deployment.yaml\" && grep -q renamed-lock \"$D/deployment.yaml\" && "
			     "'%2$s' kustomize \"$D\" > \"$D/all.yaml\" && "
			     "awk 'BEGIN { RS = \"\\n---\\n\" } /\\nkind: Role\\n/ { print }' \"$D/all.yaml\" > \"$D/role.yaml\" && "
			     "grep -q 'name: csched-leader-election' \"$D/role.yaml\" && "
			     "KUBECONFIG='%3$s' '%2$s' apply -f \"$D/role.yaml\"; r=$?; rm -rf \"$D\"; exit $r",
			     CSCHED_SOURCE_DIR, kubectl, cluster.kubeconfig);
	if (rc != 0)
		fail_msg("render and apply the renamed lock's Role: %s", out);
	free(out);
	expect_can_i("get leases.coordination.k8s.io/renamed-lock -n kube-system", true);
	expect_can_i("update leases.coordination.k8s.io/renamed-lock -n kube-system", true);
	expect_can_i("update leases.coordination.k8s.io/csched -n kube-system", false);
	expect_can_i("create leases.coordination.k8s.io -n kube-system", true);
	/* back to the manifests' own Role (lease "csched") for the election tests */
	rc = KUBECTL(&out, "apply -f '%s/manifests/rbac.yaml'", CSCHED_SOURCE_DIR);
	if (rc != 0)
		fail_msg("re-apply rbac: %s", out);
	free(out);
	expect_can_i("update leases.coordination.k8s.io/csched -n kube-system", true);
}

/* ---------- Leader election as the ServiceAccount ---------- */

static void test_one_leader_and_clean_handover(void **state)
{
	(void)state;
	assert_non_null(sa);
	delete_lease();
	struct candidate a, b;
	candidate_start(&a, "it-replica-a");
	candidate_start(&b, "it-replica-b");
	struct candidate *cs[] = {&a, &b};
	struct candidate *leader = wait_one_leader(cs, 2, 2 * RETRY_S + 5);
	struct candidate *standby = leader == &a ? &b : &a;

	/* stays exactly one for a few retry periods; the standby never started leading */
	double end = now_s() + 2 * RETRY_S + 1;
	while (now_s() < end) {
		assert_true(sched_leader_is_leader(leader->l));
		assert_false(sched_leader_is_leader(standby->l));
		usleep(20 * 1000);
	}
	assert_int_equal(atomic_load(&leader->started), 1);
	assert_int_equal(atomic_load(&standby->started), 0);
	assert_int_equal(atomic_load(&leader->stopped), 0);
	pthread_mutex_lock(&standby->lock);
	assert_string_equal(standby->new_leader, leader->id);
	pthread_mutex_unlock(&standby->lock);
	assert_true(leader_gauge(leader) == 1);
	assert_true(leader_gauge(standby) == 0);

	struct api_lease l;
	get_lease(&l);
	assert_string_equal(l.holder_identity, leader->id);
	assert_int_equal(l.lease_duration_seconds, (int)LEASE_S);
	assert_true(l.renew_time_us >= l.acquire_time_us && l.acquire_time_us > 0);
	int32_t transitions = l.lease_transitions;
	int64_t renew1 = l.renew_time_us;
	api_lease_release(&l);
	/* it keeps renewing */
	sleep((unsigned)RETRY_S + 1);
	get_lease(&l);
	assert_true(l.renew_time_us > renew1);
	assert_int_equal(l.lease_transitions, transitions);
	api_lease_release(&l);

	/* clean stop (SIGTERM path): the lease is released and the standby takes over */
	double t0 = now_s();
	sched_leader_stop(leader->l);
	double released = now_s() - t0;
	assert_false(sched_leader_is_leader(leader->l));
	struct candidate *only[] = {standby};
	wait_one_leader(only, 1, RETRY_S + 3);
	double handover = now_s() - t0;
	printf("[ MEASURE  ] release on clean stop: stop() took %.3f s; standby leading %.3f s after stop "
	       "(retryPeriod %.0f s)\n",
	       released, handover, RETRY_S);
	assert_true(handover <= RETRY_S + 1.0);
	assert_int_equal(atomic_load(&leader->stopped), 0); /* a requested stop is not a loss */
	assert_true(leader_gauge(leader) == 0);
	assert_true(leader_gauge(standby) == 1);
	get_lease(&l);
	assert_string_equal(l.holder_identity, standby->id);
	assert_int_equal(l.lease_transitions, transitions + 1);
	api_lease_release(&l);

	candidate_free(standby); /* releases */
	get_lease(&l);
	assert_true(l.holder_identity == NULL || l.holder_identity[0] == '\0');
	assert_int_equal(l.lease_duration_seconds, 1);
	api_lease_release(&l);
	candidate_free(leader);
}

static void test_crashed_leader_replaced_after_expiry(void **state)
{
	(void)state;
	assert_non_null(sa);
	delete_lease();
	struct candidate a, b;
	candidate_start(&a, "it-crash-a");
	struct candidate *first[] = {&a};
	wait_one_leader(first, 1, RETRY_S + 5);
	candidate_start(&b, "it-crash-b");
	sleep((unsigned)(2 * RETRY_S)); /* b has observed a's renewals */
	assert_false(sched_leader_is_leader(b.l));

	/* kill -9: stop renewing without releasing */
	double t0 = now_s();
	sched_leader_abandon(a.l);
	struct candidate *second[] = {&b};
	wait_one_leader(second, 1, LEASE_S + 2 * RETRY_S + 5);
	double took = now_s() - t0;
	printf("[ MEASURE  ] crashed leader (no release): standby leading %.3f s after the crash "
	       "(leaseDuration %.0f s + retryPeriod %.0f s = %.0f s; worst case one more retry period)\n",
	       took, LEASE_S, RETRY_S, LEASE_S + RETRY_S);
	/* not before the lease could have expired as last observed, and within one retry period of it
	 * (plus the retry period by which b's observation may trail a's last renewal) */
	assert_true(took >= LEASE_S - RETRY_S - 0.5);
	assert_true(took <= LEASE_S + 2 * RETRY_S + 1.0);
	struct api_lease l;
	get_lease(&l);
	assert_string_equal(l.holder_identity, "it-crash-b");
	api_lease_release(&l);
	candidate_free(&b);
	candidate_free(&a);
}

static void test_leader_stops_when_renewal_refused(void **state)
{
	(void)state;
	assert_non_null(sa);
	delete_lease();
	struct candidate a;
	candidate_start(&a, "it-renew-a");
	struct candidate *only[] = {&a};
	wait_one_leader(only, 1, RETRY_S + 5);

	/* take the lease permissions away: every renewal is now refused (403) */
	char *out = NULL;
	double t0 = now_s();
	int rc = KUBECTL(&out, "-n kube-system delete rolebinding csched-leader-election");
	if (rc != 0)
		fail_msg("delete rolebinding: %s", out);
	free(out);
	double end = t0 + RENEW_S + RETRY_S + 5;
	while (atomic_load(&a.stopped) == 0 && now_s() < end)
		usleep(20 * 1000);
	assert_int_equal(atomic_load(&a.stopped), 1);
	double took = atomic_load(&a.stopped_at) - t0;
	printf("[ MEASURE  ] renewals refused: on_stopped_leading %.3f s after the RoleBinding was removed "
	       "(renewDeadline %.0f s)\n",
	       took, RENEW_S);
	assert_true(took >= RENEW_S - RETRY_S - 0.5);
	assert_true(took <= RENEW_S + RETRY_S + 1.0);
	assert_false(sched_leader_is_leader(a.l));
	assert_true(leader_gauge(&a) == 0);
	rc = KUBECTL(&out, "apply -f '%s/manifests/rbac.yaml'", CSCHED_SOURCE_DIR);
	if (rc != 0)
		fail_msg("re-apply rbac: %s", out);
	free(out);
	candidate_free(&a);
}

static void test_leader_stops_when_lease_taken(void **state)
{
	(void)state;
	assert_non_null(sa);
	delete_lease();
	struct candidate a;
	candidate_start(&a, "it-steal-a");
	struct candidate *only[] = {&a};
	wait_one_leader(only, 1, RETRY_S + 5);

	/* an administrator hands the lease to someone else */
	struct api_lease l;
	get_lease(&l);
	free(l.holder_identity);
	l.holder_identity = strdup("intruder");
	l.lease_duration_seconds = 60;
	struct api_lease out = {0};
	struct err e = {0};
	double t0 = now_s();
	if (api_lease_update(admin_conn, &l, &out, &e) != 0)
		fail_msg("take lease: %s", e.msg);
	api_lease_release(&l);
	api_lease_release(&out);
	double end = t0 + RETRY_S + 5;
	while (atomic_load(&a.stopped) == 0 && now_s() < end)
		usleep(20 * 1000);
	assert_int_equal(atomic_load(&a.stopped), 1);
	double took = atomic_load(&a.stopped_at) - t0;
	printf("[ MEASURE  ] lease taken over: the old leader stopped %.3f s later\n", took);
	assert_true(took <= RETRY_S + 1.0);
	pthread_mutex_lock(&a.lock);
	assert_string_equal(a.new_leader, "intruder");
	pthread_mutex_unlock(&a.lock);
	/* it did not write the lease back */
	get_lease(&l);
	assert_string_equal(l.holder_identity, "intruder");
	api_lease_release(&l);
	candidate_free(&a);
	delete_lease();
}

/* ---------- Health and metrics over HTTP, beside a live elector ---------- */

/* GET over HTTPS with the curl command line tool (a dependency of `make deps`), so this check does
 * not share code with the server or with apiclient, with the admin's bearer token (the server
 * makes a real TokenReview for it; the token stays inside the shell). Returns the status; *body
 * is malloc'd. */
static long http_get(int port, const char *path, char **body, char *ctype, size_t ctsize)
{
	char hfile[600], hdr[2048];
	snprintf(hfile, sizeof hfile, "%s/headers", cluster.dir);
	int rc = harness_run(body,
			     "T=$('%s' --kubeconfig='%s' config view --raw -o "
			     "jsonpath='{.users[?(@.name==\"admin-token\")].user.token}') && "
			     "curl -ksS -H \"Authorization: Bearer $T\" -D '%s' 'https://127.0.0.1:%d%s'",
			     kubectl, cluster.kubeconfig, hfile, port, path);
	if (rc != 0)
		fail_msg("curl %s: %s", path, *body);
	FILE *hf = fopen(hfile, "r");
	assert_non_null(hf);
	long status = 0;
	ctype[0] = '\0';
	while (fgets(hdr, sizeof hdr, hf)) {
		if (strncmp(hdr, "HTTP/", 5) == 0)
			sscanf(hdr, "HTTP/%*s %ld", &status);
		if (strncasecmp(hdr, "Content-Type:", 13) == 0) {
			if (snprintf(ctype, ctsize, "%s", hdr + 14) >= (int)ctsize)
				ctype[ctsize - 1] = 0; /* only the media type is compared */
			ctype[strcspn(ctype, "\r\n")] = '\0';
		}
	}
	fclose(hf);
	return status;
}

#define METRICS_NS "it-metrics"
#define METRICS_PODS 7 /* K: pods that fit */

static void admin_post(const char *path, const char *body)
{
	struct err e = {0};
	if (api_request(admin_conn, "POST", path, NULL, body, strlen(body), NULL, &e) != 0)
		fail_msg("POST %s: %s", path, e.msg);
}

/* One value of a scrape; -1 when the series is absent. */
static double scraped(const char *body, const char *name, const char *const *pairs, int n)
{
	double v = -1;
	return prom_find(body, name, pairs, n, &v) ? v : -1;
}

static double ep_count(const char *body, const char *point, const char *status)
{
	char ep[64], st[64];
	snprintf(ep, sizeof ep, "extension_point=%s", point);
	snprintf(st, sizeof st, "status=%s", status);
	return scraped(body, "scheduler_framework_extension_point_duration_seconds_count",
		       (const char *[]){ep, st, "profile=csched"}, 3);
}

/* Whether a scrape shows the run settled: K scheduled, the big pod rejected, and every attempt's
 * timings handed over (the binder hands PreBind..PostBind over just after counting the pod). */
static bool metrics_settled(const char *body)
{
	double sched = scraped(body, "scheduler_schedule_attempts_total",
			       (const char *[]){"result=scheduled", "profile=csched"}, 2);
	double unsched = scraped(body, "scheduler_schedule_attempts_total",
				 (const char *[]){"result=unschedulable", "profile=csched"}, 2);
	return sched == METRICS_PODS && unsched >= 1 && ep_count(body, "PostBind", "Success") == METRICS_PODS &&
	       ep_count(body, "Filter", "Success") == sched + unsched;
}

static void test_metrics_and_health_over_http(void **state)
{
	(void)state;
	assert_non_null(sa);
	delete_lease();
	struct candidate a;
	candidate_start(&a, "it-metrics-a");
	struct candidate *only[] = {&a};
	wait_one_leader(only, 1, RETRY_S + 5);

	/* A real scheduler, as the ServiceAccount: K small pods fit on two nodes, one asks for more
	 * cpu than any node has (rejected by NodeResourcesFit's Filter). */
	struct sched_metrics *m = a.m;
	struct config cfg;
	struct err e = {0};
	if (config_init_default(&cfg, fw_registry(), &e) != 0)
		fail_msg("config: %s", e.msg);
	struct sched_options so = { .cfg = &cfg, .client = sa, .metrics = m, .binders = 2 };
	struct scheduler *s = sched_new(&so, &e);
	if (!s)
		fail_msg("sched_new: %s", e.msg);
	admin_post("/api/v1/namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" METRICS_NS "\"}}");
	for (int i = 0; i < 2; i++) {
		char body[1024];
		snprintf(body, sizeof body,
			 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"metrics-node-%d\"},"
			 "\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
			 "\"allocatable\":{\"cpu\":\"4\",\"memory\":\"32Gi\",\"pods\":\"110\"},"
			 "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
			 i);
		admin_post("/api/v1/nodes", body);
	}
	for (int i = 0; i <= METRICS_PODS; i++) {
		char body[1024];
		snprintf(body, sizeof body,
			 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s-%d\"},\"spec\":{"
			 "\"schedulerName\":\"csched\",\"containers\":[{\"name\":\"c\",\"image\":\"pause\","
			 "\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]}}",
			 i < METRICS_PODS ? "fits" : "too-big", i, i < METRICS_PODS ? "100m" : "64");
		admin_post("/api/v1/namespaces/" METRICS_NS "/pods", body);
	}
	if (sched_start_scheduling(s, &e) != 0)
		fail_msg("sched_start_scheduling: %s", e.msg);

	/* delegated auth against the real apiserver, as the admin */
	struct sched_auth_options ao = {.authn = admin, .authz = admin};
	struct sched_auth *auth = sched_auth_new(&ao, &e);
	assert_non_null(auth);
	struct sched_health_options o = {.bind_address = "127.0.0.1",
					 .port = SCHED_HEALTH_PORT_EPHEMERAL,
					 .metrics = m,
					 .leader = a.l,
					 .auth = auth};
	struct sched_health *h = sched_health_start(&o, &e);
	if (!h)
		fail_msg("health: %s", e.msg);
	int port = sched_health_port(h);

	/* scrape until the run settles (30 s at most), then every count must be exact */
	char *body = NULL, ctype[256];
	long status = 0;
	for (double end = now_s() + 30; ; usleep(100 * 1000)) {
		free(body);
		body = NULL;
		status = http_get(port, "/metrics", &body, ctype, sizeof ctype);
		if (status != 200 || metrics_settled(body) || now_s() > end)
			break;
	}
	assert_int_equal(status, 200);
	assert_string_equal(ctype, SCHED_METRICS_CONTENT_TYPE);
	char why[512];
	if (!prom_check_text(body, why, sizeof why, NULL))
		fail_msg("/metrics does not parse: %s", why);
	if (!metrics_settled(body))
		fail_msg("not settled after 30 s:\n%s", body);
	double k = METRICS_PODS, v = -1;
	double unsched = scraped(body, "scheduler_schedule_attempts_total",
				 (const char *[]){"result=unschedulable", "profile=csched"}, 2);
	double attempts = k + unsched;
	assert_true(scraped(body, "scheduler_schedule_attempts_total", (const char *[]){"result=error", "profile=csched"},
			    2) == -1);
	assert_true(scraped(body, "scheduler_scheduling_attempt_duration_seconds_count",
			    (const char *[]){"result=scheduled", "profile=csched"}, 2) == k);
	assert_true(scraped(body, "scheduler_scheduling_algorithm_duration_seconds_count", NULL, 0) == k);
	/* every attempt ran PreFilter and Filter; the K that fit two nodes were scored and bound */
	static const struct {
		const char *point;
		bool every_attempt;
	} points[] = {{"PreFilter", true}, {"Filter", true},  {"PreScore", false}, {"Score", false},
		      {"Reserve", false},  {"Permit", false}, {"PreBind", false},  {"Bind", false},
		      {"PostBind", false}};
	for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
		double got = ep_count(body, points[i].point, "Success");
		if (got != (points[i].every_attempt ? attempts : k))
			fail_msg("extension point %s: count %g, want %g", points[i].point, got,
				 points[i].every_attempt ? attempts : k);
	}
	/* DefaultPreemption ran for each unschedulable attempt of the too-big pod and found no victim
	 * (every pod has priority 0): upstream counts each run in preemption_attempts_total */
	assert_true(ep_count(body, "PostFilter", "Unschedulable") == unsched);
	assert_true(scraped(body, "scheduler_preemption_attempts_total", NULL, 0) == unsched);
	assert_true(scraped(body, "scheduler_preemption_victims_count", NULL, 0) == 0);
	assert_true(scraped(body, "scheduler_unschedulable_pods",
			    (const char *[]){"plugin=NodeResourcesFit", "profile=csched"}, 2) == 1);
	assert_true(scraped(body, "scheduler_pending_pods", (const char *[]){"queue=unschedulable"}, 1) == 1);
	assert_true(scraped(body, "scheduler_pending_pods", (const char *[]){"queue=active"}, 1) == 0);
	assert_true(scraped(body, "scheduler_queue_incoming_pods_total",
			    (const char *[]){"queue=active", "event=UnscheduledPodAdd"}, 2) == k + 1);
	assert_true(scraped(body, "scheduler_queue_incoming_pods_total",
			    (const char *[]){"queue=unschedulable", "event=ScheduleAttemptFailure"}, 2) == unsched);
	assert_true(scraped(body, "scheduler_pod_scheduling_sli_duration_seconds_count", (const char *[]){"attempts=1"},
			    1) == k);
	assert_true(scraped(body, "scheduler_pod_scheduling_attempts_count", NULL, 0) == k);
	assert_true(scraped(body, "scheduler_scheduler_cache_size", (const char *[]){"type=nodes"}, 1) >= 2);
	assert_true(scraped(body, "scheduler_scheduler_cache_size", (const char *[]){"type=pods"}, 1) >= k);
	assert_true(prom_find(body, "leader_election_master_status", (const char *[]){"name=csched"}, 1, &v));
	assert_true(v == 1);
	assert_true(prom_find(body, "process_open_fds", NULL, 0, &v) && v > 3);
	assert_true(prom_find(body, "process_start_time_seconds", NULL, 0, &v) && v > 1e9);
	free(body);
	sched_stop(s); /* its metrics sources stay valid until sched_free, after the server stops */

	status = http_get(port, "/livez?verbose", &body, ctype, sizeof ctype);
	assert_int_equal(status, 200);
	assert_non_null(strstr(body, "[+]leaderElection ok"));
	free(body);
	status = http_get(port, "/readyz", &body, ctype, sizeof ctype);
	assert_int_equal(status, 200);
	free(body);

	/* after a clean stop the gauge reads 0 over HTTP too */
	sched_leader_stop(a.l);
	status = http_get(port, "/metrics", &body, ctype, sizeof ctype);
	assert_int_equal(status, 200);
	assert_true(prom_find(body, "leader_election_master_status", (const char *[]){"name=csched"}, 1, &v));
	assert_true(v == 0);
	free(body);
	sched_health_stop(h);
	sched_auth_free(auth);
	sched_free(s);
	config_free(&cfg);
	candidate_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifests_dry_run),
		cmocka_unit_test(test_rbac_service_account),
		cmocka_unit_test(test_rbac_renamed_lock),
		cmocka_unit_test(test_one_leader_and_clean_handover),
		cmocka_unit_test(test_crashed_leader_replaced_after_expiry),
		cmocka_unit_test(test_leader_stops_when_renewal_refused),
		cmocka_unit_test(test_leader_stops_when_lease_taken),
		cmocka_unit_test(test_metrics_and_health_over_http),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
