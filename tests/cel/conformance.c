/* cel-spec conformance runner: runs every test of the in-scope SimpleTestFile files (cel-spec
 * tests/simple/testdata; the list below, as ../shared/cel-spec/README.md scopes them) through
 * csched's CEL evaluator in the Kubernetes environment with its extensions at their latest
 * versions, as cel-go's own conformance runner (conformance/conformance_test.go) enables them
 * (ext.Strings() without a version: string reverse, the current format), and prints per-file
 * counts and the line "N passed, N failed, N skipped". Kubernetes' strings version 2 is
 * covered by the unit tests (tests/unit/test_cel_libs.c).
 *
 *   cel_conformance [-v] [--baseline FILE] [DIR]
 *
 * DIR defaults to $CEL_SPEC_DIR, else ../shared/cel-spec. A missing DIR is reported and the
 * run exits 77 (ctest's skip code) or, with --absent-ok, 0. Tests that need protobuf message
 * types (TestAllTypes, google.protobuf wrappers, Any, Struct) are skipped: -v lists each with
 * its reason, and every failure with its expression and what differed.
 *
 * Matching, as cel-go's conformance harness: a value result must equal the expected value of
 * the same kind (1 is not 1u; NaN matches NaN; maps ignore order); an expected eval_error is met
 * by any error, at compile or evaluation time (cel-go's checker reports some of them early).
 *
 * With --baseline FILE (lines "file/section/test<TAB>reason"; '#' comments), the exit status is 0
 * unless a test fails that the baseline does not list (a regression); listed tests that now
 * pass are reported so that the list shrinks. Without it, any failure exits 1. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "textproto.h"

static const char *const in_scope[] = {
	"basic", "comparisons", "conversions", "fields", "fp_math", "integer_math", "lists", "logic",
	"macros", "macros2", "namespace", "optionals", "parse", "plumbing", "string", "string_ext",
	"bindings_ext", "timestamps", "network_ext",
};

static bool verbose;

/* Memory a converted value holds (lists and maps), freed after each test. */
struct owned {
	struct cel_list **lists;
	size_t nl;
	struct cel_map **maps;
	size_t nm;
};

static void owned_free(struct owned *o)
{
	for (size_t i = 0; i < o->nl; i++)
		cel_list_free(o->lists[i]);
	for (size_t i = 0; i < o->nm; i++)
		cel_map_free(o->maps[i]);
	free(o->lists);
	free(o->maps);
	memset(o, 0, sizeof(*o));
}

static bool own_list(struct owned *o, struct cel_list *l)
{
	struct cel_list **n = realloc(o->lists, (o->nl + 1) * sizeof(*n));
	if (!n)
		return false;
	o->lists = n;
	o->lists[o->nl++] = l;
	return true;
}

static bool own_map(struct owned *o, struct cel_map *m)
{
	struct cel_map **n = realloc(o->maps, (o->nm + 1) * sizeof(*n));
	if (!n)
		return false;
	o->maps = n;
	o->maps[o->nm++] = m;
	return true;
}

static double parse_double(const char *s)
{
	if (!strcmp(s, "inf") || !strcmp(s, "Infinity") || !strcmp(s, "infinity"))
		return INFINITY;
	if (!strcmp(s, "-inf") || !strcmp(s, "-Infinity") || !strcmp(s, "-infinity"))
		return -INFINITY;
	if (!strcmp(s, "nan") || !strcmp(s, "NaN"))
		return NAN;
	return strtod(s, NULL);
}

static const struct cel_type *type_named(const char *name);

/* cel.expr.Value -> cel_value. false (with why) for what it cannot represent. */
static bool to_value(const struct tp_node *v, cel_value *out, struct owned *o, char *why, size_t cap)
{
	if (!v || v->nkids == 0) {
		snprintf(why, cap, "empty value");
		return false;
	}
	const struct tp_node *f = v->kids[0];
	const char *s = f->sval ? f->sval : "";
	if (!strcmp(f->name, "null_value")) {
		*out = cel_null();
	} else if (!strcmp(f->name, "bool_value")) {
		*out = cel_bool(!strcmp(s, "true"));
	} else if (!strcmp(f->name, "int64_value")) {
		*out = cel_int(strtoll(s, NULL, 0));
	} else if (!strcmp(f->name, "uint64_value")) {
		*out = cel_uint(strtoull(s, NULL, 0));
	} else if (!strcmp(f->name, "double_value")) {
		*out = cel_double(parse_double(s));
	} else if (!strcmp(f->name, "string_value")) {
		*out = cel_string(s, f->slen);
	} else if (!strcmp(f->name, "bytes_value")) {
		*out = cel_bytes(s, f->slen);
	} else if (!strcmp(f->name, "type_value")) {
		const struct cel_type *t = type_named(s);
		if (!t) {
			snprintf(why, cap, "type value %s", s);
			return false;
		}
		*out = (cel_value){ .kind = CEL_TYPE };
		out->type = t;
	} else if (!strcmp(f->name, "list_value")) {
		size_t n = 0;
		for (size_t i = 0; i < f->nkids; i++)
			n += !strcmp(f->kids[i]->name, "values");
		struct cel_list *l = cel_list_new(n);
		if (!l || !own_list(o, l)) {
			cel_list_free(l);
			snprintf(why, cap, "out of memory");
			return false;
		}
		size_t k = 0;
		for (size_t i = 0; i < f->nkids; i++) {
			if (strcmp(f->kids[i]->name, "values"))
				continue;
			cel_value e;
			if (!to_value(f->kids[i], &e, o, why, cap))
				return false;
			cel_list_set(l, k++, e);
		}
		*out = cel_list_value(l);
	} else if (!strcmp(f->name, "map_value")) {
		struct cel_map *m = cel_map_new(f->nkids);
		if (!m || !own_map(o, m)) {
			cel_map_free(m);
			snprintf(why, cap, "out of memory");
			return false;
		}
		for (size_t i = 0; i < f->nkids; i++) {
			const struct tp_node *e = f->kids[i];
			cel_value k, val;
			if (!to_value(tp_get(e, "key"), &k, o, why, cap) || !to_value(tp_get(e, "value"), &val, o, why, cap))
				return false;
			if (cel_map_put(m, k, val) != 0) {
				snprintf(why, cap, "bad map key");
				return false;
			}
		}
		*out = cel_map_value(m);
	} else if (!strcmp(f->name, "object_value")) {
		const struct tp_node *any = f->nkids ? f->kids[0] : NULL;
		if (!any) {
			snprintf(why, cap, "empty object_value");
			return false;
		}
		const struct tp_node *sec = tp_get(any, "seconds"), *ns = tp_get(any, "nanos");
		int64_t secs = sec ? strtoll(sec->sval, NULL, 10) : 0;
		int64_t nanos = ns ? strtoll(ns->sval, NULL, 10) : 0;
		if (strstr(any->name, "google.protobuf.Duration")) {
			*out = cel_duration(secs * 1000000000 + nanos);
		} else if (strstr(any->name, "google.protobuf.Timestamp")) {
			*out = cel_timestamp(secs, (uint32_t)nanos);
		} else {
			snprintf(why, cap, "needs protobuf message type %s", any->name);
			return false;
		}
	} else {
		snprintf(why, cap, "value field %s", f->name);
		return false;
	}
	return true;
}

/* The type values the files compare with (type_value: "int"): made by evaluating the name. */
static const struct cel_type *type_named(const char *name)
{
	static struct cel_env *env;
	static struct cel_eval *ev;
	static struct { char name[64]; const struct cel_type *t; } cache[32];
	static int ncache;
	for (int i = 0; i < ncache; i++)
		if (!strcmp(cache[i].name, name))
			return cache[i].t;
	if (!env) {
		env = cel_env_new(NULL);
		ev = cel_eval_new();
		if (!env || !ev || cel_env_add_kubernetes(env, NULL) != 0)
			return NULL;
	}
	struct err e = { 0 };
	struct cel_program *p = cel_program_compile(env, name, &e);
	if (!p)
		return NULL;
	cel_value v;
	const struct cel_type *t = NULL;
	if (cel_program_eval(p, ev, NULL, &v, NULL) == 0 && v.kind == CEL_TYPE)
		t = v.type; /* type values are static or live in the environment */
	cel_program_free(p);
	if (t && ncache < 32 && strlen(name) < 64) {
		snprintf(cache[ncache].name, sizeof(cache[ncache].name), "%s", name);
		cache[ncache++].t = t;
	}
	return t;
}

/* Strict equality for matching (kinds must agree; NaN == NaN; maps by lookup). */
static bool same(cel_value a, cel_value b)
{
	if (a.kind != b.kind)
		return false;
	switch (a.kind) {
	case CEL_DOUBLE:
		return (isnan(a.d) && isnan(b.d)) || a.d == b.d;
	case CEL_LIST:
		if (cel_list_size(a.list) != cel_list_size(b.list))
			return false;
		for (size_t i = 0; i < cel_list_size(a.list); i++)
			if (!same(cel_list_get(a.list, i), cel_list_get(b.list, i)))
				return false;
		return true;
	case CEL_MAP:
		if (cel_map_size(a.map) != cel_map_size(b.map))
			return false;
		for (size_t i = 0; i < cel_map_size(a.map); i++) {
			cel_value k, v, bv, bk;
			cel_map_entry(a.map, i, &k, &v);
			bool found = false;
			for (size_t j = 0; j < cel_map_size(b.map) && !found; j++) {
				cel_map_entry(b.map, j, &bk, &bv);
				if (bk.kind == k.kind && same(bk, k))
					found = same(v, bv);
			}
			if (!found)
				return false;
		}
		return true;
	default:
		return cel_value_equal(a, b);
	}
}

/* Why a test needs protobuf message types, or NULL. */
static const char *proto_reason(const struct tp_node *t, char *buf, size_t cap)
{
	const struct tp_node *ex = tp_get(t, "expr"), *ct = tp_get(t, "container");
	const char *expr = ex && ex->sval ? ex->sval : "";
	if (ct && ct->sval && (strstr(ct->sval, "proto2") || strstr(ct->sval, "proto3"))) {
		snprintf(buf, cap, "needs protobuf message types (container %s)", ct->sval);
		return buf;
	}
	if (strstr(expr, "TestAllTypes")) {
		snprintf(buf, cap, "needs protobuf message type TestAllTypes");
		return buf;
	}
	const char *g = expr;
	while ((g = strstr(g, "google.protobuf."))) {
		g += strlen("google.protobuf.");
		if (strncmp(g, "Timestamp", 9) && strncmp(g, "Duration", 8)) {
			size_t n = strcspn(g, " ({})[],.");
			snprintf(buf, cap, "needs protobuf well-known type google.protobuf.%.*s", (int)n, g);
			return buf;
		}
	}
	for (size_t i = 0; i < t->nkids; i++) {
		const struct tp_node *k = t->kids[i];
		if (!strcmp(k->name, "type_env")) {
			const struct tp_node *id = tp_get(k, "ident"), *ty = id ? tp_get(id, "type") : NULL;
			const struct tp_node *mt = ty ? tp_get(ty, "message_type") : NULL;
			if (mt && mt->sval) {
				snprintf(buf, cap, "needs protobuf message type %s", mt->sval);
				return buf;
			}
		}
	}
	return NULL;
}

/* Finds an object_value of a message type anywhere below n. */
static const char *object_reason(const struct tp_node *n, char *buf, size_t cap)
{
	if (!strcmp(n->name ? n->name : "", "object_value") && n->nkids) {
		const char *an = n->kids[0]->name;
		if (!strstr(an, "google.protobuf.Duration") && !strstr(an, "google.protobuf.Timestamp")) {
			snprintf(buf, cap, "needs protobuf message type %s", an);
			return buf;
		}
	}
	for (size_t i = 0; i < n->nkids; i++) {
		const char *r = object_reason(n->kids[i], buf, cap);
		if (r)
			return r;
	}
	return NULL;
}

struct baseline {
	char **names;
	size_t n;
	bool *seen_fail;
};

static bool baseline_has(const struct baseline *b, const char *name, size_t *idx)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->names[i], name)) {
			*idx = i;
			return true;
		}
	return false;
}

static int load_baseline(struct baseline *b, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cel_conformance: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || !*s)
			continue;
		size_t n = strcspn(s, "\t\n"); /* names may hold spaces: a tab ends them */
		char **nn = realloc(b->names, (b->n + 1) * sizeof(*nn));
		if (!nn)
			break;
		b->names = nn;
		b->names[b->n++] = strndup(s, n);
	}
	fclose(f);
	b->seen_fail = calloc(b->n + 1, sizeof(bool));
	return 0;
}

struct counts {
	int pass, fail, skip;
};

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (n + 1 < cap)
			break;
		cap *= 2;
		char *nb = realloc(buf, cap);
		if (!nb) {
			free(buf);
			buf = NULL;
		}
		buf = nb;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

/* Runs one test; returns 1 pass, 0 fail, -1 skip; *msg says why. */
static int run_test(const struct tp_node *t, char *msg, size_t cap)
{
	char reason[256];
	const char *r = proto_reason(t, reason, sizeof(reason));
	if (!r)
		r = object_reason(t, reason, sizeof(reason));
	if (r) {
		snprintf(msg, cap, "%s", r);
		return -1;
	}
	const struct tp_node *ex = tp_get(t, "expr"), *ct = tp_get(t, "container"), *dm = tp_get(t, "disable_macros");
	/* cel-spec's semantics where cel-go departs from them (cel_env_options.spec_semantics) */
	struct cel_env_options opts = { .strings_version = CEL_STRINGS_VERSION_LATEST, .spec_semantics = true };
	opts.container = ct ? ct->sval : NULL;
	opts.disable_macros = dm && dm->sval && !strcmp(dm->sval, "true");
	const struct tp_node *dc = tp_get(t, "disable_check");
	opts.disable_check = dc && dc->sval && !strcmp(dc->sval, "true");
	struct cel_env *env = cel_env_new(&opts);
	struct cel_program *p = NULL;
	struct cel_activation *act = NULL;
	struct cel_eval *ev = NULL;
	struct owned own = { 0 };
	int result = 0;
	struct err e = { 0 };
	if (!env || cel_env_add_kubernetes(env, &e) != 0) {
		snprintf(msg, cap, "environment: %s", e.msg);
		goto out;
	}
	for (size_t i = 0; i < t->nkids; i++) {
		const struct tp_node *k = t->kids[i];
		if (!strcmp(k->name, "type_env") && tp_get(k, "ident"))
			cel_env_declare(env, tp_get(k, "name")->sval, NULL);
		if (!strcmp(k->name, "bindings"))
			cel_env_declare(env, tp_get(k, "key")->sval, NULL);
	}
	const struct tp_node *want_v = tp_get(t, "value");
	if (!want_v && tp_get(t, "typed_result"))
		want_v = tp_get(tp_get(t, "typed_result"), "result");
	bool want_err = tp_get(t, "eval_error") || tp_get(t, "any_eval_errors");
	p = ex ? cel_program_compile_len(env, ex->sval, ex->slen, &e) : cel_program_compile(env, "", &e);
	if (!p) {
		if (want_err) {
			result = 1;
		} else {
			snprintf(msg, cap, "compile error: %s", e.msg);
		}
		goto out;
	}
	act = cel_activation_new(env);
	ev = cel_eval_new();
	if (!act || !ev) {
		snprintf(msg, cap, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->nkids; i++) {
		const struct tp_node *k = t->kids[i];
		if (strcmp(k->name, "bindings"))
			continue;
		const struct tp_node *ev_ = tp_get(k, "value");
		const struct tp_node *val = ev_ ? tp_get(ev_, "value") : NULL;
		cel_value v;
		char why[200];
		if (!val || !to_value(val, &v, &own, why, sizeof(why))) {
			snprintf(msg, cap, "binding %s: %s", tp_get(k, "key")->sval, val ? why : "not a value");
			goto out;
		}
		int slot = cel_env_declare(env, tp_get(k, "key")->sval, NULL);
		cel_activation_set(act, slot, v);
	}
	cel_value out;
	if (cel_program_eval(p, ev, act, &out, NULL) != 0) {
		snprintf(msg, cap, "evaluation: out of memory");
		goto out;
	}
	char got[600];
	cel_value_format(out, got, sizeof(got));
	if (want_err) {
		if (out.kind == CEL_ERROR)
			result = 1;
		else
			snprintf(msg, cap, "want an error, got %.500s", got);
		goto out;
	}
	cel_value want = cel_bool(true); /* simple.proto: an unspecified result means true */
	char why[200];
	if (want_v && !to_value(want_v, &want, &own, why, sizeof(why))) {
		snprintf(msg, cap, "expected value: %s", why);
		goto out;
	}
	if (same(out, want)) {
		result = 1;
	} else {
		char wb[600];
		cel_value_format(want, wb, sizeof(wb));
		snprintf(msg, cap, "want %.500s, got %.500s", wb, got);
	}
out:
	owned_free(&own);
	cel_eval_free(ev);
	cel_activation_free(act);
	cel_program_free(p);
	cel_env_free(env);
	return result;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("CEL_SPEC_DIR");
	const char *baseline_path = NULL;
	bool absent_ok = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--baseline") && i + 1 < argc)
			baseline_path = argv[++i];
		else if (!strcmp(argv[i], "--absent-ok"))
			absent_ok = true;
		else
			dir = argv[i];
	}
	if (!dir || !*dir)
		dir = "../shared/cel-spec";
	struct baseline base = { 0 };
	if (baseline_path && load_baseline(&base, baseline_path) != 0)
		return 2;
	struct counts total = { 0 };
	int regressions = 0, missing = 0;
	for (size_t fi = 0; fi < sizeof(in_scope) / sizeof(in_scope[0]); fi++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.textproto", dir, in_scope[fi]);
		size_t len;
		char *text = read_file(path, &len);
		if (!text) {
			if (errno != ENOENT)
				fprintf(stderr, "cel-conformance: %s: %s\n", path, strerror(errno));
			else
				fprintf(stderr, "cel-conformance: %s: missing\n", path);
			missing++;
			if (missing == 1 && fi == 0) {
				printf("cel-conformance: no conformance files in %s: skipped\n", dir);
				return absent_ok ? 0 : 77;
			}
			continue;
		}
		char perr[256];
		struct tp_node *root = tp_parse(text, len, perr, sizeof(perr));
		free(text);
		if (!root) {
			fprintf(stderr, "cel-conformance: %s:%s\n", path, perr);
			return 2;
		}
		struct counts c = { 0 };
		for (size_t si = 0; si < root->nkids; si++) {
			const struct tp_node *sec = root->kids[si];
			if (strcmp(sec->name, "section"))
				continue;
			const struct tp_node *sn = tp_get(sec, "name");
			for (size_t ti = 0; ti < sec->nkids; ti++) {
				const struct tp_node *t = sec->kids[ti];
				if (strcmp(t->name, "test"))
					continue;
				const struct tp_node *tn = tp_get(t, "name");
				char name[512];
				snprintf(name, sizeof(name), "%s/%s/%s", in_scope[fi], sn ? sn->sval : "?", tn ? tn->sval : "?");
				/* some files repeat a test name within a section: the second is name#2, ... */
				int dup = 1;
				for (size_t tj = 0; tj < ti; tj++) {
					const struct tp_node *o = sec->kids[tj], *on = tp_get(o, "name");
					if (!strcmp(o->name, "test") && on && tn && !strcmp(on->sval, tn->sval))
						dup++;
				}
				if (dup > 1) {
					size_t l = strlen(name);
					snprintf(name + l, sizeof(name) - l, "#%d", dup);
				}
				char msg[1200] = "";
				int r = run_test(t, msg, sizeof(msg));
				size_t bi;
				bool listed = baseline_path && baseline_has(&base, name, &bi);
				if (r > 0) {
					c.pass++;
				} else if (r < 0) {
					c.skip++;
					if (verbose)
						printf("SKIP %s: %s\n", name, msg);
				} else {
					c.fail++;
					if (listed) {
						base.seen_fail[bi] = true;
						if (verbose)
							printf("FAIL (known) %s: %s\n", name, msg);
					} else {
						regressions++;
						const struct tp_node *ex = tp_get(t, "expr");
						printf("FAIL %s: %s\n    expr: %s\n", name, msg, ex && ex->sval ? ex->sval : "");
					}
				}
			}
		}
		tp_free(root);
		printf("%-14s %4d passed, %3d failed, %3d skipped\n", in_scope[fi], c.pass, c.fail, c.skip);
		total.pass += c.pass;
		total.fail += c.fail;
		total.skip += c.skip;
	}
	int fixed = 0;
	for (size_t i = 0; i < base.n; i++) {
		if (!base.seen_fail[i]) {
			printf("now passing (remove from the baseline): %s\n", base.names[i]);
			fixed++;
		}
		free(base.names[i]);
	}
	free(base.names);
	free(base.seen_fail);
	printf("%d passed, %d failed, %d skipped\n", total.pass, total.fail, total.skip);
	if (missing)
		return 1;
	if (baseline_path)
		return regressions ? 1 : 0;
	return total.fail ? 1 : 0;
}
