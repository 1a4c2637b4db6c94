/* Internals shared by apiclient's two YAML readers: kubeconfig.c and manifest.c. Not a public
 * header: nothing outside apiclient/ includes it. */
#ifndef CSCHED_API_YAML_INTERNAL_H
#define CSCHED_API_YAML_INTERNAL_H

#include <yaml.h>

#include "common/err.h"

/* A failed yaml_parser_load as "NAME:LINE:COL: invalid YAML: [CONTEXT ]PROBLEM" (libyaml's words,
 * 1-based position). Returns ERR_INVALID. */
int api__yaml_load_error(struct err *e, const yaml_parser_t *parser, const char *name);

#endif
