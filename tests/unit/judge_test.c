/* Verdicts: each way a cell can go wrong gives its own status and reason. */
#include "check.h"
#include "judge.h"
#include "matrix.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

static struct matrix m;

static void load_matrix(void)
{
	char err[512] = "";

	if (m.nsym)
		return;
	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
}

static const char passing_log[] =
	"Linux version 6.1.192 #1 kcmpm-0123456789abcdef\nKTAP version 1\n1..2\n"
	"# kcmp-matrix kernel: 6.1.192 #1 kcmpm-0123456789abcdef\nok 1 kernel_identity\n"
	"ok 2 kcmp_present\n# kcmp-matrix observed: kcmp=works epoll=works epoll_tfd=works\n"
	"# kcmp-matrix: powering off\n";

static const char *passing_log_ptr = passing_log;

/* A well-formed console of the right kernel around a KTAP plan, its result lines and the
 * guest's observed line. */
#define CONSOLE_OBSERVED(plan, results, observed)                                            \
	"Linux version 6.1.192 #1 kcmpm-0123456789abcdef\nKTAP version 1\n" plan "\n"         \
	"# kcmp-matrix kernel: 6.1.192 #1 kcmpm-0123456789abcdef\n" results                   \
	"# kcmp-matrix observed: " observed "\n# kcmp-matrix: powering off\n"
#define CONSOLE(plan, results) CONSOLE_OBSERVED(plan, results, "kcmp=works epoll=works epoll_tfd=works")

/* The guest's test list these logs answer. */
static const char *const listed_tests[] = { "kernel_identity", "kcmp_present", NULL };

/* A cell of variant v requesting EXPERT=y KCMP=y, judged on the boots of its kernel (one
 * console text each, with its outcome), or on its build error. */
static void judge_variant_boots(const char *v, int n, const char *const *texts,
				const struct boot_outcome *const *outcomes, const char *resolved,
				struct cell *c, const char *build_error)
{
	struct boot_attempt a[4];
	char err[256];

	load_matrix();
	*c = (struct cell){ 0 };
	memcpy(c->requested, "yynny", 5);
	c->variant = matrix_variant_index(&m, v);
	CHECK(rules_predict(&m.variant[c->variant].rules, c->requested, NULL, &c->predicted, err,
			    sizeof(err)) == 0);
	memcpy(c->resolved, resolved, 5);
	if (build_error)
		n = 0;
	for (int i = 0; i < n; i++) {
		a[i].outcome = *outcomes[i];
		ktap_parse(texts[i], strlen(texts[i]), &m.arch[0].marks, &a[i].log);
	}
	judge_cell(&(struct judge_input){ .m = &m, .build_error = build_error,
					  .nattempt = n, .attempt = a,
					  .kernel_id = "kcmpm-0123456789abcdef",
					  .tests = listed_tests }, c);
	for (int i = 0; i < n; i++)
		ktap_free(&a[i].log);
}

/* One boot, of a v3 cell. */
static void judge_text(const char *text, const char *resolved, struct cell *c,
		       const struct boot_outcome *bo, const char *build_error)
{
	judge_variant_boots("v3", 1, &text, &bo, resolved, c, build_error);
}

static void free_cell(struct cell *c)
{
	for (int i = 0; i < MAX_OBSERVABLES; i++)
		free(c->observed[i]);
	free(c->booted);
	free(c->selftest);
}

static const struct boot_outcome clean_exit = { .status = 0 };

TEST(judge_pass)
{
	struct cell c;

	judge_text(passing_log, "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_PASS);
	CHECK_STR(c.reason, "");
	CHECK_STR(c.observed[0], "works");
	free_cell(&c);
}

TEST(judge_config_layer)
{
	struct cell c;

	/* Kconfig resolved KCMP=n where the rules predicted y: the config layer diverges, and
	 * the guest's "works" no longer matches what the resolved config implies. */
	judge_text(passing_log, "ynnny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "config: KCMP predicted y, resolved n");
	CHECK_CONTAINS(c.reason, "observed: kcmp=works, but the resolved config implies kcmp=enosys");
	free_cell(&c);
}

TEST(judge_observed_layer)
{
	struct cell c;
	char *log = xstrdup(passing_log);

	memcpy(strstr(log, "kcmp=works"), "kcmp=enosy", 10);
	judge_text(log, "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "observed: kcmp=enosy");
	free(log);
	free_cell(&c);
}

TEST(judge_identity_layer)
{
	struct cell c;
	char *log = xstrdup(passing_log);

	memcpy(strstr(log, "# kcmp-matrix kernel: 6.1.192 #1 kcmpm-0"), "# kcmp-matrix kernel: 6.1.192 #1 kcmpm-f", 40);
	judge_text(log, "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "identity: the guest booted");
	free(log);
	free_cell(&c);
}

/* The guest's word is not enough: the kernel's own banner must name the tag built. */
TEST(judge_identity_from_the_banner)
{
	struct cell c;
	char *log = xstrdup(passing_log);

	memcpy(strstr(log, "Linux version 6.1.192 #1 kcmpm-0"), "Linux version 6.1.192 #1 kcmpm-f", 32);
	judge_text(log, "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "identity: the kernel's banner is 'Linux version 6.1.192 #1 "
		  "kcmpm-f123456789abcdef', not the kernel built for this cell (kcmpm-0123456789abcdef)");
	free_cell(&c);
	judge_text(strstr(passing_log, "KTAP"), "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "identity: the kernel's banner is 'missing'");
	free_cell(&c);
	free(log);
}

/* The config layer holds on cells that did not build or boot too: a wrong rule is FAIL there,
 * naming the early status, and no xfail declaration covers it. */
TEST(judge_config_layer_on_failed_cells)
{
	struct cell c;
	const struct boot_outcome timed_out = { .timed_out = 1, .status = 137 };

	judge_text("", "yynnn", &c, NULL, "kernel/kcmp.c:1:1: error: boom");
	CHECK(c.status == CELL_FAIL && c.config_mismatch);
	CHECK_STR(c.reason, "kernel/kcmp.c:1:1: error: boom; config: EPOLL predicted y, resolved n "
		  "(rules: EPOLL=y: as requested); and the cell was BUILD_FAIL");
	free_cell(&c);
	/* v1's xfail matches KCMP=y,CR=n,EPOLL=y, and declares this very build error; its rules
	 * predict EPOLL=y, so a resolved n disagrees */
	judge_variant_boots("v1", 0, NULL, NULL, "yynnn", &c, "kcmp.c: get_epoll_tfile_raw_ptr");
	CHECK(c.status == CELL_FAIL && c.config_mismatch);
	free_cell(&c);
	judge_text("KTAP version 1\n1..2\nok 1 a\n", "yynnn", &c, &timed_out, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "; and the cell was TIMEOUT");
	free_cell(&c);
	judge_text("", "yynny", &c, NULL, "kernel/kcmp.c:1:1: error: boom");
	CHECK(c.status == CELL_BUILD_FAIL && !c.config_mismatch);
	free_cell(&c);
}

TEST(judge_guest_failure)
{
	struct cell c;

	judge_text("Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
		   "KTAP version 1\n1..2\n# kcmp-matrix kernel: 6.1.192 #1 kcmpm-0123456789abcdef\n"
		   "ok 1 kernel_identity\nnot ok 2 kcmp_present\n# kcmp_present: predicted present\n"
		   "# kcmp-matrix observed: kcmp=works epoll=works epoll_tfd=works\n"
		   "# kcmp-matrix: powering off\n", "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "guest: not ok 2 kcmp_present: kcmp_present: predicted present");
	free_cell(&c);
}

TEST(judge_build_boot_timeout)
{
	struct cell c;
	const struct boot_outcome timed_out = { .timed_out = 1, .status = 137 };

	judge_text("", "yynny", &c, NULL, "kernel/kcmp.c:1:1: error: boom");
	CHECK(c.status == CELL_BUILD_FAIL);
	CHECK_STR(c.reason, "kernel/kcmp.c:1:1: error: boom");
	free_cell(&c);

	judge_text("KTAP version 1\n1..2\nok 1 a\n[ 1.0] Kernel panic - not syncing: x\n", "yynny",
		   &c, &clean_exit, NULL);
	CHECK(c.status == CELL_BOOT_FAIL);
	CHECK_STR(c.reason, "kernel crashed: Kernel panic - not syncing: x");
	free_cell(&c);

	judge_text("KTAP version 1\n1..2\nok 1 a\n", "yynny", &c, &timed_out, NULL);
	CHECK(c.status == CELL_TIMEOUT);
	free_cell(&c);

	judge_text("KTAP version 1\n1..2\nok 1 a\n", "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_BOOT_FAIL);
	CHECK_STR(c.reason, "KTAP plan 1..2 but 1 results (QEMU exit status 0)");
	free_cell(&c);
}

/* Every observable the rules declare is judged, and one the guest did not report is a FAIL. */
TEST(judge_every_observable)
{
	struct cell c;

	/* EPOLL=n resolved: epoll_tfd must be eopnotsupp, the guest says works */
	judge_text(passing_log, "yynnn", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "observed: epoll=works, but the resolved config implies "
		       "epoll=enosys (rules: observable epoll)");
	CHECK_CONTAINS(c.reason, "observed: epoll_tfd=works, but the resolved config implies "
		       "epoll_tfd=eopnotsupp (rules: observable epoll_tfd)");
	free_cell(&c);
	judge_text(CONSOLE_OBSERVED("1..2", "ok 1 kernel_identity\nok 2 kcmp_present\n",
				    "kcmp=works epoll=works"), "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "observed: the guest did not report epoll_tfd");
	free_cell(&c);
}

/* A crash is BOOT_FAIL whatever a later boot said; a cell passes after boots that only timed
 * out (the machine's fault), as PASS marked flaky. */
TEST(judge_crash_is_never_retried_away)
{
	static const char crashed[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				      "[ 0.9] Kernel panic - not syncing: kcmp\n";
	static const char stalled[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n";
	const struct boot_outcome timed_out = { .timed_out = 1, .status = 137 };
	const char *texts[] = { crashed, passing_log };
	const struct boot_outcome *outs[] = { &clean_exit, &clean_exit };
	struct boot_attempt a = { .outcome = clean_exit };
	struct cell c;

	judge_variant_boots("v3", 2, texts, outs, "yynny", &c, NULL);
	CHECK(c.status == CELL_BOOT_FAIL && !c.flaky);
	CHECK_STR(c.reason, "kernel crashed: Kernel panic - not syncing: kcmp; on boot 1 of 2");
	free_cell(&c);
	texts[0] = stalled;
	outs[0] = &timed_out;
	judge_variant_boots("v3", 2, texts, outs, "yynny", &c, NULL);
	CHECK(c.status == CELL_PASS && c.flaky);
	free_cell(&c);
	/* the boot stage may boot again only after a stall with no crash and no warning */
	load_matrix();
	ktap_parse(stalled, strlen(stalled), &m.arch[0].marks, &a.log);
	CHECK(!judge_boot_retryable(&a));
	a.outcome = timed_out;
	CHECK(judge_boot_retryable(&a));
	ktap_free(&a.log);
	ktap_parse(crashed, strlen(crashed), &m.arch[0].marks, &a.log);
	CHECK(!judge_boot_retryable(&a));
	ktap_free(&a.log);
}

#define WARN_LINE "[ 1.5] WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:140 __do_sys_kcmp+0x1/0x2\n"

/* A kernel that warns fails its cell with a status of its own, naming the line, even when
 * every check passed; a timed-out boot that warned is not the machine's fault. */
TEST(judge_kernel_warning)
{
	const struct boot_outcome timed_out = { .timed_out = 1, .status = 137 };
	static const char warned[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n" WARN_LINE;
	struct boot_attempt a = { .outcome = timed_out };
	struct cell c;
	char *log = xasprintf("Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n" WARN_LINE "%s",
			strstr(passing_log, "KTAP"));
	judge_text(log, "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_KERNEL_WARN);
	CHECK_STR(c.reason, "kernel warning: WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:140 "
		  "__do_sys_kcmp+0x1/0x2");
	CHECK(!cell_ok(&c));
	free_cell(&c);
	load_matrix();
	ktap_parse(warned, strlen(warned), &m.arch[0].marks, &a.log);
	CHECK(!judge_boot_retryable(&a));
	ktap_free(&a.log);
	free(log);
}

/* A SKIP passes only where the prediction implies it: the guest names the observable state. */
TEST(judge_skip_needs_the_prediction)
{
	struct cell c;

	judge_text(CONSOLE("1..2", "ok 1 kernel_identity\nok 2 kcmp_present # SKIP kcmp=works: x\n"),
		   "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_PASS);
	free_cell(&c);
	judge_text(CONSOLE("1..2", "ok 1 kernel_identity\nok 2 kcmp_present # SKIP kcmp=enosys: "
			   "kcmp() absent\n"), "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "guest: ok 2 kcmp_present # SKIP kcmp=enosys: kcmp() absent, which the "
		  "prediction does not imply");
	free_cell(&c);
	judge_text(CONSOLE("1..2", "ok 1 kernel_identity\nok 2 kcmp_present # SKIP no children\n"),
		   "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	free_cell(&c);
	judge_text(CONSOLE("1..2", "ok 1 kernel_identity\nok 2 kcmp_present # SKIP kcmpx=works\n"),
		   "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	free_cell(&c);
	/* a guest that skips many for one wrong reason: the first named, the rest counted */
	judge_text(CONSOLE("1..2", "ok 1 kernel_identity # SKIP kcmp=enosys: a\n"
			   "ok 2 kcmp_present # SKIP kcmp=enosys: b\n"), "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "guest: ok 1 kernel_identity # SKIP kcmp=enosys: a, which the prediction "
		  "does not imply; and 1 more skips it does not imply");
	free_cell(&c);
}

/* A known failure covers only the failure it declares (tests/data's v1: a build error naming
 * get_epoll_tfile_raw_ptr); any other failure of its cells stays a failure. */
TEST(judge_xfail_covers_its_kind_only)
{
	struct cell c;

	judge_variant_boots("v1", 0, NULL, NULL, "yynny", &c,
			    "kernel/kcmp.c:117:20: error: implicit declaration of function "
			    "'get_epoll_tfile_raw_ptr'");
	CHECK(c.status == CELL_XFAIL);
	CHECK_CONTAINS(c.reason, "known: v1 calls get_epoll_tfile_raw_ptr()");
	free_cell(&c);
	judge_variant_boots("v1", 0, NULL, NULL, "yynny", &c, "kernel/fork.c:1:1: error: other");
	CHECK(c.status == CELL_BUILD_FAIL);
	CHECK_CONTAINS(c.reason, "not the failure");
	CHECK_CONTAINS(c.reason, "(build:get_epoll_tfile_raw_ptr)");
	free_cell(&c);
	/* the v1 kernel built and then misbehaved: FAIL, not XFAIL */
	{
		const char *text = CONSOLE("1..2", "ok 1 kernel_identity\nnot ok 2 kcmp_present\n");
		const struct boot_outcome *out = &clean_exit;

		judge_variant_boots("v1", 1, &text, &out, "yynny", &c, NULL);
		CHECK(c.status == CELL_FAIL);
		free_cell(&c);
		judge_variant_boots("v1", 1, &passing_log_ptr, &out, "yynny", &c, NULL);
		CHECK(c.status == CELL_XPASS);
		CHECK_CONTAINS(c.reason, "xfail:2: v1 calls");
		free_cell(&c);
	}
	/* every declaration for the cell is tried: the second one covers its warning */
	{
		char *text = xasprintf("Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				       "[ 1.5] WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:140 x\n%s",
				       strstr(passing_log, "KTAP"));
		const char *texts[] = { text };
		const struct boot_outcome *out = &clean_exit;

		judge_variant_boots("v1", 1, texts, &out, "yynny", &c, NULL);
		CHECK(c.status == CELL_XFAIL);
		CHECK_CONTAINS(c.reason, "known: a second declaration for the same cells");
		free_cell(&c);
		free(text);
	}
	/* and a failure neither declares names both */
	judge_variant_boots("v1", 0, NULL, NULL, "yynny", &c, "kernel/fork.c:1:1: error: other");
	CHECK_CONTAINS(c.reason, "xfail:2 declares (build:get_epoll_tfile_raw_ptr)");
	CHECK_CONTAINS(c.reason, "xfail:3 declares (warning:kernel/kcmp.c)");
	free_cell(&c);
}

/* A boot that timed out after the guest announced its start is the kernel's hang: TIMEOUT
 * naming the last result, and never retried; one that timed out before the guest started is
 * the machine's fault, retried. A pass after a retry is flaky, and not ok for the exit status. */
TEST(judge_hang_after_the_guest_started_is_the_kernels)
{
	const struct boot_outcome timed_out = { .timed_out = 1, .status = 137 };
	static const char hung[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				   "KTAP version 1\n1..2\n# kcmp-matrix: guest started\n"
				   "ok 1 kernel_identity\n";
	static const char hung_early[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
					 "KTAP version 1\n1..2\n# kcmp-matrix: guest started\n";
	static const char stalled[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				      "[ 0.5] clocksource: Switched to clocksource tsc\n";
	struct boot_attempt a = { .outcome = timed_out };
	const char *texts[] = { stalled, passing_log };
	const struct boot_outcome *outs[] = { &timed_out, &clean_exit };
	struct cell c;

	judge_text(hung, "yynny", &c, &timed_out, NULL);
	CHECK(c.status == CELL_TIMEOUT);
	CHECK_STR(c.reason, "the kernel hung the guest after ok 1 kernel_identity: it started, "
		  "then did not power off within the boot timeout");
	free_cell(&c);
	judge_text(hung_early, "yynny", &c, &timed_out, NULL);
	CHECK(c.status == CELL_TIMEOUT);
	CHECK_CONTAINS(c.reason, "the kernel hung the guest before its first result");
	free_cell(&c);
	load_matrix();
	ktap_parse(hung, strlen(hung), &m.arch[0].marks, &a.log);
	CHECK(!judge_boot_retryable(&a));
	ktap_free(&a.log);
	ktap_parse(stalled, strlen(stalled), &m.arch[0].marks, &a.log);
	CHECK(judge_boot_retryable(&a));
	ktap_free(&a.log);
	judge_variant_boots("v3", 2, texts, outs, "yynny", &c, NULL);
	CHECK(c.status == CELL_PASS && c.flaky);
	CHECK(!cell_ok(&c) && cell_status_ok(&c));
	free_cell(&c);
}

/* A make the machine killed is ERROR, not the kernel's BUILD_FAIL, and not xfail's either. */
TEST(judge_machine_fault_is_error)
{
	struct cell c = { 0 };
	char err[256];

	load_matrix();
	memcpy(c.requested, "yynny", 5);
	memcpy(c.resolved, "yynny", 5);
	c.variant = matrix_variant_index(&m, "v1");
	CHECK(rules_predict(&m.variant[c.variant].rules, c.requested, NULL, &c.predicted, err,
			    sizeof(err)) == 0);
	judge_cell(&(struct judge_input){ .m = &m, .build_error = "make was killed by signal 9",
					  .build_machine_fault = 1 }, &c);
	CHECK(c.status == CELL_ERROR && !cell_ok(&c));
	CHECK_CONTAINS(c.reason, "make was killed by signal 9");
	free_cell(&c);
}

/* QEMU killed by a signal the harness did not send (the OOM killer's 9): the machine's fault,
 * ERROR, retried and never kept; but a crash or a warning before it stays the kernel's. */
TEST(judge_killed_qemu_is_the_machines)
{
	static const char half[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				   "KTAP version 1\n1..23\nok 1 kernel_identity\n";
	static const char crashed[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				      "[ 0.9] Kernel panic - not syncing: kcmp\n";
	static const char warned[] = "Linux version 6.1.192 #1 kcmpm-0123456789abcdef\n"
				     "[ 0.9] WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:1 x\n";
	const struct boot_outcome killed = { .status = 128 + 9 };
	struct boot_attempt a = { .outcome = killed };
	struct cell c;

	judge_text(half, "yynny", &c, &killed, NULL);
	CHECK(c.status == CELL_ERROR && !cell_ok(&c));
	CHECK_CONTAINS(c.reason, "QEMU was killed by signal 9, not by the harness");
	free_cell(&c);
	judge_text(crashed, "yynny", &c, &killed, NULL);
	CHECK(c.status == CELL_BOOT_FAIL);
	free_cell(&c);
	judge_text(warned, "yynny", &c, &killed, NULL);
	CHECK(c.status == CELL_KERNEL_WARN);
	free_cell(&c);
	load_matrix();
	ktap_parse(half, strlen(half), &m.arch[0].marks, &a.log);
	CHECK(judge_boot_killed(&a) && judge_boot_retryable(&a));
	a.outcome.status = 1;	/* QEMU's own failure exit is no signal */
	CHECK(!judge_boot_killed(&a) && !judge_boot_retryable(&a));
	ktap_free(&a.log);
	a.outcome = killed;
	ktap_parse(warned, strlen(warned), &m.arch[0].marks, &a.log);
	CHECK(!judge_boot_killed(&a) && !judge_boot_retryable(&a));
	ktap_free(&a.log);
}

__attribute__((destructor)) static void free_matrix(void)
{
	if (m.nsym)
		matrix_free(&m);
}

/* A guest that agrees with its own plan but not with its list: fewer tests, or another one in
 * a listed test's place, is FAIL, however "ok" its lines are. */
TEST(judge_requires_the_listed_tests)
{
	struct cell c;

	judge_text(CONSOLE("1..1", "ok 1 kernel_identity\n"), "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "guest: reported 1 tests, its list (the guest's _tests.h) has 2");
	free_cell(&c);
	judge_text(CONSOLE("1..2", "ok 1 kernel_identity\nok 2 something_easier\n"), "yynny", &c,
		   &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "guest: test 2 is 'something_easier', its list says 'kcmp_present'");
	free_cell(&c);
}

/* Every failed test is named, the first with its diagnostic. */
TEST(judge_names_every_failed_test)
{
	struct cell c;

	judge_text(CONSOLE("1..2", "not ok 1 kernel_identity\n# kernel_identity: booted kernel 'x' "
			   "is not the one built\nnot ok 2 kcmp_present\n"), "yynny", &c,
		   &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "guest: not ok 1 kernel_identity: kernel_identity: booted kernel 'x' "
		  "is not the one built; also not ok 2 kcmp_present");
	free_cell(&c);
}

/* The question's kernel selftest is a second opinion: it must pass where the prediction meets
 * its needs (and is not run elsewhere); a selftest that fails where the guest's checks passed
 * is a FAIL saying the two disagree, and so is the other way round. */
TEST(judge_selftest_is_a_second_opinion)
{
	static char *needs[] = { "kcmp=works", NULL };
	static const char *const with[] = {
		CONSOLE_OBSERVED("1..2", "ok 1 kernel_identity\nok 2 kcmp_present\n",
				 "kcmp=works epoll=works epoll_tfd=works selftest=pass"),
		CONSOLE_OBSERVED("1..2", "ok 1 kernel_identity\nok 2 kcmp_present\n",
				 "kcmp=works epoll=works epoll_tfd=works selftest=fail"),
		CONSOLE_OBSERVED("1..2", "ok 1 kernel_identity\nnot ok 2 kcmp_present\n",
				 "kcmp=works epoll=works epoll_tfd=works selftest=pass"),
		CONSOLE_OBSERVED("1..2", "ok 1 kernel_identity\nok 2 kcmp_present\n",
				 "kcmp=works epoll=works epoll_tfd=works"),
	};
	struct cell c;

	load_matrix();
	m.selftest_src = "tools/testing/selftests/kcmp/kcmp_test.c";
	m.selftest_needs = needs;
	judge_text(with[0], "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_PASS);
	CHECK_STR(c.selftest, "pass");
	CHECK(plan_selftest_runs(&m, &c));
	snprintf(c.predicted.observe[0], sizeof(c.predicted.observe[0]), "enosys");
	CHECK(!plan_selftest_runs(&m, &c));
	free_cell(&c);
	judge_text(with[1], "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "selftest: tools/testing/selftests/kcmp/kcmp_test.c says fail, expected "
		  "pass; the guest's checks passed: the two disagree");
	free_cell(&c);
	judge_text(with[2], "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "; selftest: tools/testing/selftests/kcmp/kcmp_test.c passed where "
		       "the guest's checks failed: the two disagree");
	free_cell(&c);
	judge_text(with[3], "yynny", &c, &clean_exit, NULL);
	CHECK(c.status == CELL_FAIL);
	CHECK_STR(c.reason, "selftest: the guest did not report the verdict of "
		  "tools/testing/selftests/kcmp/kcmp_test.c");
	free_cell(&c);
	m.selftest_src = NULL;
	m.selftest_needs = NULL;
}

/* A symbol that resolved to m is seen only as a module the build made: DRM=m with no module
 * is a FAIL, whatever the guest saw; with drm.ko made the same boot passes. */
static void judge_drm_m(const char *modules, struct cell *c)
{
	static const struct boot_outcome ok = { .status = 0 };
	struct boot_attempt a;
	char err[256];

	load_matrix();
	*c = (struct cell){ 0 };
	memcpy(c->requested, "yynmy", 5);
	memcpy(c->resolved, "yynmy", 5);
	c->variant = matrix_variant_index(&m, "v3");
	CHECK(rules_predict(&m.variant[c->variant].rules, c->requested, NULL, &c->predicted, err,
			    sizeof(err)) == 0);
	a.outcome = ok;
	ktap_parse(passing_log, strlen(passing_log), &m.arch[0].marks, &a.log);
	judge_cell(&(struct judge_input){ .m = &m, .modules = modules, .nattempt = 1,
					  .attempt = &a, .kernel_id = "kcmpm-0123456789abcdef",
					  .tests = listed_tests }, c);
	ktap_free(&a.log);
}

TEST(judge_m_symbol_needs_a_module_built)
{
	struct cell c;

	judge_drm_m("", &c);
	CHECK(c.status == CELL_FAIL);
	CHECK_CONTAINS(c.reason, "observed: DRM=m, but the build made no module");
	free_cell(&c);
	judge_drm_m("drivers/gpu/drm/drm.ko", &c);
	CHECK(c.status == CELL_PASS);
	CHECK_STR(c.reason, "");
	free_cell(&c);
}
