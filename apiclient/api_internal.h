/* Internal helpers shared by the transport files of apiclient (api_client.c, kubeconfig.c,
 * limiter.c, writes.c). Not a public header: nothing outside apiclient/ includes it.
 * Internal symbols use the api__ prefix. */
#ifndef CSCHED_API_INTERNAL_H
#define CSCHED_API_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apiclient/api_client.h"
#include "common/err.h"

struct yajl_gen_t;

/* A growable byte buffer; data is always NUL-terminated when len > 0 or after api__buf_add. */
struct api__buf {
	char *data;
	size_t len, cap;
};
/* Appends n bytes; false when memory ran out or the buffer would exceed max bytes. */
bool api__buf_add(struct api__buf *b, const void *p, size_t n, size_t max);
void api__buf_release(struct api__buf *b);

/* malloc'd copy of s (NULL stays NULL); *ok is cleared when memory ran out. */
char *api__strdup(const char *s, bool *ok);

/* Reads a whole (small) file into a malloc'd NUL-terminated buffer. Returns 0, or ERR_IO with
 * "PATH: strerror" in e. max bounds the size (ERR_INVALID beyond). */
int api__read_file(const char *path, size_t max, char **out, size_t *len, struct err *e);

/* Decodes standard base64 (padding optional, whitespace ignored). Returns 0 or ERR_INVALID;
 * *out is malloc'd and NUL-terminated (not counted in *len). */
int api__base64_decode(const char *in, size_t in_len, char **out, size_t *len);

/* The "message" of a JSON metav1.Status, else a printable prefix of the body, into buf. */
void api__status_message(const char *body, size_t len, long status, char *buf, size_t size);

/* Runs an exec credential plugin (client.authentication.k8s.io/v1 or v1beta1) and parses the
 * ExecCredential it prints. Outputs are malloc'd (NULL when absent); *expiry_us is 0 when the
 * credential does not expire. Exposed for the unit tests of kubeconfig exec plugins. */
struct api__exec_result {
	char *token;
	char *cert_data, *key_data;
	size_t cert_len, key_len;
	int64_t expiry_us;
};
int api__exec_run(const struct api_exec_config *x, struct api__exec_result *out, struct err *e);
void api__exec_result_release(struct api__exec_result *r);

/* Finishes a JSON document built with yajl_gen into a malloc'd string (*out, *len). Returns 0 or
 * ERR_INVALID (a string that is not UTF-8, an unbalanced document) / ERR_NOMEM; what names the
 * document in the message. */
int api__gen_finish(struct yajl_gen_t *g, const char *what, char **out, size_t *len, struct err *e);

#endif
