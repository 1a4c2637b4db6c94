/* VolumeBinding's side in the scheduler (struct fw_volume_ops): the PV and claim writes of its
 * PreBind (upstream volumeBinder.bindAPIUpdate) on the calling binder thread's connection, the
 * node lister its wait reads (upstream checkBindings' nodeLister) and the wait's sleep.
 *
 * DESIGN: PreBind runs on a binder worker (binder.c); the writes use that worker's connection
 * (sched_binder_conn), like the Binding POST. The wait between polls sleeps in short steps and
 * ends early when the scheduler stops, so a 600 s bindTimeout never holds up shutdown. */
#include "sched_internal.h"

#include <time.h>

int sched_volume_bind_pv(void *ctx, const char *pv_name, const char *pv_rv, const struct api_pvc *claim,
			 bool bound_by_controller, char *new_rv, size_t size, struct err *e)
{
	(void)ctx;
	struct api_conn *conn = sched_binder_conn();
	if (!conn)
		return err_set(e, ERR_INVALID, "update persistentvolume %s: not on a binder thread", pv_name);
	struct api_pv_claim_ref ref = { claim->meta.namespace, claim->meta.name, claim->meta.uid };
	return api_pv_bind_claim(conn, pv_name, pv_rv, &ref, claim->meta.resource_version, bound_by_controller, new_rv,
				 size, e);
}

int sched_volume_select_node(void *ctx, const struct api_pvc *claim, const char *node_name, char *new_rv, size_t size,
			     struct err *e)
{
	(void)ctx;
	struct api_conn *conn = sched_binder_conn();
	if (!conn)
		return err_set(e, ERR_INVALID, "update persistentvolumeclaim %s/%s: not on a binder thread",
			       claim->meta.namespace, claim->meta.name);
	return api_pvc_select_node(conn, claim->meta.namespace, claim->meta.name, claim->meta.resource_version, node_name,
				   new_rv, size, e);
}

struct api_node *sched_volume_node(void *ctx, const char *name)
{
	struct scheduler *s = ctx;
	return s->node_inf ? api_informer_get(s->node_inf, NULL, name) : NULL;
}

bool sched_volume_sleep(void *ctx, int64_t ms)
{
	struct scheduler *s = ctx;
	sched_binder_park(true); /* PreBind's polls: other binds go on meanwhile */
	while (ms > 0 && !atomic_load(&s->stop)) {
		int64_t step = ms < 100 ? ms : 100;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = step * 1000000L };
		nanosleep(&ts, NULL);
		ms -= step;
	}
	sched_binder_park(false);
	return !atomic_load(&s->stop);
}
