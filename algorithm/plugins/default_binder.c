/* DefaultBinder (Bind): POST pods/NAME/binding, through the scheduler's bind callback
 * (algorithm/ does not know HTTP). */
#include "algorithm/framework.h" /* fw_profile_call_bind: the profile holds the API binding */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

static enum fw_code bind(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
			 const char *node_name, struct fw_status *st)
{
	(void)c;
	struct err e = { 0 };
	if (fw_profile_call_bind(pl->profile, pod, node_name, &e) < 0)
		return fw_status_set(st, FW_ERROR, e.msg[0] ? e.msg : "binding failed");
	return FW_SUCCESS;
}

const struct fw_plugin fw_plugin_default_binder = {
	.name = "DefaultBinder",
	.args_kind = CFG_ARGS_NONE,
	.bind = bind,
};
