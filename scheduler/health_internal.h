/* Private to scheduler/health*.c (and white-box tests). */
#ifndef CSCHED_HEALTH_INTERNAL_H
#define CSCHED_HEALTH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "scheduler/health.h"

/* Replaces the cache clock (CLOCK_MONOTONIC ns) so tests can step past a TTL. */
void sched_auth_set_clock(struct sched_auth *a, int64_t (*now)(void *ctx), void *ctx);

/* upstream certutil.GenerateSelfSignedCertKeyWithFixtures(host, alternateIPs, alternateDNS)
 * as MaybeDefaultWithSelfSignedCerts calls it for kube-scheduler: a CA "<host>-ca@<unix>" and a
 * serving cert "<host>@<unix>" (RSA 2048, valid from an hour ago for a year, ServerAuth) for
 * DNS host + alt_dns and IPs alt_ips; *cert_pem the cert followed by the CA, *key_pem the
 * cert's key (both malloc'd, NUL-terminated). */
int sched_health_self_signed(const char *host, const char *const *alt_ips, size_t n_ips, const char *const *alt_dns,
			     size_t n_dns, char **cert_pem, char **key_pem, struct err *e);

#endif
