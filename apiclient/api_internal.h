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
#include "common/strbuf.h"

struct yajl_gen_t;
struct yajl_val_s;

/* keep_json.c: while set, json.c skips no field (api_keep_json). */
extern bool api__keep_json;

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
/* Writes the yajl tree v (NULL: null) into g (keep_json.c); -1 when yajl refuses a value. */
int api__gen_value(struct yajl_gen_t *g, const struct yajl_val_s *v);

/* ---------- JSON trees from yajl's streaming parser (json.c) ----------
 * Trees have yajl_tree's layout (struct yajl_val_s: the YAJL_IS_* macros, yajl_tree_get and the
 * api_*_decode functions read them) but live in the parser's arenas: never yajl_tree_free one; a
 * tree stays valid until the next api__json_begin/api__json_parse or api__json_free. Fields of
 * Pods and Nodes that csched never reads (metadata.managedFields, a container status's state, a
 * container's env and probes, ...: the list is in json.c) are skipped while parsing and read as
 * absent. Not thread-safe: one parser per thread. */
struct api__json;
struct api__json *api__json_new(void); /* NULL on out of memory */
void api__json_free(struct api__json *j); /* NULL is a no-op */

/* One whole document. Returns 0 with *root set, ERR_INVALID with yajl's message in errbuf (as
 * yajl_tree_parse words it), or ERR_NOMEM. */
int api__json_parse(struct api__json *j, const char *text, size_t len, struct yajl_val_s **root, char *errbuf,
		    size_t errsize);

/* A document fed in pieces. With on_item, each element of the top-level object's "items" array
 * is passed to on_item as soon as it is complete (valid during the call only) and is left out of
 * the tree ("items" reads as an empty array); a non-zero return stops the parse and is returned
 * by api__json_feed. Without on_item the whole document is kept. */
typedef int (*api__json_item_fn)(void *ctx, struct yajl_val_s *item);
int api__json_begin(struct api__json *j, api__json_item_fn on_item, void *ctx);
int api__json_feed(struct api__json *j, const char *buf, size_t len, char *errbuf, size_t errsize);
/* Ends the document; *root is everything but the streamed items. */
int api__json_end(struct api__json *j, struct yajl_val_s **root, char *errbuf, size_t errsize);

/* The fields skipped while parsing (see json.c): the list for a map under key (NULL: none), and
 * whether it names key. protobuf.c applies them to the same trees. */
const void *api__json_skip_list(const char *key, size_t len);
bool api__json_skip_has(const void *list, const char *key, size_t len);

/* Gives a new connection (before its first request) the large receive buffer of one that reads
 * LIST pages and watch streams. */
int api__conn_bulk(struct api_conn *conn, struct err *e);
/* api_client.c: the client's muxer for the informers' shared connection
 * (api_informer_options.shared_connection), made on first use (at most WATCH_MUX_CONNS HTTP/1.1
 * connections when h2 is refused); freed by api_client_free. NULL on error (e set).
 * api__client_watch_wake wakes it, if it exists, to end the streams whose stop flag is set. */
struct api_mux *api__client_watch_mux(struct api_client *c, struct err *e);
void api__client_watch_wake(struct api_client *c);

/* A GET whose 2xx body is passed to on_data piece by piece as it arrives instead of being
 * collected (a LIST page into api__json_feed). A non-zero return of on_data aborts the transfer
 * and is returned. The request timeout, retries and HTTP error handling are api_request's (an
 * error body goes to the message, not to on_data). */
int api__get_chunks(struct api_conn *conn, const char *path, int (*on_data)(void *ctx, const char *buf, size_t len),
		    void *ctx, struct err *e);
/* The Accept header of conn's later requests (NULL: application/json; accept is borrowed): the
 * informers offer protobuf (API_PB_MEDIA ", application/json"). api__conn_framed: the current
 * stream is protobuf frames (the server answered with API_PB_MEDIA), which on_line then gets one
 * by one (payload without the length prefix, not NUL-terminated). */
void api__conn_set_accept(struct api_conn *conn, const char *accept);
bool api__client_protobuf(const struct api_client *c); /* api_config.protobuf */
bool api__conn_framed(const struct api_conn *conn);
/* The body of the last answer on conn that was an HTTP error (status >= 400: a Status, usually),
 * valid until its next request; NULL when there is none. */
const char *api__conn_error_body(const struct api_conn *conn, size_t *len);

#endif
