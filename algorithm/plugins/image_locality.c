/* ImageLocality (Score): prefer nodes that already have the pod's images, scaled by how widely
 * each image is spread over the cluster. */
#include "algorithm/framework_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"

#define MB (1024LL * 1024LL)
#define MIN_THRESHOLD (23LL * MB)
#define MAX_CONTAINER_THRESHOLD (1000LL * MB)

/* The node's state for image, with ":latest" added when the name has no tag. */
static const struct node_image *lookup(const struct node_info *ni, const char *image)
{
	if (!image)
		return NULL;
	const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
	if (colon && (!slash || colon > slash))
		return node_info_image(ni, image); /* already interned and tagged */
	size_t len = strlen(image);
	char stackbuf[512];
	char *buf = len + 8 <= sizeof(stackbuf) ? stackbuf : malloc(len + 8);
	if (!buf)
		return NULL;
	memcpy(buf, image, len);
	memcpy(buf + len, ":latest", 8);
	const char *name = intern_str(buf);
	if (buf != stackbuf)
		free(buf);
	return name ? node_info_image(ni, name) : NULL;
}

static int64_t scaled(const struct node_image *img, uint32_t total)
{
	double spread = (double)img->num_nodes / (double)total;
	return (int64_t)((double)img->size_bytes * spread);
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)pl;
	(void)st;
	const struct fw_node_list *nodes = fw_cycle_nodes(c);
	uint32_t total = nodes && nodes->n ? nodes->n : 1;
	int64_t sum = 0;
	for (uint32_t i = 0; i < pod->n_init_containers; i++) {
		const struct node_image *img = lookup(ni, pod->init_containers[i].image);
		if (img)
			sum += scaled(img, total);
	}
	for (uint32_t i = 0; i < pod->n_containers; i++) {
		const struct node_image *img = lookup(ni, pod->containers[i].image);
		if (img)
			sum += scaled(img, total);
	}
	int64_t max = MAX_CONTAINER_THRESHOLD * (int64_t)(pod->n_init_containers + pod->n_containers);
	if (sum < MIN_THRESHOLD)
		sum = MIN_THRESHOLD;
	else if (sum > max)
		sum = max;
	*out = FW_MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (max - MIN_THRESHOLD);
	return FW_SUCCESS;
}

const struct fw_plugin fw_plugin_image_locality = {
	.name = "ImageLocality",
	.args_kind = CFG_ARGS_NONE,
	.score = score,
};
