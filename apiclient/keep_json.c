/* Objects kept as JSON for HTTP extenders (api_keep_json): upstream sends the extender the
 * informer's v1.Pod (and v1.Node objects) marshalled whole, so csched re-encodes the parsed tree,
 * which then must hold every field (json.c skips nothing while api__keep_json is set). The key
 * order and number texts are the apiserver's; Go's encoder would produce the same document for the
 * same object (both marshal the same struct). */
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "api_internal.h"
#include "common/arena.h"
#include "decode_internal.h"

bool api__keep_json, api__keep_node_json, api__keep_assigned_json;

void api_keep_json(bool pods, bool nodes)
{
	__atomic_store_n(&api__keep_json, pods || nodes, __ATOMIC_RELAXED);
	__atomic_store_n(&api__keep_node_json, nodes, __ATOMIC_RELAXED);
}

void api_keep_assigned_pod_json(bool on)
{
	__atomic_store_n(&api__keep_assigned_json, on, __ATOMIC_RELAXED);
}

int api__gen_value(yajl_gen g, const struct yajl_val_s *v)
{
	switch (v ? v->type : yajl_t_null) {
	case yajl_t_object:
		if (yajl_gen_map_open(g) != yajl_gen_status_ok)
			return -1;
		for (size_t i = 0; i < v->u.object.len; i++) {
			const char *k = v->u.object.keys[i];
			if (yajl_gen_string(g, (const unsigned char *)k, strlen(k)) != yajl_gen_status_ok ||
			    api__gen_value(g, v->u.object.values[i]) < 0)
				return -1;
		}
		return yajl_gen_map_close(g) == yajl_gen_status_ok ? 0 : -1;
	case yajl_t_array:
		if (yajl_gen_array_open(g) != yajl_gen_status_ok)
			return -1;
		for (size_t i = 0; i < v->u.array.len; i++)
			if (api__gen_value(g, v->u.array.values[i]) < 0)
				return -1;
		return yajl_gen_array_close(g) == yajl_gen_status_ok ? 0 : -1;
	case yajl_t_string:
		return yajl_gen_string(g, (const unsigned char *)v->u.string, strlen(v->u.string)) == yajl_gen_status_ok ? 0 : -1;
	case yajl_t_number:
		return yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r)) == yajl_gen_status_ok ? 0 : -1;
	case yajl_t_true:
	case yajl_t_false:
		return yajl_gen_bool(g, v->type == yajl_t_true) == yajl_gen_status_ok ? 0 : -1;
	default:
		return yajl_gen_null(g) == yajl_gen_status_ok ? 0 : -1;
	}
}

int api__dec_keep_json(struct dec *d, const struct yajl_val_s *obj, const char **out, size_t *len)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	size_t n;
	char *copy = NULL;
	if (g && api__gen_value(g, obj) == 0 && yajl_gen_get_buf(g, &buf, &n) == yajl_gen_status_ok &&
	    (copy = arena_alloc(d->a, n + 1))) {
		memcpy(copy, buf, n);
		copy[n] = '\0';
		*out = copy;
		*len = n;
	}
	if (g)
		yajl_gen_free(g);
	return copy ? 0 : api__dec_nomem(d);
}
