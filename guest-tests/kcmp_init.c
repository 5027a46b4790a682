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
 *   # kcmp-matrix observed: kcmp=<works|enosys|errno-N> epoll=<...> epoll_tfd=<works|eopnotsupp|enosys|errno-N>
 * one name=state word per observable the rules declare; the harness judges each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/mount.h>
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

/* One KTAP result line for a test of the list. Tests are reported in the list's order: one
 * reported out of turn is a bug of this program, and the harness sees it as a wrong name. */
static void report(enum test_id id, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void report(enum test_id id, int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	guest_vreport(test_names[id], ok, fmt, ap);
	va_end(ap);
}

/* Skips the tests first to last of the list, each by its name. */
static void skip_tests(enum test_id first, enum test_id last, const char *why)
{
	for (int i = first; i <= (int)last; i++)
		guest_skip(test_names[i], why);
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

static void expect_errno(enum test_id name, struct guest_call c, int want)
{
	report(name, c.ret == -1 && c.err == want, "returned %ld (errno %d %s), expected errno %d %s",
	       c.ret, c.err, strerror(c.err), want, strerror(want));
}

/* A child that shares what its clone flags say with us and waits until the write end of its
 * pipe closes. Its pipe_wait and stack live in struct child: a CLONE_VM child shares our
 * memory, so neither may be on a stack frame we leave or shared with another child. */
struct child {
	pid_t pid;
	int rfd, wfd;
	int close_wfd;		/* it has its own fd table (no CLONE_FILES): close its copy */
	char stack[64 * 1024] __attribute__((aligned(16)));
};

static int wait_for_eof(void *arg)
{
	struct child *ch = arg;
	char b;

	if (ch->close_wfd)
		close(ch->wfd);
	while (read(ch->rfd, &b, 1) > 0)
		;
	_exit(0);
}

static int start_child(struct child *ch, int flags)
{
	int p[2];

	if (pipe(p))
		return -1;
	ch->rfd = p[0];
	ch->wfd = p[1];
	ch->close_wfd = !(flags & CLONE_FILES);
	ch->pid = clone(wait_for_eof, ch->stack + sizeof(ch->stack), flags | SIGCHLD, ch);
	if (ch->pid < 0)
		return -1;
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

/* The children of the resource checks: one shares nothing, each other one resource (or, for
 * sighand, the VM it needs too). */
enum { FORKED, FILES, FS, VM, SIGHAND, IO, SYSVSEM, NCHILD };

static const int child_flags[NCHILD] = {
	[FORKED] = 0,
	[FILES] = CLONE_FILES,
	[FS] = CLONE_FS,
	[VM] = CLONE_VM,
	[SIGHAND] = CLONE_VM | CLONE_SIGHAND,
	[IO] = CLONE_IO,
	[SYSVSEM] = CLONE_SYSVSEM,
};

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
	return 0;
}

static int start_children(const struct expect *ex)
{
	char why[128] = "";
	int ok = make_io_and_undo(ex, why, sizeof(why)) == 0;

	for (int i = 0; i < NCHILD && ok; i++)
		if (start_child(&children[i], child_flags[i])) {
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

static void test_errors(void)
{
	pid_t me = getpid();

	expect_errno(T_kcmp_einval_unknown_type, sys_kcmp(me, me, KCMP_TYPES + 1, 0, 0), EINVAL);
	expect_errno(T_kcmp_esrch_missing_pid, sys_kcmp(me, 4000000, KCMP_VM, 0, 0), ESRCH);
	expect_errno(T_kcmp_ebadf_bad_fd, sys_kcmp(me, me, KCMP_FILE, 0, 999), EBADF);
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

int main(void)
{
	struct expect ex = {
		.kcmp = guest_yes_no("KCMPM_EXPECT_kcmp", "works", "enosys"),
		.epoll = guest_yes_no("KCMPM_EXPECT_epoll", "works", "enosys"),
		.sysvipc = guest_yes_no("KCMPM_CONFIG_SYSVIPC", "y", "n"),
	};
	char kcmp_word[32], epoll_word[32], tfd_word[32];
	struct epoll_tfd_calls tfd;
	struct guest_call probe;
	int have_kcmp, have_epoll, efd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", NTESTS);
	guest_identity(test_names[T_kernel_identity]);

	probe = sys_kcmp(getpid(), getpid(), KCMP_FILE, 1, 1);
	have_kcmp = !(probe.ret == -1 && probe.err == ENOSYS);
	guest_presence(test_names[T_kcmp_present], ex.kcmp, have_kcmp);

	efd = epoll_create1(0);
	have_epoll = !(efd < 0 && errno == ENOSYS);
	if (efd >= 0)
		close(efd);
	guest_presence(test_names[T_epoll_present], ex.epoll, have_epoll);

	tfd = epoll_tfd_calls(have_epoll);
	if (have_kcmp) {
		int started = start_children(&ex);

		test_file();
		if (started) {
			test_resources(&ex);
			stop_children();
		} else {
			/* nothing to compare: the failed start already fails the cell */
			skip_tests(T_kcmp_vm_self, T_kcmp_sysvsem_clone_io_child, "no children");
		}
		test_epoll_tfd(&tfd, have_epoll);
		test_errors();
		test_eperm(T_kcmp_eperm_pid1_unprivileged, 1);
		test_eperm(T_kcmp_eperm_pid2_unprivileged, 0);
	} else {
		skip_tests(T_kcmp_children_started, NTESTS - 1, "kcmp() absent");
	}

	guest_describe(kcmp_word, sizeof(kcmp_word), probe, "works", 0, NULL);
	guest_describe(epoll_word, sizeof(epoll_word),
		       (struct guest_call){ have_epoll ? 0 : -1, have_epoll ? 0 : ENOSYS }, "works", 0, NULL);
	guest_describe(tfd_word, sizeof(tfd_word), tfd.same, "works", EOPNOTSUPP, "eopnotsupp");
	printf("# kcmp-matrix observed: kcmp=%s epoll=%s epoll_tfd=%s\n", kcmp_word, epoll_word,
	       tfd_word);
	return guest_finish(NTESTS);
}
