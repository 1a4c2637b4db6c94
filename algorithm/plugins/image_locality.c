/* ImageLocality (Score): prefer nodes that already have the pod's images, scaled by how widely
 * each image is spread over the cluster.
 *
 * Image volumes (spec.volumes[].image.reference) count as images of the pod, as upstream's
 * sumImageScores has them (no feature gate in the scheduler). Only the pod's names are normalised
 * (":latest" added when untagged); the node's names are taken as the node reports them
 * (cache/cache.c).
 *
 * Upstream normalises the pod's image names on every node. Here fw_image_locality_prepare (run
 * once per cycle, see fw_score_prepare_of) normalises them once into the cycle state, counting
 * repeated images once with their multiplicity, and tells the framework to skip Score when no
 * examined node would score above 0. Score without that state (a test calling it alone) does the
 * per-node normalisation; both give upstream's numbers. */
#include "algorithm/plugin.h"
#include "plugin_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"

#define MB (1024LL * 1024LL)
#define MIN_THRESHOLD (23LL * MB)
#define MAX_CONTAINER_THRESHOLD (1000LL * MB)

/* upstream normalizedImageName: image (interned) with ":latest" added when it has no tag; NULL
 * for no image, out of memory, or a name no live string has (then no node has it). Takes no
 * reference: the result is only compared with the snapshot's image names, which the snapshot's
 * nodes hold. */
static const char *normalized(const char *image)
{
	if (!image)
		return NULL;
	const char *colon = strrchr(image, ':'), *slash = strrchr(image, '/');
	if (colon && (!slash || colon > slash))
		return image; /* already interned and tagged */
	size_t len = strlen(image);
	char stackbuf[512];
	char *buf = len + 8 <= sizeof(stackbuf) ? stackbuf : malloc(len + 8);
	if (!buf)
		return NULL;
	memcpy(buf, image, len);
	memcpy(buf + len, ":latest", 8);
	const char *name = intern_find(buf);
	if (buf != stackbuf)
		free(buf);
	return name;
}

static const struct node_image *lookup(const struct node_info *ni, const char *image)
{
	const char *name = normalized(image);
	return name ? node_info_image(ni, name) : NULL;
}

static int64_t scaled(const struct node_image *img, uint32_t total)
{
	double spread = (double)img->num_nodes / (double)total;
	return (int64_t)((double)img->size_bytes * spread);
}

/* upstream calculatePriority: the clamped sum scaled to 0..100. */
static int64_t priority(int64_t sum, uint32_t n_containers)
{
	int64_t max = MAX_CONTAINER_THRESHOLD * (int64_t)n_containers;
	if (sum < MIN_THRESHOLD)
		sum = MIN_THRESHOLD;
	else if (sum > max)
		sum = max;
	return FW_MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (max - MIN_THRESHOLD);
}

/* upstream sumImageScores' imageCount: every init and app container, and every image volume
 * (found on the node or not). */
static uint32_t image_count(const struct api_pod *pod)
{
	uint32_t n = pod->n_init_containers + pod->n_containers;
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		n += pod->volumes[i].kind == API_VOLUME_IMAGE;
	return n;
}

static uint32_t total_nodes(const struct fw_cycle *c)
{
	const struct fw_node_list *nodes = fw_cycle_nodes(c);
	return nodes && nodes->n ? nodes->n : 1;
}

/* The pod's distinct normalised image names with how many containers (init and app) and image
 * volumes use each. */
struct il_image {
	const char *name; /* interned */
	uint32_t count;
};

struct il_state {
	uint32_t total;        /* nodes in the snapshot */
	uint32_t n_containers; /* init + app containers + image volumes: the maximum threshold */
	uint32_t n;
	struct il_image *images;
};

/* The sum upstream's sumImageScores computes on ni: each container or image volume adds its
 * image's scaled size, so an image used k times adds it k times. */
static int64_t state_sum(const struct il_state *s, const struct node_info *ni)
{
	int64_t sum = 0;
	if (!ni->n_images)
		return 0;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct node_image *img = node_info_image(ni, s->images[i].name);
		if (img)
			sum += (int64_t)s->images[i].count * scaled(img, s->total);
	}
	return sum;
}

static void add_image(struct il_state *s, const char *image)
{
	const char *name = normalized(image);
	if (!name)
		return; /* no image: matches nothing */
	for (uint32_t i = 0; i < s->n; i++)
		if (s->images[i].name == name) {
			s->images[i].count++;
			return;
		}
	s->images[s->n++] = (struct il_image){ name, 1 };
}

enum fw_code fw_image_locality_prepare(const struct fw_pl *pl, struct fw_cycle *c, const struct api_pod *pod,
				       const struct node_info *const *nodes, uint32_t n, struct fw_status *st)
{
	(void)st;
	uint32_t n_containers = image_count(pod);
	struct il_state *s = fw_cycle_alloc(c, sizeof(*s));
	if (!s || !(s->images = fw_cycle_alloc(c, (n_containers ? n_containers : 1) * sizeof(*s->images))))
		return FW_SUCCESS; /* out of memory: Score normalises per node */
	s->total = total_nodes(c);
	s->n_containers = n_containers;
	for (uint32_t i = 0; i < pod->n_init_containers; i++)
		add_image(s, pod->init_containers[i].image);
	for (uint32_t i = 0; i < pod->n_containers; i++)
		add_image(s, pod->containers[i].image);
	for (uint32_t i = 0; i < pod->n_volumes; i++)
		if (pod->volumes[i].kind == API_VOLUME_IMAGE)
			add_image(s, pod->volumes[i].reference);
	fw_cycle_set_state(c, pl, s);
	/* Score would add 0 to every total when no node scores above 0: most pods (small images, or
	 * images no examined node has) */
	for (uint32_t i = 0; i < n; i++)
		if (priority(state_sum(s, nodes[i]), n_containers) != 0)
			return FW_SUCCESS;
	return FW_SKIP;
}

static enum fw_code score(const struct fw_pl *pl, const struct fw_cycle *c, const struct api_pod *pod,
			  const struct node_info *ni, int64_t *out, struct fw_status *st)
{
	(void)st;
	uint32_t n_containers = image_count(pod);
	const struct il_state *s = fw_cycle_state(c, pl);
	if (s) {
		*out = priority(state_sum(s, ni), n_containers);
		return FW_SUCCESS;
	}
	uint32_t total = total_nodes(c);
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
	for (uint32_t i = 0; i < pod->n_volumes; i++) {
		const struct node_image *img =
			pod->volumes[i].kind == API_VOLUME_IMAGE ? lookup(ni, pod->volumes[i].reference) : NULL;
		if (img)
			sum += scaled(img, total);
	}
	*out = priority(sum, n_containers);
	return FW_SUCCESS;
}

const struct fw_plugin fw_plugin_image_locality = {
	.name = "ImageLocality",
	.args_kind = CFG_ARGS_NONE,
	.score = score,
};
