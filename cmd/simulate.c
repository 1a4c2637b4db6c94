/* `csched simulate --dump FILE`: where would these pods go (contract in cmd.h, output in
 * docs/simulate.md).
 *
 * DESIGN
 * Reads the files, builds the scheduler from the configuration (--config, else the defaults) with
 * an API client that is never contacted (nothing is started: no informer, loop, binder, event or
 * lease thread), and hands everything to sched_simulate (scheduler/simulate.c), which fills the
 * scheduler's stores from the dump and places the pods with the loop's own profiles. Main thread
 * only; nothing is written anywhere but stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "algorithm/framework.h"
#include "apiclient/api_client.h"
#include "common/log.h"
#include "config/config.h"
#include "scheduler/scheduler.h"
#include "scheduler/simulate.h"

/* Bound on an input file: a dump of a large cluster is tens of MB. */
#define SIM_MAX_FILE (1024L * 1024 * 1024)

struct sim_flags {
	const char *dump, *pods, *config, *output, *add_node, *svg;
	long add_count;
	long seed;
	bool has_seed;
	const char *cordon[SCHED_SIM_MAX_NAMES], *drain[SCHED_SIM_MAX_NAMES];
	uint32_t n_cordon, n_drain;
	int verbosity;
	bool help;
};

static const char usage_text[] =
	"Usage: %s simulate --dump FILE [flags]\n"
	"\n"
	"Places pods on a cluster dump with the scheduler's own algorithm, one after another in the\n"
	"queue's order, as a freshly started csched would: each pod's node (or why none fits) with the\n"
	"same per-plugin detail as explain (-o json), and each node's utilization before and after.\n"
	"Deterministic: the same input gives the same output. Nothing is written to any cluster.\n"
	"\n"
	"      --dump string          A v1 List: kubectl get nodes,pods,namespaces,pvc,pdb,services,replicasets,statefulsets,replicationcontrollers -A -o json\n"
	"      --config string        The scheduler's configuration file (default: the default profile, schedulerName csched)\n"
	"      --pods string          Pods to place (JSON or YAML: Pods, v1 Lists, --- documents; as written for kubectl:\n"
	"                             no uid needed, namespace \"default\" when none);\n"
	"                             default: the dump's pending pods of the configuration's profiles\n"
	"      --add-node NAME=N      What if: N copies of the dump's node NAME (named NAME-sim-1..N)\n"
	"      --cordon NAME          What if: node NAME is cordoned (repeatable)\n"
	"      --drain NAME           What if: node NAME is cordoned and its pods (but DaemonSet and mirror pods) re-placed (repeatable)\n"
	"      --svg FILE             Also write an SVG bar chart of each node's CPU and memory requests, before and after\n"
	"      --seed int             Seed of the one random part: the tie-break among nodes an HTTP extender scored\n"
	"  -o, --output string        table (default) or json (schema: docs/simulate.md)\n"
	"  -v, --v int                Log verbosity (stderr)\n"
	"  -h, --help                 This help\n";

static int parse(struct sim_flags *f, int argc, char **argv, struct err *e)
{
	memset(f, 0, sizeof(*f));
	f->output = "table";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			f->help = true;
			continue;
		}
		if (a[0] != '-' || !a[1])
			return err_set(e, ERR_INVALID, "unexpected argument \"%s\"", a);
		const char *name = a[1] == '-' ? a + 2 : a + 1, *value = NULL;
		char nbuf[64];
		size_t nl = strcspn(name, "=");
		if (a[1] != '-' && name[1]) { /* -ojson, -v2 */
			nl = 1;
			value = name + 1;
		} else if (name[nl] == '=') {
			value = name + nl + 1;
		}
		snprintf(nbuf, sizeof(nbuf), "%.*s", (int)nl, name);
		if (!value) {
			if (i + 1 >= argc)
				return err_set(e, ERR_INVALID, "flag needs an argument: %s", a);
			value = argv[++i];
		}
		char *end;
		if (!strcmp(nbuf, "dump"))
			f->dump = value;
		else if (!strcmp(nbuf, "pods"))
			f->pods = value;
		else if (!strcmp(nbuf, "config"))
			f->config = value;
		else if (!strcmp(nbuf, "svg"))
			f->svg = value;
		else if (!strcmp(nbuf, "output") || !strcmp(nbuf, "o"))
			f->output = value;
		else if (!strcmp(nbuf, "v")) {
			long v = strtol(value, &end, 10);
			if (*end || v < 0 || v > 10)
				return err_set(e, ERR_INVALID, "invalid argument \"%s\" for -v: an integer 0..10", value);
			f->verbosity = (int)v;
		} else if (!strcmp(nbuf, "seed")) {
			errno = 0;
			f->seed = strtol(value, &end, 10);
			if (*end || errno || !value[0])
				return err_set(e, ERR_INVALID, "invalid argument \"%s\" for --seed: an integer", value);
			f->has_seed = true;
		} else if (!strcmp(nbuf, "add-node")) {
			const char *eq = strrchr(value, '=');
			long n = eq ? strtol(eq + 1, &end, 10) : 0;
			if (!eq || eq == value || !eq[1] || *end || n < 1 || n > 10000)
				return err_set(e, ERR_INVALID, "--add-node \"%s\": expected NAME=N, N in 1..10000", value);
			char *nm = strndup(value, (size_t)(eq - value));
			if (!nm)
				return err_set(e, ERR_NOMEM, "out of memory");
			free((char *)f->add_node);
			f->add_node = nm;
			f->add_count = n;
		} else if (!strcmp(nbuf, "cordon") || !strcmp(nbuf, "drain")) {
			bool cordon = nbuf[0] == 'c';
			uint32_t *n = cordon ? &f->n_cordon : &f->n_drain;
			if (*n == SCHED_SIM_MAX_NAMES)
				return err_set(e, ERR_INVALID, "--%s: at most %d nodes", nbuf, SCHED_SIM_MAX_NAMES);
			(cordon ? f->cordon : f->drain)[(*n)++] = value;
		} else {
			return err_set(e, ERR_INVALID, "unknown flag: %s", a);
		}
	}
	if (f->help)
		return 0;
	if (!f->dump)
		return err_set(e, ERR_INVALID, "--dump is required");
	if (strcmp(f->output, "table") && strcmp(f->output, "json"))
		return err_set(e, ERR_INVALID, "--output \"%s\": must be table or json", f->output);
	return 0;
}

/* The whole file (malloc'd, NUL-terminated). */
static char *read_file(const char *flag, const char *path, size_t *len, struct err *e)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (!fp) {
		err_set(e, ERR_IO, "%s %s: %s", flag, path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n + 65536 + 1 > cap) {
			size_t nc = cap ? cap * 2 : 1 << 20;
			char *nb = nc <= (size_t)SIM_MAX_FILE ? realloc(buf, nc) : NULL;
			if (!nb) {
				err_set(e, ERR_NOMEM, "%s %s: larger than %ld bytes or out of memory", flag, path, SIM_MAX_FILE);
				goto fail;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		err_set(e, ERR_IO, "%s %s: read error", flag, path);
		goto fail;
	}
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	fclose(fp);
	free(buf);
	return NULL;
}

/* Replaces *text (YAML or JSON) with its JSON. */
static int as_json(const char *path, const char *kind, char **text, size_t *len, struct err *e)
{
	char *json = NULL;
	size_t n = 0;
	int rc = api_manifest_to_json(path, *text, *len, kind, &json, &n, e);
	if (rc < 0)
		return rc;
	free(*text);
	*text = json;
	*len = n;
	return 0;
}

static int simulate(const struct sim_flags *f, struct err *e)
{
	struct config cfg;
	bool have_cfg = false;
	struct api_config ac = { 0 };
	struct api_client *client = NULL;
	struct scheduler *s = NULL;
	char *dump = NULL, *pods = NULL, *text = NULL, *svg = NULL;
	size_t dump_len = 0, pods_len = 0, len = 0;
	int rc;

	const struct cfg_registry *reg = fw_registry();
	if ((rc = f->config ? config_load_file(&cfg, reg, f->config, e) : config_init_default(&cfg, reg, e)) < 0)
		goto out;
	have_cfg = true;
	if (!(dump = read_file("--dump", f->dump, &dump_len, e)) || (f->pods && !(pods = read_file("--pods", f->pods, &pods_len, e)))) {
		rc = e->code ? e->code : ERR_IO;
		goto out;
	}
	/* YAML as kubectl takes it; the pods file holds Pods only (a Deployment's template is not a Pod) */
	if ((rc = as_json(f->dump, NULL, &dump, &dump_len, e)) < 0 || (pods && (rc = as_json(f->pods, "Pod", &pods, &pods_len, e)) < 0))
		goto out;
	/* never contacted: nothing is started */
	if (!(ac.server = strdup("https://simulate.invalid"))) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!(client = api_client_new(&ac, e))) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	struct sched_options so = { .cfg = &cfg, .client = client };
	if (!(s = sched_new(&so, e))) {
		rc = e->code ? e->code : ERR_NOMEM;
		goto out;
	}
	if (f->has_seed)
		srandom((unsigned)f->seed);
	struct sched_sim_request rq = {
		.dump = dump, .dump_len = dump_len, .pods = pods, .pods_len = pods_len,
		.add_node = f->add_node, .add_count = (uint32_t)f->add_count,
		.n_cordon = f->n_cordon, .n_drain = f->n_drain,
		.json = !strcmp(f->output, "json"),
	};
	memcpy(rq.cordon, f->cordon, sizeof(rq.cordon));
	memcpy(rq.drain, f->drain, sizeof(rq.drain));
	size_t svg_len = 0;
	if (f->svg) {
		rq.svg = &svg;
		rq.svg_len = &svg_len;
	}
	if ((rc = sched_simulate(s, &rq, &text, &len, e)) < 0)
		goto out;
	if (f->svg) {
		FILE *w = fopen(f->svg, "w");
		if (!w || fwrite(svg, 1, svg_len, w) != svg_len || fclose(w) != 0) {
			rc = err_set(e, ERR_IO, "--svg %s: %s", f->svg, strerror(errno));
			if (w)
				fclose(w);
			goto out;
		}
	}
	fwrite(text, 1, len, stdout);
out:
	free(svg);
	free(text);
	sched_free(s);
	api_client_free(client);
	api_config_release(&ac);
	free(dump);
	free(pods);
	if (have_cfg)
		config_free(&cfg);
	return rc;
}

int cmd_simulate(int argc, char **argv, const char *prog)
{
	struct sim_flags f;
	struct err e = { 0 };
	int rc = parse(&f, argc, argv, &e);
	if (rc < 0) {
		fprintf(stderr, "Error: %s\nRun '%s simulate --help' for usage.\n", e.msg, prog);
		free((char *)f.add_node);
		return 1;
	}
	if (f.help) {
		printf(usage_text, prog);
		free((char *)f.add_node);
		return 0;
	}
	log_set_verbosity(f.verbosity);
	if (api_global_init(&e) < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		free((char *)f.add_node);
		return 1;
	}
	rc = simulate(&f, &e);
	api_global_cleanup();
	free((char *)f.add_node);
	if (rc < 0) {
		fprintf(stderr, "Error: %s\n", e.msg);
		return 1;
	}
	return 0;
}
