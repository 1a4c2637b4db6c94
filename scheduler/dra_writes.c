/* DynamicResources' side in the scheduler (struct fw_dra_ops): the ResourceClaim writes of its
 * PreBind, PostFilter and Unreserve (upstream dynamicresources.go, extendeddynamicresources.go;
 * the calls are apiclient's api_resource_claim_*), the pod status patch of
 * DRAExtendedResource, and the binding conditions' sleep.
 *
 * DESIGN: PreBind runs on a binder worker (binder.c), whose connection the writes use, like the
 * Binding POST; PostFilter and Reserve's failures run on the scheduling thread, which has no
 * connection of its own: a write there opens one for the call (these writes are rare: a
 * deallocation to make room, an unreserve after a failed cycle). The sleep is the volume
 * binding's: short steps, ending early when the scheduler stops. */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The binder thread's connection, or a new one in *own (to free) elsewhere. */
static struct api_conn *conn_for(struct scheduler *s, struct api_conn **own, const char *what, struct err *e)
{
	struct api_conn *c = sched_binder_conn();
	*own = NULL;
	if (c)
		return c;
	if (!s || !s->client) {
		err_set(e, ERR_INVALID, "%s: no API client", what);
		return NULL;
	}
	return *own = api_conn_new(s->client, e);
}

#define WITH_CONN(what, call)                                                  \
	({                                                                     \
		struct api_conn *own_, *c_ = conn_for(ctx, &own_, (what), e);  \
		int rc_ = c_ ? (call) : (e->code ? e->code : ERR_INVALID);     \
		api_conn_free(own_);                                           \
		rc_;                                                           \
	})

int sched_dra_get_claim(void *ctx, const char *ns, const char *name, struct api_resource_claim **out, struct err *e)
{
	*out = NULL;
	return WITH_CONN("get resourceclaim", api_resource_claim_get(c_, ns, name, out, e));
}

int sched_dra_add_finalizer(void *ctx, const struct api_resource_claim *claim, struct api_resource_claim **out,
			    struct err *e)
{
	*out = NULL;
	return WITH_CONN("update resourceclaim", api_resource_claim_add_finalizer(c_, claim, out, e));
}

int sched_dra_reserve(void *ctx, const struct api_resource_claim *claim, const struct api_dra_allocation *allocation,
		      const struct api_dra_consumer *consumer, bool set_timestamp, struct api_resource_claim **out,
		      struct err *e)
{
	int64_t now_s = set_timestamp ? (int64_t)time(NULL) : 0;
	*out = NULL;
	return WITH_CONN("update status of resourceclaim",
			 api_resource_claim_reserve(c_, claim, allocation, consumer, now_s, out, e));
}

int sched_dra_deallocate(void *ctx, const struct api_resource_claim *claim, struct err *e)
{
	return WITH_CONN("update status of resourceclaim", api_resource_claim_deallocate(c_, claim, e));
}

int sched_dra_unreserve(void *ctx, const struct api_resource_claim *claim, const char *uid, struct err *e)
{
	return WITH_CONN("patch status of resourceclaim", api_resource_claim_unreserve(c_, claim, uid, e));
}

int sched_dra_create_claim(void *ctx, const char *ns, const char *json, size_t len, struct api_resource_claim **out,
			   struct err *e)
{
	*out = NULL;
	return WITH_CONN("create resourceclaim", api_resource_claim_create(c_, ns, json, len, out, e));
}

int sched_dra_delete_claim(void *ctx, const struct api_resource_claim *claim, struct err *e)
{
	return WITH_CONN("delete resourceclaim", api_resource_claim_delete(c_, claim, e));
}

/* upstream extendeddynamicresources.go: schedutil.PatchPodStatus with the pod's
 * status.extendedResourceClaimStatus set (or removed: "null"), a strategic merge patch. */
int sched_dra_patch_pod_extended_status(void *ctx, const struct api_pod *pod, const char *status_json, struct err *e)
{
	static const char head[] = "{\"status\":{\"extendedResourceClaimStatus\":", tail[] = "}}";
	if (!status_json || !*status_json)
		return err_set(e, ERR_INVALID, "patch pod status %s/%s: no extendedResourceClaimStatus",
			       pod->meta.namespace, pod->meta.name);
	size_t n = strlen(status_json), len = sizeof(head) - 1 + n + sizeof(tail) - 1;
	char *body = malloc(len + 1);
	if (!body)
		return err_set(e, ERR_NOMEM, "patch pod status %s/%s: out of memory", pod->meta.namespace, pod->meta.name);
	memcpy(body, head, sizeof(head) - 1);
	memcpy(body + sizeof(head) - 1, status_json, n);
	memcpy(body + sizeof(head) - 1 + n, tail, sizeof(tail));
	int rc = WITH_CONN("patch pod status",
			   api_patch_pod_status(c_, pod->meta.namespace, pod->meta.name, body, len, e));
	free(body);
	return rc;
}

bool sched_dra_sleep(void *ctx, int64_t ms)
{
	return sched_volume_sleep(ctx, ms);
}
