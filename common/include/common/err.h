/* Error reporting shared by every module.
 *
 * Actions return 0 or a negative ERR_* code and, on failure, fill a caller-supplied struct err
 * whose message names the place ("config.yaml:12:5: profiles[0].schedulerName: required").
 * A NULL struct err is allowed: the message is then dropped. */
#ifndef CSCHED_ERR_H
#define CSCHED_ERR_H

#include <stdarg.h>

enum {
	ERR_INVALID = -1,   /* malformed input: JSON, YAML, quantity, kubeconfig */
	ERR_NOMEM = -2,
	ERR_IO = -3,        /* file or socket error */
	ERR_TRANSPORT = -4, /* connection, TLS, timeout: retrying may help */
	ERR_HTTP = -5,      /* the server answered with a status >= 400 not covered below */
	ERR_NOT_FOUND = -6, /* HTTP 404 */
	ERR_CONFLICT = -7,  /* HTTP 409 */
	ERR_GONE = -8,      /* HTTP 410: resourceVersion too old */
	ERR_FORBIDDEN = -9, /* HTTP 401/403 */
	ERR_STOPPED = -10,  /* the operation was cancelled by a stop request */
	ERR_TIMEOUT = -11,
	ERR_UNSUPPORTED = -12,
};

#define ERR_MSG_MAX 512

struct err {
	int code;      /* last ERR_* code set, 0 if none */
	int http_status; /* HTTP status when the error came from the API server, else 0 */
	char msg[ERR_MSG_MAX];
};

/* Formats the message into e (when e is not NULL) and returns code, so callers can write
 * `return err_set(e, ERR_INVALID, "%s: bad", path);`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int err_setv(struct err *e, int code, const char *fmt, va_list ap);

/* Prepends "prefix: " to the message already in e; returns e->code (or ERR_INVALID if e is NULL). */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void err_clear(struct err *e);

/* A short constant name for a code ("not found", "conflict", ...). */
const char *err_code_str(int code);

#endif
