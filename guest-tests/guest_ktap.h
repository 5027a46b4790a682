// SPDX-License-Identifier: GPL-2.0
/*
 * guest_ktap.h: what every kcmp-matrix guest (the /init of a question) shares with the
 * harness, so that a question's guest is only its checks:
 *
 *   - KTAP results by test name, in the order of the guest's <name>_tests.h list, which the
 *     harness reads too and requires by count and name;
 *   - the expectations on the kernel command line, which the kernel hands to init as its
 *     environment: KCMPM_ID=<tag>, KCMPM_EXPECT_<observable>=<state>,
 *     KCMPM_CONFIG_<SYMBOL>=<y|m|n>;
 *   - a SKIP names the observable state that implies it, which the harness checks against
 *     its prediction;
 *   - the guest's start, announced and drained to the console before its first system call
 *     that could hang, so that a hang after it is the kernel's, never the machine's;
 *   - the kernel's own selftest, where the question has one: run after the guest's checks,
 *     its output as diagnostics, its verdict one more observed word (guest_selftest);
 *   - the lines the harness reads: "# kcmp-matrix: guest started",
 *     "# kcmp-matrix kernel: <release> <version>",
 *     "# kcmp-matrix observed: name=state ..." and "# kcmp-matrix: powering off";
 *   - the power-off.
 *
 * Header only, for a static program built from one source file.
 */
#ifndef KCMPM_GUEST_KTAP_H
#define KCMPM_GUEST_KTAP_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* A system call's return value and errno. */
struct guest_call {
	long ret;
	int err;
};

static int guest_test_no;

/* The guest's own console (arches.conf's guest-channel: a second serial port or a virtio
 * console), which the harness packs as this node: the guest's KTAP goes there, apart from the
 * kernel's log, so that no kernel line can garble or pass for a guest line. */
#define GUEST_CHANNEL "/dev/kcmpm-guest"

/* Makes the guest's own channel its stdout, where there is one (the node exists): 0, or -1
 * with errno when the node is there but cannot be opened (then the harness, which reads the
 * channel only, sees no KTAP: the boot fails). */
static inline int guest_channel(void)
{
	int fd = open(GUEST_CHANNEL, O_WRONLY | O_NOCTTY);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	fflush(stdout);
	if (dup2(fd, STDOUT_FILENO) != STDOUT_FILENO) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* The KTAP header and the start line, on the guest's channel, then tcdrain(): the port has
 * sent them before the guest makes a call that could hang, so a boot that stops after this
 * line shows a kernel that stopped answering, and one without it a boot that never reached
 * the guest. */
static inline void guest_start(int planned)
{
	if (guest_channel())
		printf("# kcmp-matrix: cannot open the guest channel %s: %s\n", GUEST_CHANNEL,
		       strerror(errno));
	printf("KTAP version 1\n1..%d\n# kcmp-matrix: guest started\n", planned);
	fflush(stdout);
	tcdrain(STDOUT_FILENO);	/* ENOTTY when stdout is no terminal: nothing to wait for */
}

/* One KTAP result line; a failure carries a diagnostic line after it. */
static inline void guest_vreport(const char *name, int ok, const char *fmt, va_list ap)
{
	char why[256] = "";

	if (fmt)
		vsnprintf(why, sizeof(why), fmt, ap);
	guest_test_no++;
	printf("%s %d %s\n", ok ? "ok" : "not ok", guest_test_no, name);
	if (!ok && why[0])
		printf("# %s: %s\n", name, why);
}

static inline void guest_report(const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void guest_report(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	guest_vreport(name, ok, fmt, ap);
	va_end(ap);
}

/* A skipped test. The harness accepts a SKIP only where the prediction implies it, so the
 * directive names the observable and the state that made the test moot ("# SKIP kcmp=enosys:
 * kcmp() absent"); observable NULL skips for another reason, which the harness fails. */
static inline void guest_skip(const char *name, const char *observable, const char *state,
			      const char *why)
{
	guest_test_no++;
	if (observable)
		printf("ok %d %s # SKIP %s=%s: %s\n", guest_test_no, name, observable, state, why);
	else
		printf("ok %d %s # SKIP %s\n", guest_test_no, name, why);
}

/* 1 when the variable says yes, 0 when it says no, -1 when it is missing or says neither. */
static inline int guest_yes_no(const char *var, const char *yes, const char *no)
{
	const char *v = getenv(var);

	if (!v)
		return -1;
	if (!strcmp(v, yes))
		return 1;
	if (!strcmp(v, no))
		return 0;
	return -1;
}

/* The kernel the guest booted, and the test that it is the one built for the cell. */
static inline void guest_identity(const char *test_name)
{
	const char *id = getenv("KCMPM_ID");
	struct utsname u;

	if (uname(&u)) {
		guest_report(test_name, 0, "uname failed: %s", strerror(errno));
		return;
	}
	printf("# kcmp-matrix kernel: %s %s\n", u.release, u.version);
	if (!id) {
		guest_report(test_name, 0, "KCMPM_ID missing from the kernel command line");
		return;
	}
	guest_report(test_name, strstr(u.version, id) != NULL,
		     "booted kernel '%s' is not the one built for this cell (%s)", u.version, id);
}

/* A system call is there as predicted (want: 1, 0, or -1 when the harness did not say). */
static inline void guest_presence(const char *test_name, int want, int have)
{
	if (want < 0) {
		guest_report(test_name, 0, "expectation missing or malformed on the kernel command "
			     "line");
		return;
	}
	guest_report(test_name, want == have, "predicted %s, kernel says %s",
		     want ? "present" : "absent (ENOSYS)", have ? "present" : "absent (ENOSYS)");
}

/* An observed state: ok_word on success, "enosys", alt_word for alt_errno, else "errno-N". */
static inline void guest_describe(char *buf, size_t len, struct guest_call c, const char *ok_word,
				  int alt_errno, const char *alt_word)
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

/* The kernel's own selftest (/selftest, which the harness packs beside the guest where the
 * question names one), run when the harness says KCMPM_SELFTEST=run: in a scratch folder (it may
 * create files), its output printed as "# selftest: <line>" diagnostics, so that its TAP is
 * never taken for the guest's, and its verdict written to word: "pass" (kselftest's
 * "# Totals:" line with some pass, no fail and no error, and exit 0), "skip" (exit 4,
 * KSFT_SKIP), "fail" (anything else), or "not-run". */
static inline void guest_selftest(char *word, size_t len)
{
	const char *want = getenv("KCMPM_SELFTEST");
	int p[2], status = -1, totals = 0, pass = 0, fail = 0, xfail = 0, xpass = 0, skip = 0;
	int error = 0;
	char line[512];
	pid_t pid;
	FILE *f;

	snprintf(word, len, "not-run");
	if (!want || strcmp(want, "run"))
		return;
	snprintf(word, len, "fail");
	if (access("/selftest", X_OK) || pipe(p)) {
		printf("# selftest: cannot run /selftest: %s\n", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		if (mkdir("/selftest.d", 0755) && errno != EEXIST)
			_exit(126);
		if (chdir("/selftest.d"))
			_exit(126);
		execl("/selftest", "/selftest", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = pid > 0 ? fdopen(p[0], "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		printf("# selftest: %s\n", line);
		if (sscanf(line, "# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d", &pass,
			   &fail, &xfail, &xpass, &skip, &error) == 6)
			totals = 1;
	}
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	printf("# selftest: exit status %#x\n", status);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
		snprintf(word, len, "skip");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && totals && pass > 0 && !fail &&
		 !error && !xpass)
		snprintf(word, len, "pass");
}

/* The end of every guest: says if the plan was not met, then powers the guest off. */
static inline int guest_finish(int planned)
{
	if (guest_test_no != planned)
		printf("# kcmp-matrix: ran %d tests, planned %d\n", guest_test_no, planned);
	printf("# kcmp-matrix: powering off\n");
	fflush(stdout);
	tcdrain(STDOUT_FILENO);	/* every line sent before the machine goes */
	sync();
	reboot(RB_AUTOBOOT);
	printf("# kcmp-matrix: reboot() failed: %s\n", strerror(errno));
	return 1;
}

#endif
