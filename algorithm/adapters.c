/* Adapters between the framework and its neighbours' shapes: the queue's hint registrations and
 * PreEnqueue callback (queue/queue.h). They only translate; the queue calls them under its lock,
 * so they stay pure. */
#include "algorithm/framework_internal.h"

#include <stdlib.h>


_Static_assert((unsigned)FW_ACT_ADD == (unsigned)QUEUE_ACT_ADD &&
		       (unsigned)FW_ACT_DELETE == (unsigned)QUEUE_ACT_DELETE &&
		       (unsigned)FW_ACT_UPDATE_NODE_ALLOCATABLE == (unsigned)QUEUE_ACT_UPDATE_NODE_ALLOCATABLE &&
		       (unsigned)FW_ACT_UPDATE_NODE_LABEL == (unsigned)QUEUE_ACT_UPDATE_NODE_LABEL &&
		       (unsigned)FW_ACT_UPDATE_NODE_TAINT == (unsigned)QUEUE_ACT_UPDATE_NODE_TAINT &&
		       (unsigned)FW_ACT_UPDATE_NODE_CONDITION == (unsigned)QUEUE_ACT_UPDATE_NODE_CONDITION &&
		       (unsigned)FW_ACT_UPDATE_NODE_ANNOTATION == (unsigned)QUEUE_ACT_UPDATE_NODE_ANNOTATION &&
		       (unsigned)FW_ACT_UPDATE_POD_LABEL == (unsigned)QUEUE_ACT_UPDATE_POD_LABEL &&
		       (unsigned)FW_ACT_UPDATE_POD_SCALE_DOWN == (unsigned)QUEUE_ACT_UPDATE_POD_SCALE_DOWN &&
		       (unsigned)FW_ACT_UPDATE_POD_TOLERATION == (unsigned)QUEUE_ACT_UPDATE_POD_TOLERATION &&
		       (unsigned)FW_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED ==
			       (unsigned)QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED,
	       "framework and queue action bits must agree (upstream 1.34 values)");

static uint32_t queue_resource(enum fw_event_resource r)
{
	switch (r) {
	case FW_EV_POD:
		return QUEUE_RES_POD;
	case FW_EV_ASSIGNED_POD:
		return QUEUE_RES_ASSIGNED_POD;
	case FW_EV_UNSCHEDULED_POD:
		return QUEUE_RES_UNSCHEDULED_POD;
	case FW_EV_NODE:
		return QUEUE_RES_NODE;
	default:
		return QUEUE_RES_WILDCARD;
	}
}

static uint32_t queue_actions(const struct fw_cluster_event *ev)
{
	/* the wildcard's "All" covers the queue's extra bits too */
	if (ev->resource == FW_EV_WILDCARD && (ev->actions & FW_ACT_ALL) == FW_ACT_ALL)
		return QUEUE_ACT_ALL;
	return ev->actions;
}

static enum queue_hint hint_trampoline(void *ctx, const struct api_pod *pod, const void *old_obj,
				       const void *new_obj)
{
	const struct fw_profile_event *ev = ctx;
	return fw_profile_event_hint(ev, pod, old_obj, new_obj) == FW_HINT_QUEUE ? QUEUE_HINT_QUEUE
										  : QUEUE_HINT_SKIP;
}

int fw_profile_build_events(struct fw_profile *p)
{
	size_t n = fw_profile_events(p, NULL, 0);
	p->n_events = 0;
	if (!n)
		return 0;
	p->events = calloc(n, sizeof(*p->events));
	p->queue_regs = calloc(n, sizeof(*p->queue_regs));
	if (!p->events || !p->queue_regs)
		return ERR_NOMEM;
	fw_profile_events(p, p->events, n);
	for (size_t i = 0; i < n; i++) {
		const struct fw_profile_event *ev = &p->events[i];
		p->queue_regs[i] = (struct queue_hint_reg){
			.plugin = ev->plugin,
			.resource = queue_resource(ev->event.resource),
			.actions = queue_actions(&ev->event),
			.hint = ev->hint ? hint_trampoline : NULL,
			.ctx = (void *)ev,
		};
	}
	p->n_events = n;
	return 0;
}

static bool pre_enqueue_trampoline(void *ctx, const struct api_pod *pod, const char **gating_plugin)
{
	struct fw_status st;
	if (fw_run_pre_enqueue(ctx, pod, &st) == FW_SUCCESS)
		return true;
	*gating_plugin = st.plugin;
	return false;
}

void fw_profile_queue_profile(const struct fw_profile *p, struct queue_profile *out)
{
	out->scheduler_name = p->name;
	out->hints = p->queue_regs;
	out->n_hints = (uint32_t)p->n_events;
	out->pre_enqueue = p->n_points[CFG_EP_PRE_ENQUEUE] ? pre_enqueue_trampoline : NULL;
	out->pre_enqueue_ctx = (void *)p;
}
