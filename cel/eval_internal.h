/* The compiler's and evaluator's shared structures: the environment, the AST a program is, and
 * the evaluation context. Private to cel/ (cel_internal.h is what libraries see). */
#ifndef CSCHED_CEL_EVAL_INTERNAL_H
#define CSCHED_CEL_EVAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cel_internal.h"
#include "common/arena.h"

/* A function name's overloads, as registered (pointers into the libraries' static tables). */
struct cel_fn_entry {
	const char *name;
	const struct cel_overload **ovs;
	size_t n, cap;
};

struct cel_var {
	char *name;
	int slot;
};

struct cel_env {
	struct cel_env_options opts;
	char *container;
	struct cel_var *vars;
	size_t nvars, capvars;
	struct cel_fn_entry *fns;
	size_t nfns, capfns;
	const struct cel_object_type **types;
	size_t ntypes, captypes;
};

/* Finds the overloads of a function name; NULL when none. */
const struct cel_fn_entry *cel_env_find_fn(const struct cel_env *env, const char *name, size_t len);
/* The slot of variable name (exact, qualified); -1 when undeclared. */
int cel_env_find_var(const struct cel_env *env, const char *name, size_t len);
/* The name of the variable in slot (for "no such attribute" messages). */
const char *cel_env_var_name(const struct cel_env *env, int slot);
const struct cel_object_type *cel_env_find_type(const struct cel_env *env, const char *name, size_t len);

/* ---- the AST ---- */

/* The parser builds raw nodes (IDENT, SELECT, CALL with a name); the resolver (compile.c) turns
 * identifiers into VAR / LOCAL / TYPE / CONST, qualified names into variables, and calls into
 * operators or registry calls, and assigns comprehension variables their local slots. */
enum cel_node_kind {
	CEL_N_CONST,   /* val */
	CEL_N_IDENT,   /* raw: name (CEL_NF_ROOT: leading '.') */
	CEL_N_VAR,     /* slot: a declared variable */
	CEL_N_LOCAL,   /* slot: a comprehension / bind variable in the local frame */
	CEL_N_SELECT,  /* args[0].name; CEL_NF_OPT: .? */
	CEL_N_HAS,     /* has(args[0].name) */
	CEL_N_INDEX,   /* args[0][args[1]]; CEL_NF_OPT: [?] */
	CEL_N_CALL,    /* name(args...) or args[0].name(args[1..]) with CEL_NF_RECV */
	CEL_N_AND,
	CEL_N_OR,
	CEL_N_NOT,
	CEL_N_COND,    /* args[0] ? args[1] : args[2] */
	CEL_N_EQ,
	CEL_N_NE,
	CEL_N_LT,
	CEL_N_LE,
	CEL_N_GT,
	CEL_N_GE,
	CEL_N_IN,
	CEL_N_ADD,
	CEL_N_SUB,
	CEL_N_MUL,
	CEL_N_DIV,
	CEL_N_MOD,
	CEL_N_NEG,
	CEL_N_LIST,    /* args: elements; optional elements flagged in optmask */
	CEL_N_MAP,     /* args: key0, val0, key1, val1, ...; optional entries flagged in optmask */
	CEL_N_MACRO,   /* comprehension macros (struct cel_comp) */
	CEL_N_BIND,    /* cel.bind: comp->v1 = args[0] in args[1] */
	CEL_N_STRUCT,  /* raw: a message literal Name{...}: rejected by the resolver */
	CEL_N_OPTMAP,  /* opt.optMap(v, expr) / optFlatMap (CEL_NF_FLAT) */
	CEL_N_FOLDED,  /* a constant subexpression evaluated at compile time: val, costing fold_cost */
};

enum {
	CEL_NF_OPT = 1 << 0,  /* .? or [?] */
	CEL_NF_RECV = 1 << 1, /* a receiver-style call */
	CEL_NF_ROOT = 1 << 2, /* a leading '.' on an identifier */
	CEL_NF_FLAT = 1 << 3, /* optFlatMap */
	CEL_NF_FREE = 1 << 4, /* `in` a constant set: costs nothing (cel-go OptOptimize) */
	/* a folded list or map literal, or conversion, whose parts are all literals (or such nodes
	 * again): what cel-go's OptOptimize precomputes, free at run time (see eval.c fold) */
	CEL_NF_PRECOMPUTED = 1 << 5,
	/* a folded select or index (not optional): still part of an attribute chain for the cost
	 * of a select or index on it (eval.c relative_root) */
	CEL_NF_QUALIFIER = 1 << 6,
};

enum cel_macro {
	CEL_M_ALL,
	CEL_M_EXISTS,
	CEL_M_EXISTS_ONE,
	CEL_M_MAP,        /* map(x, e) or map(x, pred, e) */
	CEL_M_FILTER,
	CEL_M_TRANSFORM_LIST,
	CEL_M_TRANSFORM_MAP,
	CEL_M_TRANSFORM_MAP_ENTRY,
};

struct cel_comp {
	uint8_t macro;     /* enum cel_macro */
	const char *v1, *v2; /* variable names (v2 NULL: one-variable form) */
	int s1, s2;        /* their local slots */
	struct cel_node *range, *pred, *expr; /* pred may be NULL */
};

struct cel_node {
	uint8_t kind;
	uint8_t flags;
	uint16_t nargs;
	uint32_t pos;          /* byte offset in the source (for messages) */
	cel_value val;
	const char *name;      /* ident, select field, function name (NUL-terminated, program arena) */
	uint32_t name_len;
	int slot;
	struct cel_node **args;
	const struct cel_fn_entry *fn;  /* CEL_N_CALL: the overloads of the name */
	const struct cel_overload *ov;  /* CEL_N_CALL: set when exactly one overload fits the arity */
	void *data;                     /* prepare()'s data */
	uint64_t *optmask;              /* CEL_N_LIST/MAP: optional entries (bit per element) */
	uint64_t fold_cost;             /* CEL_N_FOLDED: the runtime cost the folded expression had */
	struct cel_comp *comp;
};

/* Constant folding (eval.c): evaluates, once, every subexpression whose operands are all
 * constants (quantity("1Mi"), [0, 1], 'a' + 'b') into the program's arena; each keeps the
 * runtime cost cel-go would count for it, so folding changes speed, never results or costs.
 * Subexpressions that evaluate to an error are left to fail at run time, except, with
 * cel_env_options.optimize, a conversion of a constant: ERR_INVALID with *bad and *msg. */
int cel_fold(struct cel_program *p, const struct cel_node **bad, const char **msg);

/* Parses src into a raw AST in arena a; NULL with e set ("line:col: Syntax error: ..."). */
struct cel_node *cel_parse(struct arena *a, const char *src, size_t len, bool macros, struct err *e);

struct cel_program {
	struct cel_env *env;
	struct arena *arena;
	struct cel_node *root;
	int nlocals;
	/* call sites with prepare data to free */
	struct cel_node **prepared;
	size_t nprepared;
};

struct cel_activation {
	size_t n;
	cel_value *vals;
	uint8_t *bound;
};

/* ---- the evaluation context ---- */

/* Per-evaluation memory bound when the environment sets none: a selector needs kilobytes; the
 * bound is what keeps `cel.bind(a, [1], cel.bind(b, a + a, ...))` from doubling a list into
 * all of memory (list concatenation costs 1, as cel-go counts it). */
#define CEL_DEFAULT_MEMORY_LIMIT ((size_t)64 << 20)

struct cel_eval {
	struct arena *arena;
	uint64_t cost, limit;
	const void *call_data;
	cel_value *locals;
	int nlocals, caplocals;
	const struct cel_activation *act;
	const struct cel_env *env;
	bool cancelled;    /* the cost or memory limit was exceeded: the evaluation stops */
	bool mem_exceeded; /* ... and it was the memory limit */
	bool oom;
	size_t mem_limit;  /* bytes the arena may hand out in one evaluation */
};

#endif
