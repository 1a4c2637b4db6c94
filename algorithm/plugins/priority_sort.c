/* PrioritySort (QueueSort): higher spec.priority first, then the earlier queue timestamp. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

static bool less(const struct api_pod *a, int64_t a_ts, const struct api_pod *b, int64_t b_ts)
{
	int32_t p1 = a->priority, p2 = b->priority; /* 0 when absent, as corev1helpers.PodPriority */
	return p1 > p2 || (p1 == p2 && a_ts < b_ts);
}

const struct fw_plugin fw_plugin_priority_sort = {
	.name = "PrioritySort",
	.args_kind = CFG_ARGS_NONE,
	.less = less,
};
