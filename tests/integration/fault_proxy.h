/* A loopback HTTP fault proxy for integration tests: csched's client talks plain HTTP to
 * 127.0.0.1:PORT, the proxy forwards each request over TLS (libcurl, the cluster's CA) to the real
 * kube-apiserver and relays the answer, unless a rule injects a fault first. The client's own
 * Authorization header is forwarded, so the apiserver sees the same user.
 *
 * Each client connection carries one request (answers say "Connection: close"); answers are
 * relayed chunked as they arrive, so a watch stays a stream and a fault can strike mid-event.
 *
 *	struct fproxy *p = fproxy_start(&cluster, &e);
 *	struct api_client *cl = fproxy_client_new(p, &cluster, NULL, 0, &e);  // http://127.0.0.1:PORT
 *	fproxy_add(p, &(struct fproxy_rule){.method = "POST", .path = "/binding", .times = 3,
 *					    .fault = FP_REPLY, .status = 503, .retry_after_s = 1});
 *	...
 *	fproxy_count(p, "POST", "/binding", 201);   // Binding POSTs the apiserver accepted
 *	fproxy_stop(p);
 *
 * Rules are tried in the order added; the first that matches (and has uses left) applies. */
#ifndef CSCHED_FAULT_PROXY_H
#define CSCHED_FAULT_PROXY_H

#include <stddef.h>

#include "harness.h"

enum fproxy_fault {
	FP_REPLY,  /* answer status (a Status body; Retry-After when retry_after_s > 0), no forwarding */
	FP_DELAY,  /* wait ms, then forward (latency) */
	FP_STALL,  /* forward, then hold the answer ms before relaying it (a bind done but late) */
	FP_CUT,    /* forward, relay `after` bytes of the body, then close the connection (a watch
		    * cut mid-event, a truncated body) */
	FP_INJECT, /* forward, relay `after` complete lines of the body, then send `line` and end the
		    * answer properly (an ERROR event the apiserver did not send) */
};

struct fproxy_rule {
	const char *method; /* NULL: any */
	const char *path;   /* a substring of the request target (path and query), NULL: any */
	int times;          /* requests it applies to; 0: all */
	enum fproxy_fault fault;
	int status;
	int retry_after_s;
	long ms;
	size_t after;
	const char *line;
};

struct fproxy;

struct fproxy *fproxy_start(const struct harness_cluster *c, struct err *e);
void fproxy_stop(struct fproxy *p); /* ends open streams, joins, frees; NULL is a no-op */
int fproxy_port(const struct fproxy *p);
/* A client of the cluster's kubeconfig (context NULL: token) whose server is the proxy;
 * request_timeout_ms 0: the default. */
struct api_client *fproxy_client_new(const struct fproxy *p, const struct harness_cluster *c, const char *context,
				     long request_timeout_ms, struct err *e);

/* Adds a rule (strings are copied); returns its id (>= 0) or a negative ERR_*. */
int fproxy_add(struct fproxy *p, const struct fproxy_rule *r);
void fproxy_clear(struct fproxy *p); /* removes every rule */
long fproxy_fired(struct fproxy *p, int id); /* how many requests rule id applied to */
/* Requests (method NULL: any; path: substring, NULL: any) the apiserver answered with status
 * (whatever the client then saw); status 0: all forwarded or faulted requests. */
/* Breaks every client connection open now (watches in flight) without a proper end. */
void fproxy_cut_streams(struct fproxy *p);
long fproxy_count(struct fproxy *p, const char *method, const char *path, int status);

#endif
