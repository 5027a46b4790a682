/* The console parser, on real serial logs and on hand-made broken ones. */
#include "check.h"
#include "ktap.h"
#include "util.h"

#include <stdlib.h>

static void parse_str(const char *s, struct ktap_log *log)
{
	ktap_parse(s, strlen(s), log);
}

TEST(ktap_real_x86_64_log)
{
	size_t len;
	char *text = read_file(DATA("serial-x86_64-drm.log"), &len), buf[256];
	struct ktap_log log;

	CHECK(text != NULL);
	if (!text)
		return;
	ktap_parse(text, len, &log);
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
	ktap_parse(text, len, &log);
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
	parse_str("[    2.0] BUG: kernel NULL pointer dereference, address: 0000000000000000\n", &log);
	CHECK_CONTAINS(log.crash, "BUG: kernel NULL pointer dereference");
	ktap_free(&log);
}

TEST(ktap_garbage_does_not_crash)
{
	static const char junk[] = "ok\nnot ok\nok -1 x\nok 99999999999999999999 y\n1..\n1..-3\n"
				   "# kcmp-matrix observed: =\n# kcmp-matrix observed:\n\0\0ok 1\n"
				   "KTAP version\n[\n[ 1.0\n]\n";
	struct ktap_log log;
	char buf[64];

	ktap_parse(junk, sizeof(junk) - 1, &log);
	CHECK(ktap_problem(&log, buf, sizeof(buf)) != NULL);
	ktap_free(&log);
	ktap_parse("", 0, &log);
	CHECK(log.ntest == 0 && log.plan == -1);
	ktap_free(&log);
}
