/* Replay driver for a libFuzzer target without libFuzzer: feeds whole files to
 * LLVMFuzzerTestOneInput, as libFuzzer does with a corpus, so every build (gcc, valgrind, ASan)
 * runs each target over its seed corpus and a target cannot rot between fuzzing sessions.
 *
 * Usage: unit_fuzz_<target> [FILE|DIR]...  A DIR stands for every regular file in it. Without
 * arguments: the seed corpus the build names (FUZZ_CORPUS_DIR, tests/fuzz/corpus/<target>).
 * Exits 1 when a file cannot be read or nothing was replayed, else 0; a crash is the target's. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds the file at path to the target. Returns 0, or -1 if it cannot be read. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n = -1;
	int rc = -1;
	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto out;
	/* An exact-size heap copy, so ASan and valgrind see any read past the input. */
	if (!(buf = malloc(n ? (size_t)n : 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	rc = 0;
out:
	if (rc < 0)
		perror(path);
	free(buf);
	if (f)
		fclose(f);
	return rc;
}

/* Replays path (a file, or each regular file of a directory); adds the files replayed to *count. */
static int replay_path(const char *path, int *count)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int rc = 0;
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		rc = replay_file(path);
		*count += rc == 0;
		return rc;
	}
	if (!(d = opendir(path))) {
		perror(path);
		return -1;
	}
	while (rc == 0 && (de = readdir(d))) {
		char file[4096];
		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = replay_file(file);
			*count += rc == 0;
		}
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0;
	if (argc < 2)
		return replay_path(FUZZ_CORPUS_DIR, &count) == 0 && count > 0 ? 0 : 1;
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) < 0)
			return 1;
	printf("replayed %d inputs\n", count);
	return count > 0 ? 0 : 1;
}
