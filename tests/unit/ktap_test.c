/* The console parser, on real serial logs and on hand-made broken ones. */
#include "check.h"
#include "ktap.h"
#include "matrix.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

/* Crash and warning lines as matrix/arches.conf gives some of them. */
static char *crash_lines[] = { "Kernel panic", "Oops", "Unable to handle kernel", NULL };
static char *warning_lines[] = { "WARNING:", "BUG:", "UBSAN:", NULL };
static const struct console_marks marks = { crash_lines, warning_lines };

static void parse_str(const char *s, struct ktap_log *log)
{
	ktap_parse(s, strlen(s), &marks, log);
}

TEST(ktap_real_x86_64_log)
{
	size_t len;
	char *text = read_file(DATA("serial-x86_64-drm.log"), &len), buf[256];
	struct ktap_log log;

	CHECK(text != NULL);
	if (!text)
		return;
	ktap_parse(text, len, &marks, &log);
	CHECK(log.versions == 1);
	CHECK(log.plan == 23);
	CHECK(log.ntest == 23);
	CHECK(ktap_problem(&log, buf, sizeof(buf)) == NULL);
	CHECK(ktap_first_failure(&log) == NULL);
	CHECK(log.nobserved == 3);
	CHECK_STR(ktap_observed(&log, "kcmp"), "works");
	CHECK_STR(ktap_observed(&log, "epoll"), "works");
	CHECK_STR(ktap_observed(&log, "epoll_tfd"), "works");
	CHECK(ktap_observed(&log, "something_else") == NULL);
	CHECK_STR(log.kernel, "6.1.192 #2 kcmpm-44ddc671556549fc");
	CHECK_CONTAINS(log.banner, "Linux version 6.1.192");
	CHECK(log.crash == NULL);
	CHECK(log.powered_off);
	CHECK_STR(log.test[22].name, "kcmp_eperm_unprivileged");
	ktap_free(&log);
	free(text);
}

TEST(ktap_real_arm64_log_with_failure)
{
	size_t len;
	char *text = read_file(DATA("serial-arm64-sysvsem-fail.log"), &len);
	struct ktap_log log;
	const struct ktap_test *bad;

	CHECK(text != NULL);
	if (!text)
		return;
	ktap_parse(text, len, &marks, &log);
	bad = ktap_first_failure(&log);
	CHECK(bad != NULL);
	if (bad) {
		CHECK(bad->number == 18);
		CHECK_STR(bad->name, "kcmp_sysvsem");
		CHECK_CONTAINS(bad->diag, "expected errno 95");
	}
	ktap_free(&log);
	free(text);
}

TEST(ktap_kernel_noise_and_cr)
{
	struct ktap_log log;
	char buf[256];

	parse_str("[    0.1] random: crng init\r\nKTAP version 1\r\n1..2\r\n"
		  "[    0.2] some driver: probe\r\nok 1 first\r\n"
		  "garbage line\r\nnot ok 2 second # SKIP nothing here\r\n"
		  "# kcmp-matrix observed: kcmp=enosys epoll=works epoll_tfd=enosys\r\n"
		  "# kcmp-matrix: powering off\r\n", &log);
	CHECK(log.plan == 2 && log.ntest == 2);
	CHECK(log.test[1].skip);
	CHECK_STR(log.test[1].name, "second");
	CHECK(ktap_problem(&log, buf, sizeof(buf)) == NULL);
	CHECK_STR(ktap_observed(&log, "kcmp"), "enosys");
	ktap_free(&log);
}

TEST(ktap_incomplete_plans_are_problems)
{
	struct ktap_log log;
	char buf[256];

	parse_str("Linux version 6.1\nno ktap at all\n", &log);
	CHECK_STR(ktap_problem(&log, buf, sizeof(buf)), "no KTAP output from the guest");
	ktap_free(&log);

	parse_str("KTAP version 1\nok 1 a\n", &log);
	CHECK_STR(ktap_problem(&log, buf, sizeof(buf)), "KTAP output has no plan line");
	ktap_free(&log);

	parse_str("KTAP version 1\n1..3\nok 1 a\nok 2 b\n", &log);
	CHECK_STR(ktap_problem(&log, buf, sizeof(buf)), "KTAP plan 1..3 but 2 results");
	ktap_free(&log);

	parse_str("KTAP version 1\n1..2\nok 1 a\nok 3 b\n", &log);
	CHECK_STR(ktap_problem(&log, buf, sizeof(buf)), "KTAP results out of order");
	ktap_free(&log);

	parse_str("KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n", &log);
	CHECK_CONTAINS(ktap_problem(&log, buf, sizeof(buf)), "seen 2 times");
	ktap_free(&log);

	parse_str("KTAP version 1\n1..1\nok 1 a\n", &log);
	CHECK_STR(ktap_problem(&log, buf, sizeof(buf)), "the guest did not report what it observed");
	ktap_free(&log);

	parse_str("KTAP version 1\n1..1\nok 1 a\n# kcmp-matrix observed: kcmp=works epoll=works "
		  "epoll_tfd=works\n", &log);
	CHECK_CONTAINS(ktap_problem(&log, buf, sizeof(buf)), "no power-off line");
	ktap_free(&log);
}

TEST(ktap_crash_lines)
{
	struct ktap_log log;

	parse_str("KTAP version 1\n1..23\nok 1 a\n[    1.234567] Kernel panic - not syncing: "
		  "Attempted to kill init! exitcode=0x0000000b\n[    1.3] Kernel Offset: disabled\n",
		  &log);
	CHECK_STR(log.crash, "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b");
	ktap_free(&log);
	/* a fatal BUG: is followed by its Oops, which is the crash; the BUG: line alone is a
	 * warning */
	parse_str("Linux version 6.1\n[    2.0] BUG: kernel NULL pointer dereference, address: 0\n"
		  "[    2.1] Oops: 0002 [#1] PREEMPT\n", &log);
	CHECK_STR(log.crash, "Oops: 0002 [#1] PREEMPT");
	CHECK_STR(log.warning, "BUG: kernel NULL pointer dereference, address: 0");
	ktap_free(&log);
	/* the crash lines are the data's: without marks nothing is a crash */
	ktap_parse("Kernel panic - not syncing\n", 26, NULL, &log);
	CHECK(log.crash == NULL);
	ktap_free(&log);
}

/* A warning counts from the kernel's banner to the console's end, from kernel lines only: the
 * firmware's lines before and the guest's own do not, the kernel's during power-off do. */
TEST(ktap_warning_lines)
{
	struct ktap_log log;

	parse_str("SeaBIOS WARNING: firmware noise\nLinux version 6.1\nKTAP version 1\n1..1\n"
		  "not ok 1 a\n# a: the guest's WARNING: is a diagnostic\n"
		  "[    1.5] ------------[ cut here ]------------\n"
		  "[    1.5] WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:140 __do_sys_kcmp+0x1/0x2\n"
		  "[    1.6] UBSAN: shift-out-of-bounds in kernel/kcmp.c:1:2\n"
		  "# kcmp-matrix: powering off\n", &log);
	CHECK_STR(log.warning, "WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:140 __do_sys_kcmp+0x1/0x2");
	CHECK(log.crash == NULL);
	CHECK_STR(log.test[0].diag, "a: the guest's WARNING: is a diagnostic");
	ktap_free(&log);
	parse_str("WARNING: before the banner\nLinux version 6.1\n# kcmp-matrix: powering off\n"
		  "[    2.0] WARNING: CPU: 0 PID: 1 at kernel/reboot.c:1 during power-off\n", &log);
	CHECK_STR(log.warning, "WARNING: CPU: 0 PID: 1 at kernel/reboot.c:1 during power-off");
	ktap_free(&log);
}

/* A SKIP keeps its directive's text, which names the state that made it moot. */
TEST(ktap_skip_reason)
{
	struct ktap_log log;

	parse_str("KTAP version 1\n1..3\nok 1 a # SKIP kcmp=enosys: kcmp() absent\n"
		  "ok 2 b # SKIP\nok 3 c # skip why\n", &log);
	CHECK(log.ntest == 3 && log.test[0].skip && log.test[1].skip && log.test[2].skip);
	CHECK_STR(log.test[0].skip_why, "kcmp=enosys: kcmp() absent");
	CHECK_STR(log.test[1].skip_why, "");
	CHECK_STR(log.test[2].skip_why, "why");
	CHECK_STR(log.test[0].name, "a");
	ktap_free(&log);
}

TEST(ktap_garbage_does_not_crash)
{
	static const char junk[] = "ok\nnot ok\nok -1 x\nok 99999999999999999999 y\n1..\n1..-3\n"
				   "# kcmp-matrix observed: =\n# kcmp-matrix observed:\n\0\0ok 1\n"
				   "KTAP version\n[\n[ 1.0\n]\n";
	struct ktap_log log;
	char buf[64];

	ktap_parse(junk, sizeof(junk) - 1, &marks, &log);
	CHECK(ktap_problem(&log, buf, sizeof(buf)) != NULL);
	ktap_free(&log);
	ktap_parse("", 0, &marks, &log);
	CHECK(log.ntest == 0 && log.plan == -1);
	ktap_free(&log);
}

/* Every oops header of x86 and arm64 is a crash with the real arches.conf, whether or not it
 * says "Oops": the die counter " [#1]" is common to them all. */
TEST(ktap_every_oops_header_is_a_crash)
{
	static const char *const headers[] = {
		"Oops: 0002 [#1] PREEMPT SMP NOPTI",
		"invalid opcode: 0000 [#1] PREEMPT SMP NOPTI",
		"divide error: 0000 [#1] PREEMPT SMP NOPTI",
		"general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP",
		"stack segment: 0000 [#1] SMP",
		"double fault: 0000 [#1] SMP",
		"Internal error: Oops - BUG: 00000000f2000800 [#1] PREEMPT SMP",
		"Internal error: Oops - Undefined instruction: 0000000002000000 [#1] SMP",
		NULL };
	struct matrix real = { 0 };
	char err[512] = "";

	CHECK(matrix_load("matrix", "kernel-patch", &real, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	for (int a = 0; a < real.narch; a++)
		for (int i = 0; headers[i]; i++) {
			char *text = xasprintf("Linux version 6.1\n[    3.1] %s\n", headers[i]);
			struct ktap_log log;

			ktap_parse(text, strlen(text), &real.arch[a].marks, &log);
			if (!log.crash)
				printf("# %s: not a crash: %s\n", real.arch[a].name, headers[i]);
			CHECK_STR(log.crash, headers[i]);
			ktap_free(&log);
			free(text);
		}
	/* and a line with brackets but no die counter is none */
	for (int a = 0; a < real.narch; a++) {
		static const char line[] = "Linux version 6.1\n[    0.000000] BIOS-e820: [mem 0x0-0x9fbff] usable\n";
		struct ktap_log log;

		ktap_parse(line, sizeof(line) - 1, &real.arch[a].marks, &log);
		CHECK(log.crash == NULL);
		ktap_free(&log);
	}
	matrix_free(&real);
}

/* With a guest channel, the guest's lines come from the channel alone and the kernel's from the
 * console alone: a kernel line that looks like KTAP is not a result, a kernel message in the
 * middle of a console line cannot garble a guest line, and a guest line holding a crash mark
 * is no crash. */
TEST(ktap_split_channel_keeps_the_two_apart)
{
	static const char console[] =
		"Linux version 6.1 #1 kcmpm-x\nok 2 kcmp_present\n1..1\nKTAP version 1\n"
		"[    1.0] Kernel panic - not syncing: real\n";
	static const char guest[] =
		"KTAP version 1\r\n1..2\r\n# kcmp-matrix: guest started\r\nok 1 kernel_identity\r\n"
		"not ok 2 kcmp_present\r\n# kcmp_present: Oops in the guest's words\r\n"
		"# kcmp-matrix observed: kcmp=works\r\n# kcmp-matrix: powering off\r\n";
	struct ktap_log log;
	char buf[128];

	ktap_parse_split(console, sizeof(console) - 1, guest, sizeof(guest) - 1, &marks, &log);
	CHECK(log.split && log.started && log.powered_off);
	CHECK(log.versions == 1 && log.plan == 2 && log.ntest == 2);
	CHECK(log.test[1].number == 2 && !log.test[1].ok);
	CHECK_STR(log.test[1].diag, "kcmp_present: Oops in the guest's words");
	CHECK_STR(log.banner, "Linux version 6.1 #1 kcmpm-x");
	CHECK_STR(log.crash, "Kernel panic - not syncing: real");
	CHECK(ktap_problem(&log, buf, sizeof(buf)) == NULL);
	ktap_free(&log);
	/* nothing on the channel: said so, whatever the console held */
	ktap_parse_split(guest, sizeof(guest) - 1, "", 0, &marks, &log);
	CHECK(log.ntest == 0 && !log.started);
	CHECK_STR(ktap_problem(&log, buf, sizeof(buf)), "no KTAP output from the guest on its own "
		  "channel");
	ktap_free(&log);
}
