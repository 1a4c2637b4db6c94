/* The health server's self-signed certificate, generated in memory at start-up as upstream's
 * SecureServingOptions.MaybeDefaultWithSelfSignedCerts does when no --tls-cert-file is given
 * (client-go util/cert GenerateSelfSignedCertKeyWithOptions; contract in health_internal.h). */
#include <arpa/inet.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "health_internal.h"

#define YEAR_S (365L * 24 * 3600)

/* A random serial in [1, 2^63-1), as upstream's cryptorand.Int(MaxInt64-1)+1: 8 bytes, top bit clear. */
static int set_serial(gnutls_x509_crt_t crt)
{
	unsigned char s[8];
	if (gnutls_rnd(GNUTLS_RND_NONCE, s, sizeof s) < 0)
		return -1;
	s[0] &= 0x7f;
	if (s[0] == 0)
		s[0] = 1; /* no leading zero byte in the DER INTEGER */
	return gnutls_x509_crt_set_serial(crt, s, sizeof s);
}

static int new_key(gnutls_x509_privkey_t *k)
{
	if (gnutls_x509_privkey_init(k) < 0)
		return -1;
	return gnutls_x509_privkey_generate(*k, GNUTLS_PK_RSA, 2048, 0);
}

static int base_crt(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key, const char *cn, time_t now)
{
	int rc;
	if ((rc = gnutls_x509_crt_set_version(crt, 3)) < 0 || (rc = set_serial(crt)) < 0 ||
	    (rc = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn))) < 0 ||
	    (rc = gnutls_x509_crt_set_activation_time(crt, now - 3600)) < 0 ||
	    (rc = gnutls_x509_crt_set_expiration_time(crt, now - 3600 + YEAR_S)) < 0 ||
	    (rc = gnutls_x509_crt_set_key(crt, key)) < 0)
		return rc;
	return 0;
}

static char *export_pem(int (*fn)(void *obj, gnutls_x509_crt_fmt_t fmt, gnutls_datum_t *out), void *obj)
{
	gnutls_datum_t d = {0};
	if (fn(obj, GNUTLS_X509_FMT_PEM, &d) < 0)
		return NULL;
	char *s = malloc(d.size + 1);
	if (s) {
		memcpy(s, d.data, d.size);
		s[d.size] = '\0';
	}
	gnutls_free(d.data);
	return s;
}

static int crt_export(void *obj, gnutls_x509_crt_fmt_t fmt, gnutls_datum_t *out)
{
	return gnutls_x509_crt_export2(obj, fmt, out);
}

static int key_export(void *obj, gnutls_x509_crt_fmt_t fmt, gnutls_datum_t *out)
{
	/* "RSA PRIVATE KEY" (PKCS#1) as keyutil.WriteKey / MarshalPKCS1PrivateKey */
	return gnutls_x509_privkey_export2(obj, fmt, out);
}

int sched_health_self_signed(const char *host, const char *const *alt_ips, size_t n_ips, const char *const *alt_dns,
			     size_t n_dns, char **cert_pem, char **key_pem, struct err *e)
{
	gnutls_x509_privkey_t ca_key = NULL, key = NULL;
	gnutls_x509_crt_t ca = NULL, crt = NULL;
	char cn[300], *c1 = NULL, *c2 = NULL, *k = NULL;
	time_t now = time(NULL);
	int rc;
	*cert_pem = *key_pem = NULL;
	const char *step = "CA key";
	if ((rc = new_key(&ca_key)) < 0)
		goto fail;
	step = "CA certificate";
	snprintf(cn, sizeof cn, "%s-ca@%lld", host, (long long)now);
	if ((rc = gnutls_x509_crt_init(&ca)) < 0 || (rc = base_crt(ca, ca_key, cn, now)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(ca, 1, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(ca, GNUTLS_KEY_KEY_ENCIPHERMENT | GNUTLS_KEY_DIGITAL_SIGNATURE |
							 GNUTLS_KEY_KEY_CERT_SIGN)) < 0 ||
	    (rc = gnutls_x509_crt_sign2(ca, ca, ca_key, GNUTLS_DIG_SHA256, 0)) < 0)
		goto fail;
	step = "serving key";
	if ((rc = new_key(&key)) < 0)
		goto fail;
	step = "serving certificate";
	snprintf(cn, sizeof cn, "%s@%lld", host, (long long)now);
	if ((rc = gnutls_x509_crt_init(&crt)) < 0 || (rc = base_crt(crt, key, cn, now)) < 0 ||
	    (rc = gnutls_x509_crt_set_basic_constraints(crt, 0, -1)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_KEY_ENCIPHERMENT | GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
	    (rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0)
		goto fail;
	/* upstream: host as an IP if it parses as one, else a DNS name; then the alternates */
	unsigned char ip[16];
	bool host_ip4 = inet_pton(AF_INET, host, ip) == 1, host_ip6 = !host_ip4 && inet_pton(AF_INET6, host, ip) == 1;
	if (host_ip4 || host_ip6)
		rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, host_ip4 ? 4 : 16,
							  GNUTLS_FSAN_APPEND);
	else
		rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, host, (unsigned)strlen(host),
							  GNUTLS_FSAN_APPEND);
	for (size_t i = 0; rc >= 0 && i < n_ips; i++) {
		bool v4 = inet_pton(AF_INET, alt_ips[i], ip) == 1;
		if (!v4 && inet_pton(AF_INET6, alt_ips[i], ip) != 1) {
			err_set(e, ERR_INVALID, "self-signed certificate: \"%s\" is not an IP address", alt_ips[i]);
			goto out;
		}
		rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, v4 ? 4 : 16, GNUTLS_FSAN_APPEND);
	}
	for (size_t i = 0; rc >= 0 && i < n_dns; i++)
		rc = gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, alt_dns[i], (unsigned)strlen(alt_dns[i]),
							  GNUTLS_FSAN_APPEND);
	if (rc < 0 || (rc = gnutls_x509_crt_sign2(crt, ca, ca_key, GNUTLS_DIG_SHA256, 0)) < 0)
		goto fail;
	step = "PEM";
	c1 = export_pem(crt_export, crt);
	c2 = export_pem(crt_export, ca);
	k = export_pem(key_export, key);
	if (!c1 || !c2 || !k) {
		err_set(e, ERR_NOMEM, "self-signed certificate: cannot encode the %s", step);
		goto out;
	}
	/* cert, followed by the CA (upstream) */
	size_t n1 = strlen(c1), n2 = strlen(c2);
	if (!(*cert_pem = malloc(n1 + n2 + 1))) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	memcpy(*cert_pem, c1, n1);
	memcpy(*cert_pem + n1, c2, n2 + 1);
	*key_pem = k;
	k = NULL;
	goto out;
fail:
	err_set(e, ERR_IO, "unable to generate self signed cert: %s: %s", step, gnutls_strerror(rc));
out:
	free(c1);
	free(c2);
	free(k);
	if (crt)
		gnutls_x509_crt_deinit(crt);
	if (ca)
		gnutls_x509_crt_deinit(ca);
	if (key)
		gnutls_x509_privkey_deinit(key);
	if (ca_key)
		gnutls_x509_privkey_deinit(ca_key);
	return *cert_pem ? 0 : ERR_IO;
}
