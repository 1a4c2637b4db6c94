/* The evaluator: a tree walk over the resolved AST with values by value, everything it
 * creates in the evaluation's arena. Semantics as cel-spec langdef.md and cel-go's interpreter:
 * errors are values that propagate, except through && and || (commutative, with absorption:
 * false && error is false, error || true is true) and the untaken branch of ?:. Numbers compare
 * and test equal across int, uint and double; int and uint arithmetic that overflows is an error
 * ("integer overflow", "unsigned integer overflow"), as is division or modulo by zero.
 *
 * Runtime cost, as cel-go's CostTracker counts it (interpreter/runtimecost.go): identifiers and
 * field selections 1, constants 0, a call 1 unless its overload counts otherwise (string
 * traversal ceil(0.1 * size), `in` on a list its size), list literals 10, map literals 30.
 * Comprehensions count what their expanded loop evaluates: the iteration variable(s) where
 * read, the accumulator and the loop condition and step calls (comp_init_cost,
 * comp_step_cost). A failed call still counts 1 (cel-go observes it), and a ternary's chosen
 * branch that is an identifier does not count that identifier (cel-go resolves it inside the
 * conditional). When the total exceeds the limit, evaluation stops with "operation cancelled:
 * actual cost limit exceeded" (no && or || absorbs it).
 *
 * Threads: a program and its environment are read-only here; each thread evaluates with its
 * own struct cel_eval (arena, locals, cost). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"
#include "time_internal.h"

bool cel_eval_spec_semantics(const struct cel_eval *ev) { return ev->env && ev->env->opts.spec_semantics; }

static cel_value eval(struct cel_eval *ev, const struct cel_node *n);

#define IS_ERR(v) ((v).kind == CEL_ERROR)

static cel_value err_v(struct cel_eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cel_value err_v(struct cel_eval *ev, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cel_value v;
	cel_error(ev, &v, "%s", buf);
	return v;
}

static cel_value no_overload(struct cel_eval *ev, const char *op, const cel_value *args, size_t n)
{
	cel_value v;
	cel_error_no_overload(ev, &v, op, args, n);
	return v;
}

static cel_value cancelled(struct cel_eval *ev)
{
	ev->cancelled = true;
	cel_value v = { .kind = CEL_ERROR };
	v.s = ev->mem_exceeded ? "operation cancelled: evaluation memory limit exceeded"
			       : "operation cancelled: actual cost limit exceeded";
	return v;
}

static inline bool cost(struct cel_eval *ev, uint64_t c)
{
	ev->cost += c;
	return ev->limit && ev->cost > ev->limit;
}

/* cel-go actualSize: strings in code points, bytes, lists and maps by size, else 1. */
static uint64_t value_size(cel_value v)
{
	switch (v.kind) {
	case CEL_STRING: return cel_utf8_count(v.s, v.n);
	case CEL_BYTES: return v.n;
	case CEL_LIST: return v.list->n;
	case CEL_MAP: return v.map->n;
	}
	return 1;
}

static uint64_t ceil10(uint64_t n) { return (n + 9) / 10; }

/* ceil(0.1 * min(size(a), size(b))): cel-go's cost of ==, != and string/bytes ordering. Sizes
 * count code points; when either side has at most 10 bytes the answer is 0 or 1 without
 * counting (a selector's short strings never walk their bytes twice). */
static uint64_t min_size_cost(cel_value a, cel_value b)
{
	if ((a.kind == CEL_STRING || a.kind == CEL_BYTES) && (b.kind == CEL_STRING || b.kind == CEL_BYTES) &&
	    (a.n <= 10 || b.n <= 10))
		return a.n && b.n;
	uint64_t sa = value_size(a), sb = value_size(b);
	return ceil10(sa < sb ? sa : sb);
}

/* ---- arithmetic ---- */

static cel_value add(struct cel_eval *ev, cel_value a, cel_value b)
{
	if (a.kind == b.kind) {
		switch (a.kind) {
		case CEL_INT: {
			int64_t r;
			if (__builtin_add_overflow(a.i, b.i, &r))
				return err_v(ev, "integer overflow");
			return cel_int(r);
		}
		case CEL_UINT: {
			uint64_t r;
			if (__builtin_add_overflow(a.u, b.u, &r))
				return err_v(ev, "unsigned integer overflow");
			return cel_uint(r);
		}
		case CEL_DOUBLE:
			return cel_double(a.d + b.d);
		case CEL_STRING:
		case CEL_BYTES: {
			if (cost(ev, ceil10(value_size(a) + value_size(b)) - 1))
				return cancelled(ev);
			if ((uint64_t)a.n + b.n > UINT32_MAX)
				return err_v(ev, "string too long");
			char *p = cel_alloc(ev, (size_t)a.n + b.n + 1);
			if (!p)
				return err_v(ev, "out of memory");
			if (a.n)
				memcpy(p, a.s, a.n);
			if (b.n)
				memcpy(p + a.n, b.s, b.n);
			cel_value r = a;
			r.s = p;
			r.n = a.n + b.n;
			return r;
		}
		case CEL_LIST: {
			if (a.list->n == 0)
				return b;
			if (b.list->n == 0)
				return a;
			struct cel_list *l = cel_new_list(ev, (size_t)a.list->n + b.list->n);
			if (!l)
				return err_v(ev, "out of memory");
			memcpy(l->items, a.list->items, a.list->n * sizeof(cel_value));
			memcpy(l->items + a.list->n, b.list->items, b.list->n * sizeof(cel_value));
			return cel_list_value(l);
		}
		case CEL_DURATION: {
			int64_t r;
			if (__builtin_add_overflow(a.i, b.i, &r))
				return err_v(ev, "integer overflow");
			return cel_duration(r);
		}
		}
	}
	if ((a.kind == CEL_TIMESTAMP && b.kind == CEL_DURATION) || (a.kind == CEL_DURATION && b.kind == CEL_TIMESTAMP)) {
		cel_value t = a.kind == CEL_TIMESTAMP ? a : b, d = a.kind == CEL_TIMESTAMP ? b : a;
		int64_t sec = t.i + d.i / 1000000000;
		int64_t ns = (int64_t)t.n + d.i % 1000000000;
		if (ns < 0) {
			ns += 1000000000;
			sec--;
		} else if (ns >= 1000000000) {
			ns -= 1000000000;
			sec++;
		}
		if (!cel_ts_in_range(sec))
			return err_v(ev, "timestamp overflow");
		return cel_timestamp(sec, (uint32_t)ns);
	}
	cel_value args[2] = { a, b };
	return no_overload(ev, "_+_", args, 2);
}

static cel_value sub(struct cel_eval *ev, cel_value a, cel_value b)
{
	if (a.kind == b.kind) {
		switch (a.kind) {
		case CEL_INT: {
			int64_t r;
			if (__builtin_sub_overflow(a.i, b.i, &r))
				return err_v(ev, "integer overflow");
			return cel_int(r);
		}
		case CEL_UINT: {
			uint64_t r;
			if (__builtin_sub_overflow(a.u, b.u, &r))
				return err_v(ev, "unsigned integer overflow");
			return cel_uint(r);
		}
		case CEL_DOUBLE:
			return cel_double(a.d - b.d);
		case CEL_DURATION: {
			int64_t r;
			if (__builtin_sub_overflow(a.i, b.i, &r))
				return err_v(ev, "integer overflow");
			return cel_duration(r);
		}
		case CEL_TIMESTAMP: {
			/* seconds difference fits easily; nanos may overflow int64 */
			int64_t ds = a.i - b.i, dn = (int64_t)a.n - (int64_t)b.n, r;
			if (__builtin_mul_overflow(ds, (int64_t)1000000000, &r) || __builtin_add_overflow(r, dn, &r))
				return err_v(ev, "integer overflow");
			return cel_duration(r);
		}
		}
	}
	if (a.kind == CEL_TIMESTAMP && b.kind == CEL_DURATION) {
		if (b.i == INT64_MIN)
			return err_v(ev, "integer overflow");
		cel_value nb = cel_duration(-b.i);
		return add(ev, a, nb);
	}
	cel_value args[2] = { a, b };
	return no_overload(ev, "_-_", args, 2);
}

static cel_value mul(struct cel_eval *ev, cel_value a, cel_value b)
{
	if (a.kind == b.kind) {
		switch (a.kind) {
		case CEL_INT: {
			int64_t r;
			if (__builtin_mul_overflow(a.i, b.i, &r))
				return err_v(ev, "integer overflow");
			return cel_int(r);
		}
		case CEL_UINT: {
			uint64_t r;
			if (__builtin_mul_overflow(a.u, b.u, &r))
				return err_v(ev, "unsigned integer overflow");
			return cel_uint(r);
		}
		case CEL_DOUBLE:
			return cel_double(a.d * b.d);
		}
	}
	cel_value args[2] = { a, b };
	return no_overload(ev, "_*_", args, 2);
}

static cel_value divide(struct cel_eval *ev, cel_value a, cel_value b, bool mod)
{
	if (a.kind == b.kind) {
		switch (a.kind) {
		case CEL_INT:
			if (b.i == 0)
				return err_v(ev, mod ? "modulus by zero" : "division by zero");
			if (a.i == INT64_MIN && b.i == -1)
				return err_v(ev, "integer overflow");
			return cel_int(mod ? a.i % b.i : a.i / b.i);
		case CEL_UINT:
			if (b.u == 0)
				return err_v(ev, mod ? "modulus by zero" : "division by zero");
			return cel_uint(mod ? a.u % b.u : a.u / b.u);
		case CEL_DOUBLE:
			if (!mod)
				return cel_double(a.d / b.d);
			break;
		}
	}
	cel_value args[2] = { a, b };
	return no_overload(ev, mod ? "_%_" : "_/_", args, 2);
}

/* ---- access ---- */

/* An index into a list: int, uint or an integral double (heterogeneous index). */
static bool list_index(cel_value k, int64_t *i)
{
	switch (k.kind) {
	case CEL_INT: *i = k.i; return true;
	case CEL_UINT: *i = k.u > INT64_MAX ? -1 : (int64_t)k.u; return true;
	case CEL_DOUBLE:
		if (k.d != trunc(k.d) || !(k.d >= -9223372036854775808.0 && k.d < 9223372036854775808.0))
			return false;
		*i = (int64_t)k.d;
		return true;
	}
	return false;
}

static cel_value key_error(struct cel_eval *ev, cel_value k)
{
	char buf[256];
	if (k.kind == CEL_STRING)
		return err_v(ev, "no such key: %.*s", (int)(k.n < 200 ? k.n : 200), k.s);
	cel_value_format(k, buf, sizeof(buf));
	return err_v(ev, "no such key: %s", buf);
}

/* c[k]; *found = false (and no error) for an absent key or index when opt. */
static cel_value index_value(struct cel_eval *ev, cel_value c, cel_value k, bool opt, bool *found)
{
	*found = true;
	if (c.kind == CEL_LIST) {
		int64_t i;
		if (!list_index(k, &i)) {
			cel_value args[2] = { c, k };
			return no_overload(ev, "_[_]", args, 2);
		}
		if (i < 0 || i >= c.list->n) {
			if (opt) {
				*found = false;
				return cel_null();
			}
			return err_v(ev, "index out of bounds: %" PRId64, i);
		}
		return c.list->items[i];
	}
	if (c.kind == CEL_MAP) {
		if (k.kind != CEL_BOOL && k.kind != CEL_INT && k.kind != CEL_UINT && k.kind != CEL_STRING &&
		    k.kind != CEL_DOUBLE) {
			cel_value args[2] = { c, k };
			return no_overload(ev, "_[_]", args, 2);
		}
		cel_value v;
		if (cel_map_find(c.map, k, &v))
			return v;
		if (c.map->has_dflt)
			return c.map->dflt;
		if (opt) {
			*found = false;
			return cel_null();
		}
		return key_error(ev, k);
	}
	cel_value args[2] = { c, k };
	return no_overload(ev, "_[_]", args, 2);
}

static cel_value make_opt(struct cel_eval *ev, const cel_value *v)
{
	cel_value o;
	if (cel_new_optional(ev, v, &o) != 0)
		return err_v(ev, "out of memory");
	return o;
}

/* Selection or index on an optional (optional chaining): none stays none; of(x) selects in x
 * and wraps the result, an absent key giving none. */
static cel_value opt_access(struct cel_eval *ev, cel_value o, cel_value k)
{
	if (!o.opt)
		return o;
	bool found;
	cel_value r = index_value(ev, *o.opt, k, true, &found);
	if (IS_ERR(r))
		return r;
	return make_opt(ev, found ? &r : NULL);
}

static cel_value select_field(struct cel_eval *ev, const struct cel_node *n, cel_value t)
{
	cel_value k = cel_string(n->name, n->name_len);
	if (t.kind == CEL_OPTIONAL) {
		if (t.opt && t.opt->kind != CEL_MAP)
			return key_error(ev, k);
		return opt_access(ev, t, k);
	}
	if (t.kind == CEL_MAP) {
		cel_value v;
		if (cel_map_find(t.map, k, &v) || (t.map->has_dflt && (v = t.map->dflt, true)))
			return (n->flags & CEL_NF_OPT) ? make_opt(ev, &v) : v;
		if (n->flags & CEL_NF_OPT)
			return make_opt(ev, NULL);
		return key_error(ev, k);
	}
	if (IS_ERR(t))
		return t;
	/* cel-go refQualify on a value without fields: an optional selection finds nothing, a
	 * plain one is a missing key */
	if (n->flags & CEL_NF_OPT)
		return make_opt(ev, NULL);
	return key_error(ev, k);
}

static cel_value has_field(struct cel_eval *ev, const struct cel_node *n, cel_value t)
{
	if (IS_ERR(t))
		return t;
	cel_value k = cel_string(n->name, n->name_len);
	if (t.kind == CEL_OPTIONAL) {
		if (!t.opt)
			return cel_bool(false);
		t = *t.opt;
	}
	if (t.kind == CEL_MAP)
		return cel_bool(t.map->has_dflt || cel_map_find(t.map, k, NULL));
	return err_v(ev, "invalid type for field selection.");
}

/* ---- calls ---- */

static bool arg_fits(const struct cel_arg *a, cel_value v)
{
	if (a->kind == CEL_ANY)
		return true;
	if (a->kind != v.kind)
		return false;
	return a->kind != CEL_OBJECT || !a->obj || a->obj == v.obj->type;
}

static cel_value call(struct cel_eval *ev, const struct cel_node *n)
{
	cel_value argv_small[8];
	cel_value *args = argv_small;
	if (n->nargs > 8) {
		args = cel_alloc(ev, n->nargs * sizeof(cel_value));
		if (!args)
			return err_v(ev, "out of memory");
	}
	const struct cel_fn_entry *f = n->fn;
	bool recv = n->flags & CEL_NF_RECV;
	/* non-strict overloads (CEL_OV_ERRORS) see errors; others get the first error */
	bool nonstrict = n->ov && (n->ov->flags & CEL_OV_ERRORS);
	/* cel-go's evalUnary/evalBinary evaluate both arguments before looking for an error, and
	 * the failed call still counts its cost (1); evalVarArgs stops at the first error. */
	int first_err = -1;
	for (uint16_t i = 0; i < n->nargs; i++) {
		args[i] = eval(ev, n->args[i]);
		if (ev->cancelled)
			return args[i];
		if (IS_ERR(args[i]) && !nonstrict && first_err < 0) {
			first_err = i;
			if (n->nargs > 2)
				return args[i];
		}
	}
	if (first_err >= 0)
		return cost(ev, 1) ? cancelled(ev) : args[first_err];
	const struct cel_overload *o = n->ov;
	for (uint16_t i = 0; o && i < n->nargs; i++)
		if (!arg_fits(&o->args[i], args[i]) && !((o->flags & CEL_OV_ERRORS) && IS_ERR(args[i])))
			o = NULL;
	if (!o) {
		/* the overload whose arguments fit most specifically: a library's string(net.IP)
		 * wins over std's string(dyn) */
		int best = -1;
		for (size_t j = 0; j < f->n; j++) {
			const struct cel_overload *c = f->ovs[j];
			if (c->nargs != n->nargs || !(c->flags & (recv ? CEL_OV_RECEIVER : CEL_OV_GLOBAL)))
				continue;
			bool ok = true;
			int exact = 0;
			for (uint16_t i = 0; i < n->nargs && ok; i++) {
				ok = arg_fits(&c->args[i], args[i]);
				exact += c->args[i].kind != CEL_ANY;
			}
			if (ok && exact > best) {
				o = c;
				best = exact;
			}
		}
	}
	if (!o) {
		for (uint16_t i = 0; i < n->nargs; i++)
			if (IS_ERR(args[i]))
				return args[i];
		if (cost(ev, 1))
			return cancelled(ev);
		return no_overload(ev, n->name, args, n->nargs);
	}
	cel_value out = cel_null();
	ev->call_data = n->data;
	int rc = o->fn(ev, args, n->nargs, &out);
	ev->call_data = NULL;
	if (ev->cancelled)
		return cancelled(ev);
	if (rc != 0 || ev->oom) {
		ev->oom = true;
		return err_v(ev, "out of memory");
	}
	if (cost(ev, o->cost ? o->cost(args, n->nargs, &out) : 1))
		return cancelled(ev);
	return out;
}

/* ---- comprehensions ---- */

static inline void set_local(struct cel_eval *ev, int slot, cel_value v) { ev->locals[slot] = v; }

/* The cost of the macro's expanded loop beyond what its predicate and transform evaluate
 * (cel-go parser/macro.go and ext/comprehensions.go expansions, counted as runtimecost.go
 * does; checked against cel-go's runtimecost_test.go "all comprehension on literal" and, with
 * OptOptimize, against upstream's DRA code on the same expressions, tests/bench/cel_go):
 *   all:    cond @not_strictly_false(accu) 2 + step accu 1 per iteration, the result 1, and
 *           the cond that stops the loop early 2;
 *   exists: cond @not_strictly_false(!accu) 3 + step accu 1, result 1, early stop 3;
 *   exists_one: step `p ? accu + 1 : accu`: 2 when p, else 0 (a ternary's chosen bare
 *           identifier costs nothing, see CEL_N_COND); result `accu == 1` 2;
 *   map/filter/transformList: init [] 10 (0 when optimized: a constant literal); step
 *           `accu + [e]` 12 (13 for filter's [x]) when taken, else 0; result 1;
 *   transformMap: init {} 30 (0 optimized); step @mapInsert(accu, k, v) 3 when taken, else 0;
 *   transformMapEntry: the same with @mapInsert(accu, entry) 2. */
static uint64_t comp_init_cost(const struct cel_comp *c, bool optimize)
{
	switch (c->macro) {
	case CEL_M_ALL: case CEL_M_EXISTS: return 1;
	case CEL_M_EXISTS_ONE: return 2;
	case CEL_M_TRANSFORM_MAP: case CEL_M_TRANSFORM_MAP_ENTRY: return optimize ? 1 : 31;
	default: return optimize ? 1 : 11;
	}
}

static uint64_t comp_step_cost(const struct cel_comp *c, bool taken)
{
	switch (c->macro) {
	case CEL_M_ALL: return 3;
	case CEL_M_EXISTS: return 4;
	case CEL_M_EXISTS_ONE: return taken ? 2 : 0;
	case CEL_M_FILTER: return taken ? 13 : 0;
	case CEL_M_TRANSFORM_MAP: return taken ? 3 : 0;
	case CEL_M_TRANSFORM_MAP_ENTRY: return taken ? 2 : 0;
	default: return taken ? 12 : 0;
	}
}

/* An identifier with plain selections and constant indexes on it (a cel-go attribute). */
static bool attribute_root(const struct cel_node *n)
{
	while (n->kind == CEL_N_SELECT || (n->kind == CEL_N_INDEX && n->args[1]->kind == CEL_N_CONST)) {
		if (n->flags & CEL_NF_OPT)
			return false;
		n = n->args[0];
	}
	return n->kind == CEL_N_VAR || n->kind == CEL_N_LOCAL;
}

static cel_value comprehension(struct cel_eval *ev, const struct cel_node *n)
{
	const struct cel_comp *c = n->comp;
	cel_value range = eval(ev, c->range);
	if (IS_ERR(range))
		return range;
	if (range.kind != CEL_LIST && range.kind != CEL_MAP) {
		/* cel-go interpretable.go evalFold: "got '%T', expected iterable type", %T being the
		 * Go type of the value (types.Int, ...; Kubernetes' library types are cel.Semver,
		 * cel.Quantity, ...) */
		static const char *const go_types[CEL_KIND_COUNT] = {
			[CEL_NULL] = "types.Null", [CEL_BOOL] = "types.Bool", [CEL_INT] = "types.Int",
			[CEL_UINT] = "types.Uint", [CEL_DOUBLE] = "types.Double", [CEL_STRING] = "types.String",
			[CEL_BYTES] = "types.Bytes", [CEL_TYPE] = "*types.Type", [CEL_TIMESTAMP] = "types.Timestamp",
			[CEL_DURATION] = "types.Duration", [CEL_OPTIONAL] = "*types.Optional",
		};
		if (range.kind == CEL_OBJECT) {
			const char *tn = range.obj->type->type.name, *dot = strrchr(tn, '.');
			return err_v(ev, "got 'cel.%s', expected iterable type", dot ? dot + 1 : tn);
		}
		return err_v(ev, "got '%s', expected iterable type", go_types[range.kind] ? go_types[range.kind] : "?");
	}
	bool is_map = range.kind == CEL_MAP;
	uint32_t count = is_map ? range.map->n : range.list->n;
	if (cost(ev, comp_init_cost(c, ev->env->opts.optimize)))
		return cancelled(ev);
	bool two = c->v2 != NULL;
	cel_value err = { .kind = CEL_NULL };
	bool have_err = false;
	int64_t ones = 0;
	struct cel_list *out_list = NULL;
	struct cel_map *out_map = NULL;
	uint32_t out_n = 0;
	if (c->macro == CEL_M_MAP || c->macro == CEL_M_FILTER || c->macro == CEL_M_TRANSFORM_LIST) {
		out_list = cel_new_list(ev, count);
		if (!out_list)
			return err_v(ev, "out of memory");
	} else if (c->macro == CEL_M_TRANSFORM_MAP || c->macro == CEL_M_TRANSFORM_MAP_ENTRY) {
		out_map = cel_new_map(ev, count);
		if (!out_map)
			return err_v(ev, "out of memory");
	}
	for (uint32_t i = 0; i < count; i++) {
		cel_value k = is_map ? range.map->keys[i] : range.list->items[i];
		if (two) {
			if (is_map) {
				set_local(ev, c->s1, k);
				set_local(ev, c->s2, range.map->vals[i]);
			} else {
				set_local(ev, c->s1, cel_int(i));
				set_local(ev, c->s2, k);
			}
		} else {
			set_local(ev, c->s1, k);
		}
		cel_value p = cel_bool(true);
		if (c->pred) {
			p = eval(ev, c->pred);
			if (ev->cancelled)
				return p;
		}
		if (cost(ev, comp_step_cost(c, p.kind == CEL_BOOL && p.b)))
			return cancelled(ev);
		bool last = i + 1 == count;
		switch (c->macro) {
		case CEL_M_ALL:
			if (p.kind == CEL_BOOL) {
				if (!p.b)
					return cost(ev, last ? 0 : 2) ? cancelled(ev) : cel_bool(false);
			} else if (!have_err) {
				have_err = true;
				err = IS_ERR(p) ? p : no_overload(ev, "_&&_", &p, 1);
			}
			break;
		case CEL_M_EXISTS:
			if (p.kind == CEL_BOOL) {
				if (p.b)
					return cost(ev, last ? 0 : 3) ? cancelled(ev) : cel_bool(true);
			} else if (!have_err) {
				have_err = true;
				err = IS_ERR(p) ? p : no_overload(ev, "_||_", &p, 1);
			}
			break;
		case CEL_M_EXISTS_ONE:
			if (p.kind != CEL_BOOL)
				return IS_ERR(p) ? p : no_overload(ev, "_?_:_", &p, 1);
			ones += p.b;
			break;
		default: {
			if (p.kind != CEL_BOOL)
				return IS_ERR(p) ? p : no_overload(ev, "_?_:_", &p, 1);
			if (!p.b)
				break;
			if (c->macro == CEL_M_FILTER) {
				out_list->items[out_n++] = k;
				break;
			}
			cel_value v = eval(ev, c->expr);
			if (IS_ERR(v))
				return v;
			if (out_list) {
				out_list->items[out_n++] = v;
			} else if (c->macro == CEL_M_TRANSFORM_MAP) {
				cel_value key = is_map ? k : cel_int(i);
					/* over a list, the keys are the indices (cel-go ext/comprehensions.go) */
				if (cel_map_add(ev, out_map, key, v) != 0)
					return err_v(ev, "unsupported key type");
			} else {
				/* transformMapEntry: the expression yields a one-entry map */
				if (v.kind != CEL_MAP || v.map->n != 1)
					return err_v(ev, "transformMapEntry: expected a map with a single entry, got %s",
						     cel_value_type_name(v));
				if (cel_map_find(out_map, v.map->keys[0], NULL)) {
					char kb[128];
					cel_value_format(v.map->keys[0], kb, sizeof(kb));
					return err_v(ev, "insert failed: key %s already exists", kb);
				}
				if (cel_map_add(ev, out_map, v.map->keys[0], v.map->vals[0]) != 0)
					return err_v(ev, "unsupported key type");
			}
		}
		}
	}
	switch (c->macro) {
	case CEL_M_ALL:
		return have_err ? err : cel_bool(true);
	case CEL_M_EXISTS:
		return have_err ? err : cel_bool(false);
	case CEL_M_EXISTS_ONE:
		return cel_bool(ones == 1);
	default:
		if (out_list) {
			out_list->n = out_n;
			return cel_list_value(out_list);
		}
		return cel_map_value(out_map);
	}
}

/* ---- the walk ---- */

static cel_value logic(struct cel_eval *ev, const struct cel_node *n, bool is_and)
{
	cel_value l = eval(ev, n->args[0]);
	if (ev->cancelled)
		return l;
	if (l.kind == CEL_BOOL && l.b != is_and)
		return l; /* false && _, true || _ */
	cel_value r = eval(ev, n->args[1]);
	if (ev->cancelled)
		return r;
	if (r.kind == CEL_BOOL && r.b != is_and)
		return r;
	if (l.kind == CEL_BOOL && r.kind == CEL_BOOL)
		return l;
	if (IS_ERR(l))
		return l;
	if (IS_ERR(r))
		return r;
	cel_value args[2] = { l, r };
	return no_overload(ev, is_and ? "_&&_" : "_||_", args, 2);
}

static cel_value compare(struct cel_eval *ev, const struct cel_node *n, cel_value a, cel_value b)
{
	int c;
	static const char *const ops[] = { "_<_", "_<=_", "_>_", "_>=_" };
	if (cost(ev, (a.kind == CEL_STRING || a.kind == CEL_BYTES) && a.kind == b.kind ? min_size_cost(a, b) : 1))
		return cancelled(ev);
	if (cel_value_compare(a, b, &c) != 0) {
		cel_value args[2] = { a, b };
		return no_overload(ev, ops[n->kind - CEL_N_LT], args, 2);
	}
	if (c == 2)
		return err_v(ev, "NaN values cannot be ordered"); /* cel-go Double.Compare */
	switch (n->kind) {
	case CEL_N_LT: return cel_bool(c < 0);
	case CEL_N_LE: return cel_bool(c <= 0);
	case CEL_N_GT: return cel_bool(c > 0);
	default: return cel_bool(c >= 0);
	}
}

static cel_value in(struct cel_eval *ev, cel_value a, cel_value b, bool free_)
{
	if (b.kind == CEL_LIST) {
		if (!free_ && cost(ev, b.list->n))
			return cancelled(ev);
		for (uint32_t i = 0; i < b.list->n; i++)
			if (cel_value_equal(a, b.list->items[i]))
				return cel_bool(true);
		return cel_bool(false);
	}
	if (b.kind == CEL_MAP) {
		if (cost(ev, 1))
			return cancelled(ev);
		return cel_bool(cel_map_find(b.map, a, NULL));
	}
	if (cost(ev, 1))
		return cancelled(ev);
	cel_value args[2] = { a, b };
	return no_overload(ev, "@in", args, 2);
}

static cel_value list_lit(struct cel_eval *ev, const struct cel_node *n)
{
	if (cost(ev, 10))
		return cancelled(ev);
	struct cel_list *l = cel_new_list(ev, n->nargs);
	if (!l)
		return err_v(ev, "out of memory");
	uint32_t k = 0;
	for (uint16_t i = 0; i < n->nargs; i++) {
		cel_value v = eval(ev, n->args[i]);
		if (IS_ERR(v))
			return v;
		if (n->optmask && (n->optmask[i / 64] >> (i % 64) & 1)) {
			if (v.kind != CEL_OPTIONAL) {
				char b[128];
				cel_value_format(v, b, sizeof(b));
				return err_v(ev, "cannot initialize optional list element from non-optional value %s", b);
			}
			if (!v.opt)
				continue;
			v = *v.opt;
		}
		l->items[k++] = v;
	}
	l->n = k;
	return cel_list_value(l);
}

static cel_value map_lit(struct cel_eval *ev, const struct cel_node *n)
{
	if (cost(ev, 30))
		return cancelled(ev);
	struct cel_map *m = cel_new_map(ev, n->nargs / 2);
	if (!m)
		return err_v(ev, "out of memory");
	for (uint16_t i = 0; i + 1 < n->nargs; i += 2) {
		cel_value k = eval(ev, n->args[i]);
		if (IS_ERR(k))
			return k;
		cel_value v = eval(ev, n->args[i + 1]);
		if (IS_ERR(v))
			return v;
		if (k.kind != CEL_BOOL && k.kind != CEL_INT && k.kind != CEL_UINT && k.kind != CEL_STRING)
			return err_v(ev, "unsupported key type: %s", cel_value_type_name(k));
		if (n->optmask && (n->optmask[i / 64] >> (i % 64) & 1)) {
			if (v.kind != CEL_OPTIONAL) {
				char b[128];
				cel_value_format(k, b, sizeof(b));
				return err_v(ev, "cannot initialize optional entry '%s' from non-optional value", b);
			}
			if (!v.opt)
				continue;
			v = *v.opt;
		}
		if (cel_map_find(m, k, NULL)) {
			char b[128];
			cel_value_format(k, b, sizeof(b));
			return err_v(ev, "Failed with repeated key: %s", b);
		}
		if (cel_map_add(ev, m, k, v) != 0)
			return err_v(ev, "unsupported key type: %s", cel_value_type_name(k));
	}
	return cel_map_value(m);
}

/* 1 when a select or index n is the first of a chain on something that is not a variable
 * (`[1, 2][0]`, `{'a': 1}.a`, `f(x)[0]`): cel-go plans the chain as a relative attribute, which
 * costs 1 itself besides its qualifiers (apiserver v0.37.2's base environment: `[1, 2][0]` 2,
 * `[[1], [1 + 1]][1][0]` 24, `{'a': 1}.a` 2), where a chain on a variable costs the variable's
 * 1 and a qualifier's 1 each, as here. Not for `.?` / `[?`, which cel-go evaluates as calls
 * (`[1, 2][?0].orValue(5)` 2), nor on a ternary, a conditional attribute
 * (`(true ? [1] : [2])[0]` 1). */
static uint64_t relative_root(const struct cel_node *n)
{
	if (n->flags & CEL_NF_OPT)
		return 0;
	const struct cel_node *operand = n->args[0];
	switch (operand->kind) {
	case CEL_N_VAR: case CEL_N_LOCAL: case CEL_N_SELECT: case CEL_N_INDEX: case CEL_N_COND:
		return 0;
	case CEL_N_FOLDED:
		return operand->flags & CEL_NF_QUALIFIER ? 0 : 1;
	default:
		return 1;
	}
}

static cel_value eval(struct cel_eval *ev, const struct cel_node *n)
{
	if (ev->cancelled)
		return cancelled(ev);
	switch (n->kind) {
	case CEL_N_CONST:
		return n->val;
	case CEL_N_FOLDED:
		if (cost(ev, n->fold_cost))
			return cancelled(ev);
		return n->val;
	case CEL_N_VAR:
		if (cost(ev, 1))
			return cancelled(ev);
		if ((size_t)n->slot >= ev->act->n || !ev->act->bound[n->slot])
			return err_v(ev, "no such attribute: %s", cel_env_var_name(ev->env, n->slot));
		return ev->act->vals[n->slot];
	case CEL_N_LOCAL:
		if (cost(ev, 1))
			return cancelled(ev);
		return ev->locals[n->slot];
	case CEL_N_SELECT: {
		cel_value t = eval(ev, n->args[0]);
		if (IS_ERR(t))
			return t;
		if (cost(ev, 1 + relative_root(n)))
			return cancelled(ev);
		return select_field(ev, n, t);
	}
	case CEL_N_HAS: {
		cel_value t = eval(ev, n->args[0]);
		if (cost(ev, 1))
			return cancelled(ev);
		return has_field(ev, n, t);
	}
	case CEL_N_INDEX: {
		cel_value c = eval(ev, n->args[0]);
		if (IS_ERR(c))
			return c;
		cel_value k = eval(ev, n->args[1]);
		if (IS_ERR(k))
			return k;
		if (cost(ev, 1 + relative_root(n)))
			return cancelled(ev);
		if (c.kind == CEL_OPTIONAL)
			return opt_access(ev, c, k);
		bool found;
		cel_value r = index_value(ev, c, k, n->flags & CEL_NF_OPT, &found);
		if (IS_ERR(r) || !(n->flags & CEL_NF_OPT))
			return r;
		return make_opt(ev, found ? &r : NULL);
	}
	case CEL_N_CALL:
		return call(ev, n);
	case CEL_N_AND:
		return logic(ev, n, true);
	case CEL_N_OR:
		return logic(ev, n, false);
	case CEL_N_NOT: {
		cel_value v = eval(ev, n->args[0]);
		if (ev->cancelled)
			return v;
		if (cost(ev, 1))
			return cancelled(ev);
		if (IS_ERR(v))
			return v;
		if (v.kind != CEL_BOOL)
			return no_overload(ev, "!_", &v, 1);
		return cel_bool(!v.b);
	}
	case CEL_N_COND: {
		cel_value c = eval(ev, n->args[0]);
		if (IS_ERR(c))
			return c;
		if (c.kind != CEL_BOOL)
			return no_overload(ev, "_?_:_", &c, 1);
		/* cel-go resolves a chosen branch that is an attribute (an identifier and its
		 * selections) inside the conditional: its root identifier is not counted */
		const struct cel_node *br = n->args[c.b ? 1 : 2];
		cel_value r = eval(ev, br);
		if (!ev->cancelled && attribute_root(br) && ev->cost > 0)
			ev->cost--;
		return r;
	}
	case CEL_N_NEG: {
		cel_value v = eval(ev, n->args[0]);
		if (ev->cancelled)
			return v;
		if (cost(ev, 1))
			return cancelled(ev);
		if (IS_ERR(v))
			return v;
		if (v.kind == CEL_INT) {
			if (v.i == INT64_MIN)
				return err_v(ev, "integer overflow");
			return cel_int(-v.i);
		}
		if (v.kind == CEL_DOUBLE)
			return cel_double(-v.d);
		if (v.kind == CEL_DURATION) {
			if (v.i == INT64_MIN)
				return err_v(ev, "integer overflow");
			return cel_duration(-v.i);
		}
		return no_overload(ev, "-_", &v, 1);
	}
	case CEL_N_LIST:
		return list_lit(ev, n);
	case CEL_N_MAP:
		return map_lit(ev, n);
	case CEL_N_MACRO:
		return comprehension(ev, n);
	case CEL_N_BIND: {
		cel_value v = eval(ev, n->args[0]);
		if (ev->cancelled)
			return v;
		set_local(ev, n->comp->s1, v);
		return eval(ev, n->args[1]);
	}
	case CEL_N_OPTMAP: {
		cel_value o = eval(ev, n->args[0]);
		if (IS_ERR(o))
			return o;
		if (o.kind != CEL_OPTIONAL)
			return no_overload(ev, (n->flags & CEL_NF_FLAT) ? "optFlatMap" : "optMap", &o, 1);
		if (!o.opt)
			return o;
		set_local(ev, n->comp->s1, *o.opt);
		cel_value r = eval(ev, n->args[1]);
		if (IS_ERR(r))
			return r;
		if (n->flags & CEL_NF_FLAT) {
			if (r.kind != CEL_OPTIONAL)
				return no_overload(ev, "optFlatMap", &r, 1);
			return r;
		}
		return make_opt(ev, &r);
	}
	default:
		break;
	}
	/* binary operators: strict in both arguments, both evaluated first (cel-go evalBinary),
	 * the failed operator counted (1) */
	cel_value a = eval(ev, n->args[0]);
	if (ev->cancelled)
		return a;
	cel_value b = eval(ev, n->args[1]);
	if (ev->cancelled)
		return b;
	if (IS_ERR(a) || IS_ERR(b))
		return cost(ev, 1) ? cancelled(ev) : IS_ERR(a) ? a : b;
	switch (n->kind) {
	case CEL_N_EQ:
	case CEL_N_NE: {
		if (cost(ev, (a.kind == CEL_STRING || a.kind == CEL_BYTES || a.kind == CEL_LIST || a.kind == CEL_MAP)
				     ? min_size_cost(a, b)
				     : 1))
			return cancelled(ev);
		bool eq = cel_value_equal(a, b);
		return cel_bool(n->kind == CEL_N_EQ ? eq : !eq);
	}
	case CEL_N_LT:
	case CEL_N_LE:
	case CEL_N_GT:
	case CEL_N_GE:
		return compare(ev, n, a, b);
	case CEL_N_IN:
		return in(ev, a, b, n->flags & CEL_NF_FREE);
	default:
		break;
	}
	if (cost(ev, 1))
		return cancelled(ev);
	switch (n->kind) {
	case CEL_N_ADD: return add(ev, a, b);
	case CEL_N_SUB: return sub(ev, a, b);
	case CEL_N_MUL: return mul(ev, a, b);
	case CEL_N_DIV: return divide(ev, a, b, false);
	case CEL_N_MOD: return divide(ev, a, b, true);
	}
	return err_v(ev, "internal error: unknown node kind %d", n->kind);
}

/* ---- constant folding ---- */

static bool is_const(const struct cel_node *n) { return n->kind == CEL_N_CONST || n->kind == CEL_N_FOLDED; }

/* What cel-go's planner sees as a constant (InterpretableConst): a literal, or what its
 * OptOptimize precomputed. cel-go folds nothing else: `1 + 2` stays a call, so `[1 + 2]`
 * is built at run time (cost 10 + 1) and `string(1 + 2)` converts at run time (2). */
static bool go_const(const struct cel_node *n)
{
	return n->kind == CEL_N_CONST || (n->kind == CEL_N_FOLDED && (n->flags & CEL_NF_PRECOMPUTED));
}

/* cel-go overloads.IsTypeConversionFunction: the conversions OptOptimize folds. */
static bool is_conversion(const char *name)
{
	static const char *const conv[] = { "bool", "bytes", "double", "duration", "dyn", "int", "string",
					    "timestamp", "type", "uint" };
	for (size_t i = 0; i < sizeof(conv) / sizeof(conv[0]); i++)
		if (strcmp(name, conv[i]) == 0)
			return true;
	return false;
}

/* A constant list whose elements cel-go's maybeOptimizeSetMembership turns into a set:
 * primitives other than bytes. */
static bool set_literal(const struct cel_node *n)
{
	if (!go_const(n) || n->val.kind != CEL_LIST)
		return false;
	for (uint32_t i = 0; i < n->val.list->n; i++) {
		uint8_t k = n->val.list->items[i].kind;
		if (k != CEL_BOOL && k != CEL_INT && k != CEL_UINT && k != CEL_DOUBLE && k != CEL_STRING)
			return false;
	}
	return true;
}

struct folder {
	struct cel_eval ev;
	bool optimize;
	const struct cel_node *bad; /* optimize: a conversion of a constant that fails */
	cel_value bad_val;
};

/* Folds n's subtree bottom-up. With optimize (cel-go's OptOptimize, as Kubernetes evaluates),
 * the cost of what cel-go's decOptimize precomputes is 0 at run time: list and map literals of
 * literals, conversions of literals (whose failure is a compile error there), and `x in L` for
 * such a list L of primitives (a set lookup); "literals" counting those precomputed nodes
 * again, but no other folded node: cel-go folds no calls, so a folded `1.0/3.0` or `ip('...')`
 * keeps its cost and makes its list or conversion an ordinary one (`'%s'.format([1.0/3.0])`
 * 12, `string(ip('192.168.0.1'))` 3, as apiserver v0.37.2's base environment counts). */
static void fold(struct folder *f, struct cel_node *n)
{
	struct cel_eval *fe = &f->ev;
	bool all = true, lits = true;
	for (uint16_t i = 0; i < n->nargs; i++) {
		fold(f, n->args[i]);
		all = all && is_const(n->args[i]);
		lits = lits && go_const(n->args[i]);
	}
	if (n->comp) {
		/* comprehension, bind and optMap bodies: fold inside, never the node itself */
		struct cel_comp *c = n->comp;
		if (c->range)
			fold(f, c->range);
		if (c->pred)
			fold(f, c->pred);
		if (c->expr)
			fold(f, c->expr);
		return;
	}
	if (n->kind == CEL_N_IN && f->optimize && set_literal(n->args[1]))
		n->flags |= CEL_NF_FREE;
	switch (n->kind) {
	case CEL_N_CALL: case CEL_N_LIST: case CEL_N_MAP: case CEL_N_SELECT: case CEL_N_INDEX: case CEL_N_NOT:
	case CEL_N_NEG: case CEL_N_EQ: case CEL_N_NE: case CEL_N_LT: case CEL_N_LE: case CEL_N_GT: case CEL_N_GE:
	case CEL_N_IN: case CEL_N_ADD: case CEL_N_SUB: case CEL_N_MUL: case CEL_N_DIV: case CEL_N_MOD:
		break;
	default:
		return;
	}
	if (!all)
		return;
	fe->cost = 0;
	fe->cancelled = fe->mem_exceeded = fe->oom = false;
	fe->mem_limit = arena_used(fe->arena) + ((size_t)1 << 20);
	cel_value v = eval(fe, n);
	bool conversion = n->kind == CEL_N_CALL && !(n->flags & CEL_NF_RECV) && n->nargs == 1 && is_conversion(n->name);
	if (v.kind == CEL_ERROR && f->optimize && conversion && lits && !fe->cancelled && !f->bad) {
		f->bad = n;
		f->bad_val = v;
	}
	if (v.kind == CEL_ERROR || fe->cancelled || fe->oom)
		return;
	uint64_t c = fe->cost;
	bool precomputed = f->optimize && lits && (n->kind == CEL_N_LIST || n->kind == CEL_N_MAP || conversion);
	if ((n->kind == CEL_N_SELECT || n->kind == CEL_N_INDEX) && !(n->flags & CEL_NF_OPT))
		n->flags |= CEL_NF_QUALIFIER;
	if (precomputed) {
		c = 0;
		n->flags |= CEL_NF_PRECOMPUTED;
	}
	n->kind = CEL_N_FOLDED;
	n->val = v;
	n->fold_cost = c;
}

int cel_fold(struct cel_program *p, const struct cel_node **bad, const char **msg)
{
	static const struct cel_activation empty = { 0 };
	struct folder f = { .ev = { .arena = p->arena, .act = &empty, .env = p->env }, .optimize = p->env->opts.optimize };
	/* folding is bounded like an evaluation: by the cost limit (or 10^8) and 1 MiB a node */
	f.ev.limit = p->env->opts.cost_limit ? p->env->opts.cost_limit : 100000000;
	fold(&f, p->root);
	if (f.ev.oom)
		return ERR_NOMEM;
	if (f.bad) {
		*bad = f.bad;
		*msg = f.bad_val.s;
		return ERR_INVALID;
	}
	return 0;
}

int cel_program_eval(const struct cel_program *p, struct cel_eval *ev, const struct cel_activation *a,
		     cel_value *out, uint64_t *cost_out)
{
	arena_reset(ev->arena);
	ev->cost = 0;
	ev->limit = p->env->opts.cost_limit;
	ev->cancelled = false;
	ev->mem_exceeded = false;
	ev->oom = false;
	ev->mem_limit = p->env->opts.memory_limit ? p->env->opts.memory_limit : CEL_DEFAULT_MEMORY_LIMIT;
	ev->act = a;
	ev->env = p->env;
	if (p->nlocals > ev->caplocals) {
		cel_value *nl = realloc(ev->locals, (size_t)p->nlocals * sizeof(cel_value));
		if (!nl)
			return ERR_NOMEM;
		ev->locals = nl;
		ev->caplocals = p->nlocals;
	}
	static const struct cel_activation empty = { 0 };
	if (!a)
		ev->act = &empty;
	cel_value r = eval(ev, p->root);
	if (ev->cancelled)
		r = cancelled(ev);
	if (cost_out)
		*cost_out = ev->cost;
	if (ev->oom && !ev->cancelled)
		return ERR_NOMEM;
	*out = r;
	return 0;
}

int cel_program_eval_bool(const struct cel_program *p, struct cel_eval *ev, const struct cel_activation *a,
			  struct err *e)
{
	cel_value v;
	int rc = cel_program_eval(p, ev, a, &v, NULL);
	if (rc != 0)
		return err_set(e, rc, "cel: out of memory");
	if (v.kind == CEL_ERROR)
		return err_set(e, ERR_INVALID, "%s", v.s);
	if (v.kind != CEL_BOOL)
		return err_set(e, ERR_INVALID, "expected bool, got %s", cel_value_type_name(v));
	return v.b ? 1 : 0;
}
