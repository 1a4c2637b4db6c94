/* SchedulingGates (PreEnqueue): a pod with spec.schedulingGates waits until they are removed. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <stdio.h>

static enum fw_code pre_enqueue(const struct fw_pl *pl, const struct api_pod *pod, struct fw_status *st)
{
	(void)pl;
	if (!pod->n_scheduling_gates)
		return FW_SUCCESS;
	/* "waiting for scheduling gates: [a b]" as Go prints a []string */
	char buf[FW_STATUS_TEXT_MAX];
	size_t off = 0;
	int w = snprintf(buf, sizeof(buf), "waiting for scheduling gates: [");
	off = w > 0 ? (size_t)w : 0;
	for (uint32_t i = 0; i < pod->n_scheduling_gates && off < sizeof(buf); i++) {
		w = snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "", pod->scheduling_gates[i]);
		off += w > 0 ? (size_t)w : 0;
	}
	if (off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, "]");
	return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, buf);
}

/* Queue when the pod itself lost its last gate. */
static enum queue_hint gates_eliminated(const void *pl, const struct api_pod *pod, const void *old_obj,
				     const void *new_obj)
{
	(void)pl;
	(void)old_obj;
	const struct api_pod *np = fw_hint_updated_self(pod, new_obj);
	return np && !np->n_scheduling_gates ? QUEUE_HINT_QUEUE : QUEUE_HINT_SKIP;
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_TARGET_POD, .actions = QUEUE_ACT_UPDATE_POD_SCHEDULING_GATES_ELIMINATED },
	  gates_eliminated },
};

const struct fw_plugin fw_plugin_scheduling_gates = {
	.name = "SchedulingGates",
	.args_kind = CFG_ARGS_NONE,
	.pre_enqueue = pre_enqueue,
	FW_EVENTS(events),
};
