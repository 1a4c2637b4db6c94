/* NodeName (Filter): a pod with spec.nodeName fits only that node. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <string.h>

#define REASON "node(s) didn't match the requested node name"

static enum fw_code filter(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			   const struct node_info *ni, struct fw_status *st)
{
	(void)pl;
	(void)c;
	const char *want = pod->node_name;
	if (!want || !want[0] || want == ni->name || strcmp(want, ni->name) == 0)
		return FW_SUCCESS;
	return fw_status_set(st, FW_UNSCHEDULABLE_AND_UNRESOLVABLE, REASON);
}

static const struct queue_event_hint events[] = {
	{ { .resource = QUEUE_RES_NODE, .actions = QUEUE_ACT_ADD }, NULL },
};

const struct fw_plugin fw_plugin_node_name = {
	.name = "NodeName",
	.args_kind = CFG_ARGS_NONE,
	.filter = filter,
	FW_EVENTS(events),
};
