// SPDX-License-Identifier: GPL-2.0-or-later
/* cleanup: remove tracefs state that killed runs left behind. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tmount.h"
#include "cli.h"
#include "tfs_caps.h"

struct cleanup {
	const char *dir;
	bool dry;
	unsigned removed, failed;
};

static void remove_one(const char *name, int pid, void *arg)
{
	struct cleanup *c = arg;
	int ret;

	if (c->dry) {
		printf("would remove instances/%s (process %d is gone)\n", name, pid);
		return;
	}
	ret = tfs_remove_stale(c->dir, name);
	if (ret) {
		err_msg("cannot remove %s/instances/%s: %s", c->dir, name, strerror(-ret));
		c->failed++;
		return;
	}
	printf("removed instances/%s (process %d is gone)\n", name, pid);
	c->removed++;
}

static void remove_synth(const char *name, int pid, void *arg)
{
	struct cleanup *c = arg;
	int ret;

	if (c->dry) {
		printf("would remove synthetic event %s (process %d is gone)\n", name, pid);
		return;
	}
	ret = tfs_remove_synth(c->dir, name);
	if (ret) {
		err_msg("cannot remove synthetic event %s: %s%s", name, strerror(-ret),
			ret == -EBUSY ? " (a trigger outside our instances uses it)" : "");
		c->failed++;
		return;
	}
	printf("removed synthetic event %s (process %d is gone)\n", name, pid);
	c->removed++;
}

static const char cleanup_help[] =
"Usage: offcpu-ftrace cleanup [--dry-run] [--tracefs DIR]\n"
"\n"
"Remove what runs killed by SIGKILL (or a crash) left in tracefs: instances\n"
"named offcpu-ftrace.PID whose process is gone, with their triggers, and\n"
"the hist backend's synthetic events named ofr_PID_*. What running\n"
"offcpu-ftrace processes own and everything not named by this tool is\n"
"never touched.\n"
"\n"
"Options:\n"
"  -n, --dry-run          list what would be removed\n"
"      --tracefs DIR      tracefs mount point (default: found in /proc/mounts)\n"
"  -h, --help             this help\n"
"\n"
"Examples:\n"
"  offcpu-ftrace cleanup\n"
"  offcpu-ftrace cleanup --dry-run\n"
"\n"
"Exit status: 0 nothing left behind (or all removed), 1 something could\n"
"not be removed or tracefs is unusable, 2 bad usage.\n";

int cmd_cleanup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "tracefs", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char dir[PATH_MAX], err[256];
	struct cleanup c = { .dir = dir };
	const char *override = NULL;
	bool first;
	int o, n, ns;

	for (first = true; (o = cli_getopt("cleanup", argc, argv, ":nh", opts, first)) != -1;
	     first = false) {
		if (o == CLI_OPT_BAD)
			return EXIT_USAGE;
		switch (o) {
		case 'n':
			c.dry = true;
			break;
		case 'd':
			override = optarg;
			break;
		case 'h':
			fputs(cleanup_help, stdout);
			return EXIT_OK;
		}
	}
	if (optind < argc) {
		usage_err("cleanup", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	/* what killed runs left lives on in tracefs unmounted: mount it to look */
	cli_tracefs_ready(override);
	if (tmount_find(override, dir, sizeof(dir), err, sizeof(err))) {
		err_msg("%s", err);
		return EXIT_FAIL;
	}
	n = tfs_stale_instances(dir, remove_one, &c);
	if (n < 0) {
		err_msg("cannot list %s/instances: %s%s", dir, strerror(-n),
			n == -EACCES ? " (run as root)" : "");
		return EXIT_FAIL;
	}
	/* after the instances: their triggers use the synthetic events */
	ns = tfs_stale_synth(dir, remove_synth, &c);
	if (ns < 0) {
		err_msg("cannot read %s/synthetic_events: %s", dir, strerror(-ns));
		return EXIT_FAIL;
	}
	if (n == 0 && ns == 0)
		printf("nothing to clean up in %s\n", dir);
	return c.failed ? EXIT_FAIL : EXIT_OK;
}
