/* Fuzz target for the kubeconfig parser: the input is the kubeconfig file (given to
 * api_config_load_kubeconfig through a memfd, as a path), loaded with its current context. Files it
 * names resolve against /proc/self/fd and are absent. Built as unit_fuzz_apiclient_kubeconfig
 * (replay over tests/fuzz/corpus/apiclient_kubeconfig) and, with libFuzzer, fuzz_apiclient_kubeconfig. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apiclient/api_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("kubeconfig", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		struct api_config c;
		struct err e = { 0 };
		if (api_config_load_kubeconfig(&c, path, NULL, &e) == 0)
			api_config_release(&c);
	}
	close(fd);
	return 0;
}
