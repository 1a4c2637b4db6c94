/* `csched devices` (cmd/devices.c) split for its unit test: the cluster's DRA objects as read
 * (from LIST pages, or fixture files in tests), and the table rendered from them. */
#ifndef CSCHED_CMD_DEVICES_INTERNAL_H
#define CSCHED_CMD_DEVICES_INTERNAL_H

#include <stddef.h>

#include "apiclient/api_types.h"
#include "common/err.h"
#include "common/strbuf.h"

enum cmd_devices_kind { CMD_DEVICES_SLICES, CMD_DEVICES_CLAIMS };

/* What the command lists; owns a reference to each object. */
struct cmd_devices_input {
	struct api_resource_slice **slices;
	size_t n_slices, cap_slices;
	struct api_resource_claim **claims;
	size_t n_claims, cap_claims;
};
void cmd_devices_input_release(struct cmd_devices_input *in);

/* Decodes the items of one LIST page (a ResourceSliceList or ResourceClaimList as JSON) into in;
 * cont (cont_size bytes, may be NULL) receives metadata.continue ("" on the last page). An item
 * that does not decode is an error naming it. */
int cmd_devices_add_page(struct cmd_devices_input *in, enum cmd_devices_kind kind, const char *json, size_t len, char *cont,
		     size_t cont_size, struct err *e);

struct cmd_devices_query {
	const struct api_device_class *cls; /* --class (its selectors are applied first); NULL = none */
	const char *selector;               /* --selector CEL expression; NULL = none */
	const struct api_node *node;        /* --node: only the devices available there; NULL = all */
};

/* The table: one row per device (slices ordered by node, driver, pool, slice name; devices as
 * served) with its attributes, capacity, taints, the claims it is allocated to with the pods
 * they are reserved for, and with a class or selector whether it matches (docs/devices.md). */
int cmd_devices_render(const struct cmd_devices_input *in, const struct cmd_devices_query *q, struct strbuf *out,
		   struct err *e);

#endif
