/* Compilation: parse, then resolve the raw AST against the environment (cel-go's checker
 * resolution without types): identifiers become declared variables (the longest qualified
 * name first, tried in the container's scopes as cel-go's containers.ResolveCandidateNames),
 * comprehension and cel.bind variables become local slots, type names become type values,
 * namespaced calls (sets.contains(...)) become global calls, and every call must name a
 * function the environment has with that style and arity. Anything else fails to compile
 * with cel-go's wording: "undeclared reference to 'x' (in container '')". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"

struct scope_var {
	const char *name;
	int slot;
};

struct resolver {
	struct cel_program *prog;
	struct cel_env *env;
	const char *src;
	size_t len;
	struct scope_var *scope;
	int nscope, capscope;
	struct err *e;
	bool failed;
	struct cel_node **prepared;
	size_t nprepared, capprepared;
};

static void rfail(struct resolver *r, const struct cel_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An unchecked environment (cel_env_options.disable_check) turns what the checker would reject
 * into an error the evaluation meets when it gets there (cel-go's unchecked planning). */
static void runtime_error(struct resolver *r, struct cel_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void runtime_error(struct resolver *r, struct cel_node *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *m = arena_strdup(r->prog->arena, msg);
	if (!m) {
		rfail(r, n, "out of memory");
		return;
	}
	n->kind = CEL_N_CONST;
	n->nargs = 0;
	n->val = (cel_value){ .kind = CEL_ERROR };
	n->val.s = m;
}
static void rfail(struct resolver *r, const struct cel_node *n, const char *fmt, ...)
{
	if (r->failed)
		return;
	r->failed = true;
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	int line = 1, col = 1;
	for (uint32_t i = 0; i < n->pos && i < r->len; i++) {
		if (r->src[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)r->src[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	err_set(r->e, ERR_INVALID, "%d:%d: %s", line, col, msg);
}

static const char *container(const struct resolver *r)
{
	return r->env->container ? r->env->container : "";
}

static int push_var(struct resolver *r, const char *name)
{
	if (r->nscope == r->capscope) {
		int cap = r->capscope ? r->capscope * 2 : 16;
		struct scope_var *ns = realloc(r->scope, (size_t)cap * sizeof(*ns));
		if (!ns)
			return -1;
		r->scope = ns;
		r->capscope = cap;
	}
	int slot = r->prog->nlocals++;
	r->scope[r->nscope++] = (struct scope_var){ name, slot };
	return slot;
}

static int find_local(const struct resolver *r, const char *name)
{
	for (int i = r->nscope - 1; i >= 0; i--)
		if (strcmp(r->scope[i].name, name) == 0)
			return r->scope[i].slot;
	return -1;
}

/* Built-in type names usable as identifiers (cel-go checker/types, stdlib type decls). */
static const struct cel_type *builtin_type(const char *name, size_t len)
{
	static const struct { const char *name; enum cel_kind k; } types[] = {
		{ "null_type", CEL_NULL }, { "bool", CEL_BOOL }, { "int", CEL_INT }, { "uint", CEL_UINT },
		{ "double", CEL_DOUBLE }, { "string", CEL_STRING }, { "bytes", CEL_BYTES }, { "list", CEL_LIST },
		{ "map", CEL_MAP }, { "type", CEL_TYPE }, { "google.protobuf.Timestamp", CEL_TIMESTAMP },
		{ "google.protobuf.Duration", CEL_DURATION }, { "optional_type", CEL_OPTIONAL },
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == len && memcmp(types[i].name, name, len) == 0)
			return cel_type_of_kind(types[i].k);
	return NULL;
}

/* Resolves qualified name q (len bytes) in the container's scopes: "c.d.q", "c.q", "q" (root:
 * only "q"). Sets *slot (variable) or *type; false when nothing matches. */
static bool resolve_name(struct resolver *r, const char *q, size_t len, bool root, int *slot,
			 const struct cel_type **type)
{
	char buf[1024];
	const char *c = root ? "" : container(r);
	size_t cl = strlen(c);
	*slot = -1;
	*type = NULL;
	for (;;) {
		size_t n;
		if (cl) {
			n = (size_t)snprintf(buf, sizeof(buf), "%.*s.%.*s", (int)cl, c, (int)len, q);
		} else {
			n = (size_t)snprintf(buf, sizeof(buf), "%.*s", (int)len, q);
		}
		if (n < sizeof(buf)) {
			int s = cel_env_find_var(r->env, buf, n);
			if (s >= 0) {
				*slot = s;
				return true;
			}
			const struct cel_type *t = builtin_type(buf, n);
			const struct cel_object_type *ot = t ? NULL : cel_env_find_type(r->env, buf, n);
			if (t || ot) {
				*type = t ? t : &ot->type;
				return true;
			}
		}
		if (!cl)
			return false;
		while (cl > 0 && c[cl - 1] != '.')
			cl--;
		if (cl > 0)
			cl--; /* drop the '.' */
	}
}

/* Finds function name in the container's scopes; NULL when absent. */
static const struct cel_fn_entry *resolve_fn(struct resolver *r, const char *name, bool root)
{
	char buf[1024];
	const char *c = root ? "" : container(r);
	size_t cl = strlen(c);
	for (;;) {
		size_t n = cl ? (size_t)snprintf(buf, sizeof(buf), "%.*s.%s", (int)cl, c, name)
			      : (size_t)snprintf(buf, sizeof(buf), "%s", name);
		if (n < sizeof(buf)) {
			const struct cel_fn_entry *f = cel_env_find_fn(r->env, buf, n);
			if (f)
				return f;
		}
		if (!cl)
			return NULL;
		while (cl > 0 && c[cl - 1] != '.')
			cl--;
		if (cl > 0)
			cl--;
	}
}

/* The dotted name a chain of plain selects on an identifier spells, or false. */
static bool chain_name(const struct cel_node *n, char *buf, size_t cap, size_t *len, bool *root)
{
	if (n->kind == CEL_N_IDENT) {
		*root = n->flags & CEL_NF_ROOT;
		int k = snprintf(buf, cap, "%s", n->name);
		if (k < 0 || (size_t)k >= cap)
			return false;
		*len = (size_t)k;
		return true;
	}
	if (n->kind != CEL_N_SELECT || (n->flags & CEL_NF_OPT))
		return false;
	if (!chain_name(n->args[0], buf, cap, len, root))
		return false;
	int k = snprintf(buf + *len, cap - *len, ".%s", n->name);
	if (k < 0 || (size_t)k >= cap - *len)
		return false;
	*len += (size_t)k;
	return true;
}

static void resolve(struct resolver *r, struct cel_node *n);

/* n is an IDENT or a SELECT chain on one: find the longest prefix that names a variable or a
 * type; rewrite that prefix node in place. Returns true when handled. */
static bool resolve_chain(struct resolver *r, struct cel_node *n)
{
	/* collect the chain: nodes[0] = n (outermost) ... nodes[k-1] = the ident */
	struct cel_node *nodes[128];
	int k = 0;
	struct cel_node *c = n;
	while (c->kind == CEL_N_SELECT && !(c->flags & CEL_NF_OPT) && k < 127) {
		nodes[k++] = c;
		c = c->args[0];
	}
	if (c->kind != CEL_N_IDENT)
		return false;
	nodes[k++] = c;
	if (!(c->flags & CEL_NF_ROOT)) {
		int ls = find_local(r, c->name);
		if (ls >= 0) {
			c->kind = CEL_N_LOCAL;
			c->slot = ls;
			return true;
		}
	}
	/* longest prefix first: the prefix ending at nodes[i] */
	for (int i = 0; i < k; i++) {
		char buf[1024];
		size_t len;
		bool root;
		if (!chain_name(nodes[i], buf, sizeof(buf), &len, &root))
			continue;
		int slot;
		const struct cel_type *t;
		if (resolve_name(r, buf, len, root, &slot, &t)) {
			struct cel_node *p = nodes[i];
			p->nargs = 0;
			p->flags &= (uint8_t)~CEL_NF_OPT;
			if (slot >= 0) {
				p->kind = CEL_N_VAR;
				p->slot = slot;
			} else {
				p->kind = CEL_N_CONST;
				p->val = (cel_value){ .kind = CEL_TYPE };
				p->val.type = t;
			}
			return true;
		}
	}
	if (r->env->opts.disable_check) {
		runtime_error(r, n, "no such attribute: %s", c->name);
		return true;
	}
	rfail(r, c, "undeclared reference to '%s' (in container '%s')", c->name, container(r));
	return true;
}

static bool add_prepared(struct resolver *r, struct cel_node *n)
{
	if (r->nprepared == r->capprepared) {
		size_t cap = r->capprepared ? r->capprepared * 2 : 8;
		struct cel_node **np = realloc(r->prepared, cap * sizeof(*np));
		if (!np)
			return false;
		r->prepared = np;
		r->capprepared = cap;
	}
	r->prepared[r->nprepared++] = n;
	return true;
}

/* A literal argument's kind, the part of cel-go's type checker that needs no declarations: the
 * type of a scalar literal is known at compile time. -1 for any other argument (variables,
 * selections and calls stay dynamic here). */
static int literal_kind(const struct cel_node *a)
{
	if (a->kind != CEL_N_CONST)
		return -1;
	switch (a->val.kind) {
	case CEL_NULL: case CEL_BOOL: case CEL_INT: case CEL_UINT: case CEL_DOUBLE:
	case CEL_STRING: case CEL_BYTES:
		return a->val.kind;
	default:
		return -1;
	}
}

/* rfail at a call's '(', where cel-go places a call (parser.go: the call's id is the open
 * paren's); the node is at the name or at the '.' before it, and only the name lies between. */
static void rfail_paren(struct resolver *r, const struct cel_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rfail_paren(struct resolver *r, const struct cel_node *n, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct cel_node at = *n;
	while (at.pos < r->len && r->src[at.pos] != '(')
		at.pos++;
	rfail(r, &at, "%s", msg);
}

/* cel-go's checker error for a call no overload fits (checker/errors.go noMatchingOverload,
 * format.go formatFunctionInternal: "string.(int)" for a receiver call, "(string, int)" for a
 * global one). An argument that is no literal is "dyn": its type is known at run time only. */
static void no_overload(struct resolver *r, const struct cel_fn_entry *f, const struct cel_node *n, bool recv)
{
	char sig[256];
	size_t len = 0;
	sig[0] = '\0';
	for (uint16_t i = 0; i < n->nargs && len < sizeof(sig); i++) {
		int k = literal_kind(n->args[i]);
		/* FormatCELType: "null", not null_type */
		const char *t = k < 0 ? "dyn" : k == CEL_NULL ? "null" : cel_kind_name((enum cel_kind)k);
		len += (size_t)snprintf(sig + len, sizeof(sig) - len, "%s%s%s",
					recv && i == 0 ? "" : i > (recv ? 1 : 0) ? ", " : "", t,
					recv && i == 0 ? ".(" : "");
	}
	rfail_paren(r, n, "found no matching overload for '%s' applied to '%s%s)'", f->name,
		    recv && n->nargs ? "" : "(", sig);
}

/* A literal of kind k passes for a parameter of kind p (cel-go types.go isAssignable): null
 * for the object types too (quantities, IPs, optionals, ...: cel-go's opaque and message types, and the
 * timestamp and duration messages). */
static bool literal_fits(uint8_t p, uint8_t k)
{
	if (p == CEL_ANY || p == k)
		return true;
	return k == CEL_NULL && (p == CEL_OBJECT || p == CEL_OPTIONAL || p == CEL_TIMESTAMP || p == CEL_DURATION);
}

/* cel-go's checker rejects a call no overload of which accepts its arguments' types: "found no
 * matching overload for 'f' applied to 'string.(int)'" (checker/errors.go noMatchingOverload,
 * format.go formatFunctionInternal: receiver type, then the arguments). csched decides it where
 * every argument is a literal; such a call would fail the same way at run time, so only the
 * error's time changes (and a call the evaluation would skip, `true || 'a'.f(1)`, is rejected
 * as cel-go rejects it). False after rfail. */
static bool literal_args_fit(struct resolver *r, const struct cel_fn_entry *f, const struct cel_node *n, bool recv)
{
	for (uint16_t i = 0; i < n->nargs; i++)
		if (literal_kind(n->args[i]) < 0)
			return true;
	for (size_t j = 0; j < f->n; j++) {
		const struct cel_overload *c = f->ovs[j];
		if (c->nargs != n->nargs || !(c->flags & (recv ? CEL_OV_RECEIVER : CEL_OV_GLOBAL)))
			continue;
		bool ok = true;
		for (uint16_t i = 0; i < n->nargs && ok; i++)
			ok = literal_fits(c->args[i].kind, (uint8_t)n->args[i]->val.kind);
		if (ok)
			return true;
	}
	no_overload(r, f, n, recv);
	return false;
}

static void resolve_call(struct resolver *r, struct cel_node *n)
{
	bool recv = n->flags & CEL_NF_RECV;
	const struct cel_fn_entry *f = NULL;
	if (recv) {
		/* a.b.f(x): a namespaced global function when a.b is no variable */
		char buf[1024];
		size_t len;
		bool root;
		struct cel_node *t = n->args[0];
		if (chain_name(t, buf, sizeof(buf), &len, &root)) {
			int slot;
			const struct cel_type *ty;
			bool local = false;
			const struct cel_node *c = t;
			while (c->kind == CEL_N_SELECT)
				c = c->args[0];
			local = !root && find_local(r, c->name) >= 0;
			if (!local && !resolve_name(r, buf, len, root, &slot, &ty)) {
				if (len + 1 + n->name_len < sizeof(buf)) {
					snprintf(buf + len, sizeof(buf) - len, ".%s", n->name);
					const struct cel_fn_entry *g = resolve_fn(r, buf, root);
					if (g) {
						memmove(n->args, n->args + 1, (size_t)(n->nargs - 1) * sizeof(*n->args));
						n->nargs--;
						n->flags &= (uint8_t)~CEL_NF_RECV;
						recv = false;
						f = g;
					}
				}
			}
		}
		if (!f)
			f = cel_env_find_fn(r->env, n->name, n->name_len);
	} else {
		f = resolve_fn(r, n->name, n->flags & CEL_NF_ROOT);
	}
	for (uint16_t i = 0; i < n->nargs && !r->failed; i++)
		resolve(r, n->args[i]);
	if (r->failed)
		return;
	if (!f) {
		if (r->env->opts.disable_check)
			runtime_error(r, n, "no such overload: %s", n->name);
		else
			rfail_paren(r, n, "undeclared reference to '%s' (in container '%s')", n->name, container(r));
		return;
	}
	const struct cel_overload *only = NULL;
	size_t fits = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct cel_overload *o = f->ovs[i];
		if (o->nargs != n->nargs || !(o->flags & (recv ? CEL_OV_RECEIVER : CEL_OV_GLOBAL)))
			continue;
		fits++;
		only = o;
	}
	if (!fits) {
		no_overload(r, f, n, recv);
		return;
	}
	if (!r->env->opts.disable_check && !literal_args_fit(r, f, n, recv))
		return;
	n->fn = f;
	n->name = f->name;
	n->ov = fits == 1 ? only : NULL;
	/* prepare hooks: with the literal arguments */
	for (size_t i = 0; i < f->n; i++) {
		const struct cel_overload *o = f->ovs[i];
		if (!o->prepare || o->nargs != n->nargs || !(o->flags & (recv ? CEL_OV_RECEIVER : CEL_OV_GLOBAL)))
			continue;
		const cel_value *consts[CEL_MAX_ARGS] = { 0 };
		for (uint16_t j = 0; j < n->nargs && j < CEL_MAX_ARGS; j++)
			if (n->args[j]->kind == CEL_N_CONST)
				consts[j] = &n->args[j]->val;
		void *data = NULL;
		struct err pe = { 0 };
		if (o->prepare(consts, n->nargs, &data, &pe) != 0) {
			rfail(r, n, "%s", pe.msg);
			return;
		}
		if (data) {
			if (n->data || n->ov != o) {
				/* one data pointer per call site: only for a single-overload site */
				if (o->free_data)
					o->free_data(data);
				continue;
			}
			n->data = data;
			if (!add_prepared(r, n)) {
				if (o->free_data)
					o->free_data(data);
				n->data = NULL;
				rfail(r, n, "out of memory");
			}
		}
	}
}

static void resolve(struct resolver *r, struct cel_node *n)
{
	if (r->failed)
		return;
	switch (n->kind) {
	case CEL_N_CONST:
		return;
	case CEL_N_IDENT:
		resolve_chain(r, n);
		return;
	case CEL_N_SELECT:
		/* a chain on an identifier: its longest declared prefix becomes the variable, the
		 * selections above it stay selections */
		if (!(n->flags & CEL_NF_OPT) && resolve_chain(r, n))
			return;
		resolve(r, n->args[0]);
		return;
	case CEL_N_HAS:
		resolve(r, n->args[0]);
		return;
	case CEL_N_CALL:
		resolve_call(r, n);
		return;
	case CEL_N_STRUCT:
		rfail(r, n, "unsupported expression: message construction '%s{...}' (no protobuf message types)", n->name);
		return;
	case CEL_N_MACRO: {
		struct cel_comp *c = n->comp;
		resolve(r, c->range);
		int mark = r->nscope;
		c->s1 = push_var(r, c->v1);
		c->s2 = c->v2 ? push_var(r, c->v2) : -1;
		if (c->s1 < 0 || (c->v2 && c->s2 < 0)) {
			rfail(r, n, "out of memory");
			return;
		}
		if (c->pred)
			resolve(r, c->pred);
		if (c->expr)
			resolve(r, c->expr);
		r->nscope = mark;
		return;
	}
	case CEL_N_BIND:
	case CEL_N_OPTMAP: {
		resolve(r, n->args[0]);
		int mark = r->nscope;
		n->comp->s1 = push_var(r, n->comp->v1);
		if (n->comp->s1 < 0) {
			rfail(r, n, "out of memory");
			return;
		}
		resolve(r, n->args[1]);
		r->nscope = mark;
		return;
	}
	default:
		for (uint16_t i = 0; i < n->nargs; i++)
			resolve(r, n->args[i]);
		return;
	}
}

void cel_program_free(struct cel_program *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nprepared; i++) {
		struct cel_node *n = p->prepared[i];
		if (n->data && n->ov && n->ov->free_data)
			n->ov->free_data(n->data);
	}
	free(p->prepared);
	arena_free(p->arena);
	free(p);
}

/* cel-go's default expression size limit (parser.ExpressionSizeCodePointLimit). */
#define MAX_EXPR_CODE_POINTS 100000

struct cel_program *cel_program_compile_len(struct cel_env *env, const char *expr, size_t len, struct err *e)
{
	struct cel_program *p = calloc(1, sizeof(*p));
	struct resolver r = { 0 };
	if (!p) {
		err_set(e, ERR_NOMEM, "cel_program_compile: out of memory");
		return NULL;
	}
	p->env = env;
	if (cel_utf8_count(expr, len) > MAX_EXPR_CODE_POINTS) {
		err_set(e, ERR_INVALID, "expression code point size exceeds limit: size: %zu, limit %d",
			cel_utf8_count(expr, len), MAX_EXPR_CODE_POINTS);
		goto fail;
	}
	if (!cel_utf8_valid(expr, len)) {
		err_set(e, ERR_INVALID, "1:1: Syntax error: invalid UTF-8 in expression");
		goto fail;
	}
	p->arena = arena_new(len * 16 + 1024);
	if (!p->arena) {
		err_set(e, ERR_NOMEM, "cel_program_compile: out of memory");
		goto fail;
	}
	p->root = cel_parse(p->arena, expr, len, !env->opts.disable_macros, e);
	if (!p->root)
		goto fail;
	r = (struct resolver){ .prog = p, .env = env, .src = expr, .len = len, .e = e };
	resolve(&r, p->root);
	p->prepared = r.prepared;
	p->nprepared = r.nprepared;
	free(r.scope);
	if (r.failed)
		goto fail;
	const struct cel_node *bad = NULL;
	const char *msg = NULL;
	int frc = cel_fold(p, &bad, &msg);
	if (frc == ERR_INVALID) {
		r.failed = false;
		rfail(&r, bad, "%s", msg);
		goto fail;
	}
	if (frc != 0) {
		err_set(e, ERR_NOMEM, "cel_program_compile: out of memory");
		goto fail;
	}
	return p;
fail:
	cel_program_free(p);
	return NULL;
}

struct cel_program *cel_program_compile(struct cel_env *env, const char *expr, struct err *e)
{
	return cel_program_compile_len(env, expr, strlen(expr), e);
}
