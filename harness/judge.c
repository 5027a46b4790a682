/* judge: see judge.h. */
#define _GNU_SOURCE
#include "judge.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* Appends "; text" to the reason. */
static void add_reason(struct cell *c, const char *fmt, ...)
{
	size_t n = strlen(c->reason);
	va_list ap;

	if (n && n + 2 < sizeof(c->reason)) {
		strcpy(c->reason + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->reason + n, sizeof(c->reason) - n, fmt, ap);
	va_end(ap);
}

static int set_early_failure(const struct judge_input *in, struct cell *c)
{
	const struct ktap_log *log = in->log;
	char buf[256];
	const char *problem;

	if (in->build_error) {
		c->status = in->build_timed_out ? CELL_BUILD_TIMEOUT : CELL_BUILD_FAIL;
		add_reason(c, "%s", in->build_error);
		return 1;
	}
	if (log->crash) {
		c->status = CELL_BOOT_FAIL;
		add_reason(c, "kernel crashed: %s", log->crash);
		return 1;
	}
	if (in->boot->timed_out) {
		c->status = CELL_TIMEOUT;
		add_reason(c, "guest did not power off within the boot timeout (%s)",
			   log->versions ? "KTAP started" : "no KTAP output");
		return 1;
	}
	problem = ktap_problem(log, buf, sizeof(buf));
	if (problem) {
		c->status = CELL_BOOT_FAIL;
		add_reason(c, "%s (QEMU exit status %d)", problem, in->boot->status);
		return 1;
	}
	return 0;
}

/* Rules and Kconfig must agree on every cell that has a resolved config, whether its kernel
 * then built and booted or not: a disagreement is FAIL, and no xfail declaration covers it
 * (c->config_mismatch), so a wrong rule cannot hide behind a known build failure. */
static void check_config_layer(const struct judge_input *in, struct cell *c)
{
	for (int s = 0; s < in->m->nsym; s++) {
		char p = c->predicted.value[s], r = c->resolved[s];

		if (p == r)
			continue;
		c->status = CELL_FAIL;
		c->config_mismatch = 1;
		add_reason(c, "config: %s predicted %c, resolved %c (rules: %s)", in->m->sym[s],
			   p ? p : '-', r ? r : '-', c->predicted.why[s]);
	}
}

/* A symbol that resolved to m is observed as a module the build made: with none made, the
 * "m" would be only a word in the .config. */
static void check_modules(const struct judge_input *in, struct cell *c)
{
	for (int s = 0; s < in->m->nsym; s++)
		if (c->resolved[s] == 'm' && (!c->modules || !*c->modules)) {
			c->status = CELL_FAIL;
			add_reason(c, "observed: %s=m, but the build made no module", in->m->sym[s]);
		}
}

/* Each observable the rules declare: the state the guest saw must be the one the resolved
 * config implies. */
static void check_observed(const struct judge_input *in, struct cell *c)
{
	const struct rules *rules = &in->m->variant[c->variant].rules;

	for (int i = 0; i < in->m->nobs; i++) {
		const char *name = in->m->obs[i], *seen = c->observed[i];
		const char *want = rules_observe(rules, i, c->resolved);

		if (!seen) {
			c->status = CELL_FAIL;
			add_reason(c, "observed: the guest did not report %s", name);
		} else if (strcmp(seen, want)) {
			c->status = CELL_FAIL;
			add_reason(c, "observed: %s=%s, but the resolved config implies %s=%s (rules: "
				   "observable %s)", name, seen, name, want, name);
		}
	}
}

/* The guest must report the tests its list names, all of them and in order: a guest that
 * printed fewer, or others, would otherwise pass by agreeing with its own plan line. */
static void check_plan(const struct judge_input *in, struct cell *c)
{
	const struct ktap_log *log = in->log;
	int n = 0;

	if (!in->tests)
		return;
	while (in->tests[n])
		n++;
	if (log->ntest != n) {
		c->status = CELL_FAIL;
		add_reason(c, "guest: reported %d tests, its list (the guest's _tests.h) has %d",
			   log->ntest, n);
		return;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(log->test[i].name, in->tests[i])) {
			c->status = CELL_FAIL;
			add_reason(c, "guest: test %d is '%s', its list says '%s'", i + 1,
				   log->test[i].name, in->tests[i]);
			return;
		}
}

/* After the first failed test (with its diagnostic), the names of the others, so one reason
 * shows every check a wrong kernel failed. */
static void name_other_failures(const struct ktap_log *log, const struct ktap_test *first,
				struct cell *c)
{
	int more = 0;

	for (int i = 0; i < log->ntest; i++)
		if (!log->test[i].ok && &log->test[i] != first)
			add_reason(c, "%snot ok %d %s", more++ ? "" : "also ", log->test[i].number,
				   log->test[i].name);
}

void judge_config_only(const struct matrix *m, struct cell *c)
{
	c->reason[0] = 0;
	c->status = CELL_CONFIG_OK;
	check_config_layer(&(struct judge_input){ .m = m }, c);
}

void judge_cell(const struct judge_input *in, struct cell *c)
{
	const struct ktap_log *log = in->log;
	const struct ktap_test *bad;

	c->reason[0] = 0;
	c->status = CELL_PASS;
	if (log) {	/* a boot judged again (a retry) replaces what the last one saw */
		for (int i = 0; i < in->m->nobs; i++) {
			free(c->observed[i]);
			c->observed[i] = dup_or_null(ktap_observed(log, in->m->obs[i]));
		}
		free(c->booted);
		c->booted = dup_or_null(log->kernel);
	}
	if (set_early_failure(in, c)) {
		enum cell_status early = c->status;

		check_config_layer(in, c);
		if (c->config_mismatch)
			add_reason(c, "and the cell was %s", cell_status_name(early));
		return;
	}
	if (!log->kernel || !strstr(log->kernel, in->kernel_id)) {
		c->status = CELL_FAIL;
		add_reason(c, "identity: the guest booted '%s', not the kernel built for this cell "
			   "(%s)", log->kernel ? log->kernel : "an unknown kernel", in->kernel_id);
	}
	/* the guest's word is not enough: the kernel's own banner must name the tag built */
	if (!log->banner || !strstr(log->banner, in->kernel_id)) {
		c->status = CELL_FAIL;
		add_reason(c, "identity: the kernel's banner is '%.200s', not the kernel built for "
			   "this cell (%s)", log->banner ? log->banner : "missing", in->kernel_id);
	}
	check_config_layer(in, c);
	check_modules(in, c);
	check_observed(in, c);
	check_plan(in, c);
	bad = ktap_first_failure(log);
	if (bad) {
		c->status = CELL_FAIL;
		add_reason(c, "guest: not ok %d %s%s%s", bad->number, bad->name,
			   bad->diag ? ": " : "", bad->diag ? bad->diag : "");
		name_other_failures(log, bad, c);
	}
}

void judge_known_failures(const struct matrix *m, struct cell *c)
{
	const struct variant *v = &m->variant[c->variant];
	int resolved = c->status != CELL_CONFIG_FAIL;

	if (c->config_mismatch)
		return;	/* a known build failure never covers a rules disagreement */
	for (int i = 0; i < v->nxfail; i++) {
		const struct xfail *x = &v->xfail[i];
		char was[sizeof(c->reason) / 2];

		if (!matrix_pattern_matches(&x->pattern, m->nsym, resolved ? c->resolved : c->requested,
					  c->arch))
			continue;
		snprintf(was, sizeof(was), "%.500s", c->reason);
		if (c->status == CELL_PASS) {
			c->status = CELL_XPASS;
			snprintf(c->reason, sizeof(c->reason), "declared failing but passed (%.300s:%d: %.400s)",
				 v->xfail_path, x->lineno, x->reason);
		} else {
			c->status = CELL_XFAIL;
			snprintf(c->reason, sizeof(c->reason), "known: %.400s; %s", x->reason, was);
		}
		return;
	}
}
