/* csched: the command line entry point.
 *
 * DESIGN
 * main blocks SIGTERM/SIGINT before any thread starts (every thread inherits the mask), builds the
 * configuration (file or defaults, then the flags upstream lets override it), the clients, the
 * scheduler, the health server and the leader elector, then waits in sigtimedwait. A signal stops
 * everything in order (the scheduler, draining its bindings while the lease is still held, then
 * the elector, releasing the lease, then the server) and exits 0. Losing the lease while running
 * exits 1 at once, as kube-scheduler does, so a restart comes back as a standby. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "algorithm/framework.h"
#include "cmd/flags.h"
#include "common/log.h"
#include "config/config.h"
#include "scheduler/health.h"
#include "scheduler/leader.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"

/* How long a clean shutdown may take (an unreachable API server makes requests in flight wait for
 * their timeouts) before the process exits anyway. */
#define SHUTDOWN_GRACE_S 10

static atomic_bool lost_lease;
static sigset_t term_sigs; /* SIGTERM, SIGINT: blocked in every thread, taken by sigtimedwait */

/* Bounds the shutdown: a second signal or SHUTDOWN_GRACE_S seconds end the process. */
static void *shutdown_watchdog(void *arg)
{
	(void)arg;
	struct timespec ts = { SHUTDOWN_GRACE_S, 0 };
	int sig = sigtimedwait(&term_sigs, NULL, &ts);
	if (sig > 0)
		LOG_ERROR("second signal during shutdown: exiting now");
	else
		LOG_ERROR("shutdown took longer than %d s: exiting now", SHUTDOWN_GRACE_S);
	_exit(1);
	return NULL;
}

struct app {
	struct scheduler *s;
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
	LOG_ERROR("leaderelection lost");
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
	} else if (f->set_kubeconfig || f->set_kube_api_qps || f->set_kube_api_burst) {
		LOG_WARN("--kubeconfig, --kube-api-qps and --kube-api-burst are ignored when --config is given "
			 "(set clientConnection in the file)");
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
 * then ~/.kube/config) with --master overriding the server. */
static struct api_client *make_client(const struct config *cfg, const char *master, struct err *e)
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
	struct api_client *c = api_client_new(&ac, e);
	api_config_release(&ac);
	return c;
}

int main(int argc, char **argv)
{
	struct cmd_flags f;
	struct config cfg = { 0 };
	struct err e = { 0 };
	struct api_client *client = NULL, *event_client = NULL;
	struct sched_metrics *metrics = NULL;
	struct sched_health *health = NULL;
	struct sched_leader *leader = NULL;
	struct app app = { 0 };
	bool global_init = false;
	int status = 1;

	if (cmd_flags_parse(&f, argc, argv, &e) < 0) {
		fprintf(stderr, "Error: %s\nRun '%s --help' for usage.\n", e.msg, argv[0]);
		return 1;
	}
	if (f.help) {
		cmd_flags_usage(stdout, argv[0]);
		return 0;
	}
	if (f.version) {
		printf("csched v%s\n", CSCHED_VERSION);
		return 0;
	}
	log_set_verbosity(f.verbosity);

	/* Configuration: file, legacy Policy, or the embedded default; then the flags. */
	if (f.config && f.policy_config_file) {
		fprintf(stderr, "Error: --config and --policy-config-file cannot be used together\n");
		return 1;
	}
	int rc = f.config		? config_load_file(&cfg, fw_registry(), f.config, &e)
		 : f.policy_config_file ? config_load_policy_file(&cfg, fw_registry(), f.policy_config_file, &e)
					: config_init_default(&cfg, fw_registry(), &e);
	if (rc < 0 || apply_flags(&cfg, &f, f.config != NULL, &e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		goto out;
	}
	if (f.write_config_to) {
		FILE *w = fopen(f.write_config_to, "w");
		if (!w || config_write(&cfg, w, &e) < 0 || fclose(w) != 0) {
			fprintf(stderr, "Error: writing the configuration to %s: %s\n", f.write_config_to,
				w ? e.msg : strerror(errno));
			goto out;
		}
		LOG_INFO("Wrote configuration to: %s", f.write_config_to);
		status = 0;
		goto out;
	}
	const struct cfg_leader_election *le = &cfg.leader_election;
	if (le->leader_elect && strcmp(le->resource_lock, "leases") != 0) {
		fprintf(stderr, "Error: leaderElection.resourceLock: Unsupported value: \"%s\": supported values: "
				"\"leases\"\n",
			le->resource_lock);
		goto out;
	}

	/* Signals are taken by sigtimedwait below: block them before any thread exists. */
	sigemptyset(&term_sigs);
	sigaddset(&term_sigs, SIGTERM);
	sigaddset(&term_sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &term_sigs, NULL);

	LOG_INFO("Starting csched version v%s", CSCHED_VERSION);
	if (api_global_init(&e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		goto out;
	}
	global_init = true;
	/* Events get their own client (and rate limiter), as upstream's eventClient. */
	if (!(client = make_client(&cfg, f.master, &e)) || !(event_client = make_client(&cfg, f.master, &e))) {
		fprintf(stderr, "Error: %s\n", e.msg);
		goto out;
	}
	if (!(metrics = sched_metrics_new())) {
		fprintf(stderr, "Error: out of memory\n");
		goto out;
	}
	if (le->leader_elect) {
		struct sched_leader_config lc = {
			.lease_namespace = le->resource_namespace,
			.lease_name = le->resource_name,
			.lease_duration_ms = le->lease_duration_ns / 1000000,
			.renew_deadline_ms = le->renew_deadline_ns / 1000000,
			.retry_period_ms = le->retry_period_ns / 1000000,
			.ctx = &app,
			.on_started_leading = on_started_leading,
			.on_stopped_leading = on_stopped_leading,
			.on_new_leader = on_new_leader,
			.metrics = metrics,
		};
		if (!(leader = sched_leader_new(client, &lc, &e))) {
			fprintf(stderr, "Error: leader election: %s\n", e.msg);
			goto out;
		}
	}
	struct sched_options so = { .cfg = &cfg, .client = client, .event_client = event_client, .metrics = metrics };
	if (leader) {
		so.may_bind = may_bind;
		so.may_bind_ctx = leader;
	}
	if (!(app.s = sched_new(&so, &e))) {
		fprintf(stderr, "Error: %s\n", e.msg);
		goto out;
	}
	if (f.port != 0) {
		struct sched_health_options ho = {
			.bind_address = f.bind_address,
			.port = f.port,
			.metrics = metrics,
			.leader = leader,
			.ctx = app.s,
			.loop_alive = sched_loop_alive,
			.synced = sched_caches_synced,
		};
		if (!(health = sched_health_start(&ho, &e))) {
			fprintf(stderr, "Error: %s\n", e.msg);
			goto out;
		}
		LOG_INFO("Serving health and metrics on %s:%d", f.bind_address, sched_health_port(health));
	}
	/* A standby keeps its caches warm (unless delayCacheUntilActive) so failover needs no LIST. */
	if (!cfg.delay_cache_until_active || !leader) {
		if (sched_start_informers(app.s, &e) < 0) {
			fprintf(stderr, "Error: %s\n", e.msg);
			goto out;
		}
	}
	if (leader) {
		if (sched_leader_start(leader, &e) < 0) {
			fprintf(stderr, "Error: leader election: %s\n", e.msg);
			goto out;
		}
	} else if (sched_start_scheduling(app.s, &e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		goto out;
	}

	for (;;) {
		struct timespec ts = { 0, 100 * 1000000L };
		int sig = sigtimedwait(&term_sigs, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT) {
			pthread_t wd;
			LOG_INFO("received %s: shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
			if (pthread_create(&wd, NULL, shutdown_watchdog, NULL) == 0)
				pthread_detach(wd);
			status = 0;
			break;
		}
		if (atomic_load(&lost_lease)) {
			/* upstream: klog.FlushAndExit(1) at once; the restart comes back as a standby.
			 * Nothing is drained: a replica that lost its lease must not write any more. */
			LOG_ERROR("exiting: leadership lost");
			_exit(1);
		}
	}
out:
	/* Order: stop scheduling first (bindings in flight finish while the lease is still ours),
	 * then release the lease so a standby takes over at its next retry. */
	sched_stop(app.s);
	sched_leader_stop(leader);
	sched_health_stop(health);
	sched_leader_free(leader);
	sched_free(app.s);
	sched_metrics_free(metrics);
	api_client_free(event_client);
	api_client_free(client);
	if (global_init)
		api_global_cleanup();
	config_free(&cfg);
	return status;
}
