/* csched's program (contract in cmd.h): flags, configuration, the scheduler and its companions.
 *
 * DESIGN
 * cmd_run blocks SIGTERM/SIGINT before any thread starts (every thread inherits the mask), builds
 * the configuration (file or defaults, then the flags upstream lets override it), the clients, the
 * scheduler, the health server and the leader elector, then waits in sigtimedwait. A signal stops
 * everything in order (the scheduler, draining its bindings while the lease is still held, then
 * the elector, releasing the lease, then the server) and returns 0. Losing the lease while running
 * exits 1 at once, as kube-scheduler does, so a restart comes back as a standby. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "algorithm/framework.h"
#include "cmd/flags.h"
#include "common/clock.h"
#include "common/log.h"
#include "config/config.h"
#include "scheduler/comparer.h"
#include "scheduler/health.h"
#include "scheduler/leader.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"

#define CMD_MALLOC_ARENAS 2 /* glibc malloc arenas (M_ARENA_MAX): see limit_malloc_arenas */

/* How long a clean shutdown may take (an unreachable API server makes requests in flight wait for
 * their timeouts) before the process exits anyway. */
#define SHUTDOWN_GRACE_S 10

static atomic_bool lost_lease;
static sigset_t term_sigs; /* SIGTERM, SIGINT: blocked in every thread, taken by sigtimedwait */
static sigset_t wait_sigs; /* term_sigs and SIGUSR2 (the cache comparer, as kube-scheduler's) */

/* Bounds the shutdown: a second signal or SHUTDOWN_GRACE_S seconds end the process. */
static void *shutdown_watchdog(void *arg)
{
	(void)arg;
	/* sigtimedwait may return early with EINTR (seen under ASan while the other threads exit):
	 * only a signal or the whole grace period ends the wait */
	int64_t end = mono_ns() + SHUTDOWN_GRACE_S * 1000000000LL;
	int sig = -1;
	for (int64_t left; sig <= 0 && (left = end - mono_ns()) > 0;) {
		struct timespec ts = { left / 1000000000LL, left % 1000000000LL };
		sig = sigtimedwait(&term_sigs, NULL, &ts);
		if (sig < 0 && errno != EINTR)
			break;
	}
	if (sig > 0)
		LOG_ERROR("second signal during shutdown: exiting now");
	else
		LOG_ERROR("shutdown took longer than %d s: exiting now", SHUTDOWN_GRACE_S);
	_exit(1);
	return NULL;
}

/* Everything cmd_run starts, released by app_release in reverse order. */
struct app {
	struct config cfg;
	struct api_client *client, *event_client; /* events get their own client, as upstream's eventClient */
	struct api_client *le_client; /* leader election's own (client-go NewFromKubeconfig); NULL without */
	struct sched_metrics *metrics;
	struct sched_leader *leader; /* NULL without leader election */
	struct scheduler *s;
	struct sched_health *health; /* NULL with --secure-port=0 */
	struct sched_auth *auth;
	struct api_client *authn_client, *authz_client; /* TokenReview, SubjectAccessReview */
	bool global_init;            /* api_global_init succeeded */
};

static void on_started_leading(void *ctx)
{
	struct app *a = ctx;
	struct err e = { 0 };
	LOG_INFO("became leader: starting to schedule");
	if (sched_start_scheduling(a->s, &e) < 0) {
		LOG_ERROR("starting the scheduler: %s", e.msg);
		atomic_store(&lost_lease, true); /* exit non-zero: a restart tries again */
	}
}

static void on_stopped_leading(void *ctx)
{
	(void)ctx;
	/* upstream server.go OnStoppedLeading: logger.Error(nil, "Leaderelection lost"), exit 1 */
	LOG_ERROR("Leaderelection lost");
	atomic_store(&lost_lease, true);
}

static bool may_bind(void *ctx)
{
	return sched_leader_is_leader(ctx);
}

static void on_new_leader(void *ctx, const char *identity)
{
	(void)ctx;
	LOG_INFO("new leader elected: %s", identity ? identity : "");
}

/* Upstream's precedence: without --config the deprecated client flags and the leader-election
 * flags apply; with --config only the leader-election flags override the file. */
static int apply_flags(struct config *cfg, const struct cmd_flags *f, bool have_file, struct err *e)
{
	struct cfg_leader_election *le = &cfg->leader_election;
	if (!have_file) {
		if (f->set_kubeconfig && !(cfg->client_connection.kubeconfig = config_strdup(cfg, f->kubeconfig)))
			return err_set(e, ERR_NOMEM, "out of memory");
		if (f->set_kube_api_qps)
			cfg->client_connection.qps = (float)f->kube_api_qps;
		if (f->set_kube_api_burst)
			cfg->client_connection.burst = f->kube_api_burst;
		if (f->set_kube_api_content_type &&
		    !(cfg->client_connection.content_type = config_strdup(cfg, f->kube_api_content_type)))
			return err_set(e, ERR_NOMEM, "out of memory");
	} else if (f->set_kubeconfig || f->set_kube_api_qps || f->set_kube_api_burst || f->set_kube_api_content_type) {
		LOG_WARN("--kubeconfig, --kube-api-qps, --kube-api-burst and --kube-api-content-type are ignored when "
			 "--config is given (set clientConnection in the file)");
	}
	if (f->set_leader_elect)
		le->leader_elect = f->leader_elect;
	if (f->set_lease_duration)
		le->lease_duration_ns = f->lease_duration_ns;
	if (f->set_renew_deadline)
		le->renew_deadline_ns = f->renew_deadline_ns;
	if (f->set_retry_period)
		le->retry_period_ns = f->retry_period_ns;
	if (f->set_resource_lock && !(le->resource_lock = config_strdup(cfg, f->resource_lock)))
		return err_set(e, ERR_NOMEM, "out of memory");
	if (f->set_resource_name && !(le->resource_name = config_strdup(cfg, f->resource_name)))
		return err_set(e, ERR_NOMEM, "out of memory");
	if (f->set_resource_namespace && !(le->resource_namespace = config_strdup(cfg, f->resource_namespace)))
		return err_set(e, ERR_NOMEM, "out of memory");
	return config_validate(cfg, e);
}

/* A client from the configuration's clientConnection (kubeconfig "" = $KUBECONFIG, in-cluster,
 * then ~/.kube/config) with --master overriding the server; timeout_ms 0 = the default. */
static struct api_client *make_client(const struct config *cfg, const char *master, long timeout_ms,
				      struct err *e)
{
	struct api_config ac = { 0 };
	const char *kc = cfg->client_connection.kubeconfig;
	if (api_config_load_default(&ac, kc && kc[0] ? kc : NULL, NULL, e) < 0) {
		api_config_release(&ac);
		return NULL;
	}
	if (master && master[0]) {
		char *srv = strdup(master);
		if (!srv) {
			api_config_release(&ac);
			err_set(e, ERR_NOMEM, "out of memory");
			return NULL;
		}
		free(ac.server);
		ac.server = srv;
	}
	ac.qps = cfg->client_connection.qps;
	ac.burst = cfg->client_connection.burst;
	/* the informers' reads (writes stay JSON, as upstream's for the types they send) */
	ac.protobuf = !strncmp(cfg->client_connection.content_type, "application/vnd.kubernetes.protobuf",
			       strlen("application/vnd.kubernetes.protobuf"));
	ac.request_timeout_ms = timeout_ms;
	struct api_client *c = api_client_new(&ac, e);
	api_config_release(&ac);
	return c;
}

/* The code of a failure reported in e (ERR_INVALID should a callee leave e->code unset). */
static int failed(const struct err *e)
{
	return e->code < 0 ? e->code : ERR_INVALID;
}

/* Parses the flags and answers --help and --version. Returns -1 to go on, else the exit status. */
static int parse_command_line(struct cmd_flags *f, int argc, char **argv)
{
	struct err e = { 0 };
	if (cmd_flags_parse(f, argc, argv, &e) < 0) {
		fprintf(stderr, "Error: %s\nRun '%s --help' for usage.\n", e.msg, argv[0]);
		return 1;
	}
	if (f->help) {
		cmd_flags_usage(stdout, argv[0]);
		return 0;
	}
	if (f->version) {
		printf("csched v%s\n", CSCHED_VERSION);
		return 0;
	}
	return -1;
}

/* Configuration: file, legacy Policy, or the embedded default; then the flags. */
static int load_config(struct config *cfg, const struct cmd_flags *f, struct err *e)
{
	if (f->config && f->policy_config_file)
		return err_set(e, ERR_INVALID, "--config and --policy-config-file cannot be used together");
	const struct cfg_registry *reg = fw_registry();
	int rc = f->config		 ? config_load_file(cfg, reg, f->config, e)
		 : f->policy_config_file ? config_load_policy_file(cfg, reg, f->policy_config_file, e)
					 : config_init_default(cfg, reg, e);
	if (rc < 0)
		return rc;
	return apply_flags(cfg, f, f->config != NULL, e);
}

/* --write-config-to: the effective configuration, then exit. Returns the exit status. */
static int write_config_to(const struct config *cfg, const char *path)
{
	struct err e = { 0 };
	FILE *w = fopen(path, "w");
	if (!w || config_write(cfg, w, &e) < 0 || fclose(w) != 0) {
		fprintf(stderr, "Error: writing the configuration to %s: %s\n", path, w ? e.msg : strerror(errno));
		return 1;
	}
	LOG_INFO("Wrote configuration to: %s", path);
	return 0;
}

/* libcurl, the API clients and the metrics registry. */
static int start_clients(struct app *a, const char *master, struct err *e)
{
	if (api_global_init(e) < 0)
		return failed(e);
	a->global_init = true;
	/* tests/rbac: the requests csched makes, checked against the manifests' RBAC rules */
	const char *trace = getenv("CSCHED_API_TRACE");
	if (trace && *trace && api_trace_requests(trace, e) < 0)
		return failed(e);
	if (!(a->client = make_client(&a->cfg, master, 0, e)) || !(a->event_client = make_client(&a->cfg, master, 0, e)))
		return failed(e);
	if (!(a->metrics = sched_metrics_new()))
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

static int start_leader_election(struct app *a, const char *master, struct err *e)
{
	const struct cfg_leader_election *le = &a->cfg.leader_election;
	struct sched_leader_config lc = {
		.lease_namespace = le->resource_namespace,
		.lease_name = le->resource_name,
		.lease_duration_ms = le->lease_duration_ns / 1000000,
		.renew_deadline_ms = le->renew_deadline_ns / 1000000,
		.retry_period_ms = le->retry_period_ns / 1000000,
		.ctx = a,
		.on_started_leading = on_started_leading,
		.on_stopped_leading = on_stopped_leading,
		.on_new_leader = on_new_leader,
		.metrics = a->metrics,
	};
	/* client-go resourcelock.NewFromKubeconfig: a client of its own (the scheduler's binds do not
	 * eat its rate limit) whose requests time out after renewDeadline / 2, at least 1 s */
	int64_t renew_ms = lc.renew_deadline_ms ? lc.renew_deadline_ms : SCHED_LEADER_DEFAULT_RENEW_DEADLINE_MS;
	long timeout_ms = (long)(renew_ms / 2);
	if (!(a->le_client = make_client(&a->cfg, master, timeout_ms < 1000 ? 1000 : timeout_ms, e)))
		return failed(e);
	if (!(a->leader = sched_leader_new(a->le_client, &lc, e))) {
		err_prefix(e, "leader election");
		return failed(e);
	}
	return 0;
}

/* The client for delegated auth reviews: the given kubeconfig, else csched's own connection
 * (upstream: the in-cluster config, which is csched's own when it runs in a pod without one);
 * upstream's DelegatingAuthorizationOptions client settings: QPS 200, burst 400, timeout 10s. */
static struct api_client *make_review_client(const struct config *cfg, const char *kubeconfig, const char *master,
					     const char *flag, struct err *e)
{
	struct api_config ac = { 0 };
	if (kubeconfig && kubeconfig[0]) {
		if (api_config_load_kubeconfig(&ac, kubeconfig, NULL, e) < 0) {
			api_config_release(&ac);
			err_prefix(e, "%s", flag);
			return NULL;
		}
	} else {
		const char *kc = cfg->client_connection.kubeconfig;
		if (api_config_load_default(&ac, kc && kc[0] ? kc : NULL, NULL, e) < 0) {
			api_config_release(&ac);
			return NULL;
		}
		if (master && master[0]) {
			free(ac.server);
			if (!(ac.server = strdup(master))) {
				api_config_release(&ac);
				err_set(e, ERR_NOMEM, "out of memory");
				return NULL;
			}
		}
	}
	ac.qps = 200;
	ac.burst = 400;
	ac.request_timeout_ms = 10000;
	struct api_client *c = api_client_new(&ac, e);
	api_config_release(&ac);
	return c;
}

static int start_health(struct app *a, const struct cmd_flags *f, const char *master, struct err *e)
{
	if (!(a->authn_client = make_review_client(&a->cfg, f->authentication_kubeconfig, master,
						    "--authentication-kubeconfig", e)) ||
	    !(a->authz_client = make_review_client(&a->cfg, f->authorization_kubeconfig, master,
						    "--authorization-kubeconfig", e)))
		return failed(e);
	/* a TTL of 0 caches nothing (upstream); 1 ns is as good */
	struct sched_auth_options ao = {
		.authn = a->authn_client,
		.authz = a->authz_client,
		.token_ttl_ns = f->authentication_token_cache_ttl_ns ? f->authentication_token_cache_ttl_ns : 1,
		.allow_ttl_ns = f->authorization_allow_ttl_ns ? f->authorization_allow_ttl_ns : 1,
		.deny_ttl_ns = f->authorization_deny_ttl_ns ? f->authorization_deny_ttl_ns : 1,
		.always_allow_paths = f->authorization_always_allow_paths,
	};
	if (!(a->auth = sched_auth_new(&ao, e)))
		return failed(e);
	struct sched_health_options ho = {
		.bind_address = f->bind_address,
		.port = f->port,
		.cert_file = f->tls_cert_file,
		.key_file = f->tls_private_key_file,
		.auth = a->auth,
		.metrics = a->metrics,
		.leader = a->leader,
		.ctx = a->s,
		.loop_alive = sched_loop_alive,
		.synced = sched_caches_synced,
		.explain = a->s,
	};
	if (!(a->health = sched_health_start(&ho, e)))
		return failed(e);
	LOG_INFO("Serving health and metrics over HTTPS on %s:%d", f->bind_address, sched_health_port(a->health));
	return 0;
}

/* Builds the scheduler and its companions from a->cfg and starts them: scheduling at once, or
 * once this replica leads. */
static int app_start(struct app *a, const struct cmd_flags *f, struct err *e)
{
	const struct cfg_leader_election *le = &a->cfg.leader_election;
	if (le->leader_elect && strcmp(le->resource_lock, "leases") != 0)
		return err_set(e, ERR_INVALID,
			       "leaderElection.resourceLock: Unsupported value: \"%s\": supported values: \"leases\"",
			       le->resource_lock);

	/* Signals are taken by sigtimedwait in wait_for_signal: block them before any thread exists. */
	sigemptyset(&term_sigs);
	sigaddset(&term_sigs, SIGTERM);
	sigaddset(&term_sigs, SIGINT);
	wait_sigs = term_sigs;
	sigaddset(&wait_sigs, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &wait_sigs, NULL);

	LOG_INFO("Starting csched version v%s", CSCHED_VERSION);
	if (start_clients(a, f->master, e) < 0)
		return failed(e);
	if (le->leader_elect && start_leader_election(a, f->master, e) < 0)
		return failed(e);
	struct sched_options so = {
		.cfg = &a->cfg, .client = a->client, .event_client = a->event_client, .metrics = a->metrics
	};
	if (a->leader) {
		so.may_bind = may_bind;
		so.may_bind_ctx = a->leader;
	}
	if (!(a->s = sched_new(&so, e)))
		return failed(e);
	if (f->port != 0 && start_health(a, f, f->master, e) < 0)
		return failed(e);
	/* A standby keeps its caches warm (unless delayCacheUntilActive) so failover needs no LIST. */
	if ((!a->cfg.delay_cache_until_active || !a->leader) && sched_start_informers(a->s, e) < 0)
		return failed(e);
	if (!a->leader)
		return sched_start_scheduling(a->s, e);
	if (sched_leader_start(a->leader, e) < 0) {
		err_prefix(e, "leader election");
		return failed(e);
	}
	return 0;
}

/* upstream debugger.ListenForSignal: SIGUSR2 compares the cache with the informers' stores and
 * logs the differences (the comparer logs them itself). */
static void compare_cache(struct scheduler *s)
{
	struct sched_cache_diff d;
	struct err e = { 0 };
	if (sched_cache_compare(s, &d, &e) < 0)
		LOG_ERROR("cache comparer: %s", e.msg);
	sched_cache_diff_release(&d);
}

/* Waits for SIGTERM or SIGINT and returns 0 (the exit status); exits 1 if leadership is lost;
 * SIGUSR2 runs the cache comparer. */
static int wait_for_signal(struct app *a)
{
	for (;;) {
		struct timespec ts = { 0, 100 * 1000000L };
		int sig = sigtimedwait(&wait_sigs, NULL, &ts);
		if (sig == SIGUSR2) {
			compare_cache(a->s);
			continue;
		}
		if (sig == SIGTERM || sig == SIGINT) {
			pthread_t wd;
			LOG_INFO("received %s: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
			if (pthread_create(&wd, NULL, shutdown_watchdog, NULL) == 0)
				pthread_detach(wd);
			return 0;
		}
		if (atomic_load(&lost_lease)) {
			/* upstream: klog.FlushAndExit(1) at once; the restart comes back as a standby.
			 * Nothing is drained: a replica that lost its lease must not write any more. */
			LOG_ERROR("exiting: leadership lost");
			/* the election thread has ended (on_stopped_leading was its last act): join it,
			 * without a release, so no finished thread is left unjoined (TSan reports it) */
			sched_leader_abandon(a->leader);
			_exit(1);
		}
	}
}

static void app_release(struct app *a)
{
	/* Order: stop scheduling first (bindings in flight finish while the lease is still ours),
	 * then release the lease so a standby takes over at its next retry. */
	sched_stop(a->s);
	sched_leader_stop(a->leader);
	sched_health_stop(a->health);
	sched_auth_free(a->auth);
	api_client_free(a->authz_client);
	api_client_free(a->authn_client);
	sched_leader_free(a->leader);
	sched_free(a->s);
	sched_metrics_free(a->metrics);
	api_client_free(a->le_client);
	api_client_free(a->event_client);
	api_client_free(a->client);
	if (a->global_init)
		api_global_cleanup();
	config_free(&a->cfg);
}

/* glibc gives each thread that mallocs under contention an arena of its own, up to 8 per CPU:
 * csched's ~70 threads (binders, informers, workers) spread 3 MB of peak RSS over 16 partly-used
 * arenas (docs/memory.md). The scheduling hot path allocates from per-cycle bump arenas, not
 * malloc, so 2 arenas cost no measurable contention. MALLOC_ARENA_MAX or GLIBC_TUNABLES, when
 * set, win. Before any thread starts. */
static void limit_malloc_arenas(void)
{
	const char *t = getenv("GLIBC_TUNABLES");
	if (!getenv("MALLOC_ARENA_MAX") && !(t && strstr(t, "glibc.malloc.arena_max")))
		mallopt(M_ARENA_MAX, CMD_MALLOC_ARENAS);
}

int cmd_run(int argc, char **argv)
{
	struct cmd_flags f;
	struct app app = { 0 };
	struct err e = { 0 };
	limit_malloc_arenas();
	if (argc > 1 && strcmp(argv[1], "explain") == 0)
		return cmd_explain(argc - 1, argv + 1, argv[0]);
	if (argc > 1 && strcmp(argv[1], "devices") == 0)
		return cmd_devices(argc - 1, argv + 1, argv[0]);
	if (argc > 1 && strcmp(argv[1], "simulate") == 0)
		return cmd_simulate(argc - 1, argv + 1, argv[0]);
	int status = parse_command_line(&f, argc, argv);
	if (status >= 0)
		return status;
	log_set_verbosity(f.verbosity);
	if (load_config(&app.cfg, &f, &e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		status = 1;
	} else if (f.write_config_to) {
		status = write_config_to(&app.cfg, f.write_config_to);
	} else if (app_start(&app, &f, &e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		status = 1;
	} else {
		status = wait_for_signal(&app);
	}
	app_release(&app);
	return status;
}
