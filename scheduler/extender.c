/* HTTP scheduler extenders: upstream pkg/scheduler/extender.go (HTTPExtender: send, Filter,
 * Prioritize, Bind, IsInterested) over libcurl, and the k8s.io/kube-scheduler/extender/v1 wire
 * types; ProcessPreemption for DefaultPreemption's PostFilter.
 *
 * DESIGN: Filter, Prioritize and ProcessPreemption run on the scheduler thread, Bind on binder
 * threads, so each extender keeps a pool of idle curl easy handles under its own mutex (a leaf lock:
 * nothing else is taken while it is held, and never across I/O): a call takes one (or makes one
 * when all are busy), and gives it back afterwards, so connections are reused (keep-alive) and
 * never shared by two threads. Each call is bounded by the extender's httpTimeout
 * (CURLOPT_TIMEOUT_MS covers connect, request and the whole response, as Go's
 * http.Client.Timeout), so a dead extender holds a pod at most that long and never an informer.
 * Responses are bounded in size and nesting depth before yajl sees them. */
#include "extender_internal.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <yajl/yajl_tree.h>

#include "apiclient/api_types.h"
#include "cache/node_info.h"
#include "common/clock.h"
#include "common/intern.h"
#include "common/log.h"
#include "scheduler/metrics.h"

#define POOL_MAX 8 /* idle handles kept per extender; more may exist while busy */

struct sched_extender {
	const struct cfg_extender *cfg; /* borrowed from the config */
	char *base;                     /* urlPrefix without trailing '/' */
	char *connect_to;               /* tlsConfig.serverName: "serverName:port:host:port", or NULL */
	long timeout_ms;
	const char **managed; /* interned */
	uint32_t n_managed;
	struct sched_metrics *metrics;
	pthread_mutex_t lock; /* guards idle/n_idle only; leaf lock */
	CURL *idle[POOL_MAX];
	uint32_t n_idle;
};

struct sched_extenders {
	uint32_t n;
	struct sched_extender *x;
	struct fw_extender *fw;
};

/* ---------- JSON encoding ---------- */

static bool put_str(struct strbuf *sb, const char *s)
{
	bool ok = strbuf_puts(sb, "\"");
	for (const unsigned char *p = (const unsigned char *)s; ok && *p; p++) {
		if (*p == '"' || *p == '\\')
			ok = strbuf_addf(sb, "\\%c", *p);
		else if (*p < 0x20)
			ok = strbuf_addf(sb, "\\u%04x", *p);
		else
			ok = strbuf_add(sb, p, 1);
	}
	return ok && strbuf_puts(sb, "\"");
}

/* The pod as the informer served it, or (a pod built without its JSON: tests) its identity. */
static bool put_pod(struct strbuf *sb, const struct api_pod *pod)
{
	if (pod->json)
		return strbuf_add(sb, pod->json, pod->json_len);
	bool ok = strbuf_puts(sb, "{\"metadata\":{\"name\":") && put_str(sb, pod->meta.name) &&
		  strbuf_puts(sb, ",\"namespace\":") && put_str(sb, pod->meta.namespace) && strbuf_puts(sb, ",\"uid\":") &&
		  put_str(sb, pod->meta.uid ? pod->meta.uid : "") && strbuf_puts(sb, "}}");
	return ok;
}

static bool put_node(struct strbuf *sb, const struct node_info *ni)
{
	if (ni->node && ni->node->json)
		return strbuf_add(sb, ni->node->json, ni->node->json_len);
	return strbuf_puts(sb, "{\"metadata\":{\"name\":") && put_str(sb, ni->name) && strbuf_puts(sb, "}}");
}

bool sched_ext_encode_args(struct strbuf *sb, const struct api_pod *pod, const struct node_info *const *nodes,
			   uint32_t n, bool node_names)
{
	bool ok = strbuf_puts(sb, "{\"Pod\":") && put_pod(sb, pod);
	if (node_names) {
		ok = ok && strbuf_puts(sb, ",\"Nodes\":null,\"NodeNames\":[");
		for (uint32_t i = 0; ok && i < n; i++)
			ok = (!i || strbuf_puts(sb, ",")) && put_str(sb, nodes[i]->name);
		return ok && strbuf_puts(sb, "]}");
	}
	/* v1.NodeList: an empty ListMeta is still written ({}), as json.Marshal does with a struct */
	ok = ok && strbuf_puts(sb, ",\"Nodes\":{\"metadata\":{},\"items\":[");
	for (uint32_t i = 0; ok && i < n; i++)
		ok = (!i || strbuf_puts(sb, ",")) && put_node(sb, nodes[i]);
	return ok && strbuf_puts(sb, "]},\"NodeNames\":null}");
}

bool sched_ext_encode_binding(struct strbuf *sb, const struct api_pod *pod, const char *node)
{
	return strbuf_puts(sb, "{\"PodName\":") && put_str(sb, pod->meta.name) && strbuf_puts(sb, ",\"PodNamespace\":") &&
	       put_str(sb, pod->meta.namespace) && strbuf_puts(sb, ",\"PodUID\":") &&
	       put_str(sb, pod->meta.uid ? pod->meta.uid : "") && strbuf_puts(sb, ",\"Node\":") && put_str(sb, node) &&
	       strbuf_puts(sb, "}");
}

/* qsort order of victims entries (pointers into one array): node name, then array order, so the
 * last of equal names is the last of its run. */
static int victims_cmp(const void *a, const void *b)
{
	const struct sched_ext_victims *x = *(const struct sched_ext_victims *const *)a;
	const struct sched_ext_victims *y = *(const struct sched_ext_victims *const *)b;
	int c = strcmp(x->node, y->node);
	return c ? c : (x < y ? -1 : x > y);
}

/* v[0..n) as a Go map would hold and json.Marshal write them: sorted by node name, the last of a
 * repeated name only. *out (malloc'd, caller frees) and *n_out; false on out of memory. */
static bool victims_as_map(const struct sched_ext_victims *v, uint32_t n, const struct sched_ext_victims ***out,
			   uint32_t *n_out)
{
	const struct sched_ext_victims **s = malloc((n ? n : 1) * sizeof(*s));
	*out = s;
	*n_out = 0;
	if (!s)
		return false;
	for (uint32_t i = 0; i < n; i++)
		s[i] = &v[i];
	qsort(s, n, sizeof(*s), victims_cmp);
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (i + 1 == n || strcmp(s[i]->node, s[i + 1]->node) != 0)
			s[k++] = s[i];
	*n_out = k;
	return true;
}

bool sched_ext_encode_preemption(struct strbuf *sb, const struct api_pod *pod, const struct sched_ext_victims *v,
				 uint32_t n, bool node_cache_capable)
{
	const struct sched_ext_victims **m = NULL;
	bool ok = victims_as_map(v, n, &m, &n);
	ok = ok && strbuf_puts(sb, "{\"Pod\":") && put_pod(sb, pod);
	ok = ok && strbuf_puts(sb, node_cache_capable ? ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
						      : ",\"NodeNameToVictims\":{");
	for (uint32_t i = 0; ok && i < n; i++) {
		ok = (!i || strbuf_puts(sb, ",")) && put_str(sb, m[i]->node) && strbuf_puts(sb, ":{\"Pods\":[");
		for (uint32_t k = 0; ok && k < m[i]->n_pods; k++) {
			const struct api_pod *p = m[i]->pods[k];
			ok = !k || strbuf_puts(sb, ",");
			if (node_cache_capable)
				ok = ok && strbuf_puts(sb, "{\"UID\":") && put_str(sb, p->meta.uid ? p->meta.uid : "") &&
				     strbuf_puts(sb, "}");
			else
				ok = ok && put_pod(sb, p);
		}
		ok = ok && strbuf_addf(sb, "],\"NumPDBViolations\":%lld}", (long long)m[i]->num_pdb_violations);
	}
	free(m);
	return ok && strbuf_puts(sb, node_cache_capable ? "}}" : "},\"NodeNameToMetaVictims\":null}");
}

/* ---------- JSON decoding ---------- */

/* The deepest nesting in json[0..len) (strings skipped), stopping past max. */
static unsigned json_depth(const char *json, size_t len, unsigned max)
{
	unsigned d = 0, deepest = 0;
	bool in_str = false;
	for (size_t i = 0; i < len; i++) {
		char ch = json[i];
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
		} else if (ch == '"') {
			in_str = true;
		} else if (ch == '{' || ch == '[') {
			if (++d > deepest && (deepest = d) > max)
				break;
		} else if ((ch == '}' || ch == ']') && d) {
			d--;
		}
	}
	return deepest;
}

static yajl_val parse(const char *json, size_t len, const char *what, struct err *e)
{
	if (len > SCHED_EXT_MAX_RESPONSE) {
		err_set(e, ERR_INVALID, "decoding %s: response larger than %u bytes", what, SCHED_EXT_MAX_RESPONSE);
		return NULL;
	}
	if (json_depth(json, len, SCHED_EXT_MAX_DEPTH) > SCHED_EXT_MAX_DEPTH) {
		err_set(e, ERR_INVALID, "decoding %s: exceeded max depth of %d", what, SCHED_EXT_MAX_DEPTH);
		return NULL;
	}
	char *text = malloc(len + 1);
	if (!text) {
		err_set(e, ERR_NOMEM, "decoding %s: out of memory", what);
		return NULL;
	}
	memcpy(text, json, len);
	text[len] = '\0';
	char msg[256] = "";
	yajl_val v = yajl_tree_parse(text, msg, sizeof(msg));
	free(text);
	if (!v) {
		char *nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		err_set(e, ERR_INVALID, "decoding %s: invalid JSON: %s", what, msg[0] ? msg : "parse error");
	}
	return v;
}

/* Go's encoding/json field match: exact name first, else case-insensitive. */
static yajl_val field(yajl_val obj, const char *name)
{
	if (!YAJL_IS_OBJECT(obj))
		return NULL;
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (strcmp(obj->u.object.keys[i], name) == 0)
			return obj->u.object.values[i];
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (strcasecmp(obj->u.object.keys[i], name) == 0)
			return obj->u.object.values[i];
	return NULL;
}

static char *dup(sched_ext_alloc_fn alloc, void *ctx, const char *s)
{
	size_t n = strlen(s);
	char *d = alloc(ctx, n + 1);
	if (d)
		memcpy(d, s, n + 1);
	return d;
}

static int bad(struct err *e, const char *what, const char *field_name, const char *want)
{
	return err_set(e, ERR_INVALID, "decoding %s: json: cannot unmarshal %s into field %s", what, want, field_name);
}

/* A FailedNodesMap (object of strings) appended to out. */
static int failed_map(yajl_val m, bool unresolvable, const char *name, sched_ext_alloc_fn alloc, void *ctx,
		      struct fw_ext_failed *out, uint32_t *n, struct err *e)
{
	if (!m || YAJL_IS_NULL(m))
		return 0;
	if (!YAJL_IS_OBJECT(m))
		return bad(e, "filter result", name, "non-object");
	for (size_t i = 0; i < m->u.object.len; i++) {
		yajl_val v = m->u.object.values[i];
		if (!YAJL_IS_STRING(v))
			return bad(e, "filter result", name, "non-string");
		struct fw_ext_failed *f = &out[(*n)++];
		f->unresolvable = unresolvable;
		if (!(f->node = dup(alloc, ctx, m->u.object.keys[i])) || !(f->reason = dup(alloc, ctx, v->u.string)))
			return err_set(e, ERR_NOMEM, "decoding filter result: out of memory");
	}
	return 0;
}

static size_t obj_len(yajl_val m)
{
	return YAJL_IS_OBJECT(m) ? m->u.object.len : 0;
}

int sched_ext_decode_filter(const char *json, size_t len, bool node_cache_capable, sched_ext_alloc_fn alloc,
			    void *ctx, struct fw_ext_filter_result *out, struct err *e)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	yajl_val root = parse(json, len, "filter result", e);
	if (!root)
		return e->code ? e->code : ERR_INVALID;
	if (!YAJL_IS_OBJECT(root)) {
		rc = bad(e, "filter result", "ExtenderFilterResult", "non-object");
		goto out;
	}
	yajl_val error = field(root, "Error");
	if (error && YAJL_IS_STRING(error) && error->u.string[0]) {
		rc = err_set(e, ERR_INVALID, "%s", error->u.string);
		goto out;
	}
	yajl_val names = field(root, "NodeNames"), nodes = field(root, "Nodes");
	yajl_val failed = field(root, "FailedNodes"), unres = field(root, "FailedAndUnresolvableNodes");
	if (names && !YAJL_IS_NULL(names) && !YAJL_IS_ARRAY(names)) {
		rc = bad(e, "filter result", "ExtenderFilterResult.NodeNames", "non-array");
		goto out;
	}
	if (nodes && !YAJL_IS_NULL(nodes) && !YAJL_IS_OBJECT(nodes)) {
		rc = bad(e, "filter result", "ExtenderFilterResult.Nodes", "non-object");
		goto out;
	}
	if (node_cache_capable && YAJL_IS_ARRAY(names)) {
		size_t n = names->u.array.len;
		out->has_kept = true;
		if (!(out->kept = alloc(ctx, (n ? n : 1) * sizeof(*out->kept)))) {
			rc = err_set(e, ERR_NOMEM, "decoding filter result: out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			yajl_val s = names->u.array.values[i];
			if (!YAJL_IS_STRING(s)) {
				rc = bad(e, "filter result", "ExtenderFilterResult.NodeNames", "non-string");
				goto out;
			}
			if (!(out->kept[out->n_kept++] = dup(alloc, ctx, s->u.string))) {
				rc = err_set(e, ERR_NOMEM, "decoding filter result: out of memory");
				goto out;
			}
		}
	} else if (YAJL_IS_OBJECT(nodes)) {
		yajl_val items = field(nodes, "items");
		size_t n = YAJL_IS_ARRAY(items) ? items->u.array.len : 0;
		out->has_kept = true;
		if (!(out->kept = alloc(ctx, (n ? n : 1) * sizeof(*out->kept)))) {
			rc = err_set(e, ERR_NOMEM, "decoding filter result: out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			yajl_val name = field(field(items->u.array.values[i], "metadata"), "name");
			if (!(out->kept[out->n_kept++] = dup(alloc, ctx, YAJL_IS_STRING(name) ? name->u.string : ""))) {
				rc = err_set(e, ERR_NOMEM, "decoding filter result: out of memory");
				goto out;
			}
		}
	}
	size_t nf = obj_len(failed) + obj_len(unres);
	if (!(out->failed = alloc(ctx, (nf ? nf : 1) * sizeof(*out->failed)))) {
		rc = err_set(e, ERR_NOMEM, "decoding filter result: out of memory");
		goto out;
	}
	if ((rc = failed_map(unres, true, "ExtenderFilterResult.FailedAndUnresolvableNodes", alloc, ctx, out->failed,
			     &out->n_failed, e)))
		goto out;
	rc = failed_map(failed, false, "ExtenderFilterResult.FailedNodes", alloc, ctx, out->failed, &out->n_failed, e);
out:
	yajl_tree_free(root);
	return rc;
}

int sched_ext_decode_prioritize(const char *json, size_t len, sched_ext_alloc_fn alloc, void *ctx,
				struct fw_ext_prio_result *out, struct err *e)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	yajl_val root = parse(json, len, "prioritize result", e);
	if (!root)
		return e->code ? e->code : ERR_INVALID;
	if (YAJL_IS_NULL(root))
		goto out;
	if (!YAJL_IS_ARRAY(root)) {
		rc = bad(e, "prioritize result", "HostPriorityList", "non-array");
		goto out;
	}
	size_t n = root->u.array.len;
	if (!(out->scores = alloc(ctx, (n ? n : 1) * sizeof(*out->scores)))) {
		rc = err_set(e, ERR_NOMEM, "decoding prioritize result: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		yajl_val hp = root->u.array.values[i];
		yajl_val host = field(hp, "Host"), score = field(hp, "Score");
		struct fw_ext_score *s = &out->scores[out->n++];
		if (host && !YAJL_IS_NULL(host) && !YAJL_IS_STRING(host)) {
			rc = bad(e, "prioritize result", "HostPriority.Host", "non-string");
			goto out;
		}
		if (score && !YAJL_IS_NULL(score) && !YAJL_IS_INTEGER(score)) {
			rc = bad(e, "prioritize result", "HostPriority.Score", "non-int64");
			goto out;
		}
		if (!(s->host = dup(alloc, ctx, YAJL_IS_STRING(host) ? host->u.string : ""))) {
			rc = err_set(e, ERR_NOMEM, "decoding prioritize result: out of memory");
			goto out;
		}
		s->score = YAJL_IS_INTEGER(score) ? YAJL_GET_INTEGER(score) : 0;
	}
out:
	yajl_tree_free(root);
	return rc;
}

int sched_ext_decode_binding(const char *json, size_t len, struct err *e)
{
	yajl_val root = parse(json, len, "bind result", e);
	if (!root)
		return e->code ? e->code : ERR_INVALID;
	int rc = 0;
	yajl_val error = field(root, "Error");
	if (!YAJL_IS_OBJECT(root) && !YAJL_IS_NULL(root))
		rc = bad(e, "bind result", "ExtenderBindingResult", "non-object");
	else if (error && YAJL_IS_STRING(error) && error->u.string[0])
		rc = err_set(e, ERR_INVALID, "%s", error->u.string);
	yajl_tree_free(root);
	return rc;
}

int sched_ext_decode_preemption(const char *json, size_t len, sched_ext_alloc_fn alloc, void *ctx,
				struct sched_ext_victims **out, uint32_t *n, struct err *e)
{
	int rc = 0;
	*out = NULL;
	*n = 0;
	yajl_val root = parse(json, len, "preemption result", e);
	if (!root)
		return e->code ? e->code : ERR_INVALID;
	/* null decodes into the empty result (encoding/json leaves the struct as it is) */
	yajl_val m = field(root, "NodeNameToMetaVictims");
	if ((!YAJL_IS_OBJECT(root) && !YAJL_IS_NULL(root)) || (m && !YAJL_IS_NULL(m) && !YAJL_IS_OBJECT(m))) {
		rc = bad(e, "preemption result", "ExtenderPreemptionResult", "non-object");
		goto out;
	}
	size_t nn = obj_len(m);
	struct sched_ext_victims *v = alloc(ctx, (nn ? nn : 1) * sizeof(*v));
	if (!v) {
		rc = err_set(e, ERR_NOMEM, "decoding preemption result: out of memory");
		goto out;
	}
	for (size_t i = 0; i < nn; i++) {
		/* a null MetaVictims (a nil pointer upstream's convertToVictims would dereference) is read
		 * as no victims */
		yajl_val mv = m->u.object.values[i], pods = field(mv, "Pods"), pdb = field(mv, "NumPDBViolations");
		struct sched_ext_victims *x = &v[i];
		if ((!YAJL_IS_OBJECT(mv) && !YAJL_IS_NULL(mv)) || (pods && !YAJL_IS_NULL(pods) && !YAJL_IS_ARRAY(pods)) ||
		    (pdb && !YAJL_IS_NULL(pdb) && !YAJL_IS_INTEGER(pdb))) {
			rc = bad(e, "preemption result", "ExtenderPreemptionResult.NodeNameToMetaVictims", "mismatched type");
			goto out;
		}
		size_t np = YAJL_IS_ARRAY(pods) ? pods->u.array.len : 0;
		if (!(x->node = dup(alloc, ctx, m->u.object.keys[i])) || !(x->uids = alloc(ctx, (np ? np : 1) * sizeof(*x->uids)))) {
			rc = err_set(e, ERR_NOMEM, "decoding preemption result: out of memory");
			goto out;
		}
		for (size_t k = 0; k < np; k++) {
			yajl_val mp = pods->u.array.values[k], uid = field(mp, "UID");
			if ((!YAJL_IS_OBJECT(mp) && !YAJL_IS_NULL(mp)) || (uid && !YAJL_IS_NULL(uid) && !YAJL_IS_STRING(uid))) {
				rc = bad(e, "preemption result", "MetaVictims.Pods", "mismatched type");
				goto out;
			}
			if (!(x->uids[k] = dup(alloc, ctx, YAJL_IS_STRING(uid) ? uid->u.string : ""))) {
				rc = err_set(e, ERR_NOMEM, "decoding preemption result: out of memory");
				goto out;
			}
		}
		x->n_pods = (uint32_t)np;
		x->num_pdb_violations = YAJL_IS_INTEGER(pdb) ? YAJL_GET_INTEGER(pdb) : 0;
	}
	*out = v;
	*n = (uint32_t)nn;
out:
	yajl_tree_free(root);
	return rc;
}

/* Go's %q of a string yajl accepted (valid UTF-8): the quotes, \" and \\, control bytes escaped. */
static void go_quote(char *buf, size_t size, const char *s)
{
	size_t o = 0;
	buf[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 6 < size; p++) {
		static const char esc[] = "abtnvfr"; /* \a .. \r */
		if (*p == '"' || *p == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)*p;
		} else if (*p >= 7 && *p <= 13) {
			buf[o++] = '\\';
			buf[o++] = esc[*p - 7];
		} else if (*p < 0x20 || *p == 0x7f) {
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", *p);
		} else {
			buf[o++] = (char)*p;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

/* upstream Snapshot.Get as used by convertToVictims: the node named name (not interned: an
 * extender's string, which must not grow the intern table), or NULL; a node_info without its
 * node (pods assumed onto an unknown node) is not found either. */
static const struct node_info *node_by_name(const struct fw_node_list *l, const char *name)
{
	const char *in = intern_find(name);
	const struct node_info *ni = NULL;
	if (!in)
		return NULL;
	if (l->get) {
		ni = l->get(l->get_ctx, in);
	} else {
		for (uint32_t i = 0; !ni && i < l->n; i++)
			if (l->nodes[i]->name == in)
				ni = l->nodes[i];
	}
	return ni && ni->node ? ni : NULL;
}

int sched_ext_convert_victims(const char *url, const struct sched_ext_victims *v, uint32_t n,
			      const struct fw_node_list *nodes, sched_ext_alloc_fn alloc, void *ctx,
			      struct fw_preemption **out, uint32_t *n_out, struct err *e)
{
	const struct sched_ext_victims **m = NULL;
	struct fw_preemption *r = NULL;
	int rc = 0;
	*out = NULL;
	*n_out = 0;
	if (!victims_as_map(v, n, &m, &n) || !(r = alloc(ctx, (n ? n : 1) * sizeof(*r)))) {
		rc = err_set(e, ERR_NOMEM, "extender %s: out of memory", url);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct node_info *ni = node_by_name(nodes, m[i]->node);
		if (!ni) {
			char q[512];
			go_quote(q, sizeof(q), m[i]->node);
			rc = err_set(e, ERR_NOT_FOUND, "nodeinfo not found for node name %s", q);
			goto out;
		}
		struct api_pod **pods = alloc(ctx, (m[i]->n_pods ? m[i]->n_pods : 1) * sizeof(*pods));
		if (!pods) {
			rc = err_set(e, ERR_NOMEM, "extender %s: out of memory", url);
			goto out;
		}
		for (uint32_t k = 0; k < m[i]->n_pods; k++) {
			const char *uid = intern_find(m[i]->uids[k]);
			int32_t at = uid ? node_info_pod_index(ni, uid) : -1;
			if (at < 0) {
				/* %v of a *MetaPod is &{UID} */
				rc = err_set(e, ERR_NOT_FOUND,
					     "extender: %s claims to preempt pod (UID: &{%s}) on node: %s, but the pod is not "
					     "found on that node",
					     url, m[i]->uids[k], ni->node->meta.name);
				goto out;
			}
			pods[k] = ni->pods[at].pod;
		}
		r[i] = (struct fw_preemption){ .node_name = ni->name, .n_victims = m[i]->n_pods, .victims = pods,
					       .num_pdb_violations = m[i]->num_pdb_violations };
	}
	*out = r;
	*n_out = n;
out:
	free(m);
	return rc;
}

/* ---------- interest ---------- */

static bool has_managed(const char *const *managed, uint32_t n_managed, const struct api_resources *r)
{
	for (uint32_t i = 0; i < r->n_scalar; i++)
		for (uint32_t k = 0; k < n_managed; k++)
			if (r->scalar[i].name == managed[k])
				return true;
	return false;
}

bool sched_ext_interested(const char *const *managed, uint32_t n_managed, const struct api_pod *pod)
{
	if (!n_managed)
		return true;
	for (uint32_t i = 0; i < pod->n_containers; i++)
		if (has_managed(managed, n_managed, &pod->containers[i].requests) ||
		    has_managed(managed, n_managed, &pod->containers[i].limits))
			return true;
	for (uint32_t i = 0; i < pod->n_init_containers; i++)
		if (has_managed(managed, n_managed, &pod->init_containers[i].requests) ||
		    has_managed(managed, n_managed, &pod->init_containers[i].limits))
			return true;
	return false;
}

/* ---------- transport ---------- */

struct body {
	struct strbuf sb;
	bool too_big;
};

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
	struct body *b = ud;
	size_t n = size * nmemb;
	if (!strbuf_add_max(&b->sb, p, n, SCHED_EXT_MAX_RESPONSE)) {
		b->too_big = !b->sb.oom;
		return 0; /* aborts the transfer */
	}
	return n;
}

static CURL *handle_new(const struct sched_extender *x)
{
	const struct cfg_extender *c = x->cfg;
	const struct cfg_extender_tls *t = &c->tls;
	CURL *h = curl_easy_init();
	if (!h)
		return NULL;
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, x->timeout_ms);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	/* upstream makeTransport: HTTPS without a CA verifies nothing */
	bool has_ca = (t->ca_file && t->ca_file[0]) || t->ca_data_len;
	bool insecure = (c->has_tls && t->insecure) || (c->enable_https && !has_ca);
	if (insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (t->ca_data_len) {
		struct curl_blob b = { (void *)t->ca_data, t->ca_data_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &b);
	} else if (t->ca_file && t->ca_file[0]) {
		curl_easy_setopt(h, CURLOPT_CAINFO, t->ca_file);
	}
	if (t->cert_data_len) {
		struct curl_blob b = { (void *)t->cert_data, t->cert_data_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &b);
	} else if (t->cert_file && t->cert_file[0]) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, t->cert_file);
	}
	if (t->key_data_len) {
		struct curl_blob b = { (void *)t->key_data, t->key_data_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &b);
	} else if (t->key_file && t->key_file[0]) {
		curl_easy_setopt(h, CURLOPT_SSLKEY, t->key_file);
	}
	curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
	curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	return h;
}

static CURL *handle_get(struct sched_extender *x)
{
	CURL *h = NULL;
	pthread_mutex_lock(&x->lock);
	if (x->n_idle)
		h = x->idle[--x->n_idle];
	pthread_mutex_unlock(&x->lock);
	return h ? h : handle_new(x);
}

static void handle_put(struct sched_extender *x, CURL *h)
{
	pthread_mutex_lock(&x->lock);
	if (x->n_idle < POOL_MAX) {
		x->idle[x->n_idle++] = h;
		h = NULL;
	}
	pthread_mutex_unlock(&x->lock);
	if (h)
		curl_easy_cleanup(h);
}

/* upstream HTTPExtender.send: POST body to <urlPrefix>/<verb>; the response body into *resp on
 * HTTP 200, else an error naming the verb, URL and code as upstream's. */
static int send_verb(struct sched_extender *x, const char *verb, const char *body, size_t body_len, struct strbuf *resp,
		     struct err *e)
{
	char url[2048];
	snprintf(url, sizeof(url), "%s/%s", x->base, verb);
	int64_t t0 = mono_ns();
	CURL *h = handle_get(x);
	if (!h)
		return err_set(e, ERR_NOMEM, "extender %s: out of memory", x->cfg->url_prefix);
	struct body b = { STRBUF_INIT, false };
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	struct curl_slist *cto = x->connect_to ? curl_slist_append(NULL, x->connect_to) : NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	int rc = 0;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_CONNECT_TO, cto);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	CURLcode cc = hdr ? curl_easy_perform(h) : CURLE_OUT_OF_MEMORY;
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h, CURLOPT_CONNECT_TO, NULL);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, NULL);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, NULL);
	curl_slist_free_all(hdr);
	curl_slist_free_all(cto);
	if (b.too_big) {
		rc = err_set(e, ERR_INVALID, "extender %s: %s response larger than %u bytes", x->cfg->url_prefix, verb,
			     SCHED_EXT_MAX_RESPONSE);
	} else if (cc != CURLE_OK) {
		/* Go: Post "<url>": <transport error> */
		rc = err_set(e, cc == CURLE_OPERATION_TIMEDOUT ? ERR_TIMEOUT : ERR_IO, "Post \"%s\": %s", url,
			     errbuf[0] ? errbuf : curl_easy_strerror(cc));
	} else if (status != 200) {
		rc = err_set(e, ERR_IO, "failed %s with extender at URL %s, code %ld", verb, url, status);
	}
	/* a connection in an unknown state is not reused */
	if (cc == CURLE_OK || cc == CURLE_HTTP_RETURNED_ERROR)
		handle_put(x, h);
	else
		curl_easy_cleanup(h);
	if (rc == 0) {
		*resp = b.sb;
	} else {
		strbuf_release(&b.sb);
	}
	if (x->metrics)
		sched_metrics_extender_duration(x->metrics, x->cfg->url_prefix, verb, rc == 0,
						(double)(mono_ns() - t0) / 1e9);
	return rc;
}

/* ---------- the framework's calls ---------- */

static bool fw_interested(void *ctx, const struct api_pod *pod)
{
	const struct sched_extender *x = ctx;
	return sched_ext_interested(x->managed, x->n_managed, pod);
}

static void *cycle_alloc(void *ctx, size_t n)
{
	return fw_cycle_alloc(ctx, n);
}

/* Encodes the args, sends them to verb, and leaves the answer in resp. */
static int call(struct sched_extender *x, const char *verb, const struct api_pod *pod,
		const struct node_info *const *nodes, uint32_t n, struct strbuf *resp, struct err *e)
{
	struct strbuf req = STRBUF_INIT;
	int rc;
	if (!sched_ext_encode_args(&req, pod, nodes, n, x->cfg->node_cache_capable))
		rc = err_set(e, ERR_NOMEM, "extender %s: out of memory", x->cfg->url_prefix);
	else
		rc = send_verb(x, verb, req.data, req.len, resp, e);
	strbuf_release(&req);
	return rc;
}

static int fw_filter(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct node_info *const *nodes,
		     uint32_t n, struct fw_ext_filter_result *out, struct err *e)
{
	struct sched_extender *x = ctx;
	struct strbuf resp = STRBUF_INIT;
	int rc = call(x, x->cfg->filter_verb, pod, nodes, n, &resp, e);
	if (rc == 0)
		rc = sched_ext_decode_filter(resp.data ? resp.data : "", resp.len, x->cfg->node_cache_capable, cycle_alloc,
					     c, out, e);
	strbuf_release(&resp);
	return rc;
}

static int fw_prioritize(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct node_info *const *nodes,
			 uint32_t n, struct fw_ext_prio_result *out, struct err *e)
{
	struct sched_extender *x = ctx;
	struct strbuf resp = STRBUF_INIT;
	int rc = call(x, x->cfg->prioritize_verb, pod, nodes, n, &resp, e);
	if (rc == 0)
		rc = sched_ext_decode_prioritize(resp.data ? resp.data : "", resp.len, cycle_alloc, c, out, e);
	strbuf_release(&resp);
	return rc;
}

/* upstream ProcessPreemption: the candidates go as NodeNameToMetaVictims (UIDs) to a
 * nodeCacheCapable extender, else as NodeNameToVictims (whole pods); the answer's meta victims
 * become pods of nodes' node_infos (convertToVictims). */
static int fw_preempt(void *ctx, struct fw_cycle *c, const struct api_pod *pod, const struct fw_preemption *in,
		      uint32_t n_in, const struct fw_node_list *nodes, struct fw_preemption **out, uint32_t *n_out,
		      struct err *e)
{
	struct sched_extender *x = ctx;
	struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
	struct sched_ext_victims *v = malloc((n_in ? n_in : 1) * sizeof(*v)), *got = NULL;
	uint32_t n_got = 0;
	int rc;
	*out = NULL;
	*n_out = 0;
	for (uint32_t i = 0; v && i < n_in; i++)
		v[i] = (struct sched_ext_victims){ .node = in[i].node_name, .n_pods = in[i].n_victims,
						   .pods = (const struct api_pod *const *)in[i].victims,
						   .num_pdb_violations = in[i].num_pdb_violations };
	if (!v || !sched_ext_encode_preemption(&req, pod, v, n_in, x->cfg->node_cache_capable))
		rc = err_set(e, ERR_NOMEM, "extender %s: out of memory", x->cfg->url_prefix);
	else
		rc = send_verb(x, x->cfg->preempt_verb, req.data, req.len, &resp, e);
	if (rc == 0)
		rc = sched_ext_decode_preemption(resp.data ? resp.data : "", resp.len, cycle_alloc, c, &got, &n_got, e);
	if (rc == 0)
		rc = sched_ext_convert_victims(x->cfg->url_prefix, got, n_got, nodes, cycle_alloc, c, out, n_out, e);
	free(v);
	strbuf_release(&req);
	strbuf_release(&resp);
	return rc;
}

/* One prioritize call of sched_extenders_prioritize_all: the HTTP part runs on its own thread. */
struct prio_job {
	struct sched_extender *x;
	const struct strbuf *req;
	struct strbuf resp;
	struct err e;
	int rc;
	pthread_t t;
	bool threaded;
};

static void *prio_run(void *arg)
{
	struct prio_job *j = arg;
	j->rc = send_verb(j->x, j->x->cfg->prioritize_verb, j->req->data, j->req->len, &j->resp, &j->e);
	return NULL;
}

void sched_extenders_prioritize_all(void *ctx, struct fw_cycle *c, const struct api_pod *pod,
				    const struct node_info *const *nodes, uint32_t n, const struct fw_extender *const *xs,
				    uint32_t nx, struct fw_ext_prio_result *out, int *rcs, struct err *errs)
{
	(void)ctx;
	struct strbuf req[2] = { STRBUF_INIT, STRBUF_INIT }; /* [node_cache_capable] */
	bool built[2] = { false, false }, ok[2] = { false, false };
	struct prio_job *jobs = calloc(nx, sizeof(*jobs));
	for (uint32_t i = 0; jobs && i < nx; i++) {
		struct sched_extender *x = xs[i]->ctx;
		int k = x->cfg->node_cache_capable;
		if (!built[k]) {
			built[k] = true;
			ok[k] = sched_ext_encode_args(&req[k], pod, nodes, n, k);
		}
		jobs[i].x = x;
		jobs[i].req = &req[k];
		jobs[i].rc = ok[k] ? 0 : err_set(&jobs[i].e, ERR_NOMEM, "extender %s: out of memory", x->cfg->url_prefix);
	}
	/* the first call on this thread, the others on their own (each bounded by its httpTimeout) */
	for (uint32_t i = 1; jobs && i < nx; i++)
		if (jobs[i].rc == 0)
			jobs[i].threaded = pthread_create(&jobs[i].t, NULL, prio_run, &jobs[i]) == 0;
	for (uint32_t i = 0; jobs && i < nx; i++) {
		if (jobs[i].threaded)
			pthread_join(jobs[i].t, NULL);
		else if (jobs[i].rc == 0)
			prio_run(&jobs[i]);
	}
	for (uint32_t i = 0; i < nx; i++) {
		if (!jobs) {
			rcs[i] = err_set(&errs[i], ERR_NOMEM, "extenders: out of memory");
			continue;
		}
		rcs[i] = jobs[i].rc;
		if (rcs[i] == 0)
			rcs[i] = sched_ext_decode_prioritize(jobs[i].resp.data ? jobs[i].resp.data : "", jobs[i].resp.len,
							     cycle_alloc, c, &out[i], &errs[i]);
		else
			errs[i] = jobs[i].e;
		strbuf_release(&jobs[i].resp);
	}
	free(jobs);
	strbuf_release(&req[0]);
	strbuf_release(&req[1]);
}

int sched_extenders_bind(struct sched_extenders *xs, const struct api_pod *pod, const char *node, bool *bound,
			 struct err *e)
{
	*bound = false;
	for (uint32_t i = 0; xs && i < xs->n; i++) {
		struct sched_extender *x = &xs->x[i];
		if (!x->cfg->bind_verb[0] || !sched_ext_interested(x->managed, x->n_managed, pod))
			continue;
		struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
		struct err xe = { 0 };
		int rc;
		if (!sched_ext_encode_binding(&req, pod, node))
			rc = err_set(&xe, ERR_NOMEM, "extender %s: out of memory", x->cfg->url_prefix);
		else if ((rc = send_verb(x, x->cfg->bind_verb, req.data, req.len, &resp, &xe)) == 0)
			rc = sched_ext_decode_binding(resp.data ? resp.data : "", resp.len, &xe);
		strbuf_release(&req);
		strbuf_release(&resp);
		if (rc < 0 && x->cfg->ignorable) {
			LOG_INFO("Skipping extender in bind as it returned error and has ignorable flag set extender=%s err=%s",
				 x->cfg->url_prefix, xe.msg);
			continue;
		}
		*bound = true;
		if (rc < 0)
			*e = xe;
		return rc;
	}
	return 0;
}

/* ---------- construction ---------- */

/* tlsConfig.serverName: Go verifies the certificate for (and sends SNI of) serverName while
 * dialling the URL's host; curl does the same when the URL names serverName and the connection
 * is redirected to the real host (CURLOPT_CONNECT_TO). base becomes the rewritten URL. */
static int server_name(struct sched_extender *x, struct err *e, uint32_t i)
{
	const char *sn = x->cfg->tls.server_name;
	if (!x->cfg->has_tls || !sn || !sn[0])
		return 0;
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *url = NULL;
	int rc = 0;
	if (!u || curl_url_set(u, CURLUPART_URL, x->base, 0) || curl_url_get(u, CURLUPART_HOST, &host, 0) ||
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) || curl_url_set(u, CURLUPART_HOST, sn, 0) ||
	    curl_url_get(u, CURLUPART_URL, &url, 0)) {
		rc = err_set(e, ERR_INVALID, "extenders[%u].urlPrefix: Invalid value: \"%s\": not a URL", i, x->cfg->url_prefix);
		goto out;
	}
	size_t n = strlen(sn) + strlen(host) + 2 * strlen(port) + 4;
	x->connect_to = malloc(n);
	char *base = strdup(url);
	if (!x->connect_to || !base) {
		free(base);
		rc = err_set(e, ERR_NOMEM, "extenders[%u]: out of memory", i);
		goto out;
	}
	snprintf(x->connect_to, n, "%s:%s:%s:%s", sn, port, host, port);
	free(x->base);
	x->base = base;
	size_t bl = strlen(base);
	while (bl && base[bl - 1] == '/')
		base[--bl] = '\0';
out:
	curl_free(host);
	curl_free(port);
	curl_free(url);
	curl_url_cleanup(u);
	return rc;
}

struct sched_extenders *sched_extenders_new(const struct config *cfg, struct sched_metrics *metrics, struct err *e)
{
	struct sched_extenders *xs = calloc(1, sizeof(*xs));
	if (!xs || !(xs->x = calloc(cfg->n_extenders ? cfg->n_extenders : 1, sizeof(*xs->x))) ||
	    !(xs->fw = calloc(cfg->n_extenders ? cfg->n_extenders : 1, sizeof(*xs->fw)))) {
		err_set(e, ERR_NOMEM, "extenders: out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < cfg->n_extenders; i++) {
		const struct cfg_extender *c = &cfg->extenders[i];
		struct sched_extender *x = &xs->x[i];
		x->cfg = c;
		x->metrics = metrics;
		pthread_mutex_init(&x->lock, NULL);
		xs->n = i + 1;
		/* upstream send: strings.TrimRight(extenderURL, "/") + "/" + verb */
		if (!(x->base = strdup(c->url_prefix))) {
			err_set(e, ERR_NOMEM, "extenders: out of memory");
			goto fail;
		}
		size_t bl = strlen(x->base);
		while (bl && x->base[bl - 1] == '/')
			x->base[--bl] = '\0';
		if (server_name(x, e, i) < 0)
			goto fail;
		int64_t ns = c->http_timeout_ns > 0 ? c->http_timeout_ns : 5000000000LL; /* DefaultExtenderTimeout */
		x->timeout_ms = (long)((ns + 999999) / 1000000);
		x->n_managed = c->n_managed_resources;
		if (x->n_managed && !(x->managed = calloc(x->n_managed, sizeof(*x->managed)))) {
			err_set(e, ERR_NOMEM, "extenders: out of memory");
			goto fail;
		}
		for (uint32_t k = 0; k < x->n_managed; k++)
			x->managed[k] = intern_str(c->managed_resources[k].name);
		xs->fw[i] = (struct fw_extender){
			.name = c->url_prefix,
			.is_filter = c->filter_verb[0] != '\0',
			.is_prioritizer = c->prioritize_verb[0] != '\0',
			.is_binder = c->bind_verb[0] != '\0',
			.ignorable = c->ignorable,
			.weight = c->weight,
			.ctx = x,
			.is_interested = fw_interested,
			.filter = fw_filter,
			.prioritize = fw_prioritize,
			/* upstream SupportsPreemption: a preemptVerb */
			.preempt = c->preempt_verb[0] ? fw_preempt : NULL,
		};
	}
	return xs;
fail:
	sched_extenders_free(xs);
	return NULL;
}

void sched_extenders_free(struct sched_extenders *xs)
{
	if (!xs)
		return;
	for (uint32_t i = 0; i < xs->n; i++) {
		struct sched_extender *x = &xs->x[i];
		for (uint32_t k = 0; k < x->n_idle; k++)
			curl_easy_cleanup(x->idle[k]);
		pthread_mutex_destroy(&x->lock);
		free(x->base);
		free(x->connect_to);
		free(x->managed);
	}
	free(xs->x);
	free(xs->fw);
	free(xs);
}

const struct fw_extender *sched_extenders_fw(const struct sched_extenders *xs, uint32_t *n)
{
	*n = xs ? xs->n : 0;
	return xs ? xs->fw : NULL;
}

bool sched_extenders_need_node_json(const struct sched_extenders *xs)
{
	for (uint32_t i = 0; xs && i < xs->n; i++)
		if (!xs->x[i].cfg->node_cache_capable && (xs->x[i].cfg->filter_verb[0] || xs->x[i].cfg->prioritize_verb[0]))
			return true;
	return false;
}

bool sched_extenders_need_victim_json(const struct sched_extenders *xs)
{
	for (uint32_t i = 0; xs && i < xs->n; i++)
		if (!xs->x[i].cfg->node_cache_capable && xs->x[i].cfg->preempt_verb[0])
			return true;
	return false;
}
