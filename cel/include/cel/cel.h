/* The Common Expression Language (cel-spec), as Kubernetes evaluates it in device selectors.
 *
 * Model: an environment (struct cel_env) declares the variables an expression may use and the
 * functions it may call (the standard library always, extension libraries on request). An
 * expression is compiled once against an environment into a program (struct cel_program),
 * which is immutable and may be evaluated by any number of threads at once. An evaluation
 * context (struct cel_eval) holds the per-evaluation memory (one arena, reset at the start of
 * each evaluation) and belongs to one thread; the values it returns stay valid until its next
 * evaluation or its free. Variables are bound in an activation (struct cel_activation): an
 * array of values indexed by the slot cel_env_declare gave the name, so binding is a store.
 *
 * Errors: compile errors (syntax, undeclared references, unknown functions) fill a struct err
 * whose message is "<line>:<col>: <what>" in cel-go's wording; evaluation errors are values of
 * kind CEL_ERROR whose message is cel-go's ("no such key: memory", "no matching overload for
 * '_>_' applied to '(string, int)'", "division by zero", "return error for overflow").
 * Exceeding the cost limit is an evaluation error ("operation cancelled: actual cost limit
 * exceeded", as cel-go words it). Nothing ever evaluates to a silent false.
 *
 * Lifetimes: env >= every program compiled from it; program >= its evaluations; the values
 * bound in an activation (and what they point to) >= the evaluations that read them. */
#ifndef CSCHED_CEL_H
#define CSCHED_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct cel_env;
struct cel_program;
struct cel_eval;
struct cel_activation;

/* ---- values ---------------------------------------------------------------------------- */

enum cel_kind {
	CEL_NULL = 0,
	CEL_BOOL,
	CEL_INT,
	CEL_UINT,
	CEL_DOUBLE,
	CEL_STRING,    /* UTF-8; s.ptr/len in bytes (not NUL-terminated in general) */
	CEL_BYTES,
	CEL_LIST,
	CEL_MAP,
	CEL_TYPE,      /* a type value: int, string, list, net.IP, ... */
	CEL_TIMESTAMP, /* seconds since the epoch (UTC) + nanos in [0, 1e9) */
	CEL_DURATION,  /* nanoseconds (cel-go's range: int64 nanoseconds) */
	CEL_OPTIONAL,  /* optional.of(x) or optional.none() */
	CEL_OBJECT,    /* a library type (Quantity, Semver, IP, CIDR, URL): see cel_internal.h */
	CEL_ERROR,     /* an evaluation error; msg is cel-go's wording */
	CEL_KIND_COUNT
};

struct cel_list;
struct cel_map;
struct cel_type;
struct cel_object_type;

/* A value is 16 bytes, passed and stored by value. Pointers point into the program (constants),
 * the evaluation's arena (results) or the caller's memory (bound variables); a value owns
 * nothing and is never freed by itself. */
typedef struct cel_value {
	uint8_t kind;  /* enum cel_kind */
	uint8_t flags; /* CEL_VF_*: internal */
	uint16_t pad_;
	uint32_t n;    /* STRING/BYTES: length in bytes; TIMESTAMP: nanos */
	union {
		bool b;
		int64_t i;            /* INT; TIMESTAMP: seconds; DURATION: nanoseconds */
		uint64_t u;
		double d;
		const char *s;        /* STRING, BYTES: n bytes; ERROR: NUL-terminated message */
		const struct cel_list *list;
		const struct cel_map *map;
		const struct cel_type *type;
		const struct cel_value *opt; /* OPTIONAL: the value, or NULL for optional.none() */
		const struct cel_object *obj;
	};
} cel_value;

/* Constructors of plain values (no allocation). s must outlive the value. */
cel_value cel_null(void);
cel_value cel_bool(bool b);
cel_value cel_int(int64_t i);
cel_value cel_uint(uint64_t u);
cel_value cel_double(double d);
cel_value cel_string(const char *s, size_t len); /* len <= UINT32_MAX; UTF-8 is the caller's duty */
cel_value cel_bytes(const void *p, size_t len);
cel_value cel_timestamp(int64_t seconds, uint32_t nanos);
cel_value cel_duration(int64_t nanos);

/* Lists and maps a caller builds for its variables: malloc'd, owned by the caller and freed with
 * cel_list_free / cel_map_free (which free only the container, not what the items point to).
 * cel_map_put takes keys of kind bool, int, uint or string; a key already present is replaced.
 * NULL / negative on out of memory or a bad key kind. */
struct cel_list *cel_list_new(size_t n);
int cel_list_set(struct cel_list *l, size_t i, cel_value v);
cel_value cel_list_value(const struct cel_list *l);
void cel_list_free(struct cel_list *l);
struct cel_map *cel_map_new(size_t capacity);
int cel_map_put(struct cel_map *m, cel_value key, cel_value val);
cel_value cel_map_value(const struct cel_map *m);
void cel_map_free(struct cel_map *m);

/* A map whose lookups (m[k], m.k, m[?k], has(m.k)) of an absent key give v instead of an
 * error, as DRA's device.attributes and device.capacity do (k8s.io/dynamic-resource-allocation
 * cel/compile.go newStringInterfaceMapWithDefault: an empty map for an unknown domain). `in`,
 * size() and iteration see only the real entries. */
void cel_map_set_default(struct cel_map *m, cel_value v);

/* Library values a caller binds (DRA device capacities and version attributes), parsed as
 * quantity() and semver() parse them (apimachinery resource.ParseQuantity, blang semver.Parse;
 * normalize: semver(s, true)). malloc'd and owned by the caller, freed with cel_object_free (a
 * value of another kind is ignored). ERR_INVALID with the library's message ("unable to parse
 * quantity's suffix"), ERR_NOMEM. The value is immutable: any number of evaluations may read it. */
int cel_quantity_new(const char *s, size_t len, cel_value *out, struct err *e);
int cel_semver_new(const char *s, size_t len, bool normalize, cel_value *out, struct err *e);
void cel_object_free(cel_value v);

/* Readers. */
size_t cel_list_size(const struct cel_list *l);
cel_value cel_list_get(const struct cel_list *l, size_t i);
size_t cel_map_size(const struct cel_map *m);
/* The i-th entry in insertion order (i < size). */
void cel_map_entry(const struct cel_map *m, size_t i, cel_value *key, cel_value *val);
/* Lookup with CEL's key equality (1 == 1u == 1.0); false when absent. */
bool cel_map_find(const struct cel_map *m, cel_value key, cel_value *val);
/* The type's name as type() and error messages spell it ("int", "list", "net.IP"). */
const char *cel_type_name(const struct cel_type *t);
/* The type name of a value ("int", "google.protobuf.Timestamp", "kubernetes.Quantity"). */
const char *cel_value_type_name(cel_value v);
/* CEL equality (heterogeneous numbers, deep lists and maps, library types' own equality).
 * Errors are never equal. */
bool cel_value_equal(cel_value a, cel_value b);
/* Formats v for humans and tests (CEL literal syntax where there is one) into buf (always
 * NUL-terminated); returns the length it needed, as snprintf does. */
size_t cel_value_format(cel_value v, char *buf, size_t cap);
/* The message of an error value. */
const char *cel_error_message(cel_value v);

/* ---- environments ---------------------------------------------------------------------- */

struct cel_env_options {
	/* Runtime cost limit per evaluation, in cel-go's runtime cost units (0 = no limit).
	 * DRA: CELSelectorExpressionMaxCost = 1,000,000. */
	uint64_t cost_limit;
	/* Memory one evaluation may allocate, in bytes (0 = 64 MiB). Past it the evaluation stops
	 * with "operation cancelled: evaluation memory limit exceeded". */
	size_t memory_limit;
	/* Disable the macros (has, all, exists, exists_one, map, filter, and the others):
	 * cel-spec's disable_macros. */
	bool disable_macros;
	/* Namespace for identifier and function resolution (cel-spec's container), or NULL. */
	const char *container;
	/* Unchecked compilation (cel-spec's disable_check): an undeclared variable or function is
	 * not a compile error but an error value where the evaluation reaches it. Kubernetes
	 * always checks; the conformance runner needs both. */
	bool disable_check;
	/* cel-go's OptOptimize, which Kubernetes' environments set: constant list and map literals,
	 * conversions of constants and `x in [constants]` are computed once and cost nothing at
	 * run time (as cel-go counts), and a conversion of a constant that fails (int('x')) is a
	 * compile error. Kubernetes' base environment (environment/base.go) sets it, so DRA
	 * selectors want it; upstream's library unit tests (and cel-spec) run without it. */
	bool optimize;
	/* The version of cel-go's strings extension (ext.StringsVersion) that
	 * cel_env_add_kubernetes enables, with what cel-go gates by it: format and strings.quote
	 * from 1, join's element check from 2, (string).reverse() from 3, the current formatter
	 * from 4 (versions 1 to 3 use cel-go's first, locale-aware one), format's precision limit
	 * of 100 and cel-go's own string cost trackers from 5. 0 means Kubernetes' version,
	 * CEL_STRINGS_VERSION_KUBERNETES (2: apiserver environment/base.go); so cel-go's version
	 * 0 (no format, no quote) is not offered. CEL_STRINGS_VERSION_LATEST is cel-go's default,
	 * every version, as cel-go's conformance runner uses it. */
	uint32_t strings_version;
	/* Follow cel-spec where cel-go (the version Kubernetes builds, v0.29.2, and later) departs
	 * from it: `indexOf` / `lastIndexOf` with an offset past the end of the string (non-empty
	 * substring) is the error "index out of range: N", not -1; `ip()` accepts an IPv4-mapped
	 * IPv6 address and yields the IPv4 address (cel-spec's network_ext), where Kubernetes'
	 * library rejects it. Off in every Kubernetes and DRA environment (what users' selectors
	 * see); on only for cel-spec's conformance tests (tests/cel/conformance.c). */
	bool spec_semantics;
};

#define CEL_STRINGS_VERSION_KUBERNETES 2u
#define CEL_STRINGS_VERSION_LATEST UINT32_MAX

/* A new environment with the standard library, optionals and cel.bind. NULL on out of memory. */
struct cel_env *cel_env_new(const struct cel_env_options *opts);
void cel_env_free(struct cel_env *env); /* NULL is a no-op */

/* Declares variable name (any type); returns its activation slot (>= 0) or a negative ERR_*.
 * Declaring a name again returns its slot. Names may be qualified ("a.b.c"). */
int cel_env_declare(struct cel_env *env, const char *name, struct err *e);
/* The number of slots an activation for env needs. */
size_t cel_env_slots(const struct cel_env *env);

/* The Kubernetes libraries as k8s.io/apiserver's base environment (environment/base.go,
 * v0.37.2) adds them: strings (the version cel_env_options.strings_version names, v2 by default), sets, lists v3 and Kubernetes' lists, regex, URLs, quantity,
 * semver (with normalization), IP and CIDR, format, and cross-type numeric comparisons. */
int cel_env_add_kubernetes(struct cel_env *env, struct err *e);

/* ---- programs -------------------------------------------------------------------------- */

/* Compiles expr. NULL on error with e->msg "<line>:<col>: <message>" (cel-go's wording:
 * "Syntax error: mismatched input ...", "undeclared reference to 'x' (in container '')"). */
struct cel_program *cel_program_compile(struct cel_env *env, const char *expr, struct err *e);
/* The same for len bytes at expr (which may contain NUL bytes inside string literals). */
struct cel_program *cel_program_compile_len(struct cel_env *env, const char *expr, size_t len, struct err *e);
void cel_program_free(struct cel_program *p); /* NULL is a no-op */

/* ---- activations and evaluation -------------------------------------------------------- */

/* An activation for env: every slot unbound (reading one is the error "no such attribute").
 * It has the slots env had when it was made: declare every variable first. */
struct cel_activation *cel_activation_new(const struct cel_env *env);
void cel_activation_free(struct cel_activation *a);
/* Binds slot (from cel_env_declare) to v; v must outlive the evaluations that read it. A slot
 * the activation does not have is ignored (the variable stays unbound). */
void cel_activation_set(struct cel_activation *a, int slot, cel_value v);
void cel_activation_unset(struct cel_activation *a, int slot);

struct cel_eval *cel_eval_new(void);
void cel_eval_free(struct cel_eval *ev);

/* Evaluates p against a. Returns 0 with *out set (possibly an error value: the expression's
 * own outcome) or a negative ERR_* code for out of memory. *out is valid until ev's next
 * evaluation. *cost (may be NULL) gets the runtime cost counted. */
int cel_program_eval(const struct cel_program *p, struct cel_eval *ev, const struct cel_activation *a,
		     cel_value *out, uint64_t *cost);

/* Convenience for selectors: evaluates and requires a bool. 1 true, 0 false, or a negative
 * ERR_INVALID with e->msg the evaluation error or "expected bool, got <type>". */
int cel_program_eval_bool(const struct cel_program *p, struct cel_eval *ev, const struct cel_activation *a,
			  struct err *e);

#endif
