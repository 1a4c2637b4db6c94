/* The inside of the CEL module: the value model's containers, the evaluation context as
 * libraries see it, and the function registry. Included by plain name by the .c files of cel/ only.
 *
 * Memory. Everything an evaluation creates (strings, lists, maps, objects, error messages) is
 * allocated with cel_alloc() from the evaluation's arena, which is reset when the next
 * evaluation starts: no reference counts, no frees, no ownership to track in a library
 * function. Constants of a program live in the program's arena and are immutable. A value
 * never owns what it points to; a library function may return a value pointing into its
 * arguments (they live at least as long as the evaluation).
 *
 * Naming. cel_* is the module's prefix; library files are cel/lib_<name>.c and export one
 * registration function `int cel_lib_<name>_register(struct cel_env *env, struct err *e)`;
 * their static functions need no prefix. Overload ids are cel-go's where cel-go has one
 * ("string_contains_string"), else "<function>_<argkinds>". */
#ifndef CSCHED_CEL_INTERNAL_H
#define CSCHED_CEL_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cel/cel.h"
#include "common/arena.h"
#include "common/err.h"

/* ---- containers ------------------------------------------------------------------------ */

struct cel_list {
	uint32_t n;
	uint32_t cap;  /* > 0 only for caller-built (malloc'd) lists */
	cel_value *items;
};

/* Insertion-ordered map. keys[i] -> vals[i]. Keys are bool, int, uint or string; int and uint
 * keys of equal numeric value are the same key (and a double key looked up converts when it
 * is integral). index: open addressing over entry numbers + 1 (0 = empty), mask + 1 slots,
 * built when n > CEL_MAP_LINEAR; below that lookup is a linear scan. */
#define CEL_MAP_LINEAR 8
struct cel_map {
	uint32_t n;
	uint32_t cap;      /* > 0 only for caller-built (malloc'd) maps */
	cel_value *keys;
	cel_value *vals;
	uint32_t *index;   /* NULL when n <= CEL_MAP_LINEAR */
	uint32_t mask;
	bool has_dflt;     /* cel_map_set_default: lookups of absent keys give dflt */
	cel_value dflt;
};

/* ---- types ----------------------------------------------------------------------------- */

/* A type value. The built-in ones are static (cel_type_of_kind); a library type's is its
 * cel_object_type's `type` member. Type values compare by name. */
struct cel_type {
	const char *name;  /* "int", "list", "map", "type", "null_type", "google.protobuf.Duration",
			      "optional_type", "net.IP", ... */
	uint8_t kind;      /* the enum cel_kind of the type's values (CEL_OBJECT for library types) */
};
const struct cel_type *cel_type_of_kind(enum cel_kind k);
extern const struct cel_type cel_type_type; /* the type of types: "type" */

/* ---- library object types -------------------------------------------------------------- */

/* A library type (Quantity, Semver, IP, CIDR, URL) is a vtable; its values are CEL_OBJECT
 * values pointing at a struct cel_object whose data the library defines. Equality and
 * ordering with any other kind is false / no overload. */
struct cel_object_type {
	struct cel_type type;  /* .name: as cel-go's type() spells it ("net.IP", "kubernetes.Quantity");
				  .kind = CEL_OBJECT */
	/* Required: a and b are both of this type. */
	bool (*equal)(const struct cel_object *a, const struct cel_object *b);
	/* Optional (NULL: the type is not ordered by <, <=, >, >=): <0, 0, >0. */
	int (*compare)(const struct cel_object *a, const struct cel_object *b);
	/* Optional: a short text for cel_value_format and test output. */
	size_t (*format)(const struct cel_object *o, char *buf, size_t cap);
};

struct cel_object {
	const struct cel_object_type *type;
	/* followed by the library's data: allocate sizeof(struct cel_object) + your size with
	 * cel_alloc and cast, or embed struct cel_object first in your own struct. */
};

/* Makes the type name an identifier expressions can use (`type(x) == net.IP`). */
int cel_env_add_type(struct cel_env *env, const struct cel_object_type *t, struct err *e);

static inline cel_value cel_object_value(const struct cel_object *o)
{
	cel_value v = { .kind = CEL_OBJECT };
	v.obj = o;
	return v;
}

/* ---- evaluation context (what a library function sees) --------------------------------- */

/* Memory for this evaluation: zeroed, 16-byte aligned. NULL on out of memory (the function
 * then returns CEL_NOMEM). */
void *cel_alloc(struct cel_eval *ev, size_t n);
/* A string value copied into the evaluation's arena (NUL-terminated after len bytes). */
int cel_new_string(struct cel_eval *ev, const char *s, size_t len, cel_value *out);
int cel_new_bytes(struct cel_eval *ev, const void *p, size_t len, cel_value *out);
/* A list of n items to fill (items zeroed = null) and its value. */
struct cel_list *cel_new_list(struct cel_eval *ev, size_t n);
/* Map building within an evaluation: put keys (replacing), then finish (builds the index). */
struct cel_map *cel_new_map(struct cel_eval *ev, size_t capacity);
int cel_map_add(struct cel_eval *ev, struct cel_map *m, cel_value key, cel_value val);
/* An optional: of(v) / none. */
int cel_new_optional(struct cel_eval *ev, const cel_value *v, cel_value *out);

/* Sets *out to an error value with the printf-formatted message and returns 0, so that a
 * function can `return cel_error(ev, out, "no such key: %s", k);`. Messages are cel-go's. */
int cel_error(struct cel_eval *ev, cel_value *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "no such overload" as cel-go words it for function name and the argument values:
 * "no matching overload for 'name' applied to '(string, int)'". */
int cel_error_no_overload(struct cel_eval *ev, cel_value *out, const char *name, const cel_value *args,
			  size_t n);

/* Adds to the evaluation's runtime cost (for functions whose cost depends on their input, as
 * cel-go's cost trackers count it); the limit is checked by the evaluator after each call. */
void cel_cost_add(struct cel_eval *ev, uint64_t n);

/* The per-call data the overload's prepare() returned at compile time (NULL if none). */
const void *cel_call_data(const struct cel_eval *ev);

/* Return codes of library callbacks: 0, or CEL_NOMEM (evaluation aborts with ERR_NOMEM). */
#define CEL_NOMEM (-2)

/* ---- value helpers --------------------------------------------------------------------- */

/* Number of Unicode code points of a valid UTF-8 string (CEL size()). */
size_t cel_utf8_count(const char *s, size_t len);
/* Validates UTF-8 (strict: no surrogates, no overlongs). */
bool cel_utf8_valid(const char *s, size_t len);
/* Decodes one code point at s[*i], advancing *i; -1 on invalid input. */
int32_t cel_utf8_next(const char *s, size_t len, size_t *i);
/* Appends code point c as UTF-8 to buf (4 bytes room), returns bytes written. */
size_t cel_utf8_put(char *buf, uint32_t c);
/* Ordering as CEL's < defines it: numbers across int/uint/double, strings by code point (bytes
 * compare), bytes, bools, timestamps, durations, library types with compare. Returns 0 and
 * *cmp in {-1,0,1}; -1 when the pair is not ordered (no such overload); *cmp = 2 for NaN. */
int cel_value_compare(cel_value a, cel_value b, int *cmp);
/* The type name in "no matching overload" messages ("int", "list(int)" is not needed: cel-go
 * prints the runtime kind as "list", "map"). */
const char *cel_kind_name(enum cel_kind k);

/* ---- the function registry ------------------------------------------------------------- */

/* One argument's accepted type: a kind, CEL_ANY for any value (dyn), or CEL_OBJECT with the
 * object type (obj != NULL) it must be. */
#define CEL_ANY ((uint8_t)0xff)
struct cel_arg {
	uint8_t kind;
	const struct cel_object_type *obj;
};

#define CEL_MAX_ARGS 4

/* fn: args[0..n) are the evaluated arguments (for a receiver-style call, args[0] is the
 * receiver); never an error value (the evaluator propagates errors before calling, unless
 * the overload sets CEL_OV_ERRORS). Writes *out (a value or cel_error()) and returns 0, or
 * CEL_NOMEM. Must not keep pointers to args beyond the evaluation. */
typedef int (*cel_fn)(struct cel_eval *ev, const cel_value *args, size_t n, cel_value *out);

/* prepare (optional): called at compile time for each call site that resolves to the overload;
 * consts[i] is the argument's value when it is a literal, NULL otherwise. May return data the
 * call site keeps (cel_call_data() in fn; freed with free_data when the program is freed), e.g.
 * a compiled regular expression. Returning an error fails the compilation with e's message
 * (e.g. an invalid regex literal). The data is shared by threads evaluating the program at
 * once: read-only after prepare. */
typedef int (*cel_prepare_fn)(const cel_value *const *consts, size_t n, void **data, struct err *e);

/* cost (optional): the runtime cost of one call as cel-go's tracker counts it (a function of
 * the arguments and result); NULL means 1. */
typedef uint64_t (*cel_cost_fn)(const cel_value *args, size_t n, const cel_value *result);

enum {
	CEL_OV_RECEIVER = 1 << 0, /* called as args[0].name(args[1..]) */
	CEL_OV_GLOBAL = 1 << 1,   /* called as name(args...) (both flags: either style) */
	CEL_OV_ERRORS = 1 << 2,   /* fn receives error values too (non-strict) */
};

struct cel_overload {
	const char *id;        /* "string_contains_string" */
	const char *name;      /* "contains", "sets.contains", "ip", "_+_" */
	uint8_t flags;         /* CEL_OV_* */
	uint8_t nargs;         /* receiver included */
	struct cel_arg args[CEL_MAX_ARGS];
	cel_fn fn;
	cel_prepare_fn prepare;
	void (*free_data)(void *data);
	cel_cost_fn cost;
};

/* Registers overloads (the array and its strings must outlive env: use static tables). A
 * call resolves at compile time to the overloads of its name, style and arity (none: compile
 * error "undeclared reference to 'name' (in container '')"), and at run time to the first
 * whose argument kinds match (none: "no matching overload for ..."). Adding an overload whose
 * id is already registered is an error. */
int cel_env_add_overloads(struct cel_env *env, const struct cel_overload *ovs, size_t n, struct err *e);

/* The strings extension's version the environment asks for (cel_env_options.strings_version,
 * 0 meaning CEL_STRINGS_VERSION_KUBERNETES). */
uint32_t cel_env_strings_version(const struct cel_env *env);
/* cel_env_options.spec_semantics of the environment ev evaluates in. */
bool cel_eval_spec_semantics(const struct cel_eval *ev);

/* Library registration functions (cel/lib_<name>.c). */
int cel_lib_strings_register(struct cel_env *env, struct err *e);  /* strings ext at cel_env_strings_version */
int cel_lib_sets_register(struct cel_env *env, struct err *e);
int cel_lib_lists_register(struct cel_env *env, struct err *e);    /* lists ext v3 + Kubernetes' lists */
int cel_lib_regex_register(struct cel_env *env, struct err *e);    /* matches (std), find, findAll */
int cel_lib_url_register(struct cel_env *env, struct err *e);
int cel_lib_quantity_register(struct cel_env *env, struct err *e);
int cel_lib_semver_register(struct cel_env *env, struct err *e);
int cel_lib_net_register(struct cel_env *env, struct err *e);      /* ip, cidr: Kubernetes' and cel-go's network ext */
int cel_lib_named_format_register(struct cel_env *env, struct err *e); /* Kubernetes' format library (format.named, validate) */

#endif
