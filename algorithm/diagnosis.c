/* The Diagnosis of a failed cycle and upstream's FitError message built from it. */
#include "cycle_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/map.h"

/* ---------- Diagnosis ---------- */

void fw_name_set_add(const char **set, uint32_t *n, const char *name)
{
	for (uint32_t i = 0; i < *n; i++)
		if (set[i] == name || strcmp(set[i], name) == 0)
			return;
	if (*n < FW_MAX_PLUGINS)
		set[(*n)++] = name;
}

/* upstream Diagnosis.AddPluginStatus */
void fw_diag_add_plugin_status(struct fw_diagnosis *d, const struct fw_status *st)
{
	if (!st->plugin)
		return;
	if (fw_code_is_rejected(st->code))
		fw_name_set_add(d->unschedulable_plugins, &d->n_unschedulable_plugins, st->plugin);
	if (st->code == FW_PENDING)
		fw_name_set_add(d->pending_plugins, &d->n_pending_plugins, st->plugin);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "[A B]" as Go prints a sorted []string. */
void fw_format_plugin_list(const char **names, uint32_t n, char *buf, size_t size)
{
	const char *sorted[FW_MAX_PLUGINS];
	memcpy(sorted, names, n * sizeof(*names));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	size_t off = 0;
	int w = snprintf(buf, size, "[");
	off = w > 0 ? (size_t)w : 0;
	for (uint32_t i = 0; i < n && off < size; i++) {
		w = snprintf(buf + off, size - off, "%s%s", i ? " " : "", sorted[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (off < size)
		snprintf(buf + off, size - off, "]");
}


/* ---------- FitError message ---------- */

struct hist_entry {
	const char *reason;
	uint64_t count;
	char *text; /* "<count> <reason>" */
};

static int cmp_hist(const void *a, const void *b)
{
	return strcmp(((const struct hist_entry *)a)->text, ((const struct hist_entry *)b)->text);
}

static int hist_add(struct map *m, struct hist_entry **arr, size_t *n, size_t *cap, const char *reason,
		    uint64_t count)
{
	struct hist_entry *h = map_get(m, reason);
	if (h) {
		h->count += count;
		return 0;
	}
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct hist_entry *na = realloc(*arr, nc * sizeof(*na));
		if (!na)
			return ERR_NOMEM;
		*arr = na;
		*cap = nc;
		/* the map holds pointers into the array: rebuild it */
		map_release(m);
		map_init(m);
		for (size_t i = 0; i < *n; i++)
			if (map_put(m, (*arr)[i].reason, &(*arr)[i], NULL) < 0)
				return ERR_NOMEM;
	}
	(*arr)[*n] = (struct hist_entry){ reason, count, NULL };
	if (map_put(m, reason, &(*arr)[*n], NULL) < 0)
		return ERR_NOMEM;
	(*n)++;
	return 0;
}

const char *fw_fit_error_message(const struct fw_diagnosis *d, char *buf, size_t size)
{
	struct map m;
	struct hist_entry *arr = NULL;
	size_t n = 0, cap = 0, off = 0;
	int w;

	map_init(&m);
	if (!size)
		return buf;
	w = snprintf(buf, size, "0/%u nodes are available:", d->num_all_nodes);
	off = w > 0 ? (size_t)w : 0;
	if (d->pre_filter_msg[0]) {
		if (off < size) {
			w = snprintf(buf + off, size - off, " %s.", d->pre_filter_msg);
			off += w > 0 ? (size_t)w : 0;
		}
	} else {
		for (uint32_t i = 0; i < d->n_node_status; i++) {
			const struct fw_status *st = d->node_status[i].status;
			for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r))
				if (hist_add(&m, &arr, &n, &cap, r, 1) < 0)
					goto oom;
		}
		if (d->has_absent_status && d->n_node_status < d->num_all_nodes) {
			const struct fw_status *st = &d->absent_status;
			for (const char *r = fw_status_reason_next(st, NULL); r; r = fw_status_reason_next(st, r))
				if (hist_add(&m, &arr, &n, &cap, r, d->num_all_nodes - d->n_node_status) < 0)
					goto oom;
		}
		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(arr[i].reason) + 24;
			arr[i].text = malloc(len);
			if (!arr[i].text)
				goto oom;
			snprintf(arr[i].text, len, "%llu %s", (unsigned long long)arr[i].count, arr[i].reason);
		}
		/* Go's sort.Strings: byte order, so "10 ..." sorts before "2 ..." */
		qsort(arr, n, sizeof(*arr), cmp_hist);
		for (size_t i = 0; i < n && off < size; i++) {
			w = snprintf(buf + off, size - off, "%s%s%s", i ? ", " : " ", arr[i].text, i + 1 == n ? "." : "");
			off += w > 0 ? (size_t)w : 0;
		}
	}
	if (d->post_filter_msg[0] && off < size)
		snprintf(buf + off, size - off, " %s", d->post_filter_msg);
	goto out;
oom:
	snprintf(buf, size, "0/%u nodes are available: (out of memory formatting reasons)", d->num_all_nodes);
out:
	for (size_t i = 0; i < n; i++)
		free(arr[i].text);
	free(arr);
	map_release(&m);
	return buf;
}

