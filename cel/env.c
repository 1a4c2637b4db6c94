/* Environments (declared variables, the function registry, library types), activations and the
 * evaluation context's allocation and error helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel_internal.h"
#include "eval_internal.h"

int cel_std_register(struct cel_env *env, struct err *e); /* std.c */

struct cel_env *cel_env_new(const struct cel_env_options *opts)
{
	struct cel_env *env = calloc(1, sizeof(*env));
	if (!env)
		return NULL;
	if (opts)
		env->opts = *opts;
	if (opts && opts->container) {
		env->container = strdup(opts->container);
		if (!env->container)
			goto fail;
	}
	env->opts.container = env->container;
	if (cel_std_register(env, NULL) != 0)
		goto fail;
	return env;
fail:
	cel_env_free(env);
	return NULL;
}

void cel_env_free(struct cel_env *env)
{
	if (!env)
		return;
	for (size_t i = 0; i < env->nvars; i++)
		free(env->vars[i].name);
	free(env->vars);
	for (size_t i = 0; i < env->nfns; i++)
		free(env->fns[i].ovs);
	free(env->fns);
	free(env->types);
	free(env->container);
	free(env);
}

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 16;
	void *np = realloc(*p, c * size);
	if (!np)
		return false;
	*p = np;
	*cap = c;
	return true;
}

int cel_env_find_var(const struct cel_env *env, const char *name, size_t len)
{
	for (size_t i = 0; i < env->nvars; i++)
		if (strlen(env->vars[i].name) == len && memcmp(env->vars[i].name, name, len) == 0)
			return env->vars[i].slot;
	return -1;
}

int cel_env_declare(struct cel_env *env, const char *name, struct err *e)
{
	if (!name || !*name)
		return err_set(e, ERR_INVALID, "cel_env_declare: empty variable name");
	int s = cel_env_find_var(env, name, strlen(name));
	if (s >= 0)
		return s;
	if (!grow((void **)&env->vars, &env->capvars, env->nvars, sizeof(*env->vars)))
		return err_set(e, ERR_NOMEM, "cel_env_declare: out of memory");
	char *dup = strdup(name);
	if (!dup)
		return err_set(e, ERR_NOMEM, "cel_env_declare: out of memory");
	env->vars[env->nvars] = (struct cel_var){ dup, (int)env->nvars };
	return (int)env->nvars++;
}

const char *cel_env_var_name(const struct cel_env *env, int slot)
{
	return slot >= 0 && (size_t)slot < env->nvars ? env->vars[slot].name : "?";
}

size_t cel_env_slots(const struct cel_env *env) { return env->nvars; }

uint32_t cel_env_strings_version(const struct cel_env *env)
{
	return env->opts.strings_version ? env->opts.strings_version : CEL_STRINGS_VERSION_KUBERNETES;
}

const struct cel_fn_entry *cel_env_find_fn(const struct cel_env *env, const char *name, size_t len)
{
	for (size_t i = 0; i < env->nfns; i++)
		if (strlen(env->fns[i].name) == len && memcmp(env->fns[i].name, name, len) == 0)
			return &env->fns[i];
	return NULL;
}

int cel_env_add_overloads(struct cel_env *env, const struct cel_overload *ovs, size_t n, struct err *e)
{
	for (size_t i = 0; i < n; i++) {
		const struct cel_overload *o = &ovs[i];
		if (!o->name || !o->id || !o->fn || o->nargs > CEL_MAX_ARGS || !(o->flags & (CEL_OV_RECEIVER | CEL_OV_GLOBAL)))
			return err_set(e, ERR_INVALID, "cel_env_add_overloads: overload %s: bad declaration",
				       o->id ? o->id : "(no id)");
		struct cel_fn_entry *f = (struct cel_fn_entry *)cel_env_find_fn(env, o->name, strlen(o->name));
		for (size_t j = 0; j < env->nfns; j++)
			for (size_t k = 0; k < env->fns[j].n; k++)
				if (strcmp(env->fns[j].ovs[k]->id, o->id) == 0)
					return err_set(e, ERR_INVALID, "cel_env_add_overloads: overload %s already registered",
						       o->id);
		if (!f) {
			if (!grow((void **)&env->fns, &env->capfns, env->nfns, sizeof(*env->fns)))
				return err_set(e, ERR_NOMEM, "cel_env_add_overloads: out of memory");
			f = &env->fns[env->nfns++];
			*f = (struct cel_fn_entry){ .name = o->name };
		}
		if (!grow((void **)&f->ovs, &f->cap, f->n, sizeof(*f->ovs)))
			return err_set(e, ERR_NOMEM, "cel_env_add_overloads: out of memory");
		f->ovs[f->n++] = o;
	}
	return 0;
}

const struct cel_object_type *cel_env_find_type(const struct cel_env *env, const char *name, size_t len)
{
	for (size_t i = 0; i < env->ntypes; i++)
		if (strlen(env->types[i]->type.name) == len && memcmp(env->types[i]->type.name, name, len) == 0)
			return env->types[i];
	return NULL;
}

int cel_env_add_type(struct cel_env *env, const struct cel_object_type *t, struct err *e)
{
	if (!t || !t->type.name || !t->equal)
		return err_set(e, ERR_INVALID, "cel_env_add_type: bad type declaration");
	if (cel_env_find_type(env, t->type.name, strlen(t->type.name)))
		return 0;
	if (!grow((void **)&env->types, &env->captypes, env->ntypes, sizeof(*env->types)))
		return err_set(e, ERR_NOMEM, "cel_env_add_type: out of memory");
	env->types[env->ntypes++] = t;
	return 0;
}

/* ---- activations ---- */

struct cel_activation *cel_activation_new(const struct cel_env *env)
{
	struct cel_activation *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->n = env->nvars;
	a->vals = calloc(a->n ? a->n : 1, sizeof(cel_value));
	a->bound = calloc(a->n ? a->n : 1, 1);
	if (!a->vals || !a->bound) {
		cel_activation_free(a);
		return NULL;
	}
	return a;
}

void cel_activation_free(struct cel_activation *a)
{
	if (!a)
		return;
	free(a->vals);
	free(a->bound);
	free(a);
}

void cel_activation_set(struct cel_activation *a, int slot, cel_value v)
{
	if (slot < 0 || (size_t)slot >= a->n)
		return;
	a->vals[slot] = v;
	a->bound[slot] = 1;
}

void cel_activation_unset(struct cel_activation *a, int slot)
{
	if (slot >= 0 && (size_t)slot < a->n)
		a->bound[slot] = 0;
}

/* ---- the evaluation context ---- */

struct cel_eval *cel_eval_new(void)
{
	struct cel_eval *ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	ev->arena = arena_new(16384);
	if (!ev->arena) {
		free(ev);
		return NULL;
	}
	return ev;
}

void cel_eval_free(struct cel_eval *ev)
{
	if (!ev)
		return;
	arena_free(ev->arena);
	free(ev->locals);
	free(ev);
}

/* The memory limit: past it the evaluation is cancelled (an error value, not ERR_NOMEM). */
static bool mem_ok(struct cel_eval *ev, size_t n)
{
	if (ev->mem_limit && (n > ev->mem_limit || arena_used(ev->arena) > ev->mem_limit - n)) {
		ev->cancelled = true;
		ev->mem_exceeded = true;
		return false;
	}
	return true;
}

void *cel_alloc(struct cel_eval *ev, size_t n)
{
	if (!mem_ok(ev, n))
		return NULL;
	void *p = arena_alloc(ev->arena, n ? n : 1);
	if (!p)
		ev->oom = true;
	return p;
}

int cel_new_string(struct cel_eval *ev, const char *s, size_t len, cel_value *out)
{
	if (len > UINT32_MAX)
		return cel_error(ev, out, "string too long");
	if (!mem_ok(ev, len + 1))
		return CEL_NOMEM;
	char *p = arena_strndup(ev->arena, s, len);
	if (!p) {
		ev->oom = true;
		return CEL_NOMEM;
	}
	*out = cel_string(p, len);
	return 0;
}

int cel_new_bytes(struct cel_eval *ev, const void *p, size_t len, cel_value *out)
{
	int rc = cel_new_string(ev, p, len, out);
	if (rc == 0 && out->kind == CEL_STRING)
		out->kind = CEL_BYTES;
	return rc;
}

struct cel_list *cel_new_list(struct cel_eval *ev, size_t n)
{
	if (n > UINT32_MAX)
		return NULL;
	struct cel_list *l = cel_alloc(ev, sizeof(*l));
	if (!l)
		return NULL;
	l->items = cel_alloc(ev, n * sizeof(cel_value));
	if (!l->items)
		return NULL;
	l->n = (uint32_t)n;
	return l;
}

int cel_new_optional(struct cel_eval *ev, const cel_value *v, cel_value *out)
{
	cel_value o = { .kind = CEL_OPTIONAL };
	if (v) {
		cel_value *p = cel_alloc(ev, sizeof(*p));
		if (!p)
			return CEL_NOMEM;
		*p = *v;
		o.opt = p;
	}
	*out = o;
	return 0;
}

int cel_error(struct cel_eval *ev, cel_value *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char *m = arena_strdup(ev->arena, buf);
	*out = (cel_value){ .kind = CEL_ERROR };
	out->s = m ? m : "out of memory";
	return 0;
}

int cel_error_no_overload(struct cel_eval *ev, cel_value *out, const char *name, const cel_value *args, size_t n)
{
	char types[256];
	size_t len = 0;
	types[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(types); i++)
		len += (size_t)snprintf(types + len, sizeof(types) - len, "%s%s", i ? ", " : "",
					cel_value_type_name(args[i]));
	return cel_error(ev, out, "no matching overload for '%s' applied to '(%s)'", name, types);
}

void cel_cost_add(struct cel_eval *ev, uint64_t n) { ev->cost += n; }

const void *cel_call_data(const struct cel_eval *ev) { return ev->call_data; }
