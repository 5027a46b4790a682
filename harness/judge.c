/* judge: see judge.h. */
#define _GNU_SOURCE
#include "judge.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One judgement in progress: the evidence, the cell, and what the reason names so far. */
struct judging {
	const struct judge_input *in;
	struct cell *c;
	int problems;			/* findings the reason names */
	int failed_tests;		/* guest tests not ok */
	const char *failed_test;	/* the first of them */
	const char *warning;		/* the kernel warning line of the boot judged */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Appends "; text" to the reason: one more finding. */
static void add_reason(struct judging *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_reason(struct judging *j, const char *fmt, ...)
{
	struct cell *c = j->c;
	size_t n = strlen(c->reason);
	va_list ap;

	if (n && n + 2 < sizeof(c->reason)) {
		strcpy(c->reason + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->reason + n, sizeof(c->reason) - n, fmt, ap);
	va_end(ap);
	j->problems++;
}

/* Rules and Kconfig must agree on every cell that has a resolved config, whether its kernel
 * then built and booted or not: a disagreement is FAIL, and no xfail declaration covers it
 * (c->config_mismatch), so a wrong rule cannot hide behind a known build failure. */
static void check_config_layer(struct judging *j)
{
	const struct matrix *m = j->in->m;
	struct cell *c = j->c;

	for (int s = 0; s < m->nsym; s++) {
		char p = c->predicted.value[s], r = c->resolved[s];

		if (p == r)
			continue;
		c->status = CELL_FAIL;
		c->config_mismatch = 1;
		add_reason(j, "config: %s predicted %c, resolved %c (rules: %s)", m->sym[s],
			   p ? p : '-', r ? r : '-', c->predicted.why[s]);
	}
}

/* An early status ends the judging but for the config layer. */
static void early_failure(struct judging *j, enum cell_status status)
{
	j->c->status = status;
	check_config_layer(j);
	if (j->c->config_mismatch)
		add_reason(j, "and the cell was %s", cell_status_name(status));
}

/* A symbol that resolved to m is observed as a module the build made: with none made, the
 * "m" would be only a word in the .config. */
static void check_modules(struct judging *j)
{
	const struct matrix *m = j->in->m;
	const char *modules = j->in->modules;
	struct cell *c = j->c;

	for (int s = 0; s < m->nsym; s++)
		if (c->resolved[s] == 'm' && (!modules || !*modules)) {
			c->status = CELL_FAIL;
			add_reason(j, "observed: %s=m, but the build made no module", m->sym[s]);
		}
}

/* Each observable the rules declare: the state the guest saw must be the one the resolved
 * config implies. */
static void check_observed(struct judging *j)
{
	const struct matrix *m = j->in->m;
	struct cell *c = j->c;
	const struct rules *rules = &m->variant[c->variant].rules;

	for (int i = 0; i < m->nobs; i++) {
		const char *name = m->obs[i], *seen = c->observed[i];
		const char *want = rules_observe(rules, i, c->resolved);

		if (!seen) {
			c->status = CELL_FAIL;
			add_reason(j, "observed: the guest did not report %s", name);
		} else if (strcmp(seen, want)) {
			c->status = CELL_FAIL;
			add_reason(j, "observed: %s=%s, but the resolved config implies %s=%s (rules: "
				   "observable %s)", name, seen, name, want, name);
		}
	}
}

/* The guest must report the tests its list names, all of them and in order: a guest that
 * printed fewer, or others, would otherwise pass by agreeing with its own plan line. */
static void check_plan(struct judging *j, const struct ktap_log *log)
{
	const char *const *tests = j->in->tests;
	int n = 0;

	if (!tests)
		return;
	while (tests[n])
		n++;
	if (log->ntest != n) {
		j->c->status = CELL_FAIL;
		add_reason(j, "guest: reported %d tests, its list (the guest's _tests.h) has %d",
			   log->ntest, n);
		return;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(log->test[i].name, tests[i])) {
			j->c->status = CELL_FAIL;
			add_reason(j, "guest: test %d is '%s', its list says '%s'", i + 1,
				   log->test[i].name, tests[i]);
			return;
		}
}

/* Is "observable=state" (the first word of a SKIP's text, up to a ':') what the rules predict
 * for this cell? */
static int skip_predicted(const struct judging *j, const char *why)
{
	const struct matrix *m = j->in->m;
	size_t len = strcspn(why, ": "), name_len;
	const char *eq = memchr(why, '=', len);

	if (!eq)
		return 0;
	name_len = (size_t)(eq - why);
	for (int i = 0; i < m->nobs; i++) {
		const char *want = j->c->predicted.observe[i];

		if (strlen(m->obs[i]) == name_len && !strncmp(m->obs[i], why, name_len))
			return want && strlen(want) == len - name_len - 1 &&
			       !strncmp(want, eq + 1, len - name_len - 1);
	}
	return 0;
}

/* A SKIP passes a test only where the prediction implies it: the guest names the observable
 * state that made the test moot, and it must be the predicted one. */
static void check_skips(struct judging *j, const struct ktap_log *log)
{
	const struct ktap_test *first = NULL;
	int n = 0;

	for (int i = 0; i < log->ntest; i++) {
		const struct ktap_test *t = &log->test[i];

		if (!t->skip || !t->ok || skip_predicted(j, t->skip_why ? t->skip_why : ""))
			continue;
		if (!n++)
			first = t;
	}
	if (!first)
		return;
	/* the first in full, the rest counted: a guest that skips its whole list for one wrong
	 * reason would fill the reason with the same words */
	j->c->status = CELL_FAIL;
	add_reason(j, "guest: ok %d %s # SKIP %s, which the prediction does not imply", first->number,
		   first->name, first->skip_why ? first->skip_why : "");
	if (n > 1)
		add_reason(j, "and %d more skips it does not imply", n - 1);
}

/* The first failed test with its diagnostic, then the names of the others, so one reason
 * shows every check a wrong kernel failed. */
static void check_tests(struct judging *j, const struct ktap_log *log)
{
	const struct ktap_test *bad = ktap_first_failure(log);

	if (!bad)
		return;
	j->c->status = CELL_FAIL;
	j->failed_test = bad->name;
	add_reason(j, "guest: not ok %d %s%s%s", bad->number, bad->name, bad->diag ? ": " : "",
		   bad->diag ? bad->diag : "");
	for (int i = 0; i < log->ntest; i++)
		if (!log->test[i].ok) {
			if (&log->test[i] != bad)
				add_reason(j, "%snot ok %d %s", j->failed_tests > 1 ? "" : "also ",
					   log->test[i].number, log->test[i].name);
			j->failed_tests++;
		}
}

/* The kernel's own selftest, a second opinion (matrix.conf's selftest line): where the
 * prediction meets its needs it must say pass, elsewhere it is not run. Where it and the guest's
 * checks disagree, the reason says so. */
static void check_selftest(struct judging *j, const struct ktap_log *log)
{
	const struct matrix *m = j->in->m;
	struct cell *c = j->c;
	const char *seen = ktap_observed(log, "selftest");
	const char *want = plan_selftest_runs(m, c) ? "pass" : "not-run";

	if (!m->selftest_src)
		return;
	if (!seen) {
		c->status = CELL_FAIL;
		add_reason(j, "selftest: the guest did not report the verdict of %s",
			   m->selftest_src);
	} else if (strcmp(seen, want)) {
		c->status = CELL_FAIL;
		add_reason(j, "selftest: %s says %s, expected %s%s", m->selftest_src, seen, want,
			   j->failed_tests ? "" : "; the guest's checks passed: the two disagree");
	} else if (!strcmp(want, "pass") && j->failed_tests) {
		add_reason(j, "selftest: %s passed where the guest's checks failed: the two "
			   "disagree", m->selftest_src);
	}
}

/* The kernel's banner and the guest's word must both name the tag the kernel was built with. */
static void check_identity(struct judging *j, const struct ktap_log *log)
{
	const char *id = j->in->kernel_id;

	if (!log->kernel || !strstr(log->kernel, id)) {
		j->c->status = CELL_FAIL;
		add_reason(j, "identity: the guest booted '%s', not the kernel built for this cell "
			   "(%s)", log->kernel ? log->kernel : "an unknown kernel", id);
	}
	if (!log->banner || !strstr(log->banner, id)) {
		j->c->status = CELL_FAIL;
		add_reason(j, "identity: the kernel's banner is '%.200s', not the kernel built for "
			   "this cell (%s)", log->banner ? log->banner : "missing", id);
	}
}

/* A boot that did not end in time: TIMEOUT, with the time it had. */
static void timeout_failure(struct judging *j)
{
	if (j->in->boot_timeout > 0) {
		size_t n = strlen(j->c->reason);

		snprintf(j->c->reason + n, sizeof(j->c->reason) - n, " after %.0f s",
			 j->in->boot_timeout);
	}
	early_failure(j, CELL_TIMEOUT);
}

/* Judges one boot: a crash first, then a warning, a timeout, a broken KTAP run, then every
 * layer. */
static void judge_boot(struct judging *j, const struct boot_attempt *a)
{
	const struct ktap_log *log = &a->log;
	char buf[256];
	const char *problem;

	if (log->crash) {
		add_reason(j, "kernel crashed: %s", log->crash);
		early_failure(j, CELL_BOOT_FAIL);
		return;
	}
	if (judge_boot_killed(a)) {
		add_reason(j, "QEMU was killed by signal %d, not by the harness: the machine's "
			   "fault (the OOM killer sends 9), not the kernel's", a->outcome.status - 128);
		early_failure(j, CELL_ERROR);
		return;
	}
	if (log->warning) {
		j->warning = log->warning;
		add_reason(j, "kernel warning: %s", log->warning);
	}
	if (a->outcome.timed_out && log->started) {
		const struct ktap_test *last = log->ntest ? &log->test[log->ntest - 1] : NULL;

		if (last)
			add_reason(j, "the kernel hung the guest after %s %d %s: it started, then did "
				   "not power off within the boot timeout", last->ok ? "ok" : "not ok",
				   last->number, last->name);
		else
			add_reason(j, "the kernel hung the guest before its first result: it started, "
				   "then did not power off within the boot timeout");
		timeout_failure(j);
	} else if (a->outcome.timed_out) {
		add_reason(j, "guest did not power off within the boot timeout (%s)",
			   log->versions ? "KTAP started" : "no KTAP output");
		timeout_failure(j);
	} else if ((problem = ktap_problem(log, buf, sizeof(buf)))) {
		add_reason(j, "%s (QEMU exit status %d)", problem, a->outcome.status);
		early_failure(j, CELL_BOOT_FAIL);
	} else {
		check_identity(j, log);
		check_config_layer(j);
		check_modules(j);
		check_observed(j);
		check_plan(j, log);
		check_skips(j, log);
		check_tests(j, log);
		check_selftest(j, log);
	}
	if (j->warning && !j->c->config_mismatch)
		j->c->status = CELL_KERNEL_WARN;
}

/* The boot that decides: the first that crashed, else the first that warned, else the last. */
static int deciding_boot(const struct judge_input *in)
{
	for (int i = 0; i < in->nattempt; i++)
		if (in->attempt[i].log.crash)
			return i;
	for (int i = 0; i < in->nattempt; i++)
		if (in->attempt[i].log.warning)
			return i;
	return in->nattempt - 1;
}

static void judge_boots(struct judging *j)
{
	const struct judge_input *in = j->in;
	struct cell *c = j->c;
	int k = deciding_boot(in);
	const struct ktap_log *log;

	if (k < 0) {
		add_reason(j, "the kernel built but was never booted");
		early_failure(j, CELL_BOOT_FAIL);
		return;
	}
	log = &in->attempt[k].log;
	for (int i = 0; i < in->m->nobs; i++) {
		free(c->observed[i]);
		c->observed[i] = dup_or_null(ktap_observed(log, in->m->obs[i]));
	}
	free(c->booted);
	c->booted = dup_or_null(log->kernel);
	free(c->selftest);
	c->selftest = in->m->selftest_src ? dup_or_null(ktap_observed(log, "selftest")) : NULL;
	judge_boot(j, &in->attempt[k]);
	if (in->nattempt > 1 && c->status != CELL_PASS)
		add_reason(j, "on boot %d of %d", k + 1, in->nattempt);
	c->flaky = c->status == CELL_PASS && in->nattempt > 1;
}

/* Does the cell fail exactly as the declaration says? */
static int declared_failure(const struct judging *j, const struct xfail *x)
{
	const struct judge_input *in = j->in;

	switch (x->kind) {
	case XFAIL_BUILD:
		return j->c->status == CELL_BUILD_FAIL && in->build_error &&
		       strstr(in->build_error, x->match);
	case XFAIL_TEST:
		return j->c->status == CELL_FAIL && j->problems == 1 && j->failed_tests == 1 &&
		       !strcmp(j->failed_test, x->match);
	case XFAIL_WARNING:
		return j->c->status == CELL_KERNEL_WARN && j->problems == 1 &&
		       strstr(j->warning, x->match);
	}
	return 0;
}

static const char *const kind_word[] = {
	[XFAIL_BUILD] = "build", [XFAIL_TEST] = "test", [XFAIL_WARNING] = "warning",
};

/* The variant's known failures: matched on the resolved values, or the requested ones when
 * the config never resolved. */
static void apply_known_failures(struct judging *j)
{
	const struct matrix *m = j->in->m;
	struct cell *c = j->c;
	const struct variant *v = &m->variant[c->variant];
	int resolved = c->status != CELL_CONFIG_FAIL;
	const struct xfail *first = NULL;
	char was[sizeof(c->reason) / 2];

	if (c->config_mismatch)
		return;	/* a known failure never covers a rules disagreement */
	snprintf(was, sizeof(was), "%.500s", c->reason);
	/* every declaration for the cell is tried: the one that describes its failure covers it */
	for (int i = 0; i < v->nxfail; i++) {
		const struct xfail *x = &v->xfail[i];

		if (!matrix_pattern_matches(&x->pattern, m->nsym, resolved ? c->resolved : c->requested,
					  c->arch))
			continue;
		if (!first)
			first = x;
		if (c->status != CELL_PASS && declared_failure(j, x)) {
			c->status = CELL_XFAIL;
			snprintf(c->reason, sizeof(c->reason), "known: %.400s; %s", x->reason, was);
			return;
		}
	}
	if (!first)
		return;
	if (c->status == CELL_PASS) {
		c->status = CELL_XPASS;
		snprintf(c->reason, sizeof(c->reason), "declared failing but passed (%.300s:%d: %.400s)",
			 v->xfail_path, first->lineno, first->reason);
		return;
	}
	for (int i = 0; i < v->nxfail; i++) {
		const struct xfail *x = &v->xfail[i];

		if (matrix_pattern_matches(&x->pattern, m->nsym, resolved ? c->resolved : c->requested,
					   c->arch))
			add_reason(j, "not the failure %s:%d declares (%s:%s)", v->xfail_path,
				   x->lineno, kind_word[x->kind], x->match);
	}
}

void judge_config_only(const struct matrix *m, struct cell *c)
{
	struct judging j = { .in = &(struct judge_input){ .m = m }, .c = c };

	c->reason[0] = 0;
	c->status = CELL_CONFIG_OK;
	check_config_layer(&j);
}

int judge_boot_killed(const struct boot_attempt *a)
{
	return !a->outcome.timed_out && a->outcome.status >= 128 && !a->log.crash &&
	       !a->log.warning;
}

int judge_boot_retryable(const struct boot_attempt *a)
{
	return (a->outcome.timed_out && !a->log.crash && !a->log.warning && !a->log.started) ||
	       judge_boot_killed(a);
}

void judge_cell(const struct judge_input *in, struct cell *c)
{
	struct judging j = { .in = in, .c = c };

	c->reason[0] = 0;
	c->status = CELL_PASS;
	c->flaky = 0;
	c->config_mismatch = 0;
	if (in->config_error) {
		c->status = CELL_CONFIG_FAIL;
		add_reason(&j, "%s", in->config_error);
	} else if (in->build_error) {
		add_reason(&j, "%s", in->build_error);
		early_failure(&j, in->build_machine_fault ? CELL_ERROR
				  : in->build_timed_out ? CELL_BUILD_TIMEOUT : CELL_BUILD_FAIL);
	} else {
		judge_boots(&j);
	}
	apply_known_failures(&j);
}
