// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --by cgroup in the host layer: a thread's line of /proc/<tid>/cgroup
 * for each runtime's layout (tests/fixtures/cgroup), the hierarchy picked
 * from /proc/cgroups and the mount table, display names and roll-up, and
 * the per-thread cache fed fixture texts: first sight, moves, gone
 * threads, the id cap, eviction, hostile text.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer.h"
#include "bycgroup.h"
#include "cgcache.h"
#include "cgname.h"
#include "decode.h"
#include "fixture.h"

#define DOCKER1 "bf4339a9cfb4d0e9800dab873b9906458967b4132f639e6fa6271a2f332fb99f"
#define DOCKER2 "39158c67a24d980ff94d86f6d39b8a3896f6a902c22035bda87b67568c385b26"
#define PODB1 "20db2d0d-3567-ddc9-39d6-2892d36878ee"
#define PODB2 "1ce26c36-d76a-be8b-a49d-a88d393839b6"

/* the fixture tests/fixtures/cgroup/@name, NUL-terminated; caller frees */
static char *cg_fixture(const char *name, size_t *len)
{
	return fixture_read(fixture_path("cgroup/%s", name), len);
}

/* cgroup_line_path() of a fixture, then cgroup_name() at @depth */
static int path_of(const char *file, int v1_id, const char *v1_name, char *path, size_t plen)
{
	size_t len;
	char *text = cg_fixture(file, &len);
	int r = cgroup_line_path(text, len, v1_id, v1_name, path, plen);

	free(text);
	return r;
}

static const struct shape {
	const char *file;
	int v1_id;		/* -1: v2 */
	const char *v1_name;
	unsigned depth;
	const char *path;	/* the thread's, whole */
	const char *rolled;	/* NULL: the path */
	const char *name;
} shapes[] = {
	{ "v2-plain.cgroup", -1, NULL, 0, "/system.slice/nginx.service", NULL,
	  "/system.slice/nginx.service" },
	{ "v1-host.cgroup", 1, NULL, 0, "/", NULL, "/" },
	{ "v1-host.cgroup", 4, NULL, 0, "/process_api/faa9c8df1e1f6412364234f32d8b578e", NULL,
	  "/process_api/faa9c8df1e1f6412364234f32d8b578e" },
	{ "v1-host.cgroup", 9, "name=systemd", 0, "/", NULL, "/" },
	{ "v1-host.cgroup", -1, NULL, 0, "/", NULL, "/" },
	{ "docker-v1.cgroup", 2, NULL, 0, "/docker/" DOCKER1, NULL, "bf4339a9cfb4" },
	{ "docker-v1.cgroup", 1, "name=systemd", 0, "/docker/" DOCKER1, NULL, "bf4339a9cfb4" },
	{ "docker-v1.cgroup", 2, NULL, 1, "/docker/" DOCKER1, "/docker", "/docker" },
	{ "docker-v1.cgroup", -1, NULL, 0, "/system.slice/containerd.service", NULL,
	  "/system.slice/containerd.service" },
	{ "docker-v2.cgroup", -1, NULL, 0, "/system.slice/docker-" DOCKER2 ".scope", NULL,
	  "39158c67a24d" },
	{ "docker-v2.cgroup", -1, NULL, 1, "/system.slice/docker-" DOCKER2 ".scope",
	  "/system.slice", "/system.slice" },
	{ "containerd-v2.cgroup", -1, NULL, 0,
	  "/kubepods.slice/kubepods-pod86324fee_6479_f5af_0745_4b4980a2af41.slice/"
	  "cri-containerd-b23cae9ee7d0ff3785e6f02489e96eb145cc68a84c28b3e5c49859884798fe42.scope",
	  NULL, "b23cae9ee7d0" },
	{ "containerd-v2.cgroup", -1, NULL, 2,
	  "/kubepods.slice/kubepods-pod86324fee_6479_f5af_0745_4b4980a2af41.slice/"
	  "cri-containerd-b23cae9ee7d0ff3785e6f02489e96eb145cc68a84c28b3e5c49859884798fe42.scope",
	  "/kubepods.slice/kubepods-pod86324fee_6479_f5af_0745_4b4980a2af41.slice",
	  "pod86324fee-6479-f5af-0745-4b4980a2af41" },
	{ "crio-v2.cgroup", -1, NULL, 0,
	  "/kubepods.slice/kubepods-besteffort.slice/"
	  "kubepods-besteffort-pode0aec78c_73c5_9ceb_0c89_e15b0f55c7d9.slice/"
	  "crio-c64064614423cb790e88b3e5492ff5ccf673b25ae823089f7a60c65cda24d809.scope",
	  NULL, "c64064614423" },
	{ "podman-v2.cgroup", -1, NULL, 0,
	  "/machine.slice/libpod-25f76a05ffcdce773ae95b4e623b0a940c7ae9d6b84ff211c7bf4c78a8f74414.scope",
	  NULL, "25f76a05ffcd" },
	/* podman with the cgroupfs manager (no systemd, v1): no ".scope" */
	{ "podman-v1-cgroupfs.cgroup", 2, NULL, 0,
	  "/libpod_parent/libpod-ce93e5e7807f74f99f313c056b86770c344a516ec1bd975da56cde434af6a98f",
	  NULL, "ce93e5e7807f" },
	{ "podman-rootless-v2.cgroup", -1, NULL, 0,
	  "/user.slice/user-1000.slice/user@1000.service/user.slice/"
	  "libpod-4d24ca3baa36d48763662f5db2846ace60f7c374f19ce292faf8a8c785da3b9b.scope/container",
	  NULL, "4d24ca3baa36/container" },
	{ "kubepods-v1-burstable.cgroup", 2, NULL, 0,
	  "/kubepods/burstable/pod" PODB1
	  "/ef7a30aa80d5096c86058b1794afcf45e223daea5f53eb6713be400f23781534",
	  NULL, "ef7a30aa80d5" },
	{ "kubepods-v1-burstable.cgroup", 2, NULL, 3,
	  "/kubepods/burstable/pod" PODB1
	  "/ef7a30aa80d5096c86058b1794afcf45e223daea5f53eb6713be400f23781534",
	  "/kubepods/burstable/pod" PODB1, "pod" PODB1 },
	{ "kubepods-v1-burstable.cgroup", 2, NULL, 2,
	  "/kubepods/burstable/pod" PODB1
	  "/ef7a30aa80d5096c86058b1794afcf45e223daea5f53eb6713be400f23781534",
	  "/kubepods/burstable", "/kubepods/burstable" },
	{ "kubepods-v1-burstable.cgroup", -1, NULL, 0, "/", NULL, "/" },
	{ "kubepods-v1-besteffort.cgroup", 2, NULL, 0,
	  "/kubepods/besteffort/podce8d0bc1-ad08-2494-d75a-ad859f379e3c/"
	  "36d35f4123556dfd875c246367919aee3079dacf3fa057591671f38a0bd03515",
	  NULL, "36d35f412355" },
	{ "kubepods-v2-burstable.cgroup", -1, NULL, 0,
	  "/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod1ce26c36_d76a_be8b_a49d_a88d393839b6.slice/"
	  "cri-containerd-af1fd1bfecfaa6c229041a147d3288cc97c1bb41686db0a43cfb74e4c6048e3e.scope",
	  NULL, "af1fd1bfecfa" },
	{ "kubepods-v2-burstable.cgroup", -1, NULL, 3,
	  "/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod1ce26c36_d76a_be8b_a49d_a88d393839b6.slice/"
	  "cri-containerd-af1fd1bfecfaa6c229041a147d3288cc97c1bb41686db0a43cfb74e4c6048e3e.scope",
	  "/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod1ce26c36_d76a_be8b_a49d_a88d393839b6.slice", "pod" PODB2 },
	{ "kubepods-v2-burstable.cgroup", -1, NULL, 1,
	  "/kubepods.slice/kubepods-burstable.slice/"
	  "kubepods-burstable-pod1ce26c36_d76a_be8b_a49d_a88d393839b6.slice/"
	  "cri-containerd-af1fd1bfecfaa6c229041a147d3288cc97c1bb41686db0a43cfb74e4c6048e3e.scope",
	  "/kubepods.slice", "/kubepods.slice" },
	{ "kubepods-v2-besteffort.cgroup", -1, NULL, 0,
	  "/kubepods.slice/kubepods-besteffort.slice/"
	  "kubepods-besteffort-podbb57b2cb_a41c_526b_b903_8cb51734f34f.slice/"
	  "cri-containerd-dc907dc0d2a4413e33a75ea15f9e1364cc06ec47ad875e567ea55af8badd1011.scope",
	  NULL, "dc907dc0d2a4" },
	{ "systemd-user-session.cgroup", -1, NULL, 0, "/user.slice/user-1000.slice/session-3.scope",
	  NULL, "/user.slice/user-1000.slice/session-3.scope" },
	{ "systemd-user-session.cgroup", -1, NULL, 2, "/user.slice/user-1000.slice/session-3.scope",
	  "/user.slice/user-1000.slice", "/user.slice/user-1000.slice" },
	{ "systemd-user-app.cgroup", -1, NULL, 0,
	  "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/"
	  "vte-spawn-5f0e4f0c-2f0b-4d7e-9d1e-6c1b2b3a4d5e.scope",
	  NULL, ".../vte-spawn-5f0e4f0c-2f0b-4d7e-9d1e-6c1b2b3a4d5e.scope" },
	{ "systemd-user-app.cgroup", -1, NULL, 4,
	  "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/"
	  "vte-spawn-5f0e4f0c-2f0b-4d7e-9d1e-6c1b2b3a4d5e.scope",
	  "/user.slice/user-1000.slice/user@1000.service/app.slice",
	  "/user.slice/user-1000.slice/user@1000.service/app.slice" },
	{ "forged.cgroup", 2, NULL, 0, "/x", NULL, "/x" },
	{ "long.cgroup", 1, "name=systemd", 0, "/", NULL, "/" },
};

/* Every runtime's layout: the line, the roll-up and the display name. */
START_TEST(test_shapes)
{
	const struct shape *s = &shapes[_i];
	char path[CGROUP_PATH_MAX], rolled[CGROUP_PATH_MAX], name[CGROUP_NAME_MAX];

	ck_assert_msg(path_of(s->file, s->v1_id, s->v1_name, path, sizeof(path)) == 0,
		      "%s (hierarchy %d)", s->file, s->v1_id);
	ck_assert_str_eq(path, s->path);
	cgroup_name(path, s->depth, name, sizeof(name), rolled, sizeof(rolled));
	ck_assert_str_eq(rolled, s->rolled ? s->rolled : s->path);
	ck_assert_str_eq(name, s->name);
	ck_assert_uint_lt(strlen(name), CGROUP_NAME_MAX);
}
END_TEST

/* Texts that are not /proc/<tid>/cgroup, or not for the hierarchy. */
START_TEST(test_line_errors)
{
	static const struct {
		const char *text;
		size_t len;	/* 0: strlen */
		int v1_id, ret;
		const char *path;
	} cases[] = {
		{ "", 0, -1, -ENOENT, NULL },
		{ "1:cpu:/a\n", 0, -1, -ENOENT, NULL },		/* v1 only */
		{ "0::/a\n", 0, 3, -ENOENT, NULL },		/* v2 only */
		{ "0::/a", 0, -1, 0, "/a" },			/* no last newline */
		{ "0::/a:b c\n", 0, -1, 0, "/a:b c" },		/* ':' and ' ' in a name */
		{ "3:cpu:/\n", 0, 3, 0, "/" },
		{ "3::/a\n", 0, 3, -ENOENT, NULL },		/* v1 lists its controllers */
		{ "\n", 0, -1, -EINVAL, NULL },
		{ "0::/a\n\n", 0, -1, -EINVAL, NULL },		/* an empty line */
		{ "0::a\n", 0, -1, -EINVAL, NULL },		/* not absolute */
		{ "0::\n", 0, -1, -EINVAL, NULL },
		{ "0:/a\n", 0, -1, -EINVAL, NULL },
		{ "x:cpu:/a\n", 0, 3, -EINVAL, NULL },
		{ "-1:cpu:/a\n", 0, -1, -EINVAL, NULL },
		{ " 3:cpu:/a\n", 0, 3, -EINVAL, NULL },
		{ "9999999999:cpu:/a\n", 0, 3, -EINVAL, NULL },	/* not an int */
		{ "0::/a\0b\n", 7, -1, -EINVAL, NULL },		/* a NUL */
		{ "0::/a\n0::/b\n", 0, -1, -EINVAL, NULL },	/* forged */
		{ "3:cpu:/a\n3:cpu:/b\n", 0, 3, -EINVAL, NULL },
	};
	char path[64];
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		int r = cgroup_line_path(cases[i].text, len, cases[i].v1_id, NULL, path,
					 sizeof(path));

		ck_assert_msg(r == cases[i].ret, "case %u: %d, not %d", i, r, cases[i].ret);
		ck_assert_str_eq(path, cases[i].path ? cases[i].path : "");
	}
	/* a named hierarchy is matched by its name, whatever the id says */
	ck_assert_int_eq(cgroup_line_path("7:name=foo:/n\n", 14, 99, "name=foo", path, 64), 0);
	ck_assert_str_eq(path, "/n");
	ck_assert_int_eq(cgroup_line_path("7:name=foobar:/n\n", 17, 7, "name=foo", path, 64),
			 -ENOENT);
	/* the files: malformed, forged for v2, and a path longer than PATH_MAX */
	ck_assert_int_eq(path_of("malformed.cgroup", -1, NULL, path, sizeof(path)), -EINVAL);
	ck_assert_int_eq(path_of("forged.cgroup", -1, NULL, path, sizeof(path)), -EINVAL);
	ck_assert_int_eq(path_of("long.cgroup", 2, NULL, path, sizeof(path)), -ENAMETOOLONG);
	{
		char big[CGROUP_PATH_MAX];

		ck_assert_int_eq(path_of("long.cgroup", 2, NULL, big, sizeof(big)),
				 -ENAMETOOLONG);
		ck_assert_str_eq(big, "");
	}
	/* exactly what fits, and a byte more */
	ck_assert_int_eq(cgroup_line_path("0::/abc\n", 8, -1, NULL, path, 5), 0);
	ck_assert_str_eq(path, "/abc");
	ck_assert_int_eq(cgroup_line_path("0::/abcd\n", 9, -1, NULL, path, 5), -ENAMETOOLONG);
	ck_assert_int_eq(cgroup_line_path("0::/\n", 5, -1, NULL, path, 0), -ENAMETOOLONG);
}
END_TEST

/* a pseudo-random number below @n (xorshift32: every bit random, unlike an LCG's low ones) */
static unsigned rnd(unsigned *x, unsigned n)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x % n;
}

#define PICK(x, a) ((a)[rnd(x, sizeof(a) / sizeof((a)[0]))])

/*
 * Made-up text: never a write past the buffer, always a string, an answer
 * it documents (checked per text, asserted once: Check's assertions are
 * slow under valgrind).
 */
START_TEST(test_line_hostile)
{
	/* lines made of fields, good ones mostly, and pieces that break them */
	static const char *const ids[] = { "0", "3", "12", "0", "3", "x", "" };
	static const char *const lists[] = { "", "cpu", "a,cpu", "name=a", "a", "", "" };
	static const char *const paths[] = { "/", "/a", "/bcdefghijklmnopqrstu", "/a:b", "a", "" };
	static const char nul[] = "";	/* a NUL byte in the text */
	static const char *const junk[] = { ":", "\n", "\r", " ", nul, "::", "/" };
	unsigned i, j, x = 12345, bad = 0, first = 0, result[4] = { 0 };
	char text[96], path[16 + 8];

	for (i = 0; i < 50000; i++) {
		unsigned lines = 1 + rnd(&x, 3), l, k;
		int v1_id = (int)rnd(&x, 5) - 1, r;
		size_t len = 0;
		bool ok;

		for (l = 0; l < lines; l++) {
			const char *f[4] = { PICK(&x, ids), PICK(&x, lists), PICK(&x, paths),
					     rnd(&x, 4) ? "" : PICK(&x, junk) };

			for (k = 0; k < 4; k++) {
				size_t n = f[k] == nul ? 1 : strlen(f[k]);

				memcpy(text + len, f[k], n);
				len += n;
				if (k < 2)
					text[len++] = ':';
			}
			text[len++] = '\n';
		}
		memset(path, 'Z', sizeof(path));
		r = cgroup_line_path(text, len, v1_id, rnd(&x, 3) ? NULL : "a", path, 16);
		ok = (r == 0 || r == -ENOENT || r == -EINVAL || r == -ENAMETOOLONG) &&
		     memchr(path, '\0', 16) && (r || path[0] == '/');
		for (j = 16; j < sizeof(path); j++)
			ok = ok && path[j] == 'Z';
		result[r == 0 ? 0 : r == -ENOENT ? 1 : r == -EINVAL ? 2 : 3]++;
		if (!ok && !bad++)
			first = i;
	}
	ck_assert_msg(!bad, "%u bad answers, the first at text %u", bad, first);
	/* each answer given many times: the texts do reach every path */
	for (j = 0; j < 4; j++)
		ck_assert_msg(result[j] > 500, "answer %u: %u times", j, result[j]);
}
END_TEST

/* Roll-up and names at their edges: the root, small buffers, control bytes. */
START_TEST(test_name_edges)
{
	char name[CGROUP_NAME_MAX], rolled[CGROUP_PATH_MAX], small[8];
	char longp[600];
	unsigned i;

	cgroup_name("/", 0, name, sizeof(name), rolled, sizeof(rolled));
	ck_assert_str_eq(rolled, "/");
	ck_assert_str_eq(name, "/");
	cgroup_name("/", 3, name, sizeof(name), rolled, sizeof(rolled));
	ck_assert_str_eq(rolled, "/");
	for (i = 0; i < 5; i++) {
		static const char *const want[] = { "/a/b/c", "/a", "/a/b", "/a/b/c", "/a/b/c" };

		cgroup_name("/a/b/c", i, name, sizeof(name), rolled, sizeof(rolled));
		ck_assert_str_eq(rolled, want[i]);
		ck_assert_str_eq(name, want[i]);
	}
	cgroup_name("//a//b", 1, name, sizeof(name), rolled, sizeof(rolled));
	ck_assert_str_eq(rolled, "//a");
	/* control characters as '?' in the name; the key keeps its bytes */
	cgroup_name("/a\001b\177/\n", 0, name, sizeof(name), rolled, sizeof(rolled));
	ck_assert_str_eq(name, "/a?b?/?");
	ck_assert_str_eq(rolled, "/a\001b\177/\n");
	/* never longer than the buffers */
	cgroup_name("/docker/" DOCKER1, 0, small, sizeof(small), rolled, 5);
	ck_assert_str_eq(small, "bf4339a");
	ck_assert_str_eq(rolled, "/doc");
	cgroup_name("/docker/" DOCKER1, 0, small, 1, rolled, 1);
	ck_assert_str_eq(small, "");
	ck_assert_str_eq(rolled, "");
	cgroup_name("/a/b/c/d/e/f/g/h", 0, small, sizeof(small), NULL, 0);
	ck_assert_str_eq(small, ".../g/h");
	cgroup_name("/abcdefghijklmnop", 0, small, sizeof(small), NULL, 0);
	ck_assert_str_eq(small, "...mnop");
	for (i = 0; i + 1 < sizeof(longp); i++)
		longp[i] = i % 10 ? 'x' : '/';
	longp[sizeof(longp) - 1] = '\0';
	cgroup_name(longp, 0, name, sizeof(name), rolled, sizeof(rolled));
	ck_assert_uint_le(strlen(name), CGROUP_NAME_MAX - 1);
	ck_assert(!strncmp(name, ".../", 4));
	ck_assert_str_eq(rolled, longp);
	/* not a container: 63 or 65 hex digits, capitals, another suffix, another runtime */
	{
		static const char *const plain[] = {
			"/docker/" "bf4339a9cfb4d0e9800dab873b9906458967b4132f639e6fa6271a2f332fb99",
			"/docker/" DOCKER1 "0",
			"/docker/" "BF4339A9CFB4D0E9800DAB873B9906458967B4132F639E6FA6271A2F332FB99F",
			"/docker-" DOCKER1 ".slice",
			"/rkt-" DOCKER1 ".scope",
			"/crio-conmon-" DOCKER1 ".scope",
			"/kubepods-burstable-podzz26c36_d76a_be8b_a49d_a88d393839b6.slice",
			"/kubepods.slice",
			"/pod12",
		};

		for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
			char want[CGROUP_NAME_MAX];

			cgroup_name(plain[i], 0, name, sizeof(name), NULL, 0);
			snprintf(want, sizeof(want), "%s", plain[i]);
			if (strlen(plain[i]) >= sizeof(name))
				ck_assert(!strncmp(name, "...", 3));
			else
				ck_assert_str_eq(name, want);
		}
	}
	/* the deepest container names it: docker in docker */
	cgroup_name("/docker/" DOCKER1 "/docker/" DOCKER2, 0, name, sizeof(name), NULL, 0);
	ck_assert_str_eq(name, "39158c67a24d");
	cgroup_name("/docker/" DOCKER1 "/docker/" DOCKER2, 2, name, sizeof(name), NULL, 0);
	ck_assert_str_eq(name, "bf4339a9cfb4");
	/* the Guaranteed pod's slice (no QoS class) */
	cgroup_name("/kubepods.slice/kubepods-pod1ce26c36_d76a_be8b_a49d_a88d393839b6.slice", 0,
		    name, sizeof(name), NULL, 0);
	ck_assert_str_eq(name, "pod" PODB2);
}
END_TEST

/* the texts of three files, picking a hierarchy as a host with them would */
static int pick(const char *controller, const char *cgroups, const char *mounts,
		const char *self, struct cgroup_hier *h, char *err)
{
	char *c = cgroups ? cg_fixture(cgroups, NULL) : NULL;
	char *m = cg_fixture(mounts, NULL);
	char *s = self ? cg_fixture(self, NULL) : NULL;
	int r;

	err[0] = '\0';
	r = cgroup_hierarchy_pick_text(controller, c, m, s, h, err, 256);
	free(c);
	free(m);
	free(s);
	return r;
}

START_TEST(test_pick)
{
	struct cgroup_hier h;
	char err[256], path[CGROUP_PATH_MAX];

	/* this host: the cpu controller alone on v1 hierarchy 1 */
	ck_assert_int_eq(pick(NULL, "host.proc-cgroups", "host.mounts", "v1-host.cgroup", &h, err), 0);
	ck_assert_int_eq(h.v1_id, 1);
	ck_assert_str_eq(h.v1_name, "");
	ck_assert_str_eq(h.root, "/sys/fs/cgroup/cpu");
	ck_assert_int_eq(pick("memory", "host.proc-cgroups", "host.mounts", "v1-host.cgroup", &h, err), 0);
	ck_assert_int_eq(h.v1_id, 4);
	ck_assert_str_eq(h.root, "/sys/fs/cgroup/memory");
	/* the named hierarchy: its id from /proc/self/cgroup */
	ck_assert_int_eq(pick("systemd", "host.proc-cgroups", "host.mounts", "v1-host.cgroup", &h, err), 0);
	ck_assert_int_eq(h.v1_id, 9);
	ck_assert_str_eq(h.v1_name, "name=systemd");
	ck_assert_str_eq(h.root, "/sys/fs/cgroup/systemd");
	ck_assert_int_eq(pick("name=systemd", "host.proc-cgroups", "host.mounts", "v1-host.cgroup", &h, err), 0);
	ck_assert_int_eq(h.v1_id, 9);
	ck_assert_int_eq(pick("systemd", "host.proc-cgroups", "host.mounts", NULL, &h, err), -ENOENT);
	ck_assert_msg(strstr(err, "not in /proc/self/cgroup"), "%s", err);
	/* a controller on hierarchy 0 (mounted nowhere in v1): the hybrid host's v2 */
	ck_assert_int_eq(pick("net_cls", "host.proc-cgroups", "host.mounts", NULL, &h, err), 0);
	ck_assert_int_eq(h.v1_id, -1);
	ck_assert_str_eq(h.root, "/sys/fs/cgroup/unified");

	/* Ubuntu's v1: cpu and cpuacct co-mounted on hierarchy 2 */
	ck_assert_int_eq(pick("cpu", "v1.proc-cgroups", "v1.mounts", NULL, &h, err), 0);
	ck_assert_int_eq(h.v1_id, 2);
	ck_assert_str_eq(h.root, "/sys/fs/cgroup/cpu,cpuacct");
	ck_assert_int_eq(path_of("docker-v1.cgroup", h.v1_id, h.v1_name, path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/docker/" DOCKER1);
	ck_assert_int_eq(pick("net_prio", "v1.proc-cgroups", "v1.mounts", NULL, &h, err), 0);
	ck_assert_int_eq(h.v1_id, 7);
	ck_assert_str_eq(h.root, "/sys/fs/cgroup/net_cls,net_prio");

	/* v2-only: every controller on hierarchy 0, or no /proc/cgroups at all */
	ck_assert_int_eq(pick("cpu", "v2.proc-cgroups", "v2.mounts", NULL, &h, err), 0);
	ck_assert_int_eq(h.v1_id, -1);
	ck_assert_str_eq(h.root, "/sys/fs/cgroup");
	ck_assert_int_eq(pick(NULL, NULL, "v2.mounts", NULL, &h, err), 0);
	ck_assert_int_eq(h.v1_id, -1);
	ck_assert_int_eq(pick(NULL, NULL, "v2-escaped.mounts", NULL, &h, err), 0);
	ck_assert_str_eq(h.root, "/run/my cgroups\tand\\more");

	/* nothing to key on: each says why */
	ck_assert_int_eq(pick("cpu", "v1.proc-cgroups", "v2-escaped.mounts", NULL, &h, err), -ENOENT);
	ck_assert_msg(strstr(err, "hierarchy of controller cpu (2) is not mounted"), "%s", err);
	ck_assert_int_eq(pick("bogus", "v1.proc-cgroups", "host.proc-cgroups", NULL, &h, err), -ENOENT);
	ck_assert_msg(strstr(err, "no cgroup controller or named hierarchy bogus"), "%s", err);
	ck_assert_int_eq(pick(NULL, NULL, "host.proc-cgroups", NULL, &h, err), -ENOENT);
	ck_assert_msg(strstr(err, "(no /proc/cgroups)"), "%s", err);
	ck_assert_int_eq(cgroup_hierarchy_pick_text("cpu", "cpu\t0\t1\t0\n", "proc /proc proc rw 0 0\n",
						    NULL, &h, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "cpu is disabled"), "%s", err);
	ck_assert_int_eq(cgroup_hierarchy_pick_text("cpu", "cpu\t0\t1\t1\n", "", NULL, &h, err,
						    sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "cpu is in no cgroup v1 hierarchy"), "%s", err);
	ck_assert_int_eq(h.v1_id, -1);
}
END_TEST

/* This host, as it is: the hierarchy picked reads our own line. */
START_TEST(test_pick_live)
{
	struct cgroup_hier h;
	char err[256], path[CGROUP_PATH_MAX];
	size_t len;
	char *self;

	if (cgroup_hierarchy_pick("cpu", &h, err, sizeof(err))) {
		fprintf(stderr, "check_cgroup: no cgroup hierarchy here: %s\n", err);
		ck_assert(err[0]);
		return;
	}
	self = fixture_read("/proc/self/cgroup", &len);
	ck_assert_int_eq(cgroup_line_path(self, len, h.v1_id, h.v1_name, path, sizeof(path)), 0);
	ck_assert_int_eq(path[0], '/');
	free(self);
	ck_assert_int_eq(access(h.root, F_OK), 0);
}
END_TEST

/* A /proc stand-in: each thread's text, the reads it was asked for, its processes. */
static struct fake {
	const char *text[1000];		/* tid < 1000: NULL gone */
	unsigned reads;
	int32_t group[8];		/* the threads of group[0]'s process */
	unsigned ngroup;
	int32_t big_tid;		/* one tid >= 1000 with its own text */
	const char *big_text;
} fake;

static ssize_t fake_read(void *arg, int32_t tid, char *buf, size_t len)
{
	struct fake *f = arg;
	int n;

	f->reads++;
	/* tids from 1000: "/g<tid % 1000>", 1000 distinct cgroups */
	if (f->big_tid && tid == f->big_tid)
		n = snprintf(buf, len, "%s", f->big_text);
	else if (tid >= 1000)
		n = snprintf(buf, len, "0::/g%d\n", tid % 1000);
	else if (f->text[tid])
		n = snprintf(buf, len, "%s", f->text[tid]);
	else
		return -ENOENT;
	return n < (int)len ? n : (ssize_t)len - 1;
}

static int fake_threads(void *arg, int32_t tid, int32_t **tids)
{
	struct fake *f = arg;

	if (!f->ngroup || f->group[0] != tid)
		return -ENOENT;
	*tids = malloc(f->ngroup * sizeof(**tids));
	ck_assert_ptr_nonnull(*tids);
	memcpy(*tids, f->group, f->ngroup * sizeof(**tids));
	return (int)f->ngroup;
}

static const struct cgroup_cache_ops fake_ops = { fake_read, fake_threads, &fake };

static void cache_open(struct cgroup_cache *c, int v1_id, const char *v1_name, unsigned depth,
		       uint32_t max_ids)
{
	struct cgroup_hier h = { .v1_id = v1_id };
	struct cgroup_cache_cfg cfg = { &h, depth, max_ids, &fake_ops, false };

	snprintf(h.v1_name, sizeof(h.v1_name), "%s", v1_name ? v1_name : "");
	memset(&fake, 0, sizeof(fake));
	ck_assert_int_eq(cgroup_cache_init(c, &cfg), 0);
}

START_TEST(test_cache_first_sight)
{
	char *docker = cg_fixture("docker-v2.cgroup", NULL), *plain = cg_fixture("v2-plain.cgroup", NULL);
	char *bad = cg_fixture("forged.cgroup", NULL);
	struct cgroup_cache c;
	int id;

	cache_open(&c, -1, NULL, 0, 0);
	fake.text[100] = docker;
	fake.text[101] = docker;
	fake.text[102] = plain;
	fake.text[104] = bad;
	ck_assert_uint_eq(cgroup_cache_count(&c), 2);
	ck_assert_str_eq(cgroup_cache_path(&c, CGROUP_ID_UNKNOWN), "(unknown)");
	ck_assert_str_eq(cgroup_cache_short(&c, CGROUP_ID_OTHER), "(other)");
	/* first sight reads; the next does not */
	id = cgroup_cache_id(&c, 100);
	ck_assert_int_eq(id, 2);
	ck_assert_str_eq(cgroup_cache_path(&c, id), "/system.slice/docker-" DOCKER2 ".scope");
	ck_assert_str_eq(cgroup_cache_short(&c, id), "39158c67a24d");
	ck_assert_int_eq(cgroup_cache_id(&c, 100), id);
	ck_assert_uint_eq(fake.reads, 1);
	/* another thread in the same cgroup: the same id */
	ck_assert_int_eq(cgroup_cache_id(&c, 101), id);
	ck_assert_int_eq(cgroup_cache_id(&c, 102), 3);
	ck_assert_str_eq(cgroup_cache_short(&c, 3), "/system.slice/nginx.service");
	ck_assert_uint_eq(fake.reads, 3);
	/* gone before its first sight: unknown, once */
	ck_assert_int_eq(cgroup_cache_id(&c, 103), CGROUP_ID_UNKNOWN);
	ck_assert_int_eq(cgroup_cache_id(&c, 103), CGROUP_ID_UNKNOWN);
	ck_assert_uint_eq(c.stats.gone, 1);
	/* a forged text: unknown, counted */
	ck_assert_int_eq(cgroup_cache_id(&c, 104), CGROUP_ID_UNKNOWN);
	ck_assert_uint_eq(c.stats.bad, 1);
	ck_assert_uint_eq(fake.reads, 5);
	/* the idle tasks: "/" without a read; no negative tids */
	id = cgroup_cache_id(&c, 0);
	ck_assert_str_eq(cgroup_cache_path(&c, id), "/");
	ck_assert_int_eq(cgroup_cache_id(&c, 0), id);
	ck_assert_uint_eq(fake.reads, 5);
	ck_assert_int_eq(cgroup_cache_id(&c, -5), -EINVAL);
	/* ids past the last are nobody's */
	ck_assert_ptr_null(cgroup_cache_path(&c, (int)cgroup_cache_count(&c)));
	ck_assert_ptr_null(cgroup_cache_short(&c, -1));
	/* forgotten (it exited): its tid is read again */
	cgroup_cache_forget(&c, 100);
	cgroup_cache_forget(&c, 12345);
	fake.text[100] = plain;
	ck_assert_int_eq(cgroup_cache_id(&c, 100), 3);
	ck_assert_uint_eq(c.stats.reads, 6);
	cgroup_cache_fini(&c);
	cgroup_cache_fini(NULL);
	free(docker);
	free(plain);
	free(bad);
}
END_TEST

START_TEST(test_cache_moves)
{
	struct cgroup_cache c;
	char longp[CGROUP_EVENT_PATH_MAX];
	int a, b;

	cache_open(&c, -1, NULL, 0, 0);
	fake.text[200] = "0::/a\n";
	fake.text[201] = "0::/a\n";
	fake.text[202] = "0::/a\n";
	fake.text[203] = "0::/a\n";
	a = cgroup_cache_id(&c, 200);
	ck_assert_int_eq(cgroup_cache_id(&c, 201), a);
	ck_assert_int_eq(cgroup_cache_id(&c, 202), a);
	ck_assert_uint_eq(fake.reads, 3);
	/* a thread moved: the event's path, no read */
	ck_assert_int_eq(cgroup_cache_move(&c, 201, 0, "/b"), 0);
	b = cgroup_cache_id(&c, 201);
	ck_assert_str_eq(cgroup_cache_path(&c, b), "/b");
	ck_assert_int_eq(cgroup_cache_id(&c, 200), a);
	ck_assert_uint_eq(fake.reads, 3);
	ck_assert_uint_eq(c.stats.moves, 1);
	/* another hierarchy's event (v1 fires one per hierarchy): ignored */
	ck_assert_int_eq(cgroup_cache_move(&c, 200, 3, "/c"), 1);
	ck_assert_int_eq(cgroup_cache_id(&c, 200), a);
	/* the leader moved, maybe with its process: the threads we hold are read again */
	fake.group[0] = 200;
	fake.group[1] = 201;
	fake.group[2] = 202;
	fake.group[3] = 203;
	fake.ngroup = 4;
	fake.text[201] = "0::/c\n";
	fake.text[202] = "0::/c\n";
	ck_assert_int_eq(cgroup_cache_move(&c, 200, 0, "/c"), 0);
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 200)), "/c");
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 201)), "/c");
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 202)), "/c");
	ck_assert_uint_eq(fake.reads, 5);	/* 201, 202; not 200, not unseen 203 */
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 203)), "/a");
	ck_assert_uint_eq(fake.reads, 6);
	/* a thread first seen in its move */
	ck_assert_int_eq(cgroup_cache_move(&c, 300, 0, "/b"), 0);
	ck_assert_int_eq(cgroup_cache_id(&c, 300), b);
	ck_assert_uint_eq(fake.reads, 6);
	/* a path the kernel may have cut (1023 bytes): the thread is read instead */
	memset(longp, 'p', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	fake.text[300] = "0::/real\n";
	ck_assert_int_eq(cgroup_cache_move(&c, 300, 0, longp), 0);
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 300)), "/real");
	ck_assert_uint_eq(c.stats.moves_cut, 1);
	longp[sizeof(longp) - 2] = '\0';	/* 1022 bytes: whole */
	ck_assert_int_eq(cgroup_cache_move(&c, 300, 0, longp), 0);
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 300)), longp);
	/* not a move */
	ck_assert_int_eq(cgroup_cache_move(&c, 0, 0, "/b"), -EINVAL);
	ck_assert_int_eq(cgroup_cache_move(&c, 301, 0, "b"), -EINVAL);
	ck_assert_int_eq(cgroup_cache_move(&c, 301, 0, NULL), -EINVAL);
	cgroup_cache_fini(&c);
}
END_TEST

/*
 * in a cgroup namespace of its own /proc's paths are the namespace's, the
 * events' the hierarchy's: a moved thread is read again instead
 */
START_TEST(test_cache_moves_in_namespace)
{
	struct cgroup_hier h = { .v1_id = -1 };
	struct cgroup_cache_cfg cfg = { &h, 0, 0, &fake_ops, true };
	struct cgroup_cache c;

	memset(&fake, 0, sizeof(fake));
	ck_assert_int_eq(cgroup_cache_init(&c, &cfg), 0);
	fake.text[200] = "0::/job\n";
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 200)), "/job");
	fake.text[200] = "0::/job/step\n";
	/* the event's path is from the host's root: not this namespace's */
	ck_assert_int_eq(cgroup_cache_move(&c, 200, 0, "/kubepods/pod1/ctr/job/step"), 0);
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 200)), "/job/step");
	ck_assert_uint_eq(c.stats.moves_ns, 1);
	ck_assert_uint_eq(c.stats.moves, 0);
	ck_assert_uint_eq(fake.reads, 2);
	cgroup_cache_fini(&c);
}
END_TEST

/* a recording's cgroups: report keys on them; a run's cache is dumped for one */
START_TEST(test_recorded_cgroups)
{
	static const char lines[] = "101 /ci\n102 /system.slice/docker-" DOCKER2 ".scope\n"
				    "not a line\n103 relative\n";
	const char *label, *path;
	struct by_cgroup b, d;
	char err[512], *dump;

	ck_assert_int_eq(by_cgroup_open_recorded(&b, lines, "the v1 hierarchy 1 (cpu) at /x", 0, 0,
						 err, sizeof(err)), 0);
	by_cgroup_names(by_cgroup_id(101, &b), &label, &path, &b);
	ck_assert_str_eq(path, "/ci");
	by_cgroup_names(by_cgroup_id(102, &b), &label, &path, &b);
	ck_assert_str_eq(label, "39158c67a24d");
	ck_assert_int_eq(by_cgroup_id(103, &b), CGROUP_ID_UNKNOWN);	/* not a path */
	ck_assert_int_eq(by_cgroup_id(104, &b), CGROUP_ID_UNKNOWN);	/* not listed */
	ck_assert_ptr_null(by_cgroup_dump(&b));	/* a report records nothing */
	by_cgroup_describe(&b, err, sizeof(err));
	ck_assert_str_eq(err, "the cgroups the recording holds (it was keyed on the v1 hierarchy 1 "
			      "(cpu) at /x)");
	by_cgroup_close(&b);
	/* a run's: every thread the cache holds in a known cgroup */
	memset(&d, 0, sizeof(d));
	cache_open(&d.cache, -1, NULL, 0, 0);
	d.on = true;
	fake.text[200] = "0::/a\n";
	fake.text[201] = "0::/b c\n";
	ck_assert_int_gt(cgroup_cache_id(&d.cache, 200), CGROUP_ID_OTHER);
	ck_assert_int_gt(cgroup_cache_id(&d.cache, 201), CGROUP_ID_OTHER);
	ck_assert_int_eq(cgroup_cache_id(&d.cache, 202), CGROUP_ID_UNKNOWN);	/* gone */
	dump = by_cgroup_dump(&d);
	ck_assert_ptr_nonnull(dump);
	ck_assert_ptr_nonnull(strstr(dump, "200 /a\n"));
	ck_assert_ptr_nonnull(strstr(dump, "201 /b c\n"));
	ck_assert_ptr_null(strstr(dump, "202 "));
	free(dump);
	by_cgroup_close(&d);
}
END_TEST

/* what src/cli/bycgroup.c gives the analyzer, over a cache of fixture texts */
static int an_cgroup_of(int32_t tid, void *arg)
{
	return cgroup_cache_id(arg, tid);
}

static void an_cgroup_names(int id, const char **label, const char **path, void *arg)
{
	*label = cgroup_cache_short(arg, id);
	*path = cgroup_cache_path(arg, id);
}

static void an_cgroup_moved(int32_t pid, int32_t root, const char *path, void *arg)
{
	if (path)
		cgroup_cache_move(arg, pid, root, path);
	else
		cgroup_cache_forget(arg, pid);
}

static void an_sched(struct analyzer *an, uint64_t ts, unsigned type, int32_t pid,
		     int32_t next, int32_t current)
{
	struct sched_event e = { .ts = ts, .cpu = 0, .type = (uint8_t)type, .pid = pid,
				 .next_pid = next, .common_pid = current, .comm = "sleep",
				 .next_comm = "sleep" };

	analyzer_feed(an, &e);
}

/* a wait of thread @tid from @from to @to on CPU 0, which ran the idle task */
static void an_wait(struct analyzer *an, int32_t tid, uint64_t from, uint64_t to)
{
	an_sched(an, from, SEV_WAKEUP, tid, 0, 0);
	an_sched(an, to, SEV_SWITCH, 0, tid, 0);
	an_sched(an, to + 1, SEV_SWITCH, tid, 0, tid);	/* blocks again (prev_state 0: fine here) */
}

static const struct group *an_group(const struct analyzer *an, const char *path)
{
	uint32_t i;

	for (i = 0; i < an->runq.groups.n; i++)
		if (an->runq.groups.v[i]->path && !strcmp(an->runq.groups.v[i]->path, path))
			return an->runq.groups.v[i];
	ck_abort_msg("no group %s", path);
	return NULL;
}

/*
 * The 6.18 host's cgroup_attach_task records (tests/fixtures/kernels/
 * 6.18.44-host/cgroup: one thread moved to -a, -b on the cpu hierarchy 1,
 * to -x on cpuacct's, back to -a), decoded and fed in time order between
 * the thread's waits: each wait counts in the cgroup the thread is in when
 * it ends, the other hierarchy's move changes nothing, no /proc read after
 * the first sight.
 */
START_TEST(test_moves_through_analyzer)
{
	struct sched_event mv[4];
	struct sched_layout l;
	struct page_cursor pc;
	struct cgroup_cache c;
	struct analyzer an;
	struct an_cfg cfg;
	const struct group *g;
	size_t len, n = 0;
	char *raw;
	int32_t tid = 21268;

	fixture_cgroup_layout(&l);
	raw = fixture_read(fixture_path("kernels/6.18.44-host/cgroup/cpu1.trace_pipe_raw"), &len);
	ck_assert_int_eq(page_cursor_init(&pc, &l), 0);
	ck_assert_int_eq(page_cursor_load(&pc, &l, raw, len), 0);
	for (; pc.rec && n < 4; page_cursor_next(&pc), n++)
		ck_assert_uint_eq(decode_record(&l, pc.rec, page_cursor_size(&pc), pc.ts, 1, &mv[n]),
				  SEV_CGROUP_ATTACH);
	ck_assert_uint_eq(n, 4);

	cache_open(&c, 1, "", 0, 0);
	fake.big_tid = tid;
	fake.big_text = "2:cpuacct:/\n1:cpu:/start\n0::/\n";
	memset(&cfg, 0, sizeof(cfg));
	cfg.modes = AN_RUNQ;
	cfg.key = KEY_CGROUP;
	cfg.unit_ns = 1;
	cfg.pid = cfg.tid = -1;
	cfg.off_state_all = true;
	cfg.off_max_ns = UINT64_MAX;
	cfg.max_tasks = 64;
	cfg.max_groups = 16;
	cfg.states.preempt_mask = 0x100;
	cfg.cgroup_of = an_cgroup_of;
	cfg.cgroup_names = an_cgroup_names;
	cfg.cgroup_moved = an_cgroup_moved;
	cfg.group_arg = &c;
	ck_assert_int_eq(analyzer_init(&an, &cfg), 0);

	an_wait(&an, tid, mv[0].ts - 1000, mv[0].ts - 900);	/* 100 in /start */
	analyzer_feed(&an, &mv[0]);				/* -> -a */
	an_wait(&an, tid, mv[0].ts + 10, mv[0].ts + 60);	/* 50 in -a */
	an_wait(&an, tid, mv[1].ts - 30, mv[1].ts - 30);	/* 0 in -a */
	/* a wait the move to -b interrupts: -b's, where it ends */
	an_sched(&an, mv[1].ts - 20, SEV_WAKEUP, tid, 0, 0);
	analyzer_feed(&an, &mv[1]);				/* -> -b */
	an_sched(&an, mv[1].ts + 50, SEV_SWITCH, 0, tid, 0);	/* 70 in -b */
	an_sched(&an, mv[1].ts + 51, SEV_SWITCH, tid, 0, tid);
	analyzer_feed(&an, &mv[2]);				/* cpuacct's: ignored */
	an_wait(&an, tid, mv[2].ts + 5, mv[2].ts + 25);		/* 20 in -b */
	analyzer_feed(&an, &mv[3]);				/* -> -a */
	an_wait(&an, tid, mv[3].ts + 5, mv[3].ts + 15);		/* 10 in -a */

	ck_assert_uint_eq(an.counts.events[SEV_CGROUP_ATTACH], 4);
	g = an_group(&an, "/start");
	ck_assert_uint_eq(g->h.count, 1);
	ck_assert_uint_eq(g->h.sum_ns, 100);
	g = an_group(&an, "/offcpu-fixture-21254-a");
	ck_assert_uint_eq(g->h.count, 3);
	ck_assert_uint_eq(g->h.sum_ns, 60);
	g = an_group(&an, "/offcpu-fixture-21254-b");
	ck_assert_uint_eq(g->h.count, 2);
	ck_assert_uint_eq(g->h.sum_ns, 90);
	ck_assert_uint_eq(an.runq.groups.n, 3);
	ck_assert_uint_eq(c.stats.moves, 3);	/* the cpu hierarchy's */
	ck_assert_uint_eq(fake.reads, 1);	/* the first sight only */
	/* a record whose path did not decode: read again at the next sight */
	mv[0].cg_path = NULL;
	analyzer_feed(&an, &mv[0]);
	an_wait(&an, tid, mv[3].ts + 100, mv[3].ts + 101);
	ck_assert_uint_eq(fake.reads, 2);
	ck_assert_uint_eq(an_group(&an, "/start")->h.count, 2);

	analyzer_fini(&an);
	cgroup_cache_fini(&c);
	page_cursor_fini(&pc);
	free(raw);
	fmt_fini(&l);
}
END_TEST

/* v1: the hierarchy's id filters the events; names and depth apply to moves too. */
START_TEST(test_cache_v1)
{
	char *kube = cg_fixture("kubepods-v1-burstable.cgroup", NULL);
	char *host = cg_fixture("v1-host.cgroup", NULL);
	struct cgroup_cache c;
	int id;

	cache_open(&c, 2, NULL, 0, 0);
	fake.text[10] = kube;
	id = cgroup_cache_id(&c, 10);
	ck_assert_str_eq(cgroup_cache_short(&c, id), "ef7a30aa80d5");
	ck_assert_int_eq(cgroup_cache_move(&c, 10, 0, "/elsewhere"), 1);	/* v2's */
	ck_assert_int_eq(cgroup_cache_move(&c, 10, 2, "/docker/" DOCKER1), 0);
	ck_assert_str_eq(cgroup_cache_short(&c, cgroup_cache_id(&c, 10)), "bf4339a9cfb4");
	cgroup_cache_fini(&c);

	/* --cgroup-depth 3: the pod, from /proc and from an event alike */
	cache_open(&c, 2, NULL, 3, 0);
	fake.text[10] = kube;
	id = cgroup_cache_id(&c, 10);
	ck_assert_str_eq(cgroup_cache_path(&c, id), "/kubepods/burstable/pod" PODB1);
	ck_assert_str_eq(cgroup_cache_short(&c, id), "pod" PODB1);
	ck_assert_int_eq(cgroup_cache_move(&c, 11, 2, "/kubepods/burstable/pod" PODB1 "/"
					   DOCKER2), 0);
	ck_assert_int_eq(cgroup_cache_id(&c, 11), id);
	cgroup_cache_fini(&c);

	/* a named hierarchy, by its name */
	cache_open(&c, 9, "name=systemd", 0, 0);
	fake.text[10] = host;
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, 10)), "/");
	cgroup_cache_fini(&c);
	free(kube);
	free(host);
}
END_TEST

/* Bounded: distinct cgroups past the cap are "(other)", threads past the room are read again. */
START_TEST(test_cache_bounds)
{
	struct cgroup_cache c;
	uint32_t t, wrong = 0;
	int id;

	cache_open(&c, -1, NULL, 0, 3);
	for (t = 1000; t < 1003; t++)
		ck_assert_int_eq(cgroup_cache_id(&c, (int32_t)t), (int)(t - 1000 + 2));
	ck_assert_int_eq(cgroup_cache_id(&c, 1003), CGROUP_ID_OTHER);
	ck_assert_int_eq(cgroup_cache_move(&c, 5, 0, "/new"), 0);
	ck_assert_int_eq(cgroup_cache_id(&c, 5), CGROUP_ID_OTHER);
	ck_assert_int_eq(cgroup_cache_id(&c, 2001), 3);	/* "/g1": known */
	ck_assert_uint_eq(c.stats.overflow, 2);
	ck_assert_uint_eq(cgroup_cache_count(&c), 5);
	cgroup_cache_fini(&c);
	{
		struct cgroup_hier h = { .v1_id = -1 };
		struct cgroup_cache_cfg none = { NULL, 0, 0, &fake_ops, false };
		struct cgroup_cache_cfg huge = { &h, 0, CGROUP_IDS_LIMIT + 1, &fake_ops, false };

		ck_assert_int_eq(cgroup_cache_init(&c, &none), -EINVAL);
		ck_assert_int_eq(cgroup_cache_init(&c, &huge), -EINVAL);
		cgroup_cache_fini(&c);
	}

	/* more threads than the room: each still right, some read twice */
	cache_open(&c, -1, NULL, 1, 0);
	for (t = 1000; t < 1000 + CGROUP_CACHE_THREADS + 4096; t++)
		wrong += cgroup_cache_id(&c, (int32_t)t) < 2;
	ck_assert_uint_eq(wrong, 0);
	ck_assert_uint_gt(c.stats.evicted, 0);
	ck_assert_uint_eq(cgroup_cache_count(&c), 2 + 1000);
	for (t = 1000; t < 1000 + CGROUP_CACHE_THREADS + 4096; t += 7) {
		char want[16];

		id = cgroup_cache_id(&c, (int32_t)t);
		snprintf(want, sizeof(want), "/g%u", t % 1000);
		wrong += !cgroup_cache_path(&c, id) || strcmp(cgroup_cache_path(&c, id), want);
	}
	ck_assert_uint_eq(wrong, 0);
	ck_assert_uint_gt(fake.reads, CGROUP_CACHE_THREADS + 4096);
	cgroup_cache_fini(&c);
}
END_TEST

/* The real /proc: our own thread, and one that does not exist. */
START_TEST(test_cache_proc)
{
	struct cgroup_hier h;
	struct cgroup_cache_cfg cfg = { &h, 0, 0, NULL, false };
	struct cgroup_cache c;
	char err[256], path[CGROUP_PATH_MAX];
	size_t len;
	char *self;
	int id;

	if (cgroup_hierarchy_pick(NULL, &h, err, sizeof(err))) {
		fprintf(stderr, "check_cgroup: no cgroup hierarchy here: %s\n", err);
		return;
	}
	ck_assert_int_eq(cgroup_cache_init(&c, &cfg), 0);
	self = fixture_read("/proc/self/cgroup", &len);
	ck_assert_int_eq(cgroup_line_path(self, len, h.v1_id, h.v1_name, path, sizeof(path)), 0);
	id = cgroup_cache_id(&c, getpid());
	ck_assert_int_ge(id, 2);
	ck_assert_str_eq(cgroup_cache_path(&c, id), path);
	ck_assert_int_eq(cgroup_cache_id(&c, 4194303), CGROUP_ID_UNKNOWN);
	/* our process moved (as an event would say): our other threads, none, are read */
	ck_assert_int_eq(cgroup_cache_move(&c, getpid(), h.v1_id < 0 ? 0 : h.v1_id, "/moved"), 0);
	ck_assert_str_eq(cgroup_cache_path(&c, cgroup_cache_id(&c, getpid())), "/moved");
	ck_assert_uint_eq(c.stats.reads, 2);
	free(self);
	cgroup_cache_fini(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("cgroup");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_shapes, 0, (int)(sizeof(shapes) / sizeof(shapes[0])));
	tcase_add_test(tc, test_line_errors);
	tcase_add_test(tc, test_line_hostile);
	tcase_add_test(tc, test_name_edges);
	tcase_add_test(tc, test_pick);
	tcase_add_test(tc, test_pick_live);
	tcase_add_test(tc, test_cache_first_sight);
	tcase_add_test(tc, test_cache_moves);
	tcase_add_test(tc, test_cache_moves_in_namespace);
	tcase_add_test(tc, test_recorded_cgroups);
	tcase_add_test(tc, test_cache_v1);
	tcase_add_test(tc, test_moves_through_analyzer);
	tcase_add_test(tc, test_cache_bounds);
	tcase_add_test(tc, test_cache_proc);
	suite_add_tcase(s, tc);
	return check_run(s);
}
