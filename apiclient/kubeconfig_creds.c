/* Credential sources: files and base64 data of certificates and keys, and the in-cluster
 * service account (token file, CA, namespace). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "kubeconfig_internal.h"
#include "common/base64.h"
#include "common/log.h"

#define SA_DIR_DEFAULT "/var/run/secrets/kubernetes.io/serviceaccount"

/* ---------- small helpers ---------- */

char *api__strdup(const char *s, bool *ok)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*ok = false;
	return d;
}

int api__read_file(const char *path, size_t max, char **out, size_t *len, struct err *e)
{
	*out = NULL;
	if (len)
		*len = 0;
	int rc = 0;
	struct strbuf b = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	char chunk[8192];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (!strbuf_add_max(&b, chunk, (size_t)n, max)) {
			rc = b.len + (size_t)n > max ? err_set(e, ERR_INVALID, "%s: larger than %zu bytes", path, max)
						     : err_set(e, ERR_NOMEM, "%s: out of memory", path);
			goto out;
		}
	}
	if (!strbuf_add_max(&b, "", 0, max)) { /* an empty file still gets its NUL */
		rc = err_set(e, ERR_NOMEM, "%s: out of memory", path);
		goto out;
	}
	*out = b.data;
	if (len)
		*len = b.len;
	b.data = NULL;
out:
	close(fd);
	strbuf_release(&b);
	return rc;
}

int api__base64_decode(const char *in, size_t in_len, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	unsigned char *d = malloc(base64_decoded_max(in_len) + 1);
	if (!d)
		return ERR_NOMEM;
	if (!base64_decode(in, in_len, BASE64_LENIENT, d, len, NULL)) {
		free(d);
		return ERR_INVALID;
	}
	d[*len] = '\0';
	*out = (char *)d;
	return 0;
}

static char *trim_dup(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* A PEM field: base64 data (key-data) or a file (key), never both. Fills *data or *file. */
int api__kc_pem(struct kc_file *f, yaml_node_t *m, const char *field, const char *file_key, const char *data_key,
		  char **file, char **data, size_t *data_len, struct err *e)
{
	const char *fv = NULL, *dv = NULL;
	int rc;
	if ((rc = api__kc_str(f, m, file_key, field, &fv, e)) || (rc = api__kc_str(f, m, data_key, field, &dv, e)))
		return rc;
	if (fv && dv)
		return api__kc_err(e, ERR_INVALID, f, api__kc_get(f, m, file_key), field, "%s and %s are both set: use one", file_key,
			      data_key);
	if (dv) {
		rc = api__base64_decode(dv, strlen(dv), data, data_len);
		if (rc == ERR_NOMEM)
			return err_set(e, rc, "%s: out of memory", f->path);
		if (rc)
			return api__kc_err(e, ERR_INVALID, f, api__kc_get(f, m, data_key), field, "%s: invalid base64", data_key);
		if (!strstr(*data, "-----BEGIN ")) {
			free(*data);
			*data = NULL;
			return api__kc_err(e, ERR_INVALID, f, api__kc_get(f, m, data_key), field, "%s: not PEM data (no -----BEGIN line)",
				      data_key);
		}
	}
	if (fv) {
		*file = api__kc_resolve_path(f->dir, fv);
		if (!*file)
			return err_set(e, ERR_NOMEM, "%s: out of memory", f->path);
		if (access(*file, R_OK))
			return api__kc_err(e, ERR_IO, f, api__kc_get(f, m, file_key), field, "%s: %s: %s", file_key, *file,
				      strerror(errno));
	}
	return 0;
}

/* ---------- in-cluster ---------- */

int api_config_in_cluster(struct api_config *out, const char *dir, struct err *e)
{
	int rc = 0;
	struct api_config c = {0};
	char *ns = NULL, *tok = NULL;
	char path[PATH_MAX];
	memset(out, 0, sizeof(*out));
	api__config_defaults(&c);
	if (!dir)
		dir = SA_DIR_DEFAULT;
	const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
	if (!host || !*host || !port || !*port)
		return err_set(e, ERR_INVALID,
			       "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
	size_t n = strlen(host) + strlen(port) + 16;
	if (!(c.server = malloc(n))) {
		rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
		goto out;
	}
	/* net.JoinHostPort: an IPv6 address needs brackets. */
	snprintf(c.server, n, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
	snprintf(path, sizeof(path), "%s/token", dir);
	if ((rc = api__read_file(path, KC_MAX_TOKEN, &tok, NULL, e))) {
		err_prefix(e, "in-cluster configuration: service-account token");
		goto out;
	}
	if (!(c.token_file = strdup(path))) {
		rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/ca.crt", dir);
	if (access(path, R_OK) == 0) {
		if (!(c.ca_file = strdup(path))) {
			rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
			goto out;
		}
	} else {
		/* client-go logs this and verifies against the system's roots. */
		LOG_ERROR("in-cluster configuration: expected a CA in %s: %s", path, strerror(errno));
	}
	const char *pod_ns = getenv("POD_NAMESPACE");
	if (pod_ns && *pod_ns) {
		c.namespace = strdup(pod_ns);
	} else {
		snprintf(path, sizeof(path), "%s/namespace", dir);
		struct err ne = {0};
		if (api__read_file(path, 4096, &ns, NULL, &ne) == 0 && (c.namespace = trim_dup(ns)) && !*c.namespace) {
			free(c.namespace);
			c.namespace = NULL;
		}
		if (!c.namespace)
			c.namespace = strdup("default");
	}
	if (!c.namespace) {
		rc = err_set(e, ERR_NOMEM, "in-cluster configuration: out of memory");
		goto out;
	}
	*out = c;
	memset(&c, 0, sizeof(c));
out:
	if (tok)
		memset(tok, 0, strlen(tok));
	free(tok);
	free(ns);
	api_config_release(&c);
	return rc;
}

