/* A small, independent checker of the Prometheus text exposition format (version 0.0.4), shared
 * by tests/unit/test_scheduler_metrics.c and the integration tests that scrape /metrics
 * (tests/unit/prom_text_check.c is compiled into each).
 *
 * It enforces: every line is a "# HELP name text", "# TYPE name type", another comment, or a
 * sample `name{label="value",...} value [timestamp]` with the grammar's names, escapes and
 * floats; a family's HELP and TYPE come before its samples, TYPE at most once per family, and a
 * family's samples are contiguous; histogram samples are name_bucket (with le), name_sum and
 * name_count; within a series the le bounds increase, bucket counts never decrease, the last
 * bucket is le="+Inf", and _count equals it. */
#ifndef CSCHED_TEST_PROM_TEXT_CHECK_H
#define CSCHED_TEST_PROM_TEXT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#define PROM_MAX_LABELS 8

struct prom_sample {
	char name[160];
	int nlabels;
	char lname[PROM_MAX_LABELS][64];
	char lval[PROM_MAX_LABELS][256];
	double value;
};

/* Parses one sample line into s; false with the reason in why (n bytes) when it is not one. */
bool prom_parse_sample(const char *line, struct prom_sample *s, char *why, size_t n);
/* Value of the label name in s, NULL when absent. */
const char *prom_label(const struct prom_sample *s, const char *name);

/* Returns true when text is valid; else false with the reason in why. *nsamples (if not NULL)
 * receives the number of sample lines. */
bool prom_check_text(const char *text, char *why, size_t n, int *nsamples);

/* Value of the sample `name` whose labels are exactly the given "k=v" pairs (in any order).
 * Returns false when absent. */
bool prom_find(const char *text, const char *name, const char *const *pairs, int npairs, double *value);

#endif
