/* Kubernetes' protobuf wire format (application/vnd.kubernetes.protobuf) -> the yajl trees the
 * JSON parser builds (protobuf.c), so that decode*.c reads both unchanged. Informer thread only:
 * one struct api__pb per informer. */
#ifndef CSCHED_API_PB_INTERNAL_H
#define CSCHED_API_PB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "apiclient/informer.h"

#define API_PB_MEDIA "application/vnd.kubernetes.protobuf"

struct api__pb;
struct api__pb *api__pb_new(void); /* NULL on out of memory */
void api__pb_free(struct api__pb *p); /* NULL is a no-op */

/* True when buf starts with the 4-byte magic "k8s\0" of a protobuf-encoded object. */
bool api__pb_magic(const void *buf, size_t len);
/* Whether kind's List and objects can be read from protobuf (protobuf.c has its descriptors). */
bool api__pb_kind_known(enum api_kind kind);

/* Trees live in p's arena until the next call on p. All return 0, ERR_NOMEM, or ERR_INVALID
 * with the reason ("protobuf: ...") in errbuf; malformed input never reads out of bounds. */

/* A whole body (magic + runtime.Unknown) of an object of the informer's kind, its List (with
 * on_item: each element of items is passed to on_item, valid during the call, and left out of
 * *root; a non-zero return stops and is returned) or a metav1.Status (by the Unknown's kind). */
int api__pb_body(struct api__pb *p, enum api_kind kind, const void *buf, size_t len, api__json_item_fn on_item,
		 void *ctx, yajl_val *root, char *errbuf, size_t errsize);

/* One frame of a watch stream (a metav1.WatchEvent, without its length prefix) ->
 * {"type": ..., "object": ...} as a JSON watch line reads. */
int api__pb_watch_event(struct api__pb *p, enum api_kind kind, const void *frame, size_t len, yajl_val *root,
			char *errbuf, size_t errsize);

#endif
