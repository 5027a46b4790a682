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
 *   KCMPM_ID=<tag>         the tag the harness built into this kernel's version string
 *   KCMPM_KCMP=y|n         kcmp() is predicted to exist
 *   KCMPM_EPOLL=y|n        epoll is predicted to exist
 *   KCMPM_SYSVIPC=y|n      the base config has SYSVIPC, so KCMP_SYSVSEM can answer
 * A missing or malformed expectation is reported as a failed test, never guessed.
 *
 * Besides the KTAP results, two diagnostic lines carry facts for the harness:
 *   # kcmp-matrix kernel: <release> <version>
 *   # kcmp-matrix observed: kcmp=<works|enosys|errno-N> epoll=<...> epoll_tfd=<works|eopnotsupp|enosys|errno-N>
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
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

enum { NTESTS = 23 };

/* Results of one kcmp() call: its return value and errno. */
struct call {
	long ret;
	int err;
};

/* What the harness predicted for this cell. */
struct expect {
	const char *id;
	int kcmp;	/* 1, 0, or -1 when the harness did not say */
	int epoll;
	int sysvipc;
};

static int test_no;

static struct call sys_kcmp(pid_t pid1, pid_t pid2, int type, unsigned long idx1,
			    unsigned long idx2)
{
	struct call c;

	errno = 0;
	c.ret = syscall(SYS_kcmp, pid1, pid2, type, idx1, idx2);
	c.err = c.ret < 0 ? errno : 0;
	return c;
}

/* Prints one KTAP result line; a failure carries a diagnostic line after it. */
static void report(int ok, const char *name, const char *fmt, ...)
{
	char why[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	test_no++;
	printf("%s %d %s\n", ok ? "ok" : "not ok", test_no, name);
	if (!ok && why[0])
		printf("# %s: %s\n", name, why);
}

static void skip(const char *name, const char *why)
{
	test_no++;
	printf("ok %d %s # SKIP %s\n", test_no, name, why);
}

/* Checks that a call returned exactly want (0 means "same", anything else is an error). */
static void expect_ret(const char *name, struct call c, long want)
{
	report(c.ret == want, name, "returned %ld (errno %d %s), expected %ld", c.ret, c.err,
	       strerror(c.err), want);
}

/* kcmp() orders kernel pointers: 1 or 2 both mean "different"; -1 is an error. */
static void expect_differs(const char *name, struct call c)
{
	report(c.ret == 1 || c.ret == 2, name, "returned %ld (errno %d %s), expected 1 or 2",
	       c.ret, c.err, strerror(c.err));
}

static void expect_errno(const char *name, struct call c, int want)
{
	report(c.ret == -1 && c.err == want, name, "returned %ld (errno %d %s), expected errno %d %s",
	       c.ret, c.err, strerror(c.err), want, strerror(want));
}

static int yes_no(const char *var)
{
	const char *v = getenv(var);

	if (!v)
		return -1;
	if (!strcmp(v, "y"))
		return 1;
	if (!strcmp(v, "n"))
		return 0;
	return -1;
}

static void describe_errno(char *buf, size_t len, struct call c, const char *ok_word, int alt_errno,
			   const char *alt_word)
{
	if (c.ret >= 0)
		snprintf(buf, len, "%s", ok_word);
	else if (c.err == ENOSYS)
		snprintf(buf, len, "enosys");
	else if (alt_errno && c.err == alt_errno)
		snprintf(buf, len, "%s", alt_word);
	else
		snprintf(buf, len, "errno-%d", c.err);
}

/* The pipe a child waits on, and whether the child must close its own copy of the write end
 * (a fork()ed child has one; a CLONE_FILES child shares ours and must leave it alone). */
struct pipe_wait {
	int rfd;
	int wfd;
	int close_wfd;
};

/* A child that shares what its clone flags say with us and waits until the write end closes. */
static int wait_for_eof(void *arg)
{
	struct pipe_wait *pw = arg;
	char b;

	if (pw->close_wfd)
		close(pw->wfd);
	while (read(pw->rfd, &b, 1) > 0)
		;
	_exit(0);
}

struct child {
	pid_t pid;
	int wfd;
};

static char child_stack[64 * 1024] __attribute__((aligned(16)));

static int start_child(struct child *ch, int flags)
{
	struct pipe_wait pw;
	int p[2];

	if (pipe(p))
		return -1;
	pw = (struct pipe_wait){ p[0], p[1], !(flags & CLONE_FILES) };
	/* Without CLONE_VM the child runs on its own copy of child_stack and of pw. */
	ch->pid = clone(wait_for_eof, child_stack + sizeof(child_stack), flags | SIGCHLD, &pw);
	if (ch->pid < 0)
		return -1;
	if (!(flags & CLONE_FILES))
		close(p[0]);
	ch->wfd = p[1];
	return 0;
}

static void stop_child(struct child *ch)
{
	close(ch->wfd);
	waitpid(ch->pid, NULL, 0);
}

static void test_identity(const struct expect *ex)
{
	struct utsname u;

	if (uname(&u)) {
		report(0, "kernel_identity", "uname failed: %s", strerror(errno));
		return;
	}
	printf("# kcmp-matrix kernel: %s %s\n", u.release, u.version);
	if (!ex->id) {
		report(0, "kernel_identity", "KCMPM_ID missing from the kernel command line");
		return;
	}
	report(strstr(u.version, ex->id) != NULL, "kernel_identity",
	       "booted kernel '%s' is not the one built for this cell (%s)", u.version, ex->id);
}

static void test_presence(const char *name, int want, int have)
{
	if (want < 0) {
		report(0, name, "expectation missing or malformed on the kernel command line");
		return;
	}
	report(want == have, name, "predicted %s, kernel says %s", want ? "present" : "absent (ENOSYS)",
	       have ? "present" : "absent (ENOSYS)");
}

/* KCMP_FILE: a dup'd fd is the same file, a second open() of the same path is not. */
static void test_file(void)
{
	int a = open("/init", O_RDONLY), b = dup(a), c = open("/init", O_RDONLY);
	pid_t me = getpid();

	expect_ret("kcmp_file_dup", sys_kcmp(me, me, KCMP_FILE, a, b), 0);
	expect_differs("kcmp_file_other_open", sys_kcmp(me, me, KCMP_FILE, a, c));
	close(a);
	close(b);
	close(c);
}

/* VM, FILES, FS, SIGHAND, IO: equal to ourselves; a fork()ed child shares none of the first
 * four; a child cloned with CLONE_FILES|CLONE_FS|CLONE_IO shares exactly those. */
static void test_resources(void)
{
	pid_t me = getpid();
	struct child forked, sharing;

	if (start_child(&forked, 0) || start_child(&sharing, CLONE_FILES | CLONE_FS | CLONE_IO)) {
		report(0, "kcmp_children", "could not start children: %s", strerror(errno));
		return;
	}
	expect_ret("kcmp_vm_self", sys_kcmp(me, me, KCMP_VM, 0, 0), 0);
	expect_differs("kcmp_vm_forked_child", sys_kcmp(me, forked.pid, KCMP_VM, 0, 0));
	expect_ret("kcmp_files_self", sys_kcmp(me, me, KCMP_FILES, 0, 0), 0);
	expect_differs("kcmp_files_forked_child", sys_kcmp(me, forked.pid, KCMP_FILES, 0, 0));
	expect_ret("kcmp_files_clone_files_child", sys_kcmp(me, sharing.pid, KCMP_FILES, 0, 0), 0);
	expect_ret("kcmp_fs_self", sys_kcmp(me, me, KCMP_FS, 0, 0), 0);
	expect_differs("kcmp_fs_forked_child", sys_kcmp(me, forked.pid, KCMP_FS, 0, 0));
	expect_ret("kcmp_fs_clone_fs_child", sys_kcmp(me, sharing.pid, KCMP_FS, 0, 0), 0);
	expect_ret("kcmp_sighand_self", sys_kcmp(me, me, KCMP_SIGHAND, 0, 0), 0);
	expect_differs("kcmp_sighand_forked_child", sys_kcmp(me, forked.pid, KCMP_SIGHAND, 0, 0));
	expect_ret("kcmp_io_self", sys_kcmp(me, me, KCMP_IO, 0, 0), 0);
	expect_ret("kcmp_io_clone_io_child", sys_kcmp(me, sharing.pid, KCMP_IO, 0, 0), 0);
	stop_child(&sharing);
	stop_child(&forked);
}

static void test_sysvsem(const struct expect *ex)
{
	pid_t me = getpid();
	struct call c = sys_kcmp(me, me, KCMP_SYSVSEM, 0, 0);

	if (ex->sysvipc < 0)
		report(0, "kcmp_sysvsem", "KCMPM_SYSVIPC missing or malformed");
	else if (ex->sysvipc)
		expect_ret("kcmp_sysvsem", c, 0);
	else
		expect_errno("kcmp_sysvsem", c, EOPNOTSUPP);
}

/* KCMP_EPOLL_TFD: a pipe registered in an epoll set is the same file as the pipe itself. */
static struct call epoll_tfd_call(int have_epoll)
{
	struct kcmp_epoll_slot slot = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	pid_t me = getpid();
	struct call c;
	int p[2];

	if (pipe(p))
		return (struct call){ -1, errno };
	if (have_epoll) {
		slot.efd = epoll_create1(0);
		slot.tfd = p[0];
		epoll_ctl(slot.efd, EPOLL_CTL_ADD, p[0], &ev);
	}
	c = sys_kcmp(me, me, KCMP_EPOLL_TFD, p[0], (unsigned long)&slot);
	if (have_epoll)
		close(slot.efd);
	close(p[0]);
	close(p[1]);
	return c;
}

static void test_errors(void)
{
	pid_t me = getpid();

	expect_errno("kcmp_einval_unknown_type", sys_kcmp(me, me, KCMP_TYPES + 1, 0, 0), EINVAL);
	expect_errno("kcmp_esrch_missing_pid", sys_kcmp(me, 4000000, KCMP_VM, 0, 0), ESRCH);
	expect_errno("kcmp_ebadf_bad_fd", sys_kcmp(me, me, KCMP_FILE, 0, 999), EBADF);
}

/* An unprivileged caller may not inspect pid 1 (ptrace access check): EPERM. */
static void test_eperm(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct call c;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		c = sys_kcmp(getpid(), 1, KCMP_VM, 0, 0);
		_exit(c.ret == -1 && c.err == EPERM ? 0 : c.ret == -1 ? 101 + (c.err & 63) : 99);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		report(0, "kcmp_eperm_unprivileged", "fork/wait failed: %s", strerror(errno));
		return;
	}
	report(WIFEXITED(status) && WEXITSTATUS(status) == 0, "kcmp_eperm_unprivileged",
	       "unprivileged child status %#x (0 EPERM, 99 success, 100 setuid failed, "
	       "101+n errno n)", status);
}

int main(void)
{
	struct expect ex = {
		.id = getenv("KCMPM_ID"),
		.kcmp = yes_no("KCMPM_KCMP"),
		.epoll = yes_no("KCMPM_EPOLL"),
		.sysvipc = yes_no("KCMPM_SYSVIPC"),
	};
	char kcmp_word[32], epoll_word[32], tfd_word[32];
	struct call probe, tfd;
	int have_kcmp, have_epoll, efd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", NTESTS);
	test_identity(&ex);

	probe = sys_kcmp(getpid(), getpid(), KCMP_FILE, 1, 1);
	have_kcmp = !(probe.ret == -1 && probe.err == ENOSYS);
	test_presence("kcmp_present", ex.kcmp, have_kcmp);

	efd = epoll_create1(0);
	have_epoll = !(efd < 0 && errno == ENOSYS);
	if (efd >= 0)
		close(efd);
	test_presence("epoll_present", ex.epoll, have_epoll);

	tfd = epoll_tfd_call(have_epoll);
	if (have_kcmp) {
		test_file();
		test_resources();
		test_sysvsem(&ex);
		if (have_epoll)
			expect_ret("kcmp_epoll_tfd", tfd, 0);
		else
			expect_errno("kcmp_epoll_tfd", tfd, EOPNOTSUPP);
		test_errors();
		test_eperm();
	} else {
		while (test_no < NTESTS)
			skip("kcmp_subtest", "kcmp() absent");
	}

	describe_errno(kcmp_word, sizeof(kcmp_word), probe, "works", 0, NULL);
	describe_errno(epoll_word, sizeof(epoll_word),
		       (struct call){ have_epoll ? 0 : -1, have_epoll ? 0 : ENOSYS }, "works", 0, NULL);
	describe_errno(tfd_word, sizeof(tfd_word), tfd, "works", EOPNOTSUPP, "eopnotsupp");
	printf("# kcmp-matrix observed: kcmp=%s epoll=%s epoll_tfd=%s\n", kcmp_word, epoll_word,
	       tfd_word);
	if (test_no != NTESTS)
		printf("# kcmp-matrix: ran %d tests, planned %d\n", test_no, NTESTS);
	printf("# kcmp-matrix: powering off\n");
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	printf("# kcmp-matrix: reboot() failed: %s\n", strerror(errno));
	return 1;
}
