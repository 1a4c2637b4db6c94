/* One HTTPS request to the health server on 127.0.0.1 (GnuTLS client), for the unit tests that
 * talk to it: https_request(port, src, "GET", "/livez", auth, &reply). src is the local address
 * to connect from (NULL: any; "127.0.0.2" to look like another client), auth an Authorization
 * header value or NULL. The server's certificate must be valid for "localhost" and 127.0.0.1
 * (self-signed: its chain is not checked against a CA). Header-only: static functions. */
#ifndef CSCHED_TESTS_HTTPS_GET_H
#define CSCHED_TESTS_HTTPS_GET_H

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct http_reply {
	int status;
	char head[2048];
	char body[8192];
};

/* A TCP connection to 127.0.0.1:port from src (NULL: any), or -1. */
static int tcp_connect(int port, const char *src)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (src) {
		struct sockaddr_in l = {.sin_family = AF_INET};
		inet_pton(AF_INET, src, &l.sin_addr);
		if (bind(fd, (struct sockaddr *)&l, sizeof l) != 0) {
			close(fd);
			return -1;
		}
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Returns 0, or -1 with r->body saying why (connection, handshake, certificate). */
static int https_request(int port, const char *src, const char *method, const char *path, const char *auth,
			 struct http_reply *r)
{
	memset(r, 0, sizeof *r);
	int fd = tcp_connect(port, src);
	if (fd < 0) {
		snprintf(r->body, sizeof r->body, "connect failed");
		return -1;
	}
	struct timeval tv = {3, 0}; /* a probe-like bound: a full server fails fast */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	gnutls_certificate_credentials_t cred;
	gnutls_session_t s;
	gnutls_certificate_allocate_credentials(&cred);
	gnutls_init(&s, GNUTLS_CLIENT);
	gnutls_set_default_priority(s);
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
	gnutls_server_name_set(s, GNUTLS_NAME_DNS, "localhost", 9);
	gnutls_transport_set_int(s, fd);
	int rc, ret = -1;
	do
		rc = gnutls_handshake(s);
	while (rc < 0 && !gnutls_error_is_fatal(rc));
	if (rc < 0) {
		snprintf(r->body, sizeof r->body, "handshake: %s", gnutls_strerror(rc));
		goto out;
	}
	unsigned n = 0;
	const gnutls_datum_t *peer = gnutls_certificate_get_peers(s, &n);
	gnutls_x509_crt_t crt;
	bool names_ok = false;
	if (peer && n >= 1 && gnutls_x509_crt_init(&crt) >= 0) {
		if (gnutls_x509_crt_import(crt, &peer[0], GNUTLS_X509_FMT_DER) >= 0)
			names_ok = gnutls_x509_crt_check_hostname(crt, "localhost") &&
				   gnutls_x509_crt_check_ip(crt, (const unsigned char *)"\x7f\0\0\1", 4, 0);
		gnutls_x509_crt_deinit(crt);
	}
	if (!names_ok) {
		snprintf(r->body, sizeof r->body, "certificate not valid for localhost and 127.0.0.1");
		goto out;
	}
	char req[1024];
	int len = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n%s%s%s\r\n", method,
			   path, auth ? "Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "");
	if (gnutls_record_send(s, req, (size_t)len) != len) {
		snprintf(r->body, sizeof r->body, "send failed");
		goto out;
	}
	static char all[65536];
	size_t got = 0;
	ssize_t k;
	while (got < sizeof all - 1 && (k = gnutls_record_recv(s, all + got, sizeof all - 1 - got)) != 0) {
		if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED)
			continue;
		if (k < 0)
			break; /* a close without close_notify after the body */
		got += (size_t)k;
	}
	all[got] = '\0';
	const char *sep = strstr(all, "\r\n\r\n");
	if (sscanf(all, "HTTP/1.%*d %d", &r->status) != 1 || !sep) {
		snprintf(r->body, sizeof r->body, "no HTTP response: %.200s", all);
		goto out;
	}
	snprintf(r->head, sizeof r->head, "%.*s", (int)(sep - all), all);
	snprintf(r->body, sizeof r->body, "%s", sep + 4);
	ret = 0;
out:
	gnutls_bye(s, GNUTLS_SHUT_WR);
	gnutls_deinit(s);
	gnutls_certificate_free_credentials(cred);
	close(fd);
	return ret;
}

#endif
