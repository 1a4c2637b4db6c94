/* Internals shared by informer.c (store, thread, public API) and informer_sync.c (LIST and
 * WATCH): the informer struct and what one file calls in the other. */
#ifndef CSCHED_API_INFORMER_INTERNAL_H
#define CSCHED_API_INFORMER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "pb_internal.h"
#include "common/strbuf.h"
#include "apiclient/informer.h"
#include "common/map.h"

#define INFORMER_DEFAULT_PAGE 500
#define INFORMER_DEFAULT_WATCH_S 300
#define INFORMER_BACKOFF_MIN_MS 500
#define INFORMER_BACKOFF_MAX_MS 30000
#define INFORMER_RV_MAX 64

/* The parts of a metav1.Status the informer decides on (watch ERROR event, or an error answer). */
struct api__inf_status {
	long code;          /* "code", or the HTTP status when the body is not a Status */
	char reason[32];    /* "reason" ("" when absent) */
	bool rv_too_large;  /* upstream isTooLargeResourceVersionError */
	char message[256];  /* for the log */
};

/* What the informer does after a watch or a list failed, as client-go v0.37's reflector
 * (tools/cache/reflector.go: watch(), list(), isExpiredError, isTooLargeResourceVersionError). */
enum api__inf_next {
	INF_REWATCH_BACKOFF, /* watch again from the last resourceVersion after the backoff */
	INF_RELIST,          /* the resourceVersion expired: relist at once */
	INF_RELIST_BACKOFF,  /* any other error the server reported (a too large resourceVersion
			      * too): relist after the backoff */
};

/* A stored object; the key lives in the entry (the map borrows it). */
struct store_entry {
	void *obj;         /* one reference owned by the store */
	unsigned long gen; /* list generation that last saw the key */
	char key[];
};

struct api_informer {
	struct api_client *client; /* borrowed */
	enum api_kind kind;
	const char *resource;      /* "pods" / "nodes", for paths and logs */
	const char *group_path;    /* "/api/v1", "/apis/apps/v1" (ReplicaSets, StatefulSets), "/apis/policy/v1" (PDBs) */
	char *field_selector_q;    /* URL-escaped, or NULL */
	char *label_selector_q;
	int page_size;
	int min_watch_timeout_s;
	/* Sync with a streaming list (WatchList) first; false after the server refused one (4xx) or
	 * with api_informer_options.paged_list. */
	bool stream_list;
	bool shared; /* api_informer_options.shared_connection */
	struct api_informer_handlers h;
	uint64_t rng; /* xorshift state; informer thread only */

	pthread_t thread;
	bool running; /* start/stop/free caller's thread only */
	atomic_bool stop;

	/* Informer-thread-only state (besides the store writes). */
	struct api__json *json; /* parses LIST pages (streamed) and watch events */
	struct api__pb *pb;     /* protobuf (api_config.protobuf), else NULL */
	struct strbuf pbuf;     /* a protobuf LIST page being received */
	unsigned long list_gen;
	bool have_rv; /* false: the next step is a (re)LIST */
	bool listed_once;
	char rv[INFORMER_RV_MAX]; /* last resourceVersion seen (also read under lock by stats) */
	struct api__inf_status last_status; /* of the last failed watch or list page */
	bool have_status;

	/* lock guards: store, synced's condition, stats, rv (writes by the informer thread are made
	 * under it so that api_informer_stats can copy it), stats_rv. It is a leaf lock: nothing
	 * is called while it is held except map operations and (for foreach) the caller's fn. */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled on synced and on stop */
	struct map store;    /* key -> struct store_entry * */
	atomic_bool synced;
	struct api_informer_stats stats;
	char stats_rv[INFORMER_RV_MAX];
};

/* informer.c: object operations, helpers and store updates (informer thread for the writes) */
void *api__inf_obj_decode(const struct api_informer *inf, const yajl_val v, struct err *e);
char *api__inf_url_escape(const char *s);
uint64_t api__inf_rng_next(struct api_informer *inf);
const char *api__inf_str_at(yajl_val v, const char **path);
bool api__inf_raw_key(yajl_val obj, char *buf, size_t size);
void api__inf_set_rv(struct api_informer *inf, const char *rv);
void api__inf_store_upsert(struct api_informer *inf, const char *key, void *obj, unsigned long gen, bool from_list);
void api__inf_store_delete(struct api_informer *inf, const char *key, void *final);
void api__inf_store_touch(struct api_informer *inf, const char *key, unsigned long gen);
void api__inf_count_decode_error(struct api_informer *inf, const char *key, const struct err *e);
/* Delivers on_synced and wakes the waiters, once. */
void api__inf_mark_synced(struct api_informer *inf);
/* informer_sync.c: one (re)LIST into the store; one WATCH until it ends (*events: events seen) */
int api__inf_do_list(struct api_informer *inf, struct api_conn *conn, struct err *e);
/* initial: a streaming list (sendInitialEvents): the initial events replace the store like a LIST
 * and, at the bookmark that ends them, the informer is synced (have_rv) and the stream goes on as
 * a watch. have_rv still false on return: it ended before (the caller falls back to a LIST). */
int api__inf_do_watch(struct api_informer *inf, struct api_conn *conn, bool initial, unsigned long *events,
		      struct err *e);
/* Status decoding and the decision (informer_sync.c; pure, unit-tested). status_parse reads a
 * Status object (NULL: none; http_status then stands in for its code); status_from_body parses
 * an error answer's body with j. */
void api__inf_status_parse(yajl_val status, long http_status, struct api__inf_status *out);
void api__inf_status_from_body(struct api__json *j, const char *body, size_t len, long http_status,
			       struct api__inf_status *out);
bool api__inf_status_expired(const struct api__inf_status *st);
/* rc: what the watch returned (not 0, not ERR_STOPPED); st: its Status when the server sent one
 * (an ERROR event, an HTTP error), else NULL. */
enum api__inf_next api__inf_after_watch_error(int rc, const struct api__inf_status *st);
/* informer_sync.c: one line of a watch stream, as api__inf_do_watch's stream hands it (line is
 * NUL-terminated at len; *events counts it). The seam of tests/fuzz/fuzz_apiclient_watch.c. */
int api__inf_watch_line(struct api_informer *inf, char *line, size_t len, unsigned long *events, struct err *e);
/* The same for one protobuf frame (a metav1.WatchEvent; inf made with api_config.protobuf). */
int api__inf_watch_frame(struct api_informer *inf, const void *frame, size_t len, unsigned long *events, struct err *e);

#endif
