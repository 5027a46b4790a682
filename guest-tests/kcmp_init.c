// SPDX-License-Identifier: GPL-2.0
/*
 * kcmp_init: the /init of every kcmp-matrix guest.
 *
 * It runs as pid 1 in an initramfs, checks kcmp(), epoll and the kernel's identity against
 * what the harness predicted for this cell, prints the results as KTAP on the console and
 * powers the guest off.
 *
 * The prediction arrives on the kernel command line as KEY=value words, which the kernel hands
 * to init as environment variables:
 *   KCMPM_ID=<tag>                      the tag the harness built into this kernel's version
 *   KCMPM_EXPECT_kcmp=works|enosys      the rules' prediction for each observable
 *   KCMPM_EXPECT_epoll=works|enosys     (matrix/rules/<variant>.rules)
 *   KCMPM_EXPECT_epoll_tfd=...
 *   KCMPM_CONFIG_SYSVIPC=y|n            the cell's config has SYSVIPC, so KCMP_SYSVSEM answers
 *                                       (matrix.conf's guest-config line)
 * A missing or malformed expectation is reported as a failed test, never guessed.
 *
 * The tests, in order, are listed in kcmp_init_tests.h, which the harness reads too: every
 * boot prints exactly those results, a skipped one included, so the harness can require them
 * by count and name.
 *
 * Besides the KTAP results, two diagnostic lines carry facts for the harness:
 *   # kcmp-matrix kernel: <release> <version>
 *   # kcmp-matrix observed: kcmp=<works|enosys|errno-N> epoll=<...> epoll_tfd=<works|eopnotsupp|enosys|errno-N> selftest=<...>
 * one name=state word per observable the rules declare; the harness judges each. epoll "works"
 * only when it delivers an event. selftest is the verdict of the kernel's own kcmp test
 * (KCMPM_SELFTEST=run: tools/testing/selftests/kcmp/kcmp_test.c of the tree, run after the
 * checks; guest_selftest), a second opinion the harness compares with the guest's.
 *
 * Run as `/init --kcmpm-exec-probe` (by a child of its own, never by the kernel), it exits 0 at
 * once: the checks that the tasks of a kcmp() call can still exec afterwards run it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_ktap.h"

#define GUEST_TEST_LIST "kcmp_init_tests.h"
#include "guest_tests.h"


/* What the harness predicted for this cell. */
struct expect {
	int kcmp;	/* 1, 0, or -1 when the harness did not say */
	int epoll;
	int sysvipc;
};

static struct guest_call sys_kcmp(pid_t pid1, pid_t pid2, int type, unsigned long idx1,
			    unsigned long idx2)
{
	struct guest_call c;

	errno = 0;
	c.ret = syscall(SYS_kcmp, pid1, pid2, type, idx1, idx2);
	c.err = c.ret < 0 ? errno : 0;
	return c;
}

/* A result a checking child sends to pid 1 (run_checking_child), which prints it in turn. */
struct sent_result {
	int id;
	int ok;
	char why[240];
};

/* -1 in pid 1, which prints its results; in a checking child, the pipe its results go to. Set
 * once, right after that child's fork. */
static int results_fd = -1;

/* One KTAP result line for a test of the list. Tests are reported in the list's order: one
 * reported out of turn is a bug of this program, and the harness sees it as a wrong name. */
static void report(enum test_id id, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void report(enum test_id id, int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (results_fd >= 0) {
		struct sent_result r = { .id = id, .ok = ok };

		vsnprintf(r.why, sizeof(r.why), fmt, ap);
		if (write(results_fd, &r, sizeof(r)) != sizeof(r))	/* atomic: < PIPE_BUF */
			_exit(3);
	} else {
		guest_vreport(test_names[id], ok, fmt, ap);
	}
	va_end(ap);
}

/* Skips the tests first to last of the list, each by its name; observable=state (observable
 * NULL: none) is the predicted state that makes them moot. */
static void skip_tests(enum test_id first, enum test_id last, const char *observable,
		       const char *state, const char *why)
{
	for (int i = first; i <= (int)last; i++)
		guest_skip(test_names[i], observable, state, why);
}

/* Checks that a call returned exactly want (0 means "same", anything else is an error). */
static void expect_ret(enum test_id name, struct guest_call c, long want)
{
	report(name, c.ret == want, "returned %ld (errno %d %s), expected %ld", c.ret, c.err,
	       strerror(c.err), want);
}

/* kcmp() orders kernel pointers: 1 or 2 both mean "different"; -1 is an error. */
static void expect_differs(enum test_id name, struct guest_call c)
{
	report(name, c.ret == 1 || c.ret == 2, "returned %ld (errno %d %s), expected 1 or 2",
	       c.ret, c.err, strerror(c.err));
}

/* Two different objects asked both ways: one answer is 1 ("less") exactly when the other is
 * 2 ("greater"), as kcmp(2) promises for sorting. */
static void expect_differs_both_ways(enum test_id name, struct guest_call ab, struct guest_call ba)
{
	int ok = (ab.ret == 1 && ba.ret == 2) || (ab.ret == 2 && ba.ret == 1);

	report(name, ok, "returned %ld (errno %d) one way and %ld (errno %d) the other, expected "
	       "1 and 2 or 2 and 1", ab.ret, ab.err, ba.ret, ba.err);
}

static void expect_errno(enum test_id name, struct guest_call c, int want)
{
	report(name, c.ret == -1 && c.err == want, "returned %ld (errno %d %s), expected errno %d %s",
	       c.ret, c.err, strerror(c.err), want, strerror(want));
}

/* A child that shares what its clone flags say with us and waits until the write end of its
 * pipe closes. Its pipe_wait and stack live in struct child: a CLONE_VM child shares our
 * memory, so neither may be on a stack frame we leave or shared with another child. A child
 * with undo_semid >= 0 first makes a SysV undo list of its own (a semop() with SEM_UNDO on that
 * set); each says it is ready on its ready pipe before the parent compares anything with it. */
struct child {
	pid_t pid;
	int rfd, wfd;
	int ready[2];
	int close_wfd;		/* it has its own fd table (no CLONE_FILES): close its copy */
	int undo_semid;
	char stack[64 * 1024] __attribute__((aligned(16)));
};

static int wait_for_eof(void *arg)
{
	struct child *ch = arg;
	struct sembuf up = { .sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO };
	char b = ch->undo_semid >= 0 && semop(ch->undo_semid, &up, 1) ? 'e' : 'r';

	if (write(ch->ready[1], &b, 1) != 1)
		_exit(1);
	if (ch->close_wfd)
		close(ch->wfd);
	while (read(ch->rfd, &b, 1) > 0)
		;
	_exit(0);
}

/* Starts the child and waits until it is ready: 0, or -1 with errno set. */
static int start_child(struct child *ch, int flags, int undo_semid)
{
	int p[2];
	char b = 0;

	if (pipe(p))
		return -1;
	if (pipe(ch->ready)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	ch->rfd = p[0];
	ch->wfd = p[1];
	ch->close_wfd = !(flags & CLONE_FILES);
	ch->undo_semid = undo_semid;
	ch->pid = clone(wait_for_eof, ch->stack + sizeof(ch->stack), flags | SIGCHLD, ch);
	if (ch->pid < 0 || read(ch->ready[0], &b, 1) != 1 || b != 'r') {
		if (ch->pid >= 0 && b == 'e')
			errno = EIO;	/* its semop() with SEM_UNDO failed */
		return -1;
	}
	close(ch->ready[0]);	/* it has written: with CLONE_FILES its copy goes too */
	close(ch->ready[1]);
	if (!(flags & CLONE_FILES))
		close(p[0]);
	return 0;
}

/* Children are stopped in the reverse order of their start: a later child without
 * CLONE_FILES holds copies of every earlier child's write end, so an earlier one sees the end
 * of its pipe only once the later ones are gone. */
static void stop_child(struct child *ch)
{
	close(ch->wfd);
	waitpid(ch->pid, NULL, 0);
}

/* KCMP_FILE: a dup'd fd is the same file, a second open() of the same path is not. */
static void test_file(void)
{
	int a = open("/init", O_RDONLY), b = dup(a), c = open("/init", O_RDONLY);
	pid_t me = getpid();

	expect_ret(T_kcmp_file_dup, sys_kcmp(me, me, KCMP_FILE, a, b), 0);
	expect_differs(T_kcmp_file_other_open, sys_kcmp(me, me, KCMP_FILE, a, c));
	close(a);
	close(b);
	close(c);
}

/* The peer of the cross-process descriptor checks: a fork()ed child that holds, at numbers the
 * guest itself never uses, a dup of our /init fd, its own open of /init, a third open we take
 * into our own table (pidfd_getfd(): the guest kernels have no networking, so no AF_UNIX
 * socket to pass it with SCM_RIGHTS; the kernel installs the same file either way), and an
 * epoll instance watching its dup of our pipe's read end. So every comparison asks the second
 * task's fd table for a number only it has: a kernel that looked idx2 up in the first task
 * would find nothing there, or another file. */
enum {
	PEER_DUP_FD = 100,	/* our /init fd, dup2()ed in the peer only */
	PEER_OWN_FD,		/* the peer's own open() of /init */
	PEER_SENT_FD,		/* the peer's open() we take a copy of */
	PEER_EPOLL_FD,		/* the peer's epoll instance ... */
	PEER_TARGET_FD,		/* ... watching this dup of our pipe's read end */
	OURS_ONLY_FD,		/* our /init again, opened after the fork: the peer has no such fd */
	OURS_ONLY_EPOLL_FD,	/* our epoll instance, opened after the fork */
};

struct peer {
	pid_t pid;
	int hold;		/* the write end of its hold pipe: closing it ends the peer */
	int file;		/* our /init fd */
	int received;		/* our copy of the peer's PEER_SENT_FD, at a number of ours */
	int pipe[2];		/* the pipe whose read end the peer's epoll watches */
};

/* Opens path at exactly fd number want; -1 on failure. */
static int open_at(const char *path, int want)
{
	int fd = open(path, O_RDONLY), ok;

	if (fd < 0)
		return -1;
	ok = dup2(fd, want) == want;
	close(fd);
	return ok ? want : -1;
}

/* The peer's side: set its fds up, say it is ready, wait until we close the hold pipe. */
static void peer_main(const struct peer *p, int ready, int hold, int have_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN };
	char b = 'r';
	int efd;

	if (dup2(p->file, PEER_DUP_FD) != PEER_DUP_FD || open_at("/init", PEER_OWN_FD) < 0 ||
	    open_at("/init", PEER_SENT_FD) < 0 || dup2(p->pipe[0], PEER_TARGET_FD) != PEER_TARGET_FD)
		_exit(1);
	if (have_epoll) {
		efd = epoll_create1(0);
		if (efd < 0 || dup2(efd, PEER_EPOLL_FD) != PEER_EPOLL_FD ||
		    epoll_ctl(PEER_EPOLL_FD, EPOLL_CTL_ADD, PEER_TARGET_FD, &ev))
			_exit(1);
		close(efd);
	}
	if (write(ready, &b, 1) != 1)
		_exit(1);
	close(ready);
	while (read(hold, &b, 1) > 0)
		;
	_exit(0);
}

/* A copy of another process's fd in our table (pidfd_getfd, as a process given the fd would
 * hold it): -1 with errno on failure. */
static int take_fd(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), got;

	if (pidfd < 0)
		return -1;
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return got;
}

/* Starts the peer, takes its fd, and opens ours-only fds. Returns 0, or -1 with why. */
static int start_peer(struct peer *p, int have_epoll, char *why, size_t len)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ready[2], hold[2], efd;
	char b = 0;

	p->file = open("/init", O_RDONLY);
	if (p->file < 0 || pipe(p->pipe) || pipe(ready) || pipe(hold)) {
		snprintf(why, len, "open/pipe: %s", strerror(errno));
		return -1;
	}
	p->pid = fork();
	if (p->pid == 0) {
		close(ready[0]);
		close(hold[1]);
		peer_main(p, ready[1], hold[0], have_epoll);
	}
	close(ready[1]);
	close(hold[0]);
	p->hold = hold[1];
	if (p->pid < 0 || read(ready[0], &b, 1) != 1 || b != 'r') {
		snprintf(why, len, "the peer did not set up its fds: %s", strerror(errno));
		close(ready[0]);
		return -1;
	}
	close(ready[0]);
	p->received = take_fd(p->pid, PEER_SENT_FD);
	if (p->received < 0) {
		snprintf(why, len, "pidfd_getfd of the peer's fd %d: %s", PEER_SENT_FD,
			 strerror(errno));
		return -1;
	}
	if (open_at("/init", OURS_ONLY_FD) < 0) {
		snprintf(why, len, "open /init at fd %d: %s", OURS_ONLY_FD, strerror(errno));
		return -1;
	}
	if (have_epoll) {
		efd = epoll_create1(0);
		if (efd < 0 || dup2(efd, OURS_ONLY_EPOLL_FD) != OURS_ONLY_EPOLL_FD ||
		    epoll_ctl(OURS_ONLY_EPOLL_FD, EPOLL_CTL_ADD, p->pipe[0], &ev)) {
			snprintf(why, len, "our own epoll instance: %s", strerror(errno));
			return -1;
		}
		close(efd);
	}
	return 0;
}

static void stop_peer(struct peer *p)
{
	if (p->hold >= 0)
		close(p->hold);
	if (p->pid > 0)
		waitpid(p->pid, NULL, 0);
}

static int start_peer_reported(struct peer *p, int have_epoll)
{
	char why[160] = "";
	int ok = start_peer(p, have_epoll, why, sizeof(why)) == 0;

	report(T_kcmp_peer_started, ok, "%s", why);
	return ok;
}

/* KCMP_FILE across two processes, with fd numbers that exist in one of them only. */
static void test_file_across(const struct peer *p)
{
	pid_t me = getpid(), peer = p->pid;

	expect_ret(T_kcmp_file_across_dup2, sys_kcmp(me, peer, KCMP_FILE, p->file, PEER_DUP_FD), 0);
	expect_ret(T_kcmp_file_across_dup2_reversed,
		   sys_kcmp(peer, me, KCMP_FILE, PEER_DUP_FD, p->file), 0);
	expect_differs_both_ways(T_kcmp_file_across_other_open,
				 sys_kcmp(me, peer, KCMP_FILE, p->file, PEER_OWN_FD),
				 sys_kcmp(peer, me, KCMP_FILE, PEER_OWN_FD, p->file));
	expect_ret(T_kcmp_file_across_received,
		   sys_kcmp(me, peer, KCMP_FILE, p->received, PEER_SENT_FD), 0);
	expect_errno(T_kcmp_file_across_ebadf_idx2,
		     sys_kcmp(me, peer, KCMP_FILE, p->file, OURS_ONLY_FD), EBADF);
}

/* KCMP_EPOLL_TFD with the file in our task and the epoll instance in the peer's: our pipe's
 * read end is what the peer's instance watches, the write end is not, and an epoll fd only we
 * hold is EBADF in the peer. Without epoll, EOPNOTSUPP each time. */
static void test_epoll_tfd_across(const struct peer *p, int have_epoll)
{
	struct kcmp_epoll_slot slot = { .efd = PEER_EPOLL_FD, .tfd = PEER_TARGET_FD };
	struct kcmp_epoll_slot ours = { .efd = OURS_ONLY_EPOLL_FD, .tfd = p->pipe[0] };
	pid_t me = getpid(), peer = p->pid;
	struct guest_call same, other, ebadf;

	same = sys_kcmp(me, peer, KCMP_EPOLL_TFD, p->pipe[0], (unsigned long)&slot);
	other = sys_kcmp(me, peer, KCMP_EPOLL_TFD, p->pipe[1], (unsigned long)&slot);
	ebadf = sys_kcmp(me, peer, KCMP_EPOLL_TFD, p->pipe[0], (unsigned long)&ours);
	if (!have_epoll) {
		expect_errno(T_kcmp_epoll_tfd_across, same, EOPNOTSUPP);
		expect_errno(T_kcmp_epoll_tfd_across_other_file, other, EOPNOTSUPP);
		expect_errno(T_kcmp_epoll_tfd_across_ebadf_efd, ebadf, EOPNOTSUPP);
		return;
	}
	expect_ret(T_kcmp_epoll_tfd_across, same, 0);
	expect_differs(T_kcmp_epoll_tfd_across_other_file, other);
	expect_errno(T_kcmp_epoll_tfd_across_ebadf_efd, ebadf, EBADF);
}

/* The children of the resource checks: one shares nothing, each other one resource (or, for
 * sighand, the VM it needs too). OWN_UNDO shares nothing and makes a SysV undo list of its
 * own, a third one beside ours and the forked child's none, for the order check. */
enum { FORKED, FILES, FS, VM, SIGHAND, IO, SYSVSEM, OWN_UNDO, NCHILD };

static const int child_flags[NCHILD] = {
	[FORKED] = 0,
	[FILES] = CLONE_FILES,
	[FS] = CLONE_FS,
	[VM] = CLONE_VM,
	[SIGHAND] = CLONE_VM | CLONE_SIGHAND,
	[IO] = CLONE_IO,
	[SYSVSEM] = CLONE_SYSVSEM,
	[OWN_UNDO] = 0,
};

static int undo_semid = -1;	/* our SysV set with an undo list, when SYSVIPC is on */

static struct child children[NCHILD];

/* An io_context and a SysV undo list must exist before they can be compared: with neither,
 * every task's pointer is NULL and KCMP_IO and KCMP_SYSVSEM say "same" for anything.
 * ioprio_set() gives us an io_context (a child gets its own then, unless CLONE_IO shares
 * ours); a semop() with SEM_UNDO gives us an undo list (a child gets none unless
 * CLONE_SYSVSEM shares ours). Returns 0, or -1 with why. */
static int make_io_and_undo(const struct expect *ex, char *why, size_t len)
{
	enum { IOPRIO_WHO_PROCESS = 1, IOPRIO_CLASS_BE = 2, IOPRIO_CLASS_SHIFT = 13 };
	struct sembuf up = { .sem_num = 0, .sem_op = 1, .sem_flg = SEM_UNDO };
	int semid;

	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT | 4)) {
		snprintf(why, len, "ioprio_set: %s", strerror(errno));
		return -1;
	}
	if (ex->sysvipc != 1)
		return 0;
	semid = semget(IPC_PRIVATE, 1, 0600);
	if (semid < 0 || semop(semid, &up, 1)) {
		snprintf(why, len, "SysV semaphore with SEM_UNDO: %s", strerror(errno));
		return -1;
	}
	undo_semid = semid;
	return 0;
}

static int start_children(const struct expect *ex)
{
	char why[128] = "";
	int ok = make_io_and_undo(ex, why, sizeof(why)) == 0;

	for (int i = 0; i < NCHILD && ok; i++)
		if (start_child(&children[i], child_flags[i], i == OWN_UNDO ? undo_semid : -1)) {
			snprintf(why, sizeof(why), "clone(%#x): %s", child_flags[i], strerror(errno));
			ok = 0;
			while (i-- > 0)
				stop_child(&children[i]);
		}
	report(T_kcmp_children_started, ok, "%s", why);
	return ok;
}

static void stop_children(void)
{
	for (int i = NCHILD - 1; i >= 0; i--)
		stop_child(&children[i]);
}

/* One resource check: the type, the child compared with us (SELF: ourselves), and whether
 * the two must be the same. Each type is the same as ourselves and as the child that shares
 * it, and differs from the fork()ed child and from a child sharing something else. */
enum { SELF = -1 };

static const struct resource_check {
	enum test_id id;
	int type, child, same;
} resource_checks[] = {
	{ T_kcmp_vm_self, KCMP_VM, SELF, 1 },
	{ T_kcmp_vm_forked_child, KCMP_VM, FORKED, 0 },
	{ T_kcmp_vm_clone_vm_child, KCMP_VM, VM, 1 },
	{ T_kcmp_vm_clone_sighand_child, KCMP_VM, SIGHAND, 1 },
	{ T_kcmp_vm_clone_files_child, KCMP_VM, FILES, 0 },
	{ T_kcmp_files_self, KCMP_FILES, SELF, 1 },
	{ T_kcmp_files_forked_child, KCMP_FILES, FORKED, 0 },
	{ T_kcmp_files_clone_files_child, KCMP_FILES, FILES, 1 },
	{ T_kcmp_files_clone_fs_child, KCMP_FILES, FS, 0 },
	{ T_kcmp_files_clone_vm_child, KCMP_FILES, VM, 0 },
	{ T_kcmp_fs_self, KCMP_FS, SELF, 1 },
	{ T_kcmp_fs_forked_child, KCMP_FS, FORKED, 0 },
	{ T_kcmp_fs_clone_fs_child, KCMP_FS, FS, 1 },
	{ T_kcmp_fs_clone_files_child, KCMP_FS, FILES, 0 },
	{ T_kcmp_fs_clone_io_child, KCMP_FS, IO, 0 },
	{ T_kcmp_sighand_self, KCMP_SIGHAND, SELF, 1 },
	{ T_kcmp_sighand_forked_child, KCMP_SIGHAND, FORKED, 0 },
	{ T_kcmp_sighand_clone_sighand_child, KCMP_SIGHAND, SIGHAND, 1 },
	{ T_kcmp_sighand_clone_vm_child, KCMP_SIGHAND, VM, 0 },
	{ T_kcmp_io_self, KCMP_IO, SELF, 1 },
	{ T_kcmp_io_forked_child, KCMP_IO, FORKED, 0 },
	{ T_kcmp_io_clone_io_child, KCMP_IO, IO, 1 },
	{ T_kcmp_io_clone_files_child, KCMP_IO, FILES, 0 },
	{ T_kcmp_sysvsem_self, KCMP_SYSVSEM, SELF, 1 },
	{ T_kcmp_sysvsem_forked_child, KCMP_SYSVSEM, FORKED, 0 },
	{ T_kcmp_sysvsem_clone_sysvsem_child, KCMP_SYSVSEM, SYSVSEM, 1 },
	{ T_kcmp_sysvsem_clone_io_child, KCMP_SYSVSEM, IO, 0 },
};

/* KCMP_SYSVSEM answers only with SYSVIPC; without it, EOPNOTSUPP for every pair. */
static void test_resources(const struct expect *ex)
{
	pid_t me = getpid();

	for (size_t i = 0; i < sizeof(resource_checks) / sizeof(resource_checks[0]); i++) {
		const struct resource_check *rc = &resource_checks[i];
		pid_t other = rc->child == SELF ? me : children[rc->child].pid;
		struct guest_call c = sys_kcmp(me, other, rc->type, 0, 0);

		if (rc->type == KCMP_SYSVSEM && ex->sysvipc < 0)
			report(rc->id, 0, "KCMPM_CONFIG_SYSVIPC missing or malformed");
		else if (rc->type == KCMP_SYSVSEM && !ex->sysvipc)
			expect_errno(rc->id, c, EOPNOTSUPP);
		else if (rc->same)
			expect_ret(rc->id, c, 0);
		else
			expect_differs(rc->id, c);
	}
}

/* The order checks: for each type, three objects that differ pairwise, as (task, index)
 * pairs. kcmp() must answer each pair 1 one way and 2 the other, and the "less than" answers
 * must make one order of the three (a cycle, a < b < c < a, cannot be sorted). */
struct object {
	int child;		/* SELF or a child */
	int idx;		/* the fd (KCMP_FILE), else 0 */
};

static const struct order_check {
	enum test_id id;
	int type;
	struct object obj[3];
} order_checks[] = {
	{ T_kcmp_order_file, KCMP_FILE, { { SELF, 0 }, { SELF, 1 }, { SELF, 2 } } },
	{ T_kcmp_order_vm, KCMP_VM, { { SELF, 0 }, { FORKED, 0 }, { FILES, 0 } } },
	{ T_kcmp_order_files, KCMP_FILES, { { SELF, 0 }, { FORKED, 0 }, { FS, 0 } } },
	{ T_kcmp_order_fs, KCMP_FS, { { SELF, 0 }, { FORKED, 0 }, { FILES, 0 } } },
	{ T_kcmp_order_sighand, KCMP_SIGHAND, { { SELF, 0 }, { FORKED, 0 }, { VM, 0 } } },
	{ T_kcmp_order_io, KCMP_IO, { { SELF, 0 }, { FORKED, 0 }, { FILES, 0 } } },
	{ T_kcmp_order_sysvsem, KCMP_SYSVSEM, { { SELF, 0 }, { FORKED, 0 }, { OWN_UNDO, 0 } } },
};

/* Checks one order_check; files[] are the three fds a KCMP_FILE check's idx names. */
static void check_order(const struct order_check *oc, const int files[3])
{
	long r[3][3] = { { 0 } };
	int less[3] = { 0 }, seen[3] = { 0 };
	pid_t me = getpid();

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			const struct object *a = &oc->obj[i], *b = &oc->obj[j];
			pid_t pa = a->child == SELF ? me : children[a->child].pid;
			pid_t pb = b->child == SELF ? me : children[b->child].pid;
			unsigned long ia = oc->type == KCMP_FILE ? (unsigned long)files[a->idx] : 0;
			unsigned long ib = oc->type == KCMP_FILE ? (unsigned long)files[b->idx] : 0;
			struct guest_call c;

			if (i == j)
				continue;
			c = sys_kcmp(pa, pb, oc->type, ia, ib);
			if (c.ret != 1 && c.ret != 2) {
				report(oc->id, 0, "objects %d and %d: returned %ld (errno %d %s), "
				       "expected 1 or 2", i, j, c.ret, c.err, strerror(c.err));
				return;
			}
			r[i][j] = c.ret;
		}
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++) {
			if ((r[i][j] == 1) != (r[j][i] == 2)) {
				report(oc->id, 0, "objects %d and %d: %ld one way, %ld the other, "
				       "expected 1 and 2", i, j, r[i][j], r[j][i]);
				return;
			}
			less[r[i][j] == 1 ? i : j]++;
		}
	/* one order: the three are less than 2, 1 and 0 others */
	for (int i = 0; i < 3; i++)
		seen[less[i]]++;
	report(oc->id, seen[0] == 1 && seen[1] == 1 && seen[2] == 1,
	       "no order: each object is less than %d, %d and %d others (a cycle)", less[0],
	       less[1], less[2]);
}

/* Without SYSVIPC, KCMP_SYSVSEM answers EOPNOTSUPP for the pairs it would order. */
static void test_order(const struct expect *ex)
{
	int files[3] = { open("/init", O_RDONLY), open("/init", O_RDONLY), open("/init", O_RDONLY) };
	pid_t me = getpid();

	for (size_t i = 0; i < sizeof(order_checks) / sizeof(order_checks[0]); i++) {
		const struct order_check *oc = &order_checks[i];

		if (oc->type == KCMP_SYSVSEM && ex->sysvipc < 0)
			report(oc->id, 0, "KCMPM_CONFIG_SYSVIPC missing or malformed");
		else if (oc->type == KCMP_SYSVSEM && !ex->sysvipc)
			expect_errno(oc->id, sys_kcmp(me, children[OWN_UNDO].pid, KCMP_SYSVSEM, 0, 0),
				     EOPNOTSUPP);
		else
			check_order(oc, files);
	}
	for (int i = 0; i < 3; i++)
		close(files[i]);
}

/* KCMP_EPOLL_TFD: is idx1 the file registered in the epoll set slot names (tfd at toff)?
 * Asked for the pipe's read end (registered: same), its write end (another file: differs) and
 * with an offset nothing is registered at (ENOENT). Without epoll, EOPNOTSUPP each time. */
struct epoll_tfd_calls {
	struct guest_call same, other_file, wrong_offset;
};

static struct epoll_tfd_calls epoll_tfd_calls(int have_epoll)
{
	struct kcmp_epoll_slot slot = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	struct epoll_tfd_calls c;
	pid_t me = getpid();
	int p[2];

	if (pipe(p)) {
		c.same = c.other_file = c.wrong_offset = (struct guest_call){ -1, errno };
		return c;
	}
	if (have_epoll) {
		slot.efd = epoll_create1(0);
		slot.tfd = p[0];
		epoll_ctl(slot.efd, EPOLL_CTL_ADD, p[0], &ev);
	}
	c.same = sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0], (unsigned long)&slot);
	c.other_file = sys_kcmp(me, me, KCMP_EPOLL_TFD, p[1], (unsigned long)&slot);
	slot.toff = 1;
	c.wrong_offset = sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0], (unsigned long)&slot);
	if (have_epoll)
		close(slot.efd);
	close(p[0]);
	close(p[1]);
	return c;
}

static void test_epoll_tfd(const struct epoll_tfd_calls *c, int have_epoll)
{
	if (!have_epoll) {
		expect_errno(T_kcmp_epoll_tfd, c->same, EOPNOTSUPP);
		expect_errno(T_kcmp_epoll_tfd_other_file, c->other_file, EOPNOTSUPP);
		expect_errno(T_kcmp_epoll_tfd_wrong_offset, c->wrong_offset, EOPNOTSUPP);
		return;
	}
	expect_ret(T_kcmp_epoll_tfd, c->same, 0);
	expect_differs(T_kcmp_epoll_tfd_other_file, c->other_file);
	expect_errno(T_kcmp_epoll_tfd_wrong_offset, c->wrong_offset, ENOENT);
}

/* A pid no task has: past the largest pid_max (PID_MAX_LIMIT, 4194304 on 64-bit). */
enum { MISSING_PID = 4000000 };

/* How a child ended, for a diagnostic. */
static const char *how_ended(int status, char *buf, size_t len)
{
	if (status == -1)
		snprintf(buf, len, "never started");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "status %#x", status);
	return buf;
}

/* KCMP_EPOLL_TFD with each part of its slot wrong in turn, from kernel/kcmp.c's
 * kcmp_epoll_target() (6.1 and 6.12 alike), in the order it checks them:
 *   the slot cannot be read (copy_from_user)            -EFAULT
 *   idx1 is no fd of task1 (get_file_raw_ptr)           -EBADF
 *   slot.efd is no fd of task2 (fget_task)              -EBADF
 *   slot.efd is not an epoll instance (fs/eventpoll.c,
 *   get_epoll_tfile_raw_ptr: !is_file_epoll)            -EINVAL
 *   nothing is registered at slot.tfd (ep_find_tfd)     -ENOENT
 * Without CONFIG_EPOLL, kcmp_epoll_target() is a stub that answers -EOPNOTSUPP before any of
 * these. */
static void test_epoll_tfd_errors(int have_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct kcmp_epoll_slot slot = { 0 };
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int p[2] = { -1, -1 }, file = open("/init", O_RDONLY);
	int closed = 998;	/* an fd number nothing here opens */
	pid_t me = getpid();
	struct {
		enum test_id id;
		struct guest_call c;
		int want;
	} t[6];
	int n = 0;

	close(closed);
	if (pipe(p) == 0 && have_epoll) {
		slot.efd = epoll_create1(0);
		slot.tfd = p[0];
		epoll_ctl(slot.efd, EPOLL_CTL_ADD, p[0], &ev);
	}
	t[n++] = (typeof(t[0])){ T_kcmp_epoll_tfd_efault_slot,
		sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0], (unsigned long)unmapped), EFAULT };
	t[n++] = (typeof(t[0])){ T_kcmp_epoll_tfd_ebadf_idx1,
		sys_kcmp(me, me, KCMP_EPOLL_TFD, 999, (unsigned long)&slot), EBADF };
	t[n++] = (typeof(t[0])){ T_kcmp_epoll_tfd_ebadf_closed_efd,
		sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0],
			 (unsigned long)&(struct kcmp_epoll_slot){ .efd = closed, .tfd = p[0] }), EBADF };
	t[n++] = (typeof(t[0])){ T_kcmp_epoll_tfd_einval_efd_regular_file,
		sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0],
			 (unsigned long)&(struct kcmp_epoll_slot){ .efd = file, .tfd = p[0] }), EINVAL };
	t[n++] = (typeof(t[0])){ T_kcmp_epoll_tfd_einval_efd_pipe,
		sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0],
			 (unsigned long)&(struct kcmp_epoll_slot){ .efd = p[1], .tfd = p[0] }), EINVAL };
	t[n++] = (typeof(t[0])){ T_kcmp_epoll_tfd_enoent_unregistered_tfd,
		sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0],
			 (unsigned long)&(struct kcmp_epoll_slot){ .efd = slot.efd, .tfd = p[1] }), ENOENT };
	for (int i = 0; i < n; i++)
		expect_errno(t[i].id, t[i].c, have_epoll ? t[i].want : EOPNOTSUPP);
	if (have_epoll)
		close(slot.efd);
	close(p[0]);
	close(p[1]);
	close(file);
	munmap(unmapped, 4096);
}

/* A thread of ours (CLONE_THREAD: same process, a tid of its own), waiting for the end of its
 * pipe. Its stack and the tid the kernel clears at its exit live here, not on a frame we leave. */
static struct {
	int rfd;
	pid_t tid;		/* CLONE_CHILD_CLEARTID: 0 once the thread is gone */
	char stack[64 * 1024] __attribute__((aligned(16)));
} thread;

static int thread_main(void *arg)
{
	char b;

	(void)arg;
	while (read(thread.rfd, &b, 1) > 0)
		;
	syscall(SYS_exit, 0);	/* this thread only: _exit() would end the whole of pid 1 */
	return 0;
}

/* kcmp() looks pids up with find_task_by_vpid(), which finds a thread by its tid: a thread's
 * tid as pid1 or pid2 is that thread, which shares our VM and fd table. */
static void test_thread_ids(void)
{
	enum { THREAD_FLAGS = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			      CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID };
	pid_t me = getpid(), tid;
	int p[2];

	if (pipe(p)) {
		report(T_kcmp_thread_id_as_pid1, 0, "pipe: %s", strerror(errno));
		report(T_kcmp_thread_id_as_pid2, 0, "pipe: %s", strerror(errno));
		return;
	}
	thread.rfd = p[0];
	tid = clone(thread_main, thread.stack + sizeof(thread.stack), THREAD_FLAGS, NULL,
		    &thread.tid, NULL, &thread.tid);
	if (tid < 0) {
		report(T_kcmp_thread_id_as_pid1, 0, "clone(CLONE_THREAD): %s", strerror(errno));
		report(T_kcmp_thread_id_as_pid2, 0, "clone(CLONE_THREAD): %s", strerror(errno));
	} else {
		expect_ret(T_kcmp_thread_id_as_pid1, sys_kcmp(tid, me, KCMP_VM, 0, 0), 0);
		expect_ret(T_kcmp_thread_id_as_pid2, sys_kcmp(me, tid, KCMP_FILES, 0, 0), 0);
	}
	close(p[1]);
	while (tid > 0 && __atomic_load_n(&thread.tid, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &thread.tid, FUTEX_WAIT, tid, NULL, NULL, 0);
	close(p[0]);
}

/* Each argument wrong in turn, from kernel/kcmp.c (6.1 and 6.12 alike):
 *   pid1, pid2 or both name no task: "if (!task1 || !task2) goto err_no_task"   -ESRCH
 *   KCMP_FILE with an fd its task lacks, idx1 or idx2 (get_file_raw_ptr NULL)   -EBADF
 *   a type outside enum kcmp_type: KCMP_TYPES itself, the next, a negative one
 *   and a huge one all reach the switch's default                               -EINVAL */
static void test_errors(void)
{
	pid_t me = getpid();

	expect_errno(T_kcmp_esrch_pid1_missing, sys_kcmp(MISSING_PID, me, KCMP_VM, 0, 0), ESRCH);
	expect_errno(T_kcmp_esrch_pid2_missing, sys_kcmp(me, MISSING_PID, KCMP_VM, 0, 0), ESRCH);
	expect_errno(T_kcmp_esrch_both_missing,
		     sys_kcmp(MISSING_PID, MISSING_PID + 1, KCMP_VM, 0, 0), ESRCH);
	expect_errno(T_kcmp_ebadf_idx1, sys_kcmp(me, me, KCMP_FILE, 999, 0), EBADF);
	expect_errno(T_kcmp_ebadf_idx2, sys_kcmp(me, me, KCMP_FILE, 0, 999), EBADF);
	expect_errno(T_kcmp_einval_type_kcmp_types, sys_kcmp(me, me, KCMP_TYPES, 0, 0), EINVAL);
	expect_errno(T_kcmp_einval_unknown_type, sys_kcmp(me, me, KCMP_TYPES + 1, 0, 0), EINVAL);
	expect_errno(T_kcmp_einval_negative_type, sys_kcmp(me, me, -1, 0, 0), EINVAL);
	expect_errno(T_kcmp_einval_huge_type, sys_kcmp(me, me, 0x7fffffff, 0, 0), EINVAL);
	test_thread_ids();
}

/* An unprivileged caller may not inspect pid 1 (ptrace access check), whichever of the two
 * pids it is: EPERM both ways. */
static void test_eperm(enum test_id id, int init_is_pid1)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct guest_call c;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		c = init_is_pid1 ? sys_kcmp(1, getpid(), KCMP_VM, 0, 0)
				 : sys_kcmp(getpid(), 1, KCMP_VM, 0, 0);
		_exit(c.ret == -1 && c.err == EPERM ? 0 : c.ret == -1 ? 101 + (c.err & 63) : 99);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		report(id, 0, "fork/wait failed: %s", strerror(errno));
		return;
	}
	report(id, WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "unprivileged child status %#x (0 EPERM, 99 success, 100 setuid failed, "
	       "101+n errno n)", status);
}

/* The ordinary users' ids: nobody, and one more for a second user. */
enum { NOBODY = 65534, OTHER_USER = 65533 };

/* Becomes an ordinary user: no supplementary groups, every gid NOBODY, real uid ruid, effective,
 * saved and fs uid euid. With all uids non-zero the kernel clears every capability. The mm is
 * made dumpable again (a credential change clears it, and ptrace_may_access() refuses a task
 * that is not dumpable to anyone but a capable caller). 0, or -1 with errno. */
static int become_user(uid_t ruid, uid_t euid)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) || setresuid(ruid, euid, euid))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* Have we any capability left in our effective or permitted sets? */
static int has_capabilities(void)
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (syscall(SYS_capget, &head, data))
		return -1;
	return (data[0].effective | data[1].effective | data[0].permitted | data[1].permitted) != 0;
}

/* Runs check(arg) in a child of its own and reports the tests first to last from what it sent
 * (report() in the child writes to a pipe), in the list's order: a test the child never sent
 * fails, naming how the child ended. So a check that makes its own task lose privileges, hang
 * or crash cannot change pid 1 or the numbering. */
static void run_checking_child(enum test_id first, enum test_id last, void (*check)(void *),
			       void *arg)
{
	static struct sent_result got[NTESTS];
	static int sent[NTESTS];
	char how[64];
	int p[2], status = -1;
	struct sent_result r;
	pid_t pid = -1;

	memset(sent, 0, sizeof(sent));
	if (pipe(p) == 0 && (pid = fork()) == 0) {
		close(p[0]);
		results_fd = p[1];
		check(arg);
		_exit(0);
	}
	if (pid > 0) {
		close(p[1]);
		while (read(p[0], &r, sizeof(r)) == sizeof(r))
			if (r.id >= (int)first && r.id <= (int)last) {
				got[r.id] = r;
				sent[r.id] = 1;
			}
		close(p[0]);
		waitpid(pid, &status, 0);
	}
	for (int i = first; i <= (int)last; i++)
		if (sent[i])
			report(i, got[i].ok, "%s", got[i].why);
		else
			report(i, 0, "the checking child never reported it (%s)",
			       how_ended(status, how, sizeof(how)));
}

/* An ordinary user compares files as Mesa's os_same_file_description() does: its own dup and a
 * second open, then across a child of its own at fd numbers only that child has (the peer, as
 * pid 1's checks use it) and a file it took from that child. */
static void user_files(int have_epoll)
{
	struct peer peer = { .pid = -1, .hold = -1 };
	int a = open("/init", O_RDONLY), b = dup(a), c = open("/init", O_RDONLY);
	pid_t me = getpid();
	char why[160] = "";
	int ok;

	expect_ret(T_kcmp_user_file_dup, sys_kcmp(me, me, KCMP_FILE, a, b), 0);
	expect_differs(T_kcmp_user_file_other_open, sys_kcmp(me, me, KCMP_FILE, a, c));
	ok = start_peer(&peer, have_epoll, why, sizeof(why)) == 0;
	report(T_kcmp_user_peer_started, ok, "%s", why);
	if (ok) {
		expect_ret(T_kcmp_user_file_across_child_dup2,
			   sys_kcmp(me, peer.pid, KCMP_FILE, peer.file, PEER_DUP_FD), 0);
		expect_differs(T_kcmp_user_file_across_child_own_open,
			       sys_kcmp(me, peer.pid, KCMP_FILE, peer.file, PEER_OWN_FD));
		expect_ret(T_kcmp_user_file_across_received,
			   sys_kcmp(me, peer.pid, KCMP_FILE, peer.received, PEER_SENT_FD), 0);
	}
	stop_peer(&peer);
	close(a);
	close(b);
	close(c);
}

/* The resource types an ordinary user compares against its own children: the same as a child
 * that shares every one of them, different from a fork()ed child. */
static const struct user_resource {
	enum test_id sharing, forked;
	int type;
} user_resources[] = {
	{ T_kcmp_user_vm_sharing_child, T_kcmp_user_vm_forked_child, KCMP_VM },
	{ T_kcmp_user_files_sharing_child, T_kcmp_user_files_forked_child, KCMP_FILES },
	{ T_kcmp_user_fs_sharing_child, T_kcmp_user_fs_forked_child, KCMP_FS },
	{ T_kcmp_user_sighand_sharing_child, T_kcmp_user_sighand_forked_child, KCMP_SIGHAND },
	{ T_kcmp_user_io_sharing_child, T_kcmp_user_io_forked_child, KCMP_IO },
	{ T_kcmp_user_sysvsem_sharing_child, T_kcmp_user_sysvsem_forked_child, KCMP_SYSVSEM },
};

static void user_resource_checks(const struct expect *ex)
{
	enum { SHARE_ALL = CLONE_VM | CLONE_FILES | CLONE_FS | CLONE_SIGHAND | CLONE_IO |
			   CLONE_SYSVSEM };
	static struct child forked, sharing;	/* a CLONE_VM child runs on its stack here */
	char why[128] = "";
	pid_t me = getpid();
	int ok;

	/* our own io_context and undo list, so that IO and SYSVSEM compare real objects */
	ok = make_io_and_undo(ex, why, sizeof(why)) == 0;
	if (ok && start_child(&forked, 0, -1)) {
		snprintf(why, sizeof(why), "fork: %s", strerror(errno));
		ok = 0;
	}
	if (ok && start_child(&sharing, SHARE_ALL, -1)) {
		snprintf(why, sizeof(why), "clone(%#x): %s", SHARE_ALL, strerror(errno));
		stop_child(&forked);
		ok = 0;
	}
	report(T_kcmp_user_children_started, ok, "%s", why);
	if (!ok)
		return;
	for (size_t i = 0; i < sizeof(user_resources) / sizeof(user_resources[0]); i++) {
		const struct user_resource *u = &user_resources[i];
		struct guest_call same = sys_kcmp(me, sharing.pid, u->type, 0, 0);
		struct guest_call other = sys_kcmp(me, forked.pid, u->type, 0, 0);

		if (u->type == KCMP_SYSVSEM && ex->sysvipc != 1) {
			expect_errno(u->sharing, same, EOPNOTSUPP);
			expect_errno(u->forked, other, EOPNOTSUPP);
		} else {
			expect_ret(u->sharing, same, 0);
			expect_differs(u->forked, other);
		}
	}
	stop_child(&sharing);
	stop_child(&forked);
}

struct user_args {
	const struct expect *ex;
	int have_epoll;
};

/* The checking child of the kcmp_user_ tests: every uid and gid NOBODY, no capability. */
static void user_checks(void *arg)
{
	const struct user_args *ua = arg;
	struct epoll_tfd_calls tfd;
	int caps;

	if (become_user(NOBODY, NOBODY)) {
		report(T_kcmp_user_started, 0, "becoming uid %d: %s", NOBODY, strerror(errno));
		return;
	}
	caps = has_capabilities();
	report(T_kcmp_user_started, caps == 0, "capget says %s",
	       caps < 0 ? strerror(errno) : "capabilities are left");
	if (caps != 0)
		return;
	user_files(ua->have_epoll);
	user_resource_checks(ua->ex);
	tfd = epoll_tfd_calls(ua->have_epoll);
	if (ua->have_epoll)
		expect_ret(T_kcmp_user_epoll_tfd, tfd.same, 0);
	else
		expect_errno(T_kcmp_user_epoll_tfd, tfd.same, EOPNOTSUPP);
}

/* A child of pid 1 that becomes a user (uid < 0: stays root) and waits until its hold pipe
 * ends; then, with exec_after, runs the exec probe, else exits. */
struct holder {
	pid_t pid;
	int hold;		/* the write end: closing it releases the holder */
};

/* alarm() survives execve(): an exec that never finishes is killed by SIGALRM. */
enum { EXEC_PROBE_SECONDS = 5 };

static void exec_probe(void)
{
	alarm(EXEC_PROBE_SECONDS);
	execl("/init", "/init", "--kcmpm-exec-probe", (char *)NULL);
	_exit(127);
}

static int start_holder(struct holder *h, int uid, int exec_after)
{
	int ready[2], hold[2];
	char b = 0;

	h->pid = -1;
	h->hold = -1;
	if (pipe(ready))
		return -1;
	if (pipe(hold)) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	h->pid = fork();
	if (h->pid == 0) {
		close(ready[0]);
		close(hold[1]);
		b = uid >= 0 && become_user(uid, uid) ? 'e' : 'r';
		if (write(ready[1], &b, 1) != 1)
			_exit(1);
		while (read(hold[0], &b, 1) > 0)
			;
		if (exec_after)
			exec_probe();
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	h->hold = hold[1];
	if (h->pid < 0 || read(ready[0], &b, 1) != 1 || b != 'r') {
		close(ready[0]);
		errno = h->pid < 0 ? errno : EIO;
		return -1;
	}
	close(ready[0]);
	return 0;
}

/* Releases the holder and waits for it: its wait status, or -1. */
static int stop_holder(struct holder *h)
{
	int status = -1;

	if (h->hold >= 0)
		close(h->hold);
	if (h->pid > 0)
		waitpid(h->pid, &status, 0);
	return status;
}

/* The checking child of the kcmp_realuid_ tests: real uid NOBODY, effective and fs uid
 * OTHER_USER, no capability. kcmp() asks ptrace_may_access(..., PTRACE_MODE_READ_REALCREDS),
 * which compares the caller's real uid with the target's: a target of uid NOBODY is ours to
 * compare, one of uid OTHER_USER is not (the fs uid would say the opposite). */
static void realuid_checks(void *arg)
{
	const struct holder *targets = arg;
	pid_t me = getpid();

	if (become_user(NOBODY, OTHER_USER) || has_capabilities() != 0) {
		report(T_kcmp_realuid_same_real_uid, 0, "becoming real uid %d, uid %d without "
		       "capabilities failed: %s", NOBODY, OTHER_USER, strerror(errno));
		return;
	}
	expect_differs(T_kcmp_realuid_same_real_uid, sys_kcmp(me, targets[0].pid, KCMP_VM, 0, 0));
	expect_errno(T_kcmp_realuid_other_uid_eperm, sys_kcmp(me, targets[1].pid, KCMP_VM, 0, 0),
		     EPERM);
}

static void test_real_uid(void)
{
	struct holder targets[2];
	int ok = start_holder(&targets[0], NOBODY, 0) == 0 &&
		 start_holder(&targets[1], OTHER_USER, 0) == 0;

	if (ok) {
		run_checking_child(T_kcmp_realuid_same_real_uid, T_kcmp_realuid_other_uid_eperm,
				   realuid_checks, targets);
	} else {
		report(T_kcmp_realuid_same_real_uid, 0, "target of uid %d: %s", NOBODY,
		       strerror(errno));
		report(T_kcmp_realuid_other_uid_eperm, 0, "target of uid %d: %s", OTHER_USER,
		       strerror(errno));
	}
	stop_holder(&targets[1]);
	stop_holder(&targets[0]);
}

/* The error paths after which the tasks of the call must still be usable: one call each, from
 * a caller to another task (the holder). EPERM is an ordinary user's call on a root task; the
 * others are root's. */
static const struct after_check {
	enum test_id id;
	int unprivileged;
	int type;
	int missing_pid2;
	unsigned long idx1;
	int bad_slot;		/* KCMP_EPOLL_TFD with a slot that faults */
	int want;		/* the errno; with bad_slot and no epoll, EOPNOTSUPP */
} after_checks[] = {
	{ T_kcmp_exec_after_eperm, 1, KCMP_VM, 0, 0, 0, EPERM },
	{ T_kcmp_exec_after_esrch, 0, KCMP_VM, 1, 0, 0, ESRCH },
	{ T_kcmp_exec_after_ebadf, 0, KCMP_FILE, 0, 999, 0, EBADF },
	{ T_kcmp_exec_after_einval, 0, KCMP_TYPES, 0, 0, 0, EINVAL },
	{ T_kcmp_exec_after_efault, 0, KCMP_EPOLL_TFD, 0, 0, 1, EFAULT },
};

/* The caller's side: make the call, send its result, exec the probe. */
static void after_caller(const struct after_check *ac, pid_t other, int result_fd)
{
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct guest_call c;

	if (ac->unprivileged && become_user(NOBODY, NOBODY))
		_exit(120);
	c = sys_kcmp(getpid(), ac->missing_pid2 ? MISSING_PID : other, ac->type, ac->idx1,
		     ac->bad_slot ? (unsigned long)unmapped : 999);
	if (write(result_fd, &c, sizeof(c)) != sizeof(c))
		_exit(121);
	close(result_fd);
	exec_probe();
}

/* After an error path, both tasks of the call can still exec (kcmp() takes each task's
 * exec_update_lock, and an error path that left one held would hang that task's next execve()
 * for ever) and exit. */
static void test_usable_after(const struct after_check *ac, int have_epoll)
{
	int want = ac->bad_slot && !have_epoll ? EOPNOTSUPP : ac->want;
	struct guest_call c = { 0, -1 };
	int res[2], caller_status = -1, other_status;
	char how1[64], how2[64];
	struct holder other;
	pid_t caller = -1;

	if (start_holder(&other, -1, 1)) {
		report(ac->id, 0, "the other task: %s", strerror(errno));
		stop_holder(&other);
		return;
	}
	if (pipe(res) == 0 && (caller = fork()) == 0) {
		close(res[0]);
		after_caller(ac, other.pid, res[1]);
	}
	if (caller > 0) {
		close(res[1]);
		if (read(res[0], &c, sizeof(c)) != sizeof(c))
			c = (struct guest_call){ 0, -1 };
		close(res[0]);
		waitpid(caller, &caller_status, 0);
	}
	other_status = stop_holder(&other);
	report(ac->id, c.ret == -1 && c.err == want && caller_status == 0 && other_status == 0,
	       "the call returned %ld (errno %d %s), expected errno %d %s; then the caller's "
	       "exec: %s, the other task's: %s (0 is an exec that finished; SIGALRM one that "
	       "hung for %d s)", c.ret, c.err, c.err >= 0 ? strerror(c.err) : "none", want,
	       strerror(want), how_ended(caller_status, how1, sizeof(how1)),
	       how_ended(other_status, how2, sizeof(how2)), EXEC_PROBE_SECONDS);
}

/* A file kcmp() compared holds no reference afterwards: the write end of a pipe, compared and
 * then closed, gives EOF on the read end at once (a reference left behind would keep the write
 * end open for ever, as every dmabuf Mesa compares would stay pinned). No other process holds
 * the pipe: nothing forks between its creation and the read. */
static void test_released(enum test_id id, int type, int have_epoll)
{
	struct epoll_event ev = { .events = EPOLLOUT };
	struct kcmp_epoll_slot slot = { 0 };
	struct guest_call c;
	pid_t me = getpid();
	int p[2], want, got;
	char b;

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC)) {
		report(id, 0, "pipe: %s", strerror(errno));
		return;
	}
	if (type == KCMP_FILE) {
		c = sys_kcmp(me, me, KCMP_FILE, p[1], p[1]);
		want = 0;
	} else {
		if (have_epoll) {
			slot.efd = epoll_create1(0);
			slot.tfd = p[1];
			epoll_ctl(slot.efd, EPOLL_CTL_ADD, p[1], &ev);
		}
		c = sys_kcmp(me, me, KCMP_EPOLL_TFD, p[1], (unsigned long)&slot);
		want = have_epoll ? 0 : -1;
		if (have_epoll)
			close(slot.efd);
	}
	close(p[1]);
	got = (int)read(p[0], &b, 1);
	report(id, (want == 0 ? c.ret == 0 : c.err == EOPNOTSUPP) && got == 0,
	       "the comparison returned %ld (errno %d %s); after closing the compared write end, "
	       "read() of the read end returned %d (errno %s), expected 0 (EOF): %s", c.ret, c.err,
	       strerror(c.err), got, got < 0 ? strerror(errno) : "none",
	       got < 0 && errno == EAGAIN ? "something still holds the write end" : "");
	close(p[0]);
}

/* The calls of ordinary users, then whether the kernel is still usable after kcmp()'s error
 * paths and its comparisons. */
static void test_user_paths(const struct expect *ex, int have_epoll)
{
	struct user_args ua = { .ex = ex, .have_epoll = have_epoll };

	run_checking_child(T_kcmp_user_started, T_kcmp_user_epoll_tfd, user_checks, &ua);
	test_real_uid();
	for (size_t i = 0; i < sizeof(after_checks) / sizeof(after_checks[0]); i++)
		test_usable_after(&after_checks[i], have_epoll);
	test_released(T_kcmp_file_released, KCMP_FILE, have_epoll);
	test_released(T_kcmp_epoll_tfd_file_released, KCMP_EPOLL_TFD, have_epoll);
}

/* epoll works when it delivers an event: a pipe's read end watched, a byte written, and
 * epoll_wait() returns that event. ret 0: delivered; -1: the failing call's errno (ENOSYS:
 * absent); -2: no event came. */
static struct guest_call epoll_delivers(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x6b636d70 }, got = { 0 };
	struct guest_call c = { 0, 0 };
	int efd = epoll_create1(0), p[2] = { -1, -1 }, n;

	if (efd < 0)
		return (struct guest_call){ -1, errno };
	if (pipe(p) || epoll_ctl(efd, EPOLL_CTL_ADD, p[0], &ev) || write(p[1], "x", 1) != 1) {
		c = (struct guest_call){ -1, errno };
	} else {
		n = epoll_wait(efd, &got, 1, 2000);
		if (n < 0)
			c = (struct guest_call){ -1, errno };
		else if (n != 1 || got.data.u64 != ev.data.u64 || !(got.events & EPOLLIN))
			c = (struct guest_call){ -2, 0 };
	}
	close(efd);
	close(p[0]);
	close(p[1]);
	return c;
}

/* epoll is there as predicted, and where it is, it delivers events. */
static void test_epoll_present(const struct expect *ex, struct guest_call delivered)
{
	int have = !(delivered.ret == -1 && delivered.err == ENOSYS);

	if (ex->epoll < 0 || have != ex->epoll) {
		guest_presence(test_names[T_epoll_present], ex->epoll, have);
		return;
	}
	report(T_epoll_present, !have || delivered.ret == 0, "epoll_create1() works, but %s",
	       delivered.ret == -2 ? "epoll_wait() delivered no event for a readable pipe"
				   : strerror(delivered.err));
}

int main(int argc, char **argv)
{
	struct expect ex = {
		.kcmp = guest_yes_no("KCMPM_EXPECT_kcmp", "works", "enosys"),
		.epoll = guest_yes_no("KCMPM_EXPECT_epoll", "works", "enosys"),
		.sysvipc = guest_yes_no("KCMPM_CONFIG_SYSVIPC", "y", "n"),
	};
	char kcmp_word[32], epoll_word[32], tfd_word[32], selftest_word[16];
	struct epoll_tfd_calls tfd;
	struct peer peer = { .pid = -1, .hold = -1 };
	struct guest_call probe, delivered;
	int have_kcmp, have_epoll;

	if (argc == 2 && !strcmp(argv[1], "--kcmpm-exec-probe") && getpid() != 1)
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	guest_start(NTESTS);
	guest_identity(test_names[T_kernel_identity]);

	probe = sys_kcmp(getpid(), getpid(), KCMP_FILE, 1, 1);
	have_kcmp = !(probe.ret == -1 && probe.err == ENOSYS);
	guest_presence(test_names[T_kcmp_present], ex.kcmp, have_kcmp);

	delivered = epoll_delivers();
	have_epoll = !(delivered.ret == -1 && delivered.err == ENOSYS);
	test_epoll_present(&ex, delivered);

	tfd = epoll_tfd_calls(have_epoll);
	if (have_kcmp) {
		/* the peer after the children and stopped before them: it holds copies of their
		 * pipes' write ends, whose closing ends them */
		int started = start_children(&ex);
		int peered = start_peer_reported(&peer, have_epoll);

		test_file();
		if (peered)
			test_file_across(&peer);
		else
			skip_tests(T_kcmp_file_across_dup2, T_kcmp_file_across_ebadf_idx2, NULL, NULL,
				   "no peer");
		if (started) {
			test_resources(&ex);
			test_order(&ex);
		} else {
			/* nothing to compare: the failed start already fails the cell */
			skip_tests(T_kcmp_vm_self, T_kcmp_order_sysvsem, NULL, NULL, "no children");
		}
		test_epoll_tfd(&tfd, have_epoll);
		if (peered)
			test_epoll_tfd_across(&peer, have_epoll);
		else
			skip_tests(T_kcmp_epoll_tfd_across, T_kcmp_epoll_tfd_across_ebadf_efd, NULL,
				   NULL, "no peer");
		stop_peer(&peer);
		if (started)
			stop_children();
		test_epoll_tfd_errors(have_epoll);
		test_errors();
		test_eperm(T_kcmp_eperm_pid1_unprivileged, 1);
		test_eperm(T_kcmp_eperm_pid2_unprivileged, 0);
		test_user_paths(&ex, have_epoll);
	} else {
		skip_tests(T_kcmp_children_started, NTESTS - 1, "kcmp", "enosys", "kcmp() absent");
	}

	guest_selftest(selftest_word, sizeof(selftest_word));
	guest_describe(kcmp_word, sizeof(kcmp_word), probe, "works", 0, NULL);
	if (delivered.ret == -2)
		snprintf(epoll_word, sizeof(epoll_word), "no-event");
	else
		guest_describe(epoll_word, sizeof(epoll_word), delivered, "works", 0, NULL);
	guest_describe(tfd_word, sizeof(tfd_word), tfd.same, "works", EOPNOTSUPP, "eopnotsupp");
	printf("# kcmp-matrix observed: kcmp=%s epoll=%s epoll_tfd=%s selftest=%s\n", kcmp_word,
	       epoll_word, tfd_word, selftest_word);
	return guest_finish(NTESTS);
}
