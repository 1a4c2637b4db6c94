/* upstream framework/sorted_nodes.go: the max-heap of scored nodes that selectHost pops (and whose
 * remainder feeds OpportunisticBatching). Ties between equal totals are resolved by the heap's
 * layout, so the layout is Go's container/heap, operation for operation (Init, Pop, down). */
#include "framework_internal.h"

/* upstream nodeScoreHeap.Less: the higher TotalScore, then the higher Randomizer, comes first. */
static bool scored_less(const struct fw_scored_node *h, uint32_t i, uint32_t j)
{
	return h[i].total > h[j].total || (h[i].total == h[j].total && h[i].randomizer > h[j].randomizer);
}

static void scored_swap(struct fw_scored_node *h, uint32_t i, uint32_t j)
{
	struct fw_scored_node t = h[i];
	h[i] = h[j];
	h[j] = t;
}

/* Go container/heap down(h, i0, n). */
static void down(struct fw_scored_node *h, uint32_t i0, uint32_t n)
{
	uint32_t i = i0;
	for (;;) {
		uint64_t j1 = 2 * (uint64_t)i + 1;
		if (j1 >= n)
			break;
		uint32_t j = (uint32_t)j1; /* left child */
		if (j1 + 1 < n && scored_less(h, j + 1, j))
			j++; /* right child */
		if (!scored_less(h, j, i))
			break;
		scored_swap(h, i, j);
		i = j;
	}
}

void fw_sorted_nodes_init(struct fw_scored_node *h, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		down(h, i, n);
}

struct fw_scored_node fw_sorted_nodes_pop(struct fw_scored_node *h, uint32_t *n)
{
	uint32_t last = *n - 1;
	scored_swap(h, 0, last);
	down(h, 0, last);
	*n = last;
	return h[last];
}
