// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbolization. Kernel: lookups in a hand-written kallsyms excerpt and its
 * kptr_restrict twin. User: a live PIE (tests/symtest) linked with a shared
 * library (tests/libsymtest.so) prints the runtime addresses of its marker
 * functions; they must resolve while it runs and after it has exited.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksym.h"
#include "usym.h"
#include "fixture.h"

#define NADDR 5		/* lines symtest prints */
enum { A_EXE, A_EXE4, A_LIB, A_LIB4, A_GAP };

/* ---- kernel symbols ---- */

static struct ksyms *ksyms_fixture(const char *name)
{
	struct ksyms *k = NULL;
	int ret = ksyms_load(&k, fixture_path("%s", name));

	ck_assert_msg(ret == 0, "ksyms_load %s: %s", name, strerror(-ret));
	ck_assert_ptr_nonnull(k);
	return k;
}

/* Format @addr and check both the text and the return value. */
static void ksym_expect(const struct ksyms *k, uint64_t addr, const char *want,
			int want_ret)
{
	char buf[128];
	int ret = ksyms_format(k, addr, buf, sizeof(buf));

	ck_assert_msg(ret == want_ret && !strcmp(buf, want),
		      "%#" PRIx64 ": got \"%s\" (%d), want \"%s\" (%d)",
		      addr, buf, ret, want, want_ret);
}

START_TEST(test_ksym_exact)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt");

	ck_assert(!ksyms_restricted(k));
	/* 16 vmlinux + 7 module text addresses; A/R/D/d/b and aliases dropped */
	ck_assert_uint_eq(ksyms_count(k), 25);
	/* _stext, _text and startup_64 share the address: the plain name wins */
	ksym_expect(k, 0xffffffff81000000, "startup_64", 0);
	/* equal rank (two underscores, both global): the first in the file */
	ksym_expect(k, 0xffffffff81f46008, "__ia32_sys_sched_yield", 0);
	ksym_expect(k, 0xffffffff81f3dcd0, "schedule", 0);
	ksym_expect(k, 0xffffffff81f3d2f0, "__schedule", 0);
	ksym_expect(k, 0xffffffff8101a2b0, "arch_cpu_idle_enter", 0);	/* W */
	ksyms_free(k);
}
END_TEST

START_TEST(test_ksym_inside)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt");

	ksym_expect(k, 0xffffffff81f3d400, "__schedule", 0);
	ksym_expect(k, 0xffffffff81f3dcbf, "__schedule", 0);
	ksym_expect(k, 0xffffffff81f3dcc4, "__pfx_schedule", 0);
	ksym_expect(k, 0xffffffff81000080, "secondary_startup_64_no_verify", 0);
	ksym_expect(k, 0xffffffff810c4a7b, "finish_task_switch.isra.0", 0);
	ksym_expect(k, 0xffffffff81f45ac5, "schedule_timeout", 0);
	ksyms_free(k);
}
END_TEST

/* By name (what /proc/<tid>/stack prints), aliases and modules included. */
START_TEST(test_ksym_addr_of)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt"), *r;
	uint64_t a = 0;

	ck_assert_int_eq(ksyms_addr_of(k, "do_nanosleep", NULL, &a), 0);
	ck_assert_uint_eq(a, 0xffffffff81f45860);
	/* a dropped alias still resolves, to the address formatted by its kept name */
	ck_assert_int_eq(ksyms_addr_of(k, "__x64_sys_sched_yield", NULL, &a), 0);
	ck_assert_uint_eq(a, 0xffffffff81f46000);
	ksym_expect(k, a, "__ia32_sys_sched_yield", 0);
	ck_assert_int_eq(ksyms_addr_of(k, "_text", NULL, &a), 0);
	ck_assert_uint_eq(a, 0xffffffff81000000);
	ck_assert_int_eq(ksyms_addr_of(k, "xfs_buf_lock", "xfs", &a), 0);
	ck_assert_uint_eq(a, 0xffffffffc0b02000);
	/* the module given is not the symbol's: the one there is */
	ck_assert_int_eq(ksyms_addr_of(k, "ext4_sync_file", "xfs", &a), 0);
	ck_assert_uint_eq(a, 0xffffffffc0a3d000);
	ck_assert_int_eq(ksyms_addr_of(k, "finish_task_switch.isra.0", NULL, &a), 0);
	ck_assert_uint_eq(a, 0xffffffff810c4a20);
	ck_assert_int_eq(ksyms_addr_of(k, "no_such_function", NULL, &a), -ENOENT);
	/* data symbols are not kept */
	ck_assert_int_eq(ksyms_addr_of(k, "init_task_stack", NULL, &a), -ENOENT);
	ksyms_free(k);
	r = ksyms_fixture("kallsyms_restricted.txt");
	ck_assert_int_eq(ksyms_addr_of(r, "do_nanosleep", NULL, &a), -ENOENT);
	ksyms_free(r);
	ck_assert_int_eq(ksyms_addr_of(NULL, "do_nanosleep", NULL, &a), -ENOENT);
}
END_TEST

START_TEST(test_ksym_proc_stack)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt");
	const char *text = "[<0>] do_nanosleep+0x6e/0x190\n"
			   "[<0>] ext4_sync_file+0x1a/0x2c0 [ext4]\n"
			   "[<0>] not_in_the_table+0x10/0x20\n"
			   "garbage line\n"
			   "[<0>] __x64_sys_sched_yield+0x8/0x40";
	uint64_t fr[8];
	unsigned unknown = 9, n = ksyms_proc_stack(k, text, fr, 8, &unknown);

	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(unknown, 1);
	ck_assert_uint_eq(fr[0], 0xffffffff81f45860 + 0x6e);
	ck_assert_uint_eq(fr[1], 0xffffffffc0a3d000 + 0x1a);
	ck_assert_uint_eq(fr[2], 0xffffffff81f46008);
	ksym_expect(k, fr[0], "do_nanosleep", 0);
	ksym_expect(k, fr[1], "ext4_sync_file [ext4]", 0);
	/* bounded by @max */
	ck_assert_uint_eq(ksyms_proc_stack(k, text, fr, 1, &unknown), 1);
	ck_assert_uint_eq(ksyms_proc_stack(k, "", fr, 8, &unknown), 0);
	ksyms_free(k);

	/* two static functions of one name: the one whose extent holds the offset */
	{
		static const char dup[] = "ffffffff81001000 t show\n"
					  "ffffffff81001010 t next_one\n"
					  "ffffffff81002000 t show\n"
					  "ffffffff81002100 t after\n";
		char big[300];

		ck_assert_int_eq(ksyms_parse(&k, dup, sizeof(dup) - 1), 0);
		ck_assert_uint_eq(ksyms_proc_stack(k, "[<0>] show+0x40/0x100\n", fr, 8, &unknown), 1);
		ck_assert_uint_eq(fr[0], 0xffffffff81002040);
		ck_assert_uint_eq(ksyms_proc_stack(k, "[<0>] show+0x8/0x10\n", fr, 8, &unknown), 1);
		ck_assert_uint_eq(fr[0], 0xffffffff81001008);
		/* a name longer than any kept is counted, not silently dropped */
		memset(big, 'a', sizeof(big));
		memcpy(big, "[<0>] ", 6);
		strcpy(big + 250, "+0x1/0x2\n");
		ck_assert_uint_eq(ksyms_proc_stack(k, big, fr, 8, &unknown), 0);
		ck_assert_uint_eq(unknown, 1);
		ksyms_free(k);
	}
}
END_TEST

START_TEST(test_ksym_module)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt");

	ksym_expect(k, 0xffffffffc0a01000, "ext4_es_free_extent [ext4]", 0);
	ksym_expect(k, 0xffffffffc0a01010, "ext4_es_free_extent [ext4]", 0);
	ksym_expect(k, 0xffffffffc0a01180, "ext4_file_read_iter [ext4]", 0);
	ksym_expect(k, 0xffffffffc0b02150, "xfs_buf_read_map [xfs]", 0);
	/* module data symbols are not kept: the text symbol before covers it */
	ksym_expect(k, 0xffffffffc0b05000, "xfs_buf_read_map [xfs]", 0);
	ksym_expect(k, 0xffffffffc0201040, "ftrace_trampoline [__builtin__ftrace]", 0);
	ksym_expect(k, 0xffffffffc0400010,
		    "bpf_prog_6deef7357e7b4530_sd_fw_ingress [bpf]", 0);
	ksyms_free(k);
}
END_TEST

START_TEST(test_ksym_outside)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt");

	/* before the first symbol; percpu "A" offsets are not text */
	ksym_expect(k, 0xffffffff80ffffff, "0xffffffff80ffffff", -ENOENT);
	ksym_expect(k, 0x1000, "0x1000", -ENOENT);
	ksym_expect(k, 0, "0x0", -ENOENT);
	/* within KSYMS_MAX_SPAN of the last symbol, then beyond it */
	ksym_expect(k, 0xffffffffc0b02100 + KSYMS_MAX_SPAN - 1,
		    "xfs_buf_read_map [xfs]", 0);
	ksym_expect(k, 0xffffffffc0b02100 + KSYMS_MAX_SPAN,
		    "0xffffffffc0c02100", -ENOENT);
	ksym_expect(k, UINT64_MAX, "0xffffffffffffffff", -ENOENT);
	/* between vmlinux and the modules, far from either */
	ksym_expect(k, 0xffffffff90000000, "0xffffffff90000000", -ENOENT);
	ksyms_free(k);
}
END_TEST

START_TEST(test_ksym_restricted)
{
	struct ksyms *k = ksyms_fixture("kallsyms_restricted.txt");

	ck_assert(ksyms_restricted(k));
	ck_assert_uint_eq(ksyms_count(k), 0);
	ksym_expect(k, 0xffffffff81000000, "0xffffffff81000000", -ENOENT);
	ksym_expect(k, 0xffffffffc0a01010, "0xffffffffc0a01010", -ENOENT);
	ksyms_free(k);
}
END_TEST

START_TEST(test_ksym_buffers)
{
	struct ksyms *k = ksyms_fixture("kallsyms.txt");
	char buf[8];

	ck_assert_int_eq(ksyms_format(k, 0xffffffff81000000, buf, 4), 0);
	ck_assert_str_eq(buf, "sta");
	ck_assert_int_eq(ksyms_format(k, 0xffffffffc0a01000, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ext4_es");
	memcpy(buf, "xxxxxxx", 8);
	ck_assert_int_eq(ksyms_format(k, 0xffffffff81000000, buf, 0), 0);
	ck_assert_str_eq(buf, "xxxxxxx");	/* len 0: nothing written */
	ck_assert_int_eq(ksyms_format(NULL, 0x10, buf, sizeof(buf)), -ENOENT);
	ck_assert_str_eq(buf, "0x10");
	ksyms_free(k);
	ksyms_free(NULL);
}
END_TEST

/* Load kallsyms text written to a temporary file. */
static int ksyms_load_text(const char *text, struct ksyms **k)
{
	char path[] = "/tmp/check_sym_kallsyms.XXXXXX";
	int fd = mkstemp(path), ret;
	size_t n = strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	ret = ksyms_load(k, path);
	unlink(path);
	return ret;
}

START_TEST(test_ksym_errors)
{
	struct ksyms *k = (struct ksyms *)&k;

	ck_assert_int_eq(ksyms_load(&k, fixture_path("no-such-kallsyms")), -ENOENT);
	ck_assert_ptr_null(k);
	ck_assert_int_eq(ksyms_load_text("ffffffff81000000 T\n", &k), -EINVAL);
	ck_assert_int_eq(ksyms_load_text("zzzz T foo\n", &k), -EINVAL);
	ck_assert_int_eq(ksyms_load_text("ffffffff81000000 T foo [\n", &k), -EINVAL);
	ck_assert_int_eq(ksyms_load_text("ffffffff81000000 T foo\tbar\n", &k), -EINVAL);
	ck_assert_ptr_null(k);
	/* blank lines and a missing final newline are fine */
	ck_assert_int_eq(ksyms_load_text("\nffffffff81000000 T foo\t[m]", &k), 0);
	ksym_expect(k, 0xffffffff81000001, "foo [m]", 0);
	ksyms_free(k);
	/* an empty file has no usable address either */
	ck_assert_int_eq(ksyms_load_text("", &k), 0);
	ck_assert(ksyms_restricted(k));
	ksyms_free(k);
}
END_TEST

/* One line, read where it lies and left as it was. */
START_TEST(test_ksym_parse_line)
{
	static const char *const bad[] = {
		"ffffffff81000000 T\n", "zzzz T foo\n", "ffffffff81000000 T foo [\n",
		"ffffffff81000000 T foo\tbar\n", "ffffffff81000000 T foo\t[]\n",
		"ffffffff81000000  T foo\n", "ffffffff81000000 1 foo\n", "ffffffff81000000 Tfoo\n",
		"ffffffff81000000 T foo [m\n]\n", "\n", "",
	};
	const char *text = "ffffffff81000010 t name\t[mod] x\nffffffff81000020 T next\n";
	char copy[64];
	struct ksym_line l;
	unsigned i;

	snprintf(copy, sizeof(copy), "%s", text);
	ck_assert_int_eq(ksym_parse_line(copy, &l), 0);
	ck_assert_str_eq(copy, text);
	ck_assert_uint_eq(l.addr, 0xffffffff81000010);
	ck_assert_int_eq(l.type, 't');
	ck_assert_uint_eq(l.name_len, 4);
	ck_assert(!strncmp(l.name, "name", 4));
	ck_assert_uint_eq(l.mod_len, 3);
	ck_assert(!strncmp(l.mod, "mod]", 4));
	/* the next line is one of its own */
	ck_assert_int_eq(ksym_parse_line(strchr(copy, '\n') + 1, &l), 0);
	ck_assert_uint_eq(l.addr, 0xffffffff81000020);
	ck_assert_uint_eq(l.name_len, 4);
	ck_assert_ptr_null(l.mod);
	/* the end of the text, trailing blanks, no newline */
	ck_assert_int_eq(ksym_parse_line("0 A fixed_percpu_data \t", &l), 0);
	ck_assert_uint_eq(l.addr, 0);
	ck_assert_int_eq(l.type, 'A');
	ck_assert_uint_eq(l.name_len, 17);
	ck_assert_ptr_null(l.mod);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(ksym_parse_line(bad[i], &l) == -EINVAL, "accepted \"%s\"", bad[i]);
}
END_TEST

/* The lines a recording keeps for its frames. */
START_TEST(test_ksym_subset)
{
	size_t len, rlen, outlen;
	char *text = fixture_read(fixture_path("kallsyms.txt"), &len);
	char *restricted = fixture_read(fixture_path("kallsyms_restricted.txt"), &rlen);
	/* in schedule (twice), at __x64_sys_sched_yield's alias, in a module */
	const uint64_t frames[] = { 0xffffffff81f3dcd8, 0xffffffff81f3dcd8, 0xffffffff81f46000,
				    0xffffffffc0a01010 };
	enum ksyms_kept kept;
	struct ksyms *k;
	char *out;

	ck_assert_int_eq(ksyms_subset(text, len, frames, 4, false, &out, &outlen, &kept), 0);
	ck_assert_int_eq(kept, KSYMS_KEPT_SUBSET);
	ck_assert_str_eq(out, "ffffffff81f3dcd0 T schedule\n"
			      "ffffffff81f45850 t __pfx_do_nanosleep\n"
			      "ffffffff81f46000 T __ia32_sys_sched_yield\n"
			      "ffffffff81f46040 T __pfx_do_sched_yield\n"
			      "ffffffffc0a01000 t ext4_es_free_extent\t[ext4]\n"
			      "ffffffffc0a01100 T ext4_file_read_iter\t[ext4]\n");
	ck_assert_uint_eq(outlen, strlen(out));
	/* named from the subset as from the whole table */
	ck_assert_int_eq(ksyms_parse(&k, out, outlen), 0);
	ksym_expect(k, frames[0], "schedule", 0);
	ksym_expect(k, frames[2], "__ia32_sys_sched_yield", 0);
	ksym_expect(k, frames[3], "ext4_es_free_extent [ext4]", 0);
	ksyms_free(k);
	free(out);

	ck_assert_int_eq(ksyms_subset(text, len, frames, 0, false, &out, &outlen, &kept), 0);
	ck_assert_int_eq(kept, KSYMS_KEPT_NONE);
	ck_assert_ptr_null(out);
	ck_assert_int_eq(ksyms_subset(text, len, NULL, 0, true, &out, &outlen, &kept), 0);
	ck_assert_int_eq(kept, KSYMS_KEPT_ALL);
	ck_assert_uint_eq(outlen, len);
	ck_assert_mem_eq(out, text, len);
	free(out);
	ck_assert_int_eq(ksyms_subset(restricted, rlen, frames, 4, false, &out, &outlen, &kept),
			 0);
	ck_assert_int_eq(kept, KSYMS_KEPT_RESTRICTED);
	ck_assert_ptr_null(out);
	/* a line that does not parse is left out; a last line gets its newline */
	ck_assert_int_eq(ksyms_subset("ffffffff81000000 T a b\nffffffff81000000 T c", 43, frames,
				      1, false, &out, &outlen, &kept), 0);
	ck_assert_int_eq(kept, KSYMS_KEPT_SUBSET);
	ck_assert_str_eq(out, "ffffffff81000000 T c\n");
	free(out);
	free(restricted);
	free(text);
}
END_TEST

/* ---- user symbols ---- */

struct child {
	pid_t pid;
	int in;			/* its stdin: closing it ends the process */
	uint64_t addr[NADDR];
};

static const char *builddir(void)
{
	const char *b = getenv("builddir");

	return b && *b ? b : ".";
}

/* Start @exe (default $builddir/tests/symtest) and read its addresses. */
static void child_start(struct child *c, const char *exe)
{
	char path[PATH_MAX], libdir[PATH_MAX], line[64], *end;
	int to[2], from[2], i;
	FILE *out;

	snprintf(libdir, sizeof(libdir), "%s/tests", builddir());
	if (!exe) {
		snprintf(path, sizeof(path), "%s/tests/symtest", builddir());
		exe = path;
	}
	ck_assert_msg(access(exe, X_OK) == 0, "%s: %s", exe, strerror(errno));
	/* symtest has an $ORIGIN rpath too; this covers other link setups */
	ck_assert_int_eq(setenv("LD_LIBRARY_PATH", libdir, 1), 0);
	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	/* a second child must not inherit the first one's stdin */
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(fcntl(to[i], F_SETFD, FD_CLOEXEC), 0);
		ck_assert_int_eq(fcntl(from[i], F_SETFD, FD_CLOEXEC), 0);
	}
	c->pid = fork();
	ck_assert_int_ge(c->pid, 0);
	if (c->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = to[1];
	out = fdopen(from[0], "r");
	ck_assert_ptr_nonnull(out);
	for (i = 0; i < NADDR; i++) {
		ck_assert_msg(fgets(line, sizeof(line), out), "%s printed %d lines", exe, i);
		errno = 0;
		c->addr[i] = strtoull(line, &end, 16);
		ck_assert_msg(!errno && end != line && *end == '\n', "bad line: %s", line);
	}
	fclose(out);
}

/* End the child; returns its exit status. */
static int child_stop(struct child *c)
{
	int st;

	close(c->in);
	ck_assert_int_eq(waitpid(c->pid, &st, 0), c->pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void usym_expect(const struct usyms *u, int32_t tgid, uint64_t addr,
			const char *want, int want_ret)
{
	char buf[256];
	int ret = usyms_format(u, tgid, addr, buf, sizeof(buf));

	ck_assert_msg(ret == want_ret && !strcmp(buf, want),
		      "%d:%#" PRIx64 ": got \"%s\" (%d), want \"%s\" (%d)",
		      tgid, addr, buf, ret, want, want_ret);
}

/*
 * What usyms_format must print for an address no symbol covers, worked
 * out independently from the live maps: "<basename>+0x<file offset>".
 */
static void maps_module_off(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	char path[64], line[PATH_MAX + 128];
	uint64_t start, end, pgoff;
	int pos;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		pos = -1;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n",
			   &start, &end, &pgoff, &pos) != 3 || pos < 0)
			continue;
		if (addr < start || addr >= end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line + pos, " (deleted)"))
			*strstr(line + pos, " (deleted)") = '\0';
		snprintf(buf, len, "%s+0x%" PRIx64, strrchr(line + pos, '/') + 1,
			 addr - start + pgoff);
		fclose(f);
		return;
	}
	fclose(f);
	ck_abort_msg("%#" PRIx64 " not mapped in %d", addr, (int)pid);
}

START_TEST(test_usym_pie_and_lib)
{
	struct usyms *u = usyms_new(16);
	struct child c;
	char gap[PATH_MAX];

	ck_assert_ptr_nonnull(u);
	child_start(&c, NULL);
	ck_assert_int_eq(usyms_snapshot(u, c.pid), 0);
	ck_assert_int_eq(usyms_snapshot(u, c.pid), 0);	/* idempotent */
	usym_expect(u, c.pid, c.addr[A_EXE], "symtest_exe_marker", 0);
	usym_expect(u, c.pid, c.addr[A_EXE4], "symtest_exe_marker", 0);
	usym_expect(u, c.pid, c.addr[A_LIB], "symtest_lib_marker", 0);
	usym_expect(u, c.pid, c.addr[A_LIB4], "symtest_lib_marker", 0);
	/* code mapping, but the bytes are an object after a sized function */
	maps_module_off(c.pid, c.addr[A_GAP], gap, sizeof(gap));
	ck_assert_msg(!strncmp(gap, "symtest+0x", 10), "gap: %s", gap);
	usym_expect(u, c.pid, c.addr[A_GAP], gap, -ENOENT);
	/* never mapped (below mmap_min_addr), and a pid never snapshotted */
	usym_expect(u, c.pid, 0x1000, "[unknown]", -ENOENT);
	usym_expect(u, c.pid, 0, "[unknown]", -ENOENT);
	usym_expect(u, c.pid + 1, c.addr[A_EXE], "[unknown]", -ENOENT);

	ck_assert_int_eq(child_stop(&c), 0);
	/* gone now: the snapshot still answers */
	usym_expect(u, c.pid, c.addr[A_EXE], "symtest_exe_marker", 0);
	usym_expect(u, c.pid, c.addr[A_LIB4], "symtest_lib_marker", 0);
	usym_expect(u, c.pid, c.addr[A_GAP], gap, -ENOENT);
	usyms_free(u);
}
END_TEST

START_TEST(test_usym_shared_tables)
{
	struct usyms *u = usyms_new(16);
	struct usyms_stats st1, st2;
	struct child a, b;

	ck_assert_ptr_nonnull(u);
	child_start(&a, NULL);
	child_start(&b, NULL);
	ck_assert_int_eq(usyms_snapshot(u, a.pid), 0);
	usyms_stats(u, &st1);
	ck_assert_int_eq(usyms_snapshot(u, b.pid), 0);
	usyms_stats(u, &st2);
	ck_assert_uint_eq(st1.procs, 1);
	ck_assert_uint_eq(st2.procs, 2);
	/* symtest, libsymtest.so, libc, ld.so at least */
	ck_assert_uint_ge(st1.files_syms, 4);
	ck_assert_uint_eq(st2.files, st1.files);
	ck_assert_uint_eq(st2.syms, st1.syms);
	ck_assert_uint_eq(st2.bytes, st1.bytes);
	ck_assert_uint_le(st2.bytes, USYMS_MAX_BYTES);
	ck_assert_int_eq(child_stop(&a), 0);
	ck_assert_int_eq(child_stop(&b), 0);
	usym_expect(u, a.pid, a.addr[A_LIB], "symtest_lib_marker", 0);
	usym_expect(u, b.pid, b.addr[A_EXE4], "symtest_exe_marker", 0);
	usyms_free(u);
}
END_TEST

static __attribute__((noinline)) int self_marker(int x)
{
	return x * 7 + 1;
}

START_TEST(test_usym_limits)
{
	int (*volatile fn)(int) = self_marker;
	struct usyms *u = usyms_new(1);
	struct child c;

	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(fn(1), 8);
	ck_assert_int_eq(usyms_snapshot(u, 0), -EINVAL);
	ck_assert_int_eq(usyms_snapshot(u, -1), -EINVAL);
	/* above any pid_max */
	ck_assert_int_eq(usyms_snapshot(u, INT32_MAX), -ESRCH);
	/* ourselves: a local symbol of this binary, an exported one of libc */
	ck_assert_int_eq(usyms_snapshot(u, getpid()), 0);
	usym_expect(u, getpid(), (uintptr_t)fn, "self_marker", 0);
	usym_expect(u, getpid(), (uintptr_t)&getpid, "getpid", 0);
	child_start(&c, NULL);
	ck_assert_int_eq(usyms_snapshot(u, c.pid), -ENOSPC);
	ck_assert_int_eq(usyms_snapshot(u, getpid()), 0);
	usym_expect(u, c.pid, c.addr[A_EXE], "[unknown]", -ENOENT);
	ck_assert_int_eq(child_stop(&c), 0);
	usyms_free(u);
	usyms_free(NULL);

	/* no room at all */
	u = usyms_new(0);
	ck_assert_ptr_nonnull(u);
	ck_assert_int_eq(usyms_snapshot(u, getpid()), -ENOSPC);
	usyms_free(u);
}
END_TEST

/* Copy @src to a new executable file next to it; returns its path (static). */
static const char *copy_exe(const char *src)
{
	static char dst[PATH_MAX];
	char buf[65536];
	int in, out;
	ssize_t n;

	snprintf(dst, sizeof(dst), "%s/tests/symtest-del-XXXXXX", builddir());
	out = mkstemp(dst);
	ck_assert_int_ge(out, 0);
	in = open(src, O_RDONLY);
	ck_assert_int_ge(in, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(fchmod(out, 0755), 0);
	close(in);
	ck_assert_int_eq(close(out), 0);
	return dst;
}

START_TEST(test_usym_deleted)
{
	struct usyms *u = usyms_new(4);
	char src[PATH_MAX], buf[256], want[PATH_MAX];
	const char *exe;
	struct child c;
	int ret;

	ck_assert_ptr_nonnull(u);
	snprintf(src, sizeof(src), "%s/tests/symtest", builddir());
	exe = copy_exe(src);
	child_start(&c, exe);
	/* mapped "(deleted)": only /proc/<pid>/map_files can still open it */
	ck_assert_int_eq(unlink(exe), 0);
	ck_assert_int_eq(usyms_snapshot(u, c.pid), 0);
	maps_module_off(c.pid, c.addr[A_EXE], want, sizeof(want));
	ck_assert_ptr_null(strstr(want, "(deleted)"));
	ret = usyms_format(u, c.pid, c.addr[A_EXE], buf, sizeof(buf));
	/* resolves with CAP_SYS_ADMIN (root), else module+0xoff */
	if (ret == 0)
		ck_assert_str_eq(buf, "symtest_exe_marker");
	else
		ck_assert_str_eq(buf, want);
	/* the library is still on disk */
	usym_expect(u, c.pid, c.addr[A_LIB], "symtest_lib_marker", 0);
	ck_assert_int_eq(child_stop(&c), 0);
	ck_assert_int_eq(usyms_format(u, c.pid, c.addr[A_EXE], buf, sizeof(buf)), ret);
	usyms_free(u);
}
END_TEST

static Suite *sym_suite(void)
{
	Suite *s = suite_create("sym");
	TCase *k = tcase_create("ksym");
	TCase *u = tcase_create("usym");

	tcase_add_test(k, test_ksym_exact);
	tcase_add_test(k, test_ksym_inside);
	tcase_add_test(k, test_ksym_module);
	tcase_add_test(k, test_ksym_addr_of);
	tcase_add_test(k, test_ksym_proc_stack);
	tcase_add_test(k, test_ksym_outside);
	tcase_add_test(k, test_ksym_restricted);
	tcase_add_test(k, test_ksym_buffers);
	tcase_add_test(k, test_ksym_errors);
	tcase_add_test(k, test_ksym_parse_line);
	tcase_add_test(k, test_ksym_subset);
	suite_add_tcase(s, k);
	tcase_add_test(u, test_usym_pie_and_lib);
	tcase_add_test(u, test_usym_shared_tables);
	tcase_add_test(u, test_usym_limits);
	tcase_add_test(u, test_usym_deleted);
	tcase_set_timeout(u, 30);
	suite_add_tcase(s, u);
	return s;
}

int main(void)
{
	return check_run(sym_suite());
}
