/* HTTP health and metrics endpoints (libmicrohttpd): /healthz, /livez, /readyz, /metrics.
 *
 * USAGE (scheduler / cmd):
 *   struct sched_health_options ho = {
 *       .bind_address = "127.0.0.1", .port = 10251,      // --bind-address, --port
 *       .metrics = metrics, .leader = leader,            // leader NULL with --leader-elect=false
 *       .ctx = s, .loop_alive = sched_loop_alive, .synced = sched_caches_synced,
 *   };
 *   struct sched_health *h = NULL;
 *   if (ho.port != 0 && !(h = sched_health_start(&ho, &e))) fail(e);   // --port 0: no server
 *   ...
 *   sched_health_stop(h);               // NULL is a no-op
 *
 * Endpoints (as kube-scheduler, k8s.io/apiserver/pkg/server/healthz):
 *   /healthz, /livez  checks "ping", "scheduling-loop" (loop_alive) and "leaderElection"
 *                     (sched_leader_healthy: a leader whose renewal is stuck);
 *   /readyz           the same plus "sched-handler-sync" (synced);
 *   /healthz/NAME, /livez/NAME, /readyz/NAME run one check. 200 "ok" when every check passes,
 *   else 500 listing "[+]name ok" / "[-]name failed: reason withheld" lines and
 *   "<endpoint> check failed"; "?verbose" lists the checks on success too. "?exclude=NAME" skips
 *   a check.
 *   /metrics          sched_metrics_render, Content-Type text/plain; version=0.0.4.
 * Only GET and HEAD are served (405 otherwise).
 *
 * THREADS: the server runs its own thread (MHD internal polling thread, one connection at a
 * time). The callbacks are called from that thread and must be cheap and thread-safe (read
 * atomics, take a lock briefly). The options' pointers must outlive the server. */
#ifndef CSCHED_HEALTH_H
#define CSCHED_HEALTH_H

#include <stdbool.h>

#include "common/err.h"

struct sched_metrics;
struct sched_leader;

#define SCHED_HEALTH_DEFAULT_BIND_ADDRESS "127.0.0.1"
#define SCHED_HEALTH_DEFAULT_PORT 10251
/* port value that binds a free ephemeral port (tests); read it back with sched_health_port. */
#define SCHED_HEALTH_PORT_EPHEMERAL (-1)

struct sched_health_options {
	const char *bind_address; /* IPv4 or IPv6 literal; NULL = SCHED_HEALTH_DEFAULT_BIND_ADDRESS */
	int port;                 /* 1..65535 or SCHED_HEALTH_PORT_EPHEMERAL; 0 is rejected (= off) */
	struct sched_metrics *metrics; /* NULL: /metrics answers 404 */
	struct sched_leader *leader;   /* NULL: no leaderElection check */
	void *ctx;
	bool (*loop_alive)(void *ctx); /* NULL: check always passes */
	bool (*synced)(void *ctx);     /* NULL: check always passes */
};

struct sched_health;

/* Binds and starts serving. NULL on error (bad address or port, bind failure: e names them). */
struct sched_health *sched_health_start(const struct sched_health_options *o, struct err *e);
/* The bound port (useful with SCHED_HEALTH_PORT_EPHEMERAL). */
int sched_health_port(const struct sched_health *h);
/* Stops the server thread, closes the socket, frees h. NULL is a no-op. */
void sched_health_stop(struct sched_health *h);

#endif
