/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main() for a fuzz target built without libFuzzer (gcc, replay.sh): runs
 * LLVMFuzzerTestOneInput() once per file named on the command line, or
 * per file inside a named directory. A crash or an abort() in the target
 * ends the process; the file being run was printed just before, so the
 * log names the input. Included last by each target, under
 * #ifndef FUZZ_LIBFUZZER (libFuzzer brings its own main()).
 */
#ifndef OFFCPU_FUZZ_STANDALONE_H
#define OFFCPU_FUZZ_STANDALONE_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whole file into a buffer of exactly its size (so ASan sees overreads). */
static int standalone_run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	/* exact size: a copy, since realloc() may keep slack ASan allows */
	nb = malloc(len ? len : 1);
	if (!nb) {
		free(buf);
		return -1;
	}
	if (len)
		memcpy(nb, buf, len);
	free(buf);
	fprintf(stderr, "running: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(nb, len);
	free(nb);
	return 0;
}

static int standalone_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	unsigned runs = 0, errors = 0;
	int i, j, n;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n"
			"Runs the fuzz target once per input file.\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct dirent **ents;
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			errors++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			errors += standalone_run_file(argv[i]) != 0;
			runs++;
			continue;
		}
		n = scandir(argv[i], &ents, standalone_filter, alphasort);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			errors++;
			continue;
		}
		for (j = 0; j < n; j++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
			if (!stat(path, &st) && S_ISREG(st.st_mode)) {
				errors += standalone_run_file(path) != 0;
				runs++;
			}
			free(ents[j]);
		}
		free(ents);
	}
	fprintf(stderr, "%s: %u inputs, %u unreadable\n", argv[0], runs, errors);
	return errors ? 1 : 0;
}

#endif
