/* The allocator's device checks for tools (framework.h, "DRA devices outside a cycle"): a thin
 * public face of algorithm/plugins/dra_allocator.h, which stays private to algorithm/. */
#include <stdlib.h>

#include "algorithm/framework.h"
#include "plugins/dra_allocator.h"

/* upstream's scheduler keeps up to 10 compiled selectors per expression set in its cel.Cache;
 * a tool asks about a handful of expressions */
#define DEVICES_CEL_CACHE_ENTRIES 64

struct fw_dra_selectors {
	struct dra_cel_cache *cc;
};

struct fw_dra_selectors *fw_dra_selectors_new(void)
{
	struct fw_dra_selectors *sel = calloc(1, sizeof(*sel));
	if (!sel)
		return NULL;
	if (!(sel->cc = dra_cel_cache_new(DEVICES_CEL_CACHE_ENTRIES))) {
		free(sel);
		return NULL;
	}
	return sel;
}

void fw_dra_selectors_free(struct fw_dra_selectors *sel)
{
	if (!sel)
		return;
	dra_cel_cache_free(sel->cc);
	free(sel);
}

int fw_dra_device_matches(struct fw_dra_selectors *sel, const struct api_resource_slice *s,
			  const struct api_dra_device *d, const char *const *exprs, uint32_t n, struct err *e)
{
	switch (dra_device_matches(sel->cc, s, d, exprs, n, e)) {
	case DRA_ALLOCATED:
		return 1;
	case DRA_UNSCHEDULABLE:
		return 0;
	default:
		return e && e->code ? e->code : ERR_INVALID;
	}
}

bool fw_dra_device_on_node(const struct api_resource_slice *s, const struct api_dra_device *d,
			   const struct api_node *node)
{
	return dra_device_matches_node(s, d, node);
}
