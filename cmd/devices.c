/* `csched devices [--class C] [--selector EXPR] [--node N]`: the cluster's published DRA devices
 * (ResourceSlices), what each is allocated to (ResourceClaims' status.allocation and the pods of
 * their reservedFor), and whether each matches a DeviceClass and/or a CEL selector as the
 * scheduler's allocator evaluates it, so that an operator can try a selector before writing a
 * claim (contract in cmd.h, output in docs/devices.md).
 *
 * One-shot against a kubeconfig, like `csched explain`: LISTs (page by page) the slices and the
 * claims, GETs the class and the node when asked, prints, exits. Writes nothing. Main thread only. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "cmd/cmd.h"
#include "cmd_internal.h"
#include "devices_internal.h"
#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "common/log.h"

#define DEVICES_PAGE 500

/* ---------- reading ---------- */

void cmd_devices_input_release(struct cmd_devices_input *in)
{
	for (size_t i = 0; i < in->n_slices; i++)
		api_resource_slice_unref(in->slices[i]);
	for (size_t i = 0; i < in->n_claims; i++)
		api_resource_claim_unref(in->claims[i]);
	free(in->slices);
	free(in->claims);
	memset(in, 0, sizeof(*in));
}

static int push(void ***arr, size_t *n, size_t *cap, void *p)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		void **na = realloc(*arr, nc * sizeof(*na));
		if (!na)
			return ERR_NOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

int cmd_devices_add_page(struct cmd_devices_input *in, enum cmd_devices_kind kind, const char *json, size_t len, char *cont,
		     size_t cont_size, struct err *e)
{
	static const char *items_path[] = { "items", NULL }, *cont_path[] = { "metadata", "continue", NULL },
			  *name_path[] = { "metadata", "name", NULL };
	const char *what = kind == CMD_DEVICES_SLICES ? "resourceslices" : "resourceclaims";
	char errbuf[256];
	char *text = NULL;
	yajl_val root = NULL;
	int rc = 0;

	if (cont && cont_size)
		cont[0] = '\0';
	/* yajl_tree_parse needs a NUL-terminated copy */
	if (!(text = malloc(len + 1))) {
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", what);
		goto out;
	}
	memcpy(text, json, len);
	text[len] = '\0';
	if (!(root = yajl_tree_parse(text, errbuf, sizeof(errbuf)))) {
		rc = err_set(e, ERR_INVALID, "%s: the list does not parse: %s", what, errbuf);
		goto out;
	}
	yajl_val items = yajl_tree_get(root, items_path, yajl_t_any);
	if (!items || YAJL_IS_NULL(items)) /* an empty list may come without items */
		goto cont;
	if (!YAJL_IS_ARRAY(items)) {
		rc = err_set(e, ERR_INVALID, "%s: items is not an array", what);
		goto out;
	}
	for (size_t i = 0; i < YAJL_GET_ARRAY(items)->len; i++) {
		yajl_val it = YAJL_GET_ARRAY(items)->values[i];
		yajl_val name = yajl_tree_get(it, name_path, yajl_t_string);
		struct err de = { 0 };
		void *obj = kind == CMD_DEVICES_SLICES ? (void *)api_resource_slice_decode(it, &de)
						   : (void *)api_resource_claim_decode(it, &de);
		if (!obj) {
			rc = err_set(e, de.code ? de.code : ERR_INVALID, "%s item %zu (%s): %s", what, i,
				     name ? YAJL_GET_STRING(name) : "no name", de.msg);
			goto out;
		}
		rc = kind == CMD_DEVICES_SLICES ? push((void ***)&in->slices, &in->n_slices, &in->cap_slices, obj)
					    : push((void ***)&in->claims, &in->n_claims, &in->cap_claims, obj);
		if (rc < 0) {
			if (kind == CMD_DEVICES_SLICES)
				api_resource_slice_unref(obj);
			else
				api_resource_claim_unref(obj);
			rc = err_set(e, ERR_NOMEM, "%s: out of memory", what);
			goto out;
		}
	}
cont:;
	yajl_val c = yajl_tree_get(root, cont_path, yajl_t_string);
	if (cont && cont_size && c)
		snprintf(cont, cont_size, "%s", YAJL_GET_STRING(c));
out:
	yajl_tree_free(root);
	free(text);
	return rc;
}

/* ---------- rendering ---------- */

/* One allocated device: a result of a claim's allocation. Names are interned (compared by
 * pointer). */
struct alloc_ref {
	const char *driver, *pool, *device;
	const struct api_resource_claim *claim;
};

static int cmp_ptr(const void *a, const void *b)
{
	return (a > b) - (a < b);
}

static int cmp_alloc(const void *pa, const void *pb)
{
	const struct alloc_ref *a = pa, *b = pb;
	int c;
	if ((c = cmp_ptr(a->driver, b->driver)) || (c = cmp_ptr(a->pool, b->pool)) || (c = cmp_ptr(a->device, b->device)))
		return c;
	return 0;
}

static const char *slice_node(const struct api_resource_slice *s, const struct api_dra_device *d)
{
	if (s->per_device_node_selection)
		return d->node_name ? d->node_name : d->all_nodes ? "(all nodes)" : d->node_selector ? "(node selector)" : "-";
	return s->node_name ? s->node_name : s->all_nodes ? "(all nodes)" : s->node_selector ? "(node selector)" : "-";
}

/* Slices ordered by node column, driver, pool, slice name (stable output for an operator). */
static int cmp_slice(const void *pa, const void *pb)
{
	const struct api_resource_slice *a = *(struct api_resource_slice *const *)pa,
					*b = *(struct api_resource_slice *const *)pb;
	int c;
	const char *na = a->per_device_node_selection ? "(per device)" : slice_node(a, NULL);
	const char *nb = b->per_device_node_selection ? "(per device)" : slice_node(b, NULL);
	if ((c = strcmp(na, nb)) || (c = strcmp(a->driver, b->driver)) || (c = strcmp(a->pool_name, b->pool_name)))
		return c;
	return strcmp(a->meta.name ? a->meta.name : "", b->meta.name ? b->meta.name : "");
}

enum { COL_NODE, COL_DRIVER, COL_POOL, COL_DEVICE, COL_ATTRS, COL_CAPACITY, COL_TAINTS, COL_ALLOCATED, COL_MATCH, N_COLS };
static const char *const col_names[N_COLS] = { "NODE",     "DRIVER", "POOL",      "DEVICE", "ATTRIBUTES",
					       "CAPACITY", "TAINTS", "ALLOCATED", "MATCH" };

struct row {
	char *cell[N_COLS];
};

static void attr_text(struct strbuf *sb, const struct api_dra_device *d)
{
	for (uint32_t i = 0; i < d->n_attributes; i++) {
		const struct api_dra_attribute *a = &d->attributes[i];
		strbuf_addf(sb, "%s%s=", i ? "," : "", a->name);
		switch (a->type) {
		case API_DRA_ATTR_INT: strbuf_addf(sb, "%lld", (long long)a->i); break;
		case API_DRA_ATTR_BOOL: strbuf_puts(sb, a->b ? "true" : "false"); break;
		default: strbuf_puts(sb, a->s ? a->s : ""); break;
		}
	}
}

static void capacity_text(struct strbuf *sb, const struct api_dra_device *d)
{
	for (uint32_t i = 0; i < d->n_capacity; i++)
		strbuf_addf(sb, "%s%s=%s", i ? "," : "", d->capacity[i].name,
			    d->capacity[i].value.s ? d->capacity[i].value.s : "");
}

static void taints_text(struct strbuf *sb, const struct api_dra_device *d)
{
	for (uint32_t i = 0; i < d->n_taints; i++) {
		const struct api_dra_taint *t = &d->taints[i];
		strbuf_addf(sb, "%s%s%s%s:%s", i ? "," : "", t->key ? t->key : "", t->value && t->value[0] ? "=" : "",
			    t->value ? t->value : "", t->effect_text ? t->effect_text : "");
	}
}

/* "ns/claim (pods: a,b)" for each claim holding the device, ";"-separated. */
static void allocated_text(struct strbuf *sb, const struct alloc_ref *refs, size_t n, const struct alloc_ref *key)
{
	const struct alloc_ref *hit = n ? bsearch(key, refs, n, sizeof(*refs), cmp_alloc) : NULL;
	if (!hit)
		return;
	while (hit > refs && !cmp_alloc(hit - 1, key))
		hit--;
	const struct api_resource_claim *last = NULL;
	bool first = true;
	for (; hit < refs + n && !cmp_alloc(hit, key); hit++) {
		const struct api_resource_claim *c = hit->claim;
		if (c == last) /* one claim with the device in two results (shared, consumable capacity) */
			continue;
		last = c;
		strbuf_addf(sb, "%s%s/%s", first ? "" : ";", c->meta.namespace, c->meta.name);
		first = false;
		uint32_t pods = 0;
		for (uint32_t i = 0; i < c->n_reserved_for; i++) {
			const struct api_dra_consumer *r = &c->reserved_for[i];
			if (strcmp(r->resource ? r->resource : "", "pods") || (r->api_group && r->api_group[0]))
				continue;
			strbuf_addf(sb, "%s%s", pods++ ? "," : " (pods: ", r->name);
		}
		if (pods)
			strbuf_puts(sb, ")");
	}
}

/* The text built in sb as a cell of its own size ("-" when empty; NULL on out of memory), sb
 * emptied for the next one (a strbuf keeps room to grow: thousands of rows would keep it all). */
static char *cell(struct strbuf *sb)
{
	char *c = sb->oom ? NULL : strdup(sb->len ? sb->data : "-");
	sb->len = 0;
	if (sb->data)
		sb->data[0] = '\0';
	return c;
}

int cmd_devices_render(const struct cmd_devices_input *in, const struct cmd_devices_query *q, struct strbuf *out, struct err *e)
{
	struct alloc_ref *refs = NULL;
	struct api_resource_slice **slices = NULL;
	struct row *rows = NULL;
	struct fw_dra_selectors *sel = NULL;
	const char **exprs = NULL;
	size_t n_refs = 0, n_rows = 0, n_devices = 0, n_match = 0, n_errors = 0;
	uint32_t n_exprs = 0;
	char first_error[ERR_MSG_MAX + 256] = "";
	bool matching = q->cls || q->selector;
	struct strbuf sb = STRBUF_INIT; /* one cell's text at a time */
	int rc = 0;

	/* every allocated device, sorted for lookup */
	size_t cap_refs = 0;
	for (size_t i = 0; i < in->n_claims; i++)
		if (in->claims[i]->allocation)
			cap_refs += in->claims[i]->allocation->n_results;
	if (cap_refs && !(refs = calloc(cap_refs, sizeof(*refs))))
		goto oom;
	for (size_t i = 0; i < in->n_claims; i++) {
		const struct api_dra_allocation *a = in->claims[i]->allocation;
		for (uint32_t k = 0; a && k < a->n_results; k++)
			refs[n_refs++] = (struct alloc_ref){ a->results[k].driver, a->results[k].pool, a->results[k].device,
							     in->claims[i] };
	}
	if (n_refs)
		qsort(refs, n_refs, sizeof(*refs), cmp_alloc);

	if (matching) {
		n_exprs = (q->cls ? q->cls->n_selectors : 0) + (q->selector ? 1 : 0);
		if (n_exprs && !(exprs = calloc(n_exprs, sizeof(*exprs))))
			goto oom;
		uint32_t k = 0;
		for (uint32_t i = 0; q->cls && i < q->cls->n_selectors; i++)
			exprs[k++] = q->cls->selectors[i];
		if (q->selector)
			exprs[k++] = q->selector;
		if (!(sel = fw_dra_selectors_new()))
			goto oom;
	}

	if (in->n_slices && !(slices = malloc(in->n_slices * sizeof(*slices))))
		goto oom;
	for (size_t i = 0; i < in->n_slices; i++)
		slices[i] = in->slices[i];
	if (in->n_slices)
		qsort(slices, in->n_slices, sizeof(*slices), cmp_slice);
	size_t cap_rows = 0;
	for (size_t i = 0; i < in->n_slices; i++)
		cap_rows += slices[i]->n_devices;
	if (cap_rows && !(rows = calloc(cap_rows, sizeof(*rows))))
		goto oom;

	for (size_t i = 0; i < in->n_slices; i++) {
		const struct api_resource_slice *s = slices[i];
		for (uint32_t j = 0; j < s->n_devices; j++) {
			const struct api_dra_device *d = &s->devices[j];
			if (q->node && !fw_dra_device_on_node(s, d, q->node))
				continue;
			struct row *r = &rows[n_rows++];
			n_devices++;
			strbuf_puts(&sb, slice_node(s, d));
			r->cell[COL_NODE] = cell(&sb);
			strbuf_puts(&sb, s->driver);
			r->cell[COL_DRIVER] = cell(&sb);
			strbuf_puts(&sb, s->pool_name);
			r->cell[COL_POOL] = cell(&sb);
			strbuf_puts(&sb, d->name);
			r->cell[COL_DEVICE] = cell(&sb);
			attr_text(&sb, d);
			r->cell[COL_ATTRS] = cell(&sb);
			capacity_text(&sb, d);
			r->cell[COL_CAPACITY] = cell(&sb);
			taints_text(&sb, d);
			r->cell[COL_TAINTS] = cell(&sb);
			struct alloc_ref key = { s->driver, s->pool_name, d->name, NULL };
			allocated_text(&sb, refs, n_refs, &key);
			r->cell[COL_ALLOCATED] = cell(&sb);
			if (matching) {
				struct err me = { 0 };
				int m = fw_dra_device_matches(sel, s, d, exprs, n_exprs, &me);
				if (m < 0 && !first_error[0])
					snprintf(first_error, sizeof(first_error), "%s", me.msg);
				n_errors += m < 0;
				n_match += m > 0;
				strbuf_puts(&sb, m > 0 ? "yes" : m == 0 ? "no" : "error");
				r->cell[COL_MATCH] = cell(&sb);
			}
			for (int c = 0; c < N_COLS; c++)
				if (!r->cell[c] && (c != COL_MATCH || matching))
					goto oom;
		}
	}

	/* aligned columns, two spaces apart, as kubectl prints tables */
	int n_cols = matching ? N_COLS : COL_MATCH;
	size_t width[N_COLS];
	for (int c = 0; c < n_cols; c++) {
		width[c] = strlen(col_names[c]);
		for (size_t i = 0; i < n_rows; i++)
			if (strlen(rows[i].cell[c]) > width[c])
				width[c] = strlen(rows[i].cell[c]);
	}
	for (size_t i = 0; i <= n_rows; i++)
		for (int c = 0; c < n_cols; c++) {
			const char *t = i ? rows[i - 1].cell[c] : col_names[c];
			if (c == n_cols - 1)
				strbuf_addf(out, "%s\n", t);
			else
				strbuf_addf(out, "%-*s  ", (int)width[c], t);
		}
	if (!n_rows)
		strbuf_puts(out, "(no devices)\n");
	if (matching) {
		strbuf_addf(out, "\n%zu of %zu devices match", n_match, n_devices);
		if (q->cls)
			strbuf_addf(out, " class %s (%u selector%s)", q->cls->meta.name, q->cls->n_selectors, q->cls->n_selectors == 1 ? "" : "s");
		if (q->selector)
			strbuf_addf(out, "%s--selector", q->cls ? " and " : " ");
		strbuf_puts(out, "\n");
		if (n_errors)
			strbuf_addf(out, "%zu device(s) could not be evaluated; first error: %s\n", n_errors, first_error);
	}
	if (out->oom)
		goto oom;
	goto out;
oom:
	rc = err_set(e, ERR_NOMEM, "devices: out of memory");
out:
	for (size_t i = 0; rows && i < cap_rows; i++)
		for (int c = 0; c < N_COLS; c++)
			free(rows[i].cell[c]);
	free(rows);
	strbuf_release(&sb);
	free(slices);
	free(refs);
	free(exprs);
	fw_dra_selectors_free(sel);
	return rc;
}

/* ---------- the command ---------- */

struct devices_flags {
	const char *kubeconfig, *context, *class_name, *selector, *node;
	int verbosity;
	bool help;
};

static const char usage_text[] =
	"Usage: %s devices [flags]\n"
	"\n"
	"Lists the devices drivers publish in ResourceSlices (resource.k8s.io/v1): node, driver, pool,\n"
	"device, attributes, capacity and taints, and the ResourceClaims each is allocated to with the\n"
	"pods they are reserved for. With --class and/or --selector, says for each device whether it\n"
	"matches, evaluated as the scheduler's allocator does (the class's selectors, then EXPR), and\n"
	"shows the first CEL error. Nothing is written to the cluster.\n"
	"\n"
	"      --kubeconfig string   Path to the kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)\n"
	"      --context string      The kubeconfig context to use\n"
	"      --class string        A DeviceClass whose selectors each device is checked against\n"
	"      --selector string     A CEL expression as a claim's request selector would have it,\n"
	"                            e.g. 'device.attributes[\"gpu.example.com\"].model == \"a100\"'\n"
	"      --node string         Only the devices available on this node\n"
	"  -v, --v int               Log verbosity (stderr)\n"
	"  -h, --help                This help\n";

static int parse(struct devices_flags *f, int argc, char **argv, struct err *e)
{
	static const struct {
		const char *name;
		size_t off;
	} str_flags[] = {
		{ "kubeconfig", offsetof(struct devices_flags, kubeconfig) },
		{ "context", offsetof(struct devices_flags, context) },
		{ "class", offsetof(struct devices_flags, class_name) },
		{ "selector", offsetof(struct devices_flags, selector) },
		{ "node", offsetof(struct devices_flags, node) },
	};
	memset(f, 0, sizeof(*f));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || !a[1])
			return err_set(e, ERR_INVALID, "unexpected argument \"%s\"", a);
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			f->help = true;
			continue;
		}
		/* --name=value, --name value, -v value, -vN */
		const char *name = a[1] == '-' ? a + 2 : NULL, *value = NULL;
		size_t name_len = 0;
		bool is_v;
		if (name) {
			const char *eq = strchr(name, '=');
			name_len = eq ? (size_t)(eq - name) : strlen(name);
			value = eq ? eq + 1 : NULL;
			is_v = name_len == 1 && name[0] == 'v';
		} else {
			if (a[1] != 'v')
				return err_set(e, ERR_INVALID, "unknown flag: %s", a);
			value = a[2] ? a + 2 : NULL;
			is_v = true;
		}
		size_t k = 0;
		for (; !is_v && k < sizeof(str_flags) / sizeof(str_flags[0]); k++)
			if (strlen(str_flags[k].name) == name_len && !strncmp(str_flags[k].name, name, name_len))
				break;
		if (!is_v && k == sizeof(str_flags) / sizeof(str_flags[0]))
			return err_set(e, ERR_INVALID, "unknown flag: %s", a);
		if (!value) {
			if (i + 1 >= argc)
				return err_set(e, ERR_INVALID, "flag needs an argument: %s", a);
			value = argv[++i];
		}
		if (is_v) {
			char *end;
			long v = strtol(value, &end, 10);
			if (*end || v < 0 || v > 10)
				return err_set(e, ERR_INVALID, "invalid argument \"%s\" for -v: an integer 0..10", value);
			f->verbosity = (int)v;
		} else {
			*(const char **)((char *)f + str_flags[k].off) = value;
		}
	}
	if (f->class_name && !f->class_name[0])
		return err_set(e, ERR_INVALID, "--class: a DeviceClass name is required");
	if (f->selector && !f->selector[0])
		return err_set(e, ERR_INVALID, "--selector: an expression is required");
	if (f->node && !f->node[0])
		return err_set(e, ERR_INVALID, "--node: a node name is required");
	return 0;
}

/* Every page of path ("/apis/resource.k8s.io/v1/resourceslices") into in. */
static int list_all(struct api_conn *conn, const char *path, enum cmd_devices_kind kind, struct cmd_devices_input *in,
		    struct err *e)
{
	char cont[4096] = "";
	int rc;
	do {
		struct api_response r = { 0 };
		struct strbuf url = STRBUF_INIT;
		strbuf_addf(&url, "%s?limit=%d", path, DEVICES_PAGE);
		if (cont[0]) {
			strbuf_puts(&url, "&continue=");
			cmd_query_escape(&url, cont);
		}
		rc = url.oom ? err_set(e, ERR_NOMEM, "list %s: out of memory", path)
			     : api_request(conn, "GET", url.data, NULL, NULL, 0, &r, e);
		strbuf_release(&url);
		if (rc < 0)
			err_prefix(e, "list %s", path);
		else
			rc = cmd_devices_add_page(in, kind, r.body, r.len, cont, sizeof(cont), e);
		api_response_release(&r);
	} while (rc == 0 && cont[0]);
	return rc;
}

/* GET of one object (the class, the node) decoded by decode; ERR_NOT_FOUND names it. */
static void *get_one(struct api_conn *conn, const char *path, const char *what, const char *name,
		     void *(*decode)(const char *json, size_t len, struct err *e), struct err *e)
{
	struct api_response r = { 0 };
	char url[1024];
	void *obj = NULL;
	snprintf(url, sizeof(url), "%s%s", path, name);
	int rc = api_request(conn, "GET", url, NULL, NULL, 0, &r, e);
	if (rc == ERR_NOT_FOUND)
		err_set(e, rc, "%s \"%s\" not found", what, name);
	else if (rc < 0)
		err_prefix(e, "get %s \"%s\"", what, name);
	else if (!(obj = decode(r.body, r.len, e)))
		err_prefix(e, "%s \"%s\"", what, name);
	api_response_release(&r);
	return obj;
}

static void *decode_class(const char *json, size_t len, struct err *e)
{
	return api_device_class_decode_json(json, len, e);
}

static void *decode_node(const char *json, size_t len, struct err *e)
{
	return api_node_decode_json(json, len, e);
}

static int devices_run(const struct devices_flags *f, struct err *e)
{
	struct api_config ac = { 0 };
	struct api_client *c = NULL;
	struct api_conn *conn = NULL;
	struct cmd_devices_input in = { 0 };
	struct api_device_class *cls = NULL;
	struct api_node *node = NULL;
	struct strbuf out = STRBUF_INIT;
	int rc;

	if ((rc = api_config_load_default(&ac, f->kubeconfig, f->context, e)) < 0)
		goto out;
	if (!(c = api_client_new(&ac, e)) || !(conn = api_conn_new(c, e))) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	if (f->class_name &&
	    !(cls = get_one(conn, "/apis/resource.k8s.io/v1/deviceclasses/", "deviceclass", f->class_name, decode_class, e))) {
		rc = e->code ? e->code : ERR_INVALID;
		goto out;
	}
	if (f->node && !(node = get_one(conn, "/api/v1/nodes/", "node", f->node, decode_node, e))) {
		rc = e->code ? e->code : ERR_INVALID;
		goto out;
	}
	if ((rc = list_all(conn, "/apis/resource.k8s.io/v1/resourceslices", CMD_DEVICES_SLICES, &in, e)) < 0 ||
	    (rc = list_all(conn, "/apis/resource.k8s.io/v1/resourceclaims", CMD_DEVICES_CLAIMS, &in, e)) < 0)
		goto out;
	struct cmd_devices_query q = { cls, f->selector, node };
	if ((rc = cmd_devices_render(&in, &q, &out, e)) == 0)
		fwrite(out.data, 1, out.len, stdout);
out:
	strbuf_release(&out);
	api_device_class_unref(cls);
	api_node_unref(node);
	cmd_devices_input_release(&in);
	api_conn_free(conn);
	api_client_free(c);
	api_config_release(&ac);
	return rc;
}

int cmd_devices(int argc, char **argv, const char *prog)
{
	struct devices_flags f;
	struct err e = { 0 };
	if (parse(&f, argc, argv, &e) < 0) {
		fprintf(stderr, "Error: %s\nRun '%s devices --help' for usage.\n", e.msg, prog);
		return 1;
	}
	if (f.help) {
		printf(usage_text, prog);
		return 0;
	}
	log_set_verbosity(f.verbosity);
	if (api_global_init(&e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		return 1;
	}
	int rc = devices_run(&f, &e);
	api_global_cleanup();
	if (rc < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		return 1;
	}
	return 0;
}
