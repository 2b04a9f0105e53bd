// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * waits: the /proc parsers on texts recorded on the development host
 * (tests/fixtures/waits, README there), the wait-for graph on made-up
 * graphs (chains, cycles, what is stuck), and one snapshot of a child of
 * this test blocked reading a pipe only this test writes, printed as JSON
 * and read back.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "fixture.h"
#include "jsonread.h"
#include "procfs.h"
#include "waitgraph.h"
#include "waitparse.h"
#include "waits.h"
#include "waitscan.h"

/* a string literal and its length */
#define T(s) s, sizeof(s) - 1

static char *fx(const char *name, size_t *len)
{
	return fixture_read(fixture_path("waits/%s", name), len);
}

START_TEST(test_syscall)
{
	struct wsys s;
	size_t len;
	char *t = fx("syscall_read.txt", &len);

	ck_assert_int_eq(wparse_syscall(t, len, &s), 0);
	ck_assert_int_eq(s.state, WSYS_IN);
	ck_assert_int_eq(s.nr, 0);
	ck_assert_uint_eq(s.arg[0], 0);
	ck_assert_uint_eq(s.arg[1], 0x7f86b79a1000ULL);
	ck_assert_uint_eq(s.arg[2], 0x20000);
	ck_assert_uint_eq(s.arg[4], 0xffffffffULL);
	free(t);
	t = fx("syscall_running.txt", &len);
	ck_assert_int_eq(wparse_syscall(t, len, &s), 0);
	ck_assert_int_eq(s.state, WSYS_RUNNING);
	free(t);
	t = fx("syscall_outside.txt", &len);
	ck_assert_int_eq(wparse_syscall(t, len, &s), 0);
	ck_assert_int_eq(s.state, WSYS_OUTSIDE);
	free(t);
	ck_assert_int_eq(wparse_syscall(T("0 0x1 0x2\n"), &s), -EINVAL);
	ck_assert_int_eq(wparse_syscall(T("x 0x1 0x2 0x3 0x4 0x5 0x6 0 0\n"), &s), -EINVAL);
	ck_assert_int_eq(wparse_syscall("", 0, &s), -EINVAL);
	ck_assert_str_eq(wscan_syscall_name(SYS_read), "read");
	ck_assert_ptr_null(wscan_syscall_name(-5));
}
END_TEST

START_TEST(test_sched)
{
	uint64_t ns, run, pc, delay;
	size_t len;
	char *t = fx("sched.txt", &len);
	const char bad[] = "x (1, #threads: 1)\n---\nse.exec_start                          :       12.34\n";
	const char neg[] = "x (1, #threads: 1)\n---\nse.exec_start : -5.000001\n";
	/* a thread may name itself "\nse.exec_start:": only the lines after the dashes count */
	const char forged[] = "\nse.exec_start: 1.000000 (1, #threads: 1)\n---\n"
			      "se.exec_start : 7.000002\n";

	ck_assert_int_eq(wparse_exec_start(t, len, &ns), 0);
	ck_assert_uint_eq(ns, 2174772957659ULL);
	free(t);
	ck_assert_int_eq(wparse_exec_start(bad, sizeof(bad) - 1, &ns), -EINVAL);
	ck_assert_int_eq(wparse_exec_start(neg, sizeof(neg) - 1, &ns), -EINVAL);
	ck_assert_int_eq(wparse_exec_start(T("x (1, #threads: 1)\n---\npolicy : 0\n"), &ns), -ENOENT);
	ck_assert_int_eq(wparse_exec_start(forged, sizeof(forged) - 1, &ns), 0);
	ck_assert_uint_eq(ns, 7000002);
	t = fx("schedstat.txt", &len);
	/* the one parser of schedstat, procfs.c's */
	ck_assert_int_eq(proc_schedstat_parse(t, len, &run, &delay, &pc), 0);
	ck_assert_uint_eq(run, 7692297);
	ck_assert_uint_eq(pc, 4);
	free(t);
	ck_assert_int_eq(proc_schedstat_parse(T("1 2\n"), &run, &delay, &pc), -EINVAL);
	ck_assert_int_eq(proc_schedstat_parse(T("1 2 3x\n"), &run, &delay, &pc), -EINVAL);
	ck_assert_int_eq(proc_schedstat_parse(T("1 2 3 4\n"), &run, &delay, &pc), -EINVAL);
	ck_assert_int_eq(proc_schedstat_parse(T("10 20 30\n"), &run, &delay, &pc), 0);
	ck_assert_uint_eq(delay, 20);
}
END_TEST

START_TEST(test_status)
{
	/* a name may not forge a line: the kernel escapes its newline in status */
	const char st[] = "Name:\tx\\nNSpid:\t9\nUmask:\t0022\nState:\tS (sleeping)\n"
			  "Tgid:\t4242\nUid:\t1000\t1000\t1000\t1000\n"
			  "NSpid:\t4242\t7\t1\nSigCgt:\t0000000180014a07\n";
	uint64_t v[4];

	ck_assert_int_eq(wparse_status(T(st), "NSpid", 10, v, 4), 3);
	ck_assert_uint_eq(v[0], 4242);
	ck_assert_uint_eq(v[2], 1);
	ck_assert_int_eq(wparse_status(T(st), "NSpid", 10, v, 2), 2);
	ck_assert_int_eq(wparse_status(T(st), "Uid", 10, v, 1), 1);
	ck_assert_uint_eq(v[0], 1000);
	ck_assert_int_eq(wparse_status(T(st), "SigCgt", 16, v, 1), 1);
	ck_assert_uint_eq(v[0], 0x180014a07ULL);
	ck_assert(v[0] & (1ULL << (17 - 1)));	/* SIGCHLD caught */
	ck_assert_int_eq(wparse_status(T(st), "TracerPid", 10, v, 1), -ENOENT);
	/* strict: no "12abc", no empty value */
	ck_assert_int_eq(wparse_status(T("TracerPid:\t12abc\n"), "TracerPid", 10, v, 1), -EINVAL);
	ck_assert_int_eq(wparse_status(T("TracerPid:\t\n"), "TracerPid", 10, v, 1), -EINVAL);
	ck_assert_int_eq(wparse_status(T("TracerPid:\t-1\n"), "TracerPid", 10, v, 1), -EINVAL);
}
END_TEST

START_TEST(test_cpulist)
{
	ck_assert(wparse_cpulist_has(T("2-3,6\n"), 2));
	ck_assert(wparse_cpulist_has(T("2-3,6\n"), 3));
	ck_assert(wparse_cpulist_has(T("2-3,6\n"), 6));
	ck_assert(!wparse_cpulist_has(T("2-3,6\n"), 4));
	ck_assert(!wparse_cpulist_has(T("2-3,6\n"), 0));
	/* nothing isolated: an empty line */
	ck_assert(!wparse_cpulist_has(T("\n"), 0));
	ck_assert(!wparse_cpulist_has("", 0, 0));
	ck_assert(wparse_cpulist_has(T("0"), 0));
	/* a part that is not one says nothing */
	ck_assert(!wparse_cpulist_has(T("x-1,\n"), 1));
	ck_assert(wparse_cpulist_has(T("x,1\n"), 1));
}
END_TEST

START_TEST(test_locks)
{
	struct wlock *v;
	size_t n, len;
	char err[128];
	char *t = fx("locks.txt", &len);
	const char odd[] = "3: OFDLCK ADVISORY  READ  -1 08:01:1234 0 EOF\n"
			   "4: LEASE  ACTIVE    READ  77 <none>:0 0 EOF\n";

	ck_assert_int_eq(wparse_locks(t, len, &v, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(v[0].type, "POSIX");
	ck_assert_str_eq(v[0].mode, "WRITE");
	ck_assert_int_eq(v[0].pid, 18320);
	ck_assert_uint_eq(v[0].major, 0xfe);
	ck_assert_uint_eq(v[0].minor, 0);
	ck_assert_uint_eq(v[0].ino, 10952780);
	ck_assert_uint_eq(v[0].depth, 0);
	ck_assert_uint_eq(v[1].depth, 1);
	ck_assert_int_eq(v[1].pid, 18541);
	ck_assert_int_eq(wlock_blocker(v, n, 1), 0);
	ck_assert_int_eq(wlock_blocker(v, n, 0), -1);
	/* FLOCK: a READ waiter queued behind a WRITE waiter behind the holder */
	ck_assert_str_eq(v[4].type, "FLOCK");
	ck_assert_str_eq(v[4].mode, "READ");
	ck_assert_uint_eq(v[4].depth, 2);
	ck_assert_int_eq(wlock_blocker(v, n, 4), 3);
	ck_assert_int_eq(wlock_blocker(v, n, 3), 2);
	ck_assert_int_eq(v[2].pid, 18275);
	free(v);
	free(t);
	ck_assert_int_eq(wparse_locks(odd, sizeof(odd) - 1, &v, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].pid, -1);
	ck_assert_uint_eq(v[0].major, 8);
	ck_assert_uint_eq(v[0].minor, 1);
	ck_assert_uint_eq(v[1].ino, 0);
	free(v);
	ck_assert_int_eq(wparse_locks(T("1: FLOCK ADVISORY WRITE\n"), &v, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "line 1: not a /proc/locks line");
	ck_assert_ptr_null(v);
}
END_TEST

START_TEST(test_unix)
{
	struct wunix *v;
	size_t n, len, bad;
	char err[128];
	char *t = fx("net_unix.txt", &len);

	ck_assert_int_eq(wparse_unix(t, len, &v, &n, &bad, err, sizeof(err)), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(n, 4);
	/* sorted by inode: 368421 listener, 368422 abstract, 368423/4 the pair */
	ck_assert_uint_eq(v[0].inode, 368421);
	ck_assert(v[0].listening);
	ck_assert_str_eq(v[0].path, "/tmp/wsock");
	ck_assert_uint_eq(v[0].type, SOCK_STREAM);
	ck_assert_str_eq(v[1].path, "@offcpu test abstract");
	ck_assert(!v[2].listening);
	ck_assert_uint_eq(v[2].state, 3);
	ck_assert_str_eq(v[2].path, "");
	free(v);
	free(t);
	/* a path with a newline forging a listener for the pair's inode 368423 */
	ck_assert_int_eq(wparse_unix(T("Num RefCount Protocol Flags Type St Inode Path\n"
				       "0000000000000001: 00000002 00000000 00010000 0001 01 9 /a\n"
				       "0000000000000002: 00000002 00000000 00010000 0001 01 368423 /x\n"
				       "0000000000000003: 00000003 00000000 00000000 0001 03 368423\n"),
				     &v, &n, &bad, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(v[0].inode, 9);
	free(v);
	/*
	 * a path any user may bind, "/tmp/rv-x\nnot a line", writes a line
	 * that is not one: skipped and counted, the rest of the table kept
	 */
	ck_assert_int_eq(wparse_unix(T("Num RefCount Protocol Flags Type St Inode Path\n"
				       "0000000000000001: 00000002 00000000 00010000 0001 01 9 /a\n"
				       "0000000000000002: 00000002 00000000 00010000 0001 01 10 /tmp/rv-x\n"
				       "not a line\n"
				       "0000000000000003: 00000003 00000000 00000000 0001 03 11\n"),
				     &v, &n, &bad, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(bad, 1);
	ck_assert_str_eq(err, "line 4: not a /proc/net/unix line");
	ck_assert_uint_eq(v[2].inode, 11);
	ck_assert_str_eq(v[1].path, "/tmp/rv-x");
	free(v);
	ck_assert_int_eq(wparse_unix(T("Num\nzz: 1\n"), &v, &n, &bad, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(bad, 1);
	free(v);
}
END_TEST

START_TEST(test_tcp)
{
	struct wtcp *v, *v6;
	size_t n, n6, len;
	char err[128], a[64];
	char *t = fx("net_tcp.txt", &len);

	ck_assert_int_eq(wparse_tcp(t, len, false, &v, &n, err, sizeof(err)), 0);
	free(t);
	ck_assert_uint_eq(n, 5);
	/* the listener: backlog 0 (tx_queue), one connection queued (rx_queue) */
	ck_assert_uint_eq(v[0].state, 10);
	ck_assert_str_eq(wtcp_state_name(v[0].state), "LISTEN");
	ck_assert_uint_eq(v[0].txq, 0);
	ck_assert_uint_eq(v[0].rxq, 1);
	ck_assert_uint_eq(v[0].inode, 368426);
	wtcp_addr(&v[0], false, a, sizeof(a));
	ck_assert_str_eq(a, "127.0.0.1:54665");
	/* a client the full queue keeps in SYN-SENT */
	ck_assert_str_eq(wtcp_state_name(v[3].state), "SYN-SENT");
	ck_assert_uint_eq(v[3].txq, 1);
	wtcp_addr(&v[3], true, a, sizeof(a));
	ck_assert_str_eq(a, "127.0.0.1:54665");
	ck_assert(wtcp_listens_for(&v[0], &v[3]));
	ck_assert(!wtcp_listens_for(&v[2], &v[3]));
	/* the established pair: each the other's peer, the listener nobody's */
	ck_assert(wtcp_is_peer(&v[1], &v[2]));
	ck_assert(wtcp_is_peer(&v[2], &v[1]));
	ck_assert(!wtcp_is_peer(&v[2], &v[0]));
	ck_assert(!wtcp_is_peer(&v[3], &v[1]));
	t = fx("net_tcp6.txt", &len);
	ck_assert_int_eq(wparse_tcp(t, len, true, &v6, &n6, err, sizeof(err)), 0);
	free(t);
	ck_assert_uint_eq(n6, 3);
	wtcp_addr(&v6[0], false, a, sizeof(a));
	ck_assert_str_eq(a, "[::1]:40869");
	ck_assert(wtcp_is_peer(&v6[1], &v6[2]));
	ck_assert(wtcp_listens_for(&v6[0], &v6[2]));
	/* an IPv4 client is not the IPv6 loopback listener's */
	ck_assert(!wtcp_listens_for(&v6[0], &v[3]));
	/* [::] takes IPv4 clients, 0.0.0.0 takes no IPv6 one */
	memset(v6[0].laddr, 0, 16);
	v6[0].lport = v[3].rport;
	ck_assert(wtcp_listens_for(&v6[0], &v[3]));
	memset(v[0].laddr, 0, 4);
	v[0].lport = v6[2].rport;
	ck_assert(!wtcp_listens_for(&v[0], &v6[2]));
	free(v);
	free(v6);
	ck_assert_int_eq(wparse_tcp(T("sl\n 0: 0100007F:D589\n"), false, &v, &n, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "line 2: not a /proc/net/tcp line");
}
END_TEST

START_TEST(test_fdinfo_mountinfo)
{
	unsigned ev[4];
	int fds[4];
	size_t len;
	struct wfdinfo fi;
	struct wmount m;
	char *t = fx("fdinfo_pipe.txt", &len);

	ck_assert_int_eq(wparse_fdinfo(t, len, &fi), 0);
	ck_assert(fi.have_flags && fi.have_mnt && fi.have_ino);
	ck_assert_uint_eq(fi.flags, 0);
	ck_assert_int_eq(fi.mnt_id, 16);
	ck_assert_uint_eq(fi.ino, 369779);
	free(t);
	/* 5.10 has no "ino:" line; a write end's flags */
	ck_assert_int_eq(wparse_fdinfo(T("pos:\t0\nflags:\t0100001\nmnt_id:\t26\n"), &fi), 0);
	ck_assert(fi.have_flags && fi.have_mnt && !fi.have_ino);
	ck_assert_uint_eq(fi.flags, 0100001);
	ck_assert_int_eq(wparse_fdinfo(T("flags:\t09\n"), &fi), -EINVAL);
	t = fx("fdinfo_epoll.txt", &len);
	ck_assert_uint_eq(wparse_fdinfo_tfds(t, len, fds, ev, 4), 2);
	ck_assert_int_eq(fds[0], 3);
	ck_assert_uint_eq(ev[0], 0x19);
	ck_assert_int_eq(fds[1], 6);
	ck_assert_uint_eq(ev[1], 0x1c);
	ck_assert_uint_eq(wparse_fdinfo_tfds(t, len, fds, ev, 1), 2);	/* counted past max */
	free(t);
	t = fx("mountinfo.txt", &len);
	ck_assert_int_eq(wparse_mountinfo(t, len, 22, &m), 0);
	ck_assert_str_eq(m.fstype, "sysfs");
	ck_assert_str_eq(m.source, "sysfs");
	ck_assert_str_eq(m.point, "/sys");
	ck_assert_uint_eq(m.major, 0);
	ck_assert_uint_eq(m.minor, 21);
	ck_assert_int_eq(wparse_mountinfo(t, len, 23, &m), 0);
	ck_assert_str_eq(m.point, "/dev");
	ck_assert_int_eq(wparse_mountinfo(t, len, 99, &m), -ENOENT);
	free(t);
}
END_TEST

START_TEST(test_auxv_frames)
{
	/* AT_PAGESZ 4096, AT_ENTRY ..., AT_NULL: as 64- and as 32-bit pairs */
	uint64_t a64[] = { 6, 4096, 9, 0x401000, 0, 0 };
	uint32_t a32[] = { 32, 0xf7f00000u, 6, 4096, 9, 0x8049000u, 0, 0 };
	uint64_t junk[] = { 0x123456789ULL, 1, 0, 0 };

	ck_assert_int_eq(wparse_auxv_bits(a64, sizeof(a64)), 64);
	ck_assert_int_eq(wparse_auxv_bits(a32, sizeof(a32)), 32);
	ck_assert_int_eq(wparse_auxv_bits(junk, sizeof(junk)), 0);
	ck_assert_int_eq(wparse_auxv_bits(a64, 8), 0);	/* no AT_NULL */
	/* a page fault or an rwsem may hold the memory map lock; a frozen fs does not */
	ck_assert(wparse_frames_mm("folio_wait_bit <- filemap_fault <- __do_fault"));
	ck_assert(wparse_frames_mm("rwsem_down_write_slowpath <- vm_mmap_pgoff"));
	ck_assert(!wparse_frames_mm("percpu_rwsem_wait <- mnt_want_write <- path_openat"));
	ck_assert(!wparse_frames_mm("io_schedule <- folio_wait_bit <- ext4_file_write_iter"));
}
END_TEST

START_TEST(test_classes)
{
	char frames[256];
	size_t len;
	char *t = fx("stack_frozen.txt", &len);
	const char nfs_fault[] = "[<0>] folio_wait_bit_common+0x1/0x2\n"
				 "[<0>] nfs_read_folio+0x1/0x2 [nfs]\n"
				 "[<0>] filemap_fault+0x1/0x2\n";
	const char fault_io[] = "[<0>] io_schedule+0x1/0x2\n[<0>] folio_wait_bit+0x1/0x2\n"
				"[<0>] filemap_fault+0x1/0x2\n[<0>] exc_page_fault+0x1/0x2\n";

	ck_assert_int_eq(wparse_stack_class(t, len, frames, sizeof(frames), 3), WC_FROZEN);
	ck_assert_str_eq(frames, "percpu_rwsem_wait <- mnt_want_write <- path_openat");
	ck_assert_int_eq(wparse_stack_class(t, len, frames, sizeof(frames), 20), WC_FROZEN);
	ck_assert_ptr_null(strstr(frames, "do_syscall_64"));	/* the entry is left out */
	free(t);
	/* a write to a frozen fs: sb_start_write inlined, only the percpu rwsem shows */
	t = fx("stack_frozen_write.txt", &len);
	ck_assert_int_eq(wparse_stack_class(t, len, frames, sizeof(frames), 8), WC_FROZEN);
	ck_assert_str_eq(frames, "percpu_rwsem_wait <- vfs_write <- ksys_write");
	free(t);
	ck_assert_int_eq(wparse_stack_class(T("[<0>] percpu_rwsem_wait+0x1/0x2\n"
					      "[<0>] cgroup_threadgroup_change_begin+0x1/0x2\n"),
					    NULL, 0, 0), WC_KLOCK);
	t = fx("stack_pipe.txt", &len);
	ck_assert_int_eq(wparse_stack_class(t, len, NULL, 0, 0), WC_PIPE_READ);
	free(t);
	ck_assert_int_eq(wparse_stack_class(nfs_fault, sizeof(nfs_fault) - 1, NULL, 0, 0), WC_NFS);
	ck_assert_int_eq(wparse_stack_class(fault_io, sizeof(fault_io) - 1, NULL, 0, 0), WC_FAULT);
	ck_assert_int_eq(wparse_stack_class("", 0, frames, sizeof(frames), 4), WC_NONE);
	ck_assert_str_eq(frames, "");
	ck_assert_int_eq(wparse_class(T("anon_pipe_write")), WC_PIPE_WRITE);
	ck_assert_int_eq(wparse_class(T("do_wait")), WC_CHILD);
	ck_assert_int_eq(wparse_class(T("futex_wait_queue")), WC_FUTEX);
	ck_assert_int_eq(wparse_class(T("locks_lock_inode_wait")), WC_FLOCK);
	ck_assert_int_eq(wparse_class(T("inet_csk_accept")), WC_ACCEPT);
	ck_assert_int_eq(wparse_class(T("do_waitx")), WC_NONE);	/* names, not prefixes */
	ck_assert_int_eq(wparse_class(T("wait_woken")), WC_NONE);
}
END_TEST

/* a graph of threads given as "pid tid blocked" and edges "from pid tid" */
struct gspec {
	int32_t pid, tid;
	bool blocked;
};

static struct wgraph *graph(const struct gspec *n, size_t nn, const int32_t (*e)[3], size_t ne)
{
	struct wgraph *g = wgraph_new();
	size_t i;

	ck_assert_ptr_nonnull(g);
	for (i = 0; i < nn; i++)
		ck_assert_int_eq(wgraph_node(g, n[i].pid, n[i].tid, n[i].blocked), (long)i);
	for (i = 0; i < ne; i++)
		ck_assert_int_eq(wgraph_edge(g, (size_t)e[i][0], e[i][1], e[i][2]), 0);
	ck_assert_int_eq(wgraph_solve(g), 0);
	return g;
}

static char chains[512];

static void chain_cb(const size_t *path, size_t len, enum wchain_end end, void *arg)
{
	const struct wgraph *g = arg;
	size_t k, n = strlen(chains);

	for (k = 0; k < len; k++)
		n += (size_t)snprintf(chains + n, sizeof(chains) - n, "%s%d", k ? ">" : "",
				      wgraph_tid(g, path[k]));
	snprintf(chains + n, sizeof(chains) - n, "%s;", end == WCHAIN_LOOP ? "!" :
		 end == WCHAIN_JOIN ? "+" : "");
}

static const char *all_chains(const struct wgraph *g, size_t max)
{
	chains[0] = '\0';
	wgraph_chains(g, max, 16, chain_cb, (void *)g);
	return chains;
}

START_TEST(test_graph_chain)
{
	/* make 1 waits on cc1 2, which waits on as 3: asleep, waiting on nothing known */
	static const struct gspec n[] = { { 1, 1, true }, { 2, 2, true }, { 3, 3, true } };
	static const int32_t e[][3] = { { 0, 2, 0 }, { 1, 3, 0 } };
	struct wgraph *g = graph(n, 3, e, 2);

	ck_assert_uint_eq(wgraph_ncycles(g), 0);
	ck_assert(!wgraph_stuck(g, 0) && !wgraph_stuck(g, 1) && !wgraph_stuck(g, 2));
	ck_assert_str_eq(all_chains(g, 10), "1>2>3;");
	ck_assert(wgraph_waited_on(g, 1));
	ck_assert(!wgraph_waited_on(g, 0));
	ck_assert_int_eq(wgraph_find(g, 2, 0), 1);
	ck_assert_int_eq(wgraph_find(g, 0, 3), 2);
	ck_assert_int_eq(wgraph_find(g, 9, 0), -1);
	wgraph_free(g);
}
END_TEST

START_TEST(test_graph_cycle)
{
	/* 10 and 11 read pipes only the other writes; 12 waits on 10 */
	static const struct gspec n[] = { { 10, 10, true }, { 11, 11, true }, { 12, 12, true } };
	static const int32_t e[][3] = { { 0, 11, 0 }, { 1, 10, 0 }, { 2, 10, 0 } };
	struct wgraph *g = graph(n, 3, e, 3);
	const size_t *c;
	size_t len;

	ck_assert_uint_eq(wgraph_ncycles(g), 1);
	c = wgraph_cycle(g, 0, &len);
	ck_assert_uint_eq(len, 2);
	ck_assert_int_eq(wgraph_pid(g, c[0]) + wgraph_pid(g, c[1]), 21);
	ck_assert(wgraph_stuck(g, 0) && wgraph_stuck(g, 1));
	ck_assert(wgraph_stuck(g, 2));	/* behind the deadlock, not in it */
	ck_assert_str_eq(all_chains(g, 10), "12>10>11>10!;");
	wgraph_free(g);
}
END_TEST

START_TEST(test_graph_not_stuck)
{
	/* as above, but 11 has a thread on a CPU: it may write */
	static const struct gspec n[] = { { 10, 10, true }, { 11, 11, true }, { 11, 13, false } };
	static const int32_t e[][3] = { { 0, 11, 0 }, { 1, 10, 0 } };
	/* 20 waits on 21 or 22 (a poll); 21 waits on 20; 22 sleeps on a timer */
	static const struct gspec n2[] = { { 20, 20, true }, { 21, 21, true }, { 22, 22, true } };
	static const int32_t e2[][3] = { { 0, 21, 0 }, { 0, 22, 0 }, { 1, 20, 0 } };
	/* 30 waits on 31, which is not in the graph (gone, or hidden) */
	static const struct gspec n3[] = { { 30, 30, true } };
	static const int32_t e3[][3] = { { 0, 31, 0 } };
	struct wgraph *g = graph(n, 3, e, 2);

	ck_assert_uint_eq(wgraph_ncycles(g), 0);
	ck_assert(!wgraph_stuck(g, 0) && !wgraph_stuck(g, 1));
	/* process 11's chain goes to its running thread and ends there */
	ck_assert_int_eq(wgraph_find(g, 11, 0), 2);
	ck_assert_str_eq(all_chains(g, 10), "11>10>13;");
	wgraph_free(g);
	g = graph(n2, 3, e2, 3);
	ck_assert_uint_eq(wgraph_ncycles(g), 0);
	ck_assert(!wgraph_stuck(g, 0) && !wgraph_stuck(g, 1));
	wgraph_free(g);
	g = graph(n3, 1, e3, 1);
	ck_assert(!wgraph_stuck(g, 0));
	ck_assert_str_eq(all_chains(g, 10), "");
	wgraph_free(g);
}
END_TEST

START_TEST(test_graph_threads)
{
	/*
	 * Process 40: thread 41 holds mutex a and wants b, 42 holds b and
	 * wants a (futex owners: threads); 40 joins 41. Process 50 reads a
	 * pipe only it writes itself: a self-pipe, which its own signal
	 * handler (or another thread) writes: not stuck.
	 */
	static const struct gspec n[] = {
		{ 40, 40, true }, { 40, 41, true }, { 40, 42, true }, { 50, 50, true },
	};
	static const int32_t e[][3] = { { 1, 40, 42 }, { 2, 40, 41 }, { 0, 40, 41 }, { 3, 50, 0 } };
	struct wgraph *g = graph(n, 4, e, 4);
	const size_t *c;
	size_t len, k, nc = wgraph_ncycles(g);
	bool self = false, pair = false;

	ck_assert_uint_eq(nc, 1);
	for (k = 0; k < nc; k++) {
		c = wgraph_cycle(g, k, &len);
		self |= len == 1 && wgraph_tid(g, c[0]) == 50;
		pair |= len == 2 && wgraph_tid(g, c[0]) + wgraph_tid(g, c[1]) == 83;
	}
	ck_assert(!self && pair);
	ck_assert(wgraph_stuck(g, 0));	/* 40 joins a deadlocked thread */
	ck_assert(!wgraph_stuck(g, 3));
	/* its chain still shows it waits on itself */
	ck_assert_ptr_nonnull(strstr(all_chains(g, 10), "50>50!;"));
	wgraph_free(g);
}
END_TEST

START_TEST(test_graph_wakes)
{
	/*
	 * 10 and 11 read pipes only the other writes, but 11 also polls a
	 * listening socket (or has a timeout, or a signal its pselect6 lets
	 * through): it may wake, so neither is stuck, and no cycle is named;
	 * 12, waiting on 10, is not stuck either. The chains still show it.
	 */
	static const struct gspec n[] = { { 10, 10, true }, { 11, 11, true }, { 12, 12, true } };
	static const int32_t e[][3] = { { 0, 11, 0 }, { 1, 10, 0 }, { 2, 10, 0 } };
	/* make 20 waits for its child make 21, which reads the jobserver pipe both write */
	static const struct gspec m[] = { { 20, 20, true }, { 21, 21, true } };
	static const int32_t f[][3] = { { 0, 21, 0 }, { 1, 20, 0 }, { 1, 21, 0 } };
	struct wgraph *g = wgraph_new();
	size_t i;

	ck_assert_ptr_nonnull(g);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(wgraph_node(g, n[i].pid, n[i].tid, n[i].blocked), (long)i);
	wgraph_wakes(g, 1);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(wgraph_edge(g, (size_t)e[i][0], e[i][1], e[i][2]), 0);
	ck_assert_int_eq(wgraph_solve(g), 0);
	ck_assert_uint_eq(wgraph_ncycles(g), 0);
	ck_assert(!wgraph_stuck(g, 0) && !wgraph_stuck(g, 1) && !wgraph_stuck(g, 2));
	ck_assert_str_eq(all_chains(g, 10), "12>10>11>10!;");
	wgraph_free(g);
	/* the self edge alone frees 21, and 20 with it: no cycle, yet the ring is shown */
	g = graph(m, 2, f, 3);
	ck_assert_uint_eq(wgraph_ncycles(g), 0);
	ck_assert(!wgraph_stuck(g, 0) && !wgraph_stuck(g, 1));
	ck_assert_str_eq(all_chains(g, 10), "20>21>20!;20>21>21!;");
	wgraph_free(g);
}
END_TEST

START_TEST(test_graph_join)
{
	/*
	 * 1 waits on 2 and 3, both on 4, which waits on 5: 4 is expanded
	 * once; the second way into it ends there (the rest shown). And 10
	 * waits on 11..14, each of which waits on all the others (children
	 * that inherited every descriptor): one chain per edge, not one per
	 * path (there are 4! of those).
	 */
	static const struct gspec n[] = {
		{ 1, 1, true }, { 2, 2, true }, { 3, 3, true }, { 4, 4, true }, { 5, 5, true },
	};
	static const int32_t e[][3] = { { 0, 2, 0 }, { 0, 3, 0 }, { 1, 4, 0 }, { 2, 4, 0 },
					{ 3, 5, 0 } };
	struct gspec m[5];
	int32_t f[4 + 12][3];
	struct wgraph *g = graph(n, 5, e, 5);
	size_t i, j, k = 0;

	ck_assert_str_eq(all_chains(g, 10), "1>2>4>5;1>3>4+;");
	wgraph_free(g);
	for (i = 0; i < 5; i++)
		m[i] = (struct gspec){ (int32_t)i + 10, (int32_t)i + 10, true };
	for (i = 1; i < 5; i++) {
		f[k][0] = 0;
		f[k][1] = (int32_t)i + 10;
		f[k++][2] = 0;
		for (j = 1; j < 5; j++)
			if (j != i) {
				f[k][0] = (int32_t)i;
				f[k][1] = (int32_t)j + 10;
				f[k++][2] = 0;
			}
	}
	g = graph(m, 5, (const int32_t (*)[3])f, k);
	ck_assert_uint_le(wgraph_chains(g, 1000, 16, chain_cb, g), k);
	/* 11..14 wait only on each other: stuck, one knot, one cycle entry */
	ck_assert_uint_eq(wgraph_ncycles(g), 1);
	wgraph_free(g);
}
END_TEST

START_TEST(test_graph_bounds)
{
	/* 1 waits on 2..9, each a leaf: 8 chains, the walk stops after 3 */
	struct gspec n[9];
	int32_t e[8][3];
	struct wgraph *g;
	size_t i;

	for (i = 0; i < 9; i++)
		n[i] = (struct gspec){ (int32_t)i + 1, (int32_t)i + 1, true };
	for (i = 0; i < 8; i++) {
		e[i][0] = 0;
		e[i][1] = (int32_t)i + 2;
		e[i][2] = 0;
	}
	g = graph(n, 9, (const int32_t (*)[3])e, 8);
	chains[0] = '\0';
	ck_assert_uint_gt(wgraph_chains(g, 3, 16, chain_cb, g), 3);
	ck_assert_str_eq(chains, "1>2;1>3;1>4;");
	wgraph_free(g);
}
END_TEST

/* the JSON object @text: its threads[] entry for @tid */
static const struct json_val *thread_of(const struct json_val *root, int32_t tid)
{
	const struct json_val *th = json_val_get(root, "threads");
	size_t i;

	ck_assert_ptr_nonnull(th);
	for (i = 0; i < th->n; i++) {
		const struct json_val *t = json_val_get(&th->v[i], "tid");

		if (t && t->is_int && t->i == tid)
			return &th->v[i];
	}
	return NULL;
}

START_TEST(test_scan_pipe)
{
	struct wsnap s;
	struct wscope sc = { 0 };
	struct waits_view v = { .s = &s, .scope = "the test's child" };
	struct json_reader jr;
	struct json_val root = { 0 };
	const struct json_val *t, *w, *h;
	char err[256], *buf = NULL;
	size_t blen = 0;
	int p[2], i;
	pid_t child;
	FILE *f;

	/* the child reads a pipe whose only writer is this process */
	ck_assert_int_eq(pipe(p), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		char b;

		close(p[1]);
		_exit(read(p[0], &b, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	sc.pids = &child;
	sc.npids = 1;
	/* until it sleeps in read(): no timing assumed, only bounded */
	for (i = 0; i < 500; i++) {
		ck_assert_int_eq(wscan_take(&sc, NULL, &s, err, sizeof(err)), 0);
		if (s.t[0].state == 'S' && s.t[0].nw && s.t[0].w[0].kind == WK_PIPE)
			break;
		wscan_free(&s);
		usleep(10000);
	}
	ck_assert_int_lt(i, 500);
	f = open_memstream(&buf, &blen);
	ck_assert_ptr_nonnull(f);
	waits_print_json(f, &v);
	fclose(f);
	wscan_free(&s);
	close(p[1]);	/* the child reads EOF and exits */
	waitpid(child, NULL, 0);

	json_reader_init(&jr, buf, blen, 32, err, sizeof(err));
	ck_assert_msg(json_reader_value(&jr, &root) == 0, "%s", err);
	t = thread_of(&root, child);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(json_val_get(t, "state")->s, "S");
	ck_assert_str_eq(json_val_get(t, "scope")->s, "target");
	w = &json_val_get(t, "waits_on")->v[0];
	ck_assert_str_eq(json_val_get(w, "kind")->s, "pipe");
	ck_assert_str_eq(json_val_get(w, "source")->s, "syscall");
	ck_assert_uint_eq(json_val_get(w, "holders")->n, 1);
	h = &json_val_get(w, "holders")->v[0];
	ck_assert_int_eq(json_val_get(h, "pid")->i, getpid());
	ck_assert_str_eq(json_val_get(h, "role")->s, "writer");
	ck_assert_int_eq(json_val_get(h, "fd")->i, p[1]);
	/* this process, the holder, followed: in the graph, not in the scope */
	t = thread_of(&root, getpid());
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(json_val_get(t, "scope")->s, "holder");
	ck_assert_uint_eq(json_val_get(&root, "cycles")->n, 0);
	json_val_fini(&root);
	free(buf);
}
END_TEST

static int pool_pipe = -1;

static void *pool_read(void *arg)
{
	char b;

	(void)arg;
	if (read(pool_pipe, &b, 1) < 0)
		return NULL;
	return NULL;
}

START_TEST(test_scan_pool)
{
	/*
	 * a child whose three threads read one pipe only this process writes:
	 * three chains that differ in their first thread, one line; and a
	 * user with no process is an empty answer, not an error
	 */
	struct wsnap s;
	struct wscope sc = { 0 }, none = { .uid = 3999999 };
	struct waits_view v = { .s = &s, .scope = "the pool" };
	char err[256], *buf = NULL, line[64];
	size_t blen = 0, i, k, n;
	int p[2], tries;
	pid_t child;
	FILE *f;

	ck_assert_int_eq(pipe(p), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pthread_t th[2];

		close(p[1]);
		pool_pipe = p[0];
		for (k = 0; k < 2; k++)
			pthread_create(&th[k], NULL, pool_read, NULL);
		pool_read(NULL);
		_exit(0);
	}
	close(p[0]);
	sc.pids = &child;
	sc.npids = 1;
	for (tries = 0; tries < 500; tries++) {
		ck_assert_int_eq(wscan_take(&sc, NULL, &s, err, sizeof(err)), 0);
		for (i = 0, n = 0; i < s.n; i++)
			n += s.t[i].pid == child && s.t[i].state == 'S' && s.t[i].nw &&
			     s.t[i].w[0].kind == WK_PIPE;
		if (n == 3)
			break;
		wscan_free(&s);
		usleep(10000);
	}
	ck_assert_int_lt(tries, 500);
	f = open_memstream(&buf, &blen);
	ck_assert_ptr_nonnull(f);
	waits_print_text(f, &v);
	fclose(f);
	wscan_free(&s);
	close(p[1]);
	waitpid(child, NULL, 0);
	snprintf(line, sizeof(line), " %d (3 threads) -> ", (int)child);
	ck_assert_msg(strstr(buf, line), "%s", buf);
	snprintf(line, sizeof(line), " %d/", (int)child);
	ck_assert_msg(!strstr(strstr(buf, "chains:\n"), line), "%s", buf);
	free(buf);

	ck_assert_int_eq(wscan_take(&none, NULL, &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.ntargets, 0);
	buf = NULL;
	f = open_memstream(&buf, &blen);
	waits_print_text(f, &v);
	fclose(f);
	wscan_free(&s);
	ck_assert_msg(strstr(buf, "no process in the scope"), "%s", buf);
	ck_assert_msg(strstr(buf, "no cycle\n"), "%s", buf);
	free(buf);
}
END_TEST

START_TEST(test_escape_c1)
{
	/* C1 controls as UTF-8 (C2 80..C2 9F; C2 9B is CSI) are escaped like C0 ones */
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);

	text_field(f, "a\xc2\x9b" "31mb\x1b[0m\xc2\x85" "c", 64, 0);
	fputc('|', f);
	/* other text, UTF-8 included, as it was: "\xc3\xa9" is an e with an acute */
	text_field(f, "caf\xc3\xa9 \xe2\x82\xac\xc2\xa0", 64, 0);
	fputc('|', f);
	/* padded to the width by what was printed; cut at max */
	text_field(f, "\xc2\x9bx", 64, 4);
	fputc('|', f);
	text_field(f, "abc\xc2\x9b", 4, 0);
	fputc('|', f);
	text_field(f, "ab\x7f\x01", 64, 0);
	fclose(f);
	/* a lead byte cut from its control at @max is printed alone: it controls nothing */
	ck_assert_str_eq(buf, "a?31mb?[0m?c|caf\xc3\xa9 \xe2\x82\xac\xc2\xa0|?x  |abc\xc2|ab??");
	free(buf);
	/* text_clean(), in place: the same rule (a recording's texts) */
	{
		char t[] = "a\xc2\x9b" "31mb\x1b[0m\xc2\x85" "c caf\xc3\xa9\xc2\xa0\x7f";

		text_clean(t);
		ck_assert_str_eq(t, "a?31mb?[0m?c caf\xc3\xa9\xc2\xa0?");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("waits");
	TCase *tc = tcase_create("waits");

	tcase_add_test(tc, test_syscall);
	tcase_add_test(tc, test_sched);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_cpulist);
	tcase_add_test(tc, test_locks);
	tcase_add_test(tc, test_unix);
	tcase_add_test(tc, test_tcp);
	tcase_add_test(tc, test_fdinfo_mountinfo);
	tcase_add_test(tc, test_auxv_frames);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_graph_chain);
	tcase_add_test(tc, test_graph_cycle);
	tcase_add_test(tc, test_graph_not_stuck);
	tcase_add_test(tc, test_graph_threads);
	tcase_add_test(tc, test_graph_wakes);
	tcase_add_test(tc, test_graph_join);
	tcase_add_test(tc, test_graph_bounds);
	tcase_add_test(tc, test_scan_pipe);
	tcase_add_test(tc, test_scan_pool);
	tcase_add_test(tc, test_escape_c1);
	suite_add_tcase(s, tc);
	return check_run(s);
}
