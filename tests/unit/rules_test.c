/* Rules: parsing matrix/rules files and predicting what Kconfig resolves. The expected values
 * below are worked out by hand from init/Kconfig and drivers/gpu/drm/Kconfig in linux 6.1. */
#include "check.h"
#include "rules.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "EXPERT", "KCMP", "CHECKPOINT_RESTORE", "DRM", "EPOLL" };

static void load_v3(struct rules *r)
{
	char err[512] = "";

	CHECK(rules_load(DATA("matrix/rules/v3.rules"), 5, names, r, err, sizeof(err)) == 0);
	if (err[0])
		CHECK_STR(err, "");
}

/* requested "EKCDP" as a 5-letter y/n string; returns the predicted values as a string */
static void predict(const struct rules *r, const char *req, char *out)
{
	struct prediction p;
	char err[256];

	CHECK(rules_predict(r, req, NULL, &p, err, sizeof(err)) == 0);
	for (int i = 0; i < 5; i++)
		out[i] = p.value[i] ? p.value[i] : '-';
	out[5] = strcmp(p.observe[0], "works") ? 'n' : 'y';	/* kcmp */
	out[6] = strcmp(p.observe[1], "works") ? 'n' : 'y';	/* epoll */
	out[7] = 0;
}

TEST(rules_v3_kcmp_hidden_without_expert)
{
	struct rules r;
	char got[8];

	load_v3(&r);
	predict(&r, "nynny", got);	/* KCMP=y requested, EXPERT=n: prompt hidden, no default */
	CHECK_STR(got, "nnnnyny");
	predict(&r, "yynny", got);	/* EXPERT=y makes the request count */
	CHECK_STR(got, "yynnyyy");
	rules_free(&r);
}

TEST(rules_v3_selects_win)
{
	struct rules r;
	char got[8];

	load_v3(&r);
	predict(&r, "nnyny", got);	/* CHECKPOINT_RESTORE selects KCMP */
	CHECK_STR(got, "nyynyyy");
	predict(&r, "ynnyy", got);	/* DRM selects KCMP even with KCMP=n asked under EXPERT */
	CHECK_STR(got, "yynyyyy");
	rules_free(&r);
}

TEST(rules_v3_epoll_default_y_without_expert)
{
	struct rules r;
	char got[8];

	load_v3(&r);
	predict(&r, "nnnnn", got);	/* EPOLL=n not honoured without EXPERT */
	CHECK_STR(got, "nnnnyny");
	predict(&r, "ynnnn", got);
	CHECK_STR(got, "ynnnnnn");
	rules_free(&r);
}

TEST(rules_explain)
{
	struct rules r;
	struct prediction p;
	char err[256];

	load_v3(&r);
	CHECK(rules_predict(&r, "nnnyn", NULL, &p, err, sizeof(err)) == 0);
	CHECK_STR(p.why[1], "KCMP=y: selected by DRM=y");
	CHECK_STR(p.why[4], "EPOLL=y: prompt hidden, default y");
	CHECK_STR(p.why[3], "DRM=y: as requested");
	CHECK(rules_predict(&r, "ynnnn", NULL, &p, err, sizeof(err)) == 0);
	CHECK_STR(p.why[1], "KCMP=n: as requested");
	rules_free(&r);
}

/* The observables over given values (a resolved config's): the first "when" that is y wins,
 * the last line otherwise; a derived observable (epoll_tfd) needs no C. */
TEST(rules_observe_from_values)
{
	struct rules r;

	load_v3(&r);
	CHECK(r.nobs == 3);
	CHECK_STR(rules_observe(&r, 0, "nyyny"), "works");
	CHECK_STR(rules_observe(&r, 1, "nyyny"), "works");
	CHECK_STR(rules_observe(&r, 2, "nyyny"), "works");
	CHECK_STR(rules_observe(&r, 0, "ynnnn"), "enosys");
	CHECK_STR(rules_observe(&r, 1, "ynnnn"), "enosys");
	CHECK_STR(rules_observe(&r, 2, "ynnnn"), "enosys");
	CHECK_STR(rules_observe(&r, 2, "yynnn"), "eopnotsupp");
	rules_free(&r);
}

static const char *parse_error(const char *text)
{
	static char err[512];
	struct rules r;

	err[0] = 0;
	if (rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0) {
		rules_free(&r);
		return "(parsed)";
	}
	return err;
}

#define ALL_BUT_EPOLL "format 1\nconfig EXPERT\n prompt\nconfig KCMP\n prompt if EXPERT\n" \
		      "config CHECKPOINT_RESTORE\n prompt\nconfig DRM\n prompt\n"

TEST(rules_errors_name_file_and_line)
{
	CHECK_CONTAINS(parse_error("config EXPERT\n"), "t.rules:1: expected 'format 1'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt if FOO\n"),
		       "t.rules:11: unknown symbol 'FOO'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n promt\n"),
		       "t.rules:11: unknown attribute 'promt'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "observable kcmp\n works when KCMP\n enosys\nobservable epoll\n works when EPOLL\n enosys\n"),
		       "no 'config EPOLL' block");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\n"),
		       "no 'observable NAME' block");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\nobservable kcmp\n"
				   " works when KCMP\n"), "observable kcmp does not end with a state "
		       "without 'when'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\nobservable kcmp\n"
				   " enosys\n works when KCMP\n"), "t.rules:14: a line after 'enosys'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\nobservable Kcmp\n"),
		       "t.rules:12: expected 'observable NAME'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\nobservable kcmp\n"
				   " works if KCMP\n"), "t.rules:13: expected 'STATE when EXPR'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\nobservable kcmp\n"
				   " works when FOO\n enosys\n"), "t.rules:13: unknown symbol 'FOO'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt if (EXPERT\n"),
		       "t.rules:11: missing ')'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n default maybe\n"),
		       "t.rules:11: expected 'default y'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt\nconfig EPOLL\n"),
		       "t.rules:12: second 'config EPOLL'");
	CHECK_CONTAINS(parse_error(" prompt\n" ALL_BUT_EPOLL), "expected 'format 1'");
	CHECK_CONTAINS(parse_error("format 1\n prompt\n"), "t.rules:2: indented line outside");
}

TEST(rules_expressions_and_absent)
{
	struct rules r;
	struct prediction p;
	char err[512] = "";
	const char *text = "format 1\nconfig EXPERT\n prompt\nconfig KCMP\n absent\n"
			   "config CHECKPOINT_RESTORE\n prompt\n"
			   "config DRM\n prompt\n depends on !CHECKPOINT_RESTORE || EXPERT && y\n"
			   "config EPOLL\n default y if (EXPERT || DRM) && !n\n default n\n"
			   "observable kcmp\n works when CHECKPOINT_RESTORE\n enosys\nobservable epoll\n works when EPOLL\n enosys\n";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(rules_predict(&r, "nyyyy", NULL, &p, err, sizeof(err)) == 0);
	CHECK(p.value[1] == 0);		/* absent */
	CHECK(p.value[3] == 'n');	/* depends on: !y || (n && y) */
	CHECK(p.value[4] == 'n');	/* no prompt: default n (EXPERT and DRM are n) */
	CHECK_STR(p.observe[0], "works");
	CHECK(rules_predict(&r, "yyyyn", NULL, &p, err, sizeof(err)) == 0);
	CHECK(p.value[3] == 'y' && p.value[4] == 'y');
	rules_free(&r);
}

TEST(rules_cycle_is_an_error)
{
	struct rules r;
	struct prediction p;
	char err[512] = "";
	const char *text = "format 1\nconfig EXPERT\n prompt\nconfig KCMP\n selected-by DRM\n"
			   "config CHECKPOINT_RESTORE\n prompt\nconfig DRM\n selected-by KCMP\n"
			   "config EPOLL\n prompt\nobservable kcmp\n works when KCMP\n enosys\nobservable epoll\n works when EPOLL\n enosys\n";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK(rules_predict(&r, "nnnnn", NULL, &p, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "cycle");
	rules_free(&r);
}

/* Tristates, worked out by hand from scripts/kconfig/symbol.c (sym_calc_value): DRM=m selects
 * the bool KCMP, which comes out y; a tristate selected by m is at least m; depends on an m
 * symbol caps a tristate at m; a hidden tristate's default is capped the same way. */
TEST(rules_tristate_select_and_depends)
{
	struct rules r;
	struct prediction p;
	char got[8], err[512] = "";
	const char *text = "format 1\nconfig EXPERT\n prompt\n"
			   "config KCMP\n prompt if EXPERT\n selected-by DRM\n"
			   "config CHECKPOINT_RESTORE\n tristate\n prompt\n depends on DRM\n"
			   "config DRM\n tristate\n prompt\n"
			   "config EPOLL\n tristate\n selected-by DRM\n default m if EXPERT\n"
			   "observable kcmp\n works when KCMP\n enosys\nobservable epoll\n works when EPOLL\n enosys\n";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	predict(&r, "nnymn", got);
	CHECK_STR(got, "nymmmyn");	/* KCMP y from DRM=m, CR capped at m, EPOLL m by select */
	CHECK(rules_predict(&r, "nnymn", NULL, &p, err, sizeof(err)) == 0);
	CHECK_STR(p.why[1], "KCMP=y: selected by DRM=m; a bool selected by a module is built in");
	CHECK_STR(p.why[2], "CHECKPOINT_RESTORE=m: requested y, capped at m by its dependencies");
	CHECK_STR(p.why[4], "EPOLL=m: selected by DRM=m");
	predict(&r, "ynyyn", got);	/* DRM=y: CR as requested, EPOLL raised to y by the select */
	CHECK_STR(got, "yyyyyyy");
	predict(&r, "ynnnn", got);	/* EPOLL hidden, default m if EXPERT */
	CHECK_STR(got, "ynnnmnn");
	predict(&r, "nnynn", got);	/* depends on DRM=n: CR n although requested */
	CHECK_STR(got, "nnnnnnn");
	rules_free(&r);
}

/* Kconfig's tristate logic in expressions: ! is y minus the value, && the least, || the most;
 * an "if" holds when its expression is not n. */
TEST(rules_tristate_expressions)
{
	struct rules r;
	char got[8], err[512] = "";
	const char *text = "format 1\nconfig EXPERT\n prompt\nconfig KCMP\n prompt\n"
			   "config CHECKPOINT_RESTORE\n tristate\n default y if !DRM\n"
			   "config DRM\n tristate\n prompt\n"
			   "config EPOLL\n tristate\n default y\n depends on DRM && y || n\n"
			   "observable kcmp\n works when KCMP || DRM\n enosys\nobservable epoll\n works when EPOLL\n enosys\n";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	predict(&r, "nnnmn", got);	/* !m is m: CR's default y holds, capped at m; a */
	CHECK_STR(got, "nnmmmnn");	/* system call needs y: KCMP || DRM is only m */
	predict(&r, "nnnyn", got);	/* !y is n */
	CHECK_STR(got, "nnnyyyy");
	predict(&r, "nnnnn", got);
	CHECK_STR(got, "nnynnnn");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n tristate y\n"),
		       "t.rules:11: unknown attribute 'tristate y'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt if DRM=maybe\n"),
		       "t.rules:11: expected y, m or n after '=' at '=maybe'");
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n prompt if DRM!=\n"),
		       "expected y, m or n after '!='");
	rules_free(&r);
}

/* Comparisons, as in Kconfig's "depends on DRM=y": y when they hold, n otherwise. A rule that
 * forgets that a module's select still builds a bool in ("selected-by DRM if DRM=y") predicts
 * KCMP=n for DRM=m, which the config layer then catches against the real .config. */
TEST(rules_comparisons)
{
	struct rules r;
	char got[8], err[512] = "";
	const char *text = "format 1\nconfig EXPERT\n prompt\n"
			   "config KCMP\n prompt if EXPERT\n selected-by DRM if DRM=y\n"
			   "config CHECKPOINT_RESTORE\n default y if DRM!=n && DRM!=y\n"
			   "config DRM\n tristate\n prompt\n"
			   "config EPOLL\n default y if DRM=m || EXPERT\n"
			   "observable kcmp\n works when KCMP\n enosys\nobservable epoll\n works when EPOLL\n enosys\n";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	predict(&r, "nnnmn", got);
	CHECK_STR(got, "nnymyny");	/* KCMP not selected by DRM=m; CR and EPOLL y */
	predict(&r, "nnnyn", got);
	CHECK_STR(got, "nynynyn");
	rules_free(&r);
}

static void load_variant(const char *variant, struct rules *r)
{
	char err[512] = "", *path = xasprintf(DATA("matrix/rules/%s.rules"), variant);

	CHECK(rules_load(path, 5, names, r, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	free(path);
}

/* v1 (the first version of the series): KCMP defaults to y, and DRM does not select it. Worked
 * out by hand from kernel-patch/v1's init/Kconfig hunk. */
TEST(rules_v1_default_y_and_no_drm_select)
{
	struct rules r;
	char got[8];

	load_variant("v1", &r);
	predict(&r, "nnnny", got);	/* EXPERT=n: prompt hidden, default y */
	CHECK_STR(got, "nynnyyy");
	predict(&r, "ynnny", got);	/* EXPERT=y: KCMP=n as requested */
	CHECK_STR(got, "ynnnyny");
	predict(&r, "ynnmy", got);	/* DRM=m does not select KCMP in v1 */
	CHECK_STR(got, "ynnmyny");
	predict(&r, "ynyny", got);	/* CHECKPOINT_RESTORE still selects it */
	CHECK_STR(got, "yyynyyy");
	rules_free(&r);
}

/* pre (the tree before the series): no KCMP symbol; kcmp() comes with CHECKPOINT_RESTORE. */
TEST(rules_pre_kcmp_follows_checkpoint_restore)
{
	struct rules r;
	char got[8];

	load_variant("pre", &r);
	predict(&r, "yynyy", got);
	CHECK_STR(got, "y-nyyny");
	predict(&r, "nnyny", got);
	CHECK_STR(got, "n-ynyyy");
	rules_free(&r);
}

/* As in Kconfig, a select wins over the selected symbol's own dependencies, and "selected-by X
 * if EXPR" selects only while EXPR holds. */
TEST(rules_select_over_depends_and_conditional_select)
{
	struct rules r;
	char got[8], err[512] = "";
	const char *text = "format 1\nconfig EXPERT\n prompt\n"
			   "config KCMP\n prompt\n depends on n\n selected-by CHECKPOINT_RESTORE\n"
			   "config CHECKPOINT_RESTORE\n prompt\n"
			   "config DRM\n prompt\n"
			   "config EPOLL\n selected-by DRM if EXPERT\n"
			   "observable kcmp\n works when KCMP\n enosys\nobservable epoll\n works when EPOLL\n enosys\n";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	predict(&r, "nyyyn", got);	/* KCMP's depends on n loses to the select; DRM alone */
	CHECK_STR(got, "nyyynyn");	/* does not select EPOLL without EXPERT */
	predict(&r, "nynyn", got);	/* no select: depends on n wins over the request */
	CHECK_STR(got, "nnnynnn");
	predict(&r, "ynnyn", got);	/* EXPERT=y: DRM selects EPOLL */
	CHECK_STR(got, "ynnyyny");
	rules_free(&r);
}

/* A symbol left unset (VALUE_UNSET: no line in the fragment) has no request to honour, prompt
 * or no prompt: its default decides, then the selects, as olddefconfig does for a symbol a
 * .config from before it never mentions. Worked out by hand from each variant's init/Kconfig
 * KCMP entry: v1 "default y", v3 none. */
TEST(rules_unset_takes_the_default_visible_or_not)
{
	struct rules v1, v3;
	struct prediction p;
	char got[8], err[256];

	load_variant("v1", &v1);
	load_v3(&v3);
	predict(&v1, "yunny", got);	/* EXPERT=y, KCMP unset: v1's default y */
	CHECK_STR(got, "yynnyyy");
	predict(&v3, "yunny", got);	/* v3 has no default: n, and kcmp() is ENOSYS */
	CHECK_STR(got, "ynnnyny");
	predict(&v3, "yunmy", got);	/* a select still wins over no default */
	CHECK_STR(got, "yynmyyy");
	predict(&v3, "nunny", got);	/* hidden prompt: the same as any request */
	CHECK_STR(got, "nnnnyny");
	predict(&v3, "ynnnu", got);	/* EPOLL unset: default y with its prompt visible */
	CHECK_STR(got, "ynnnyny");
	predict(&v3, "uynnn", got);	/* EXPERT unset: no default, so KCMP's and EPOLL's
					 * prompts are hidden: KCMP none, EPOLL its default y */
	CHECK_STR(got, "nnnnyny");
	CHECK(rules_predict(&v1, "yunny", NULL, &p, err, sizeof(err)) == 0);
	CHECK_STR(p.why[1], "KCMP=y: left unset, default y");
	CHECK(rules_predict(&v3, "yunny", NULL, &p, err, sizeof(err)) == 0);
	CHECK_STR(p.why[1], "KCMP=n: left unset, no default");
	CHECK(rules_predict(&v3, "yunyy", NULL, &p, err, sizeof(err)) == 0);
	CHECK_STR(p.why[1], "KCMP=y: selected by DRM=y");
	rules_free(&v1);
	rules_free(&v3);
}

/* A default with a condition, for a symbol left unset: it applies only while the condition
 * holds, capped at the condition's value. */
TEST(rules_unset_conditional_default)
{
	static const char text[] =
		"format 1\n"
		"config EXPERT\n\tprompt\n"
		"config KCMP\n\tprompt if EXPERT\n\tdefault y if EPOLL\n"
		"config CHECKPOINT_RESTORE\n\tprompt\n"
		"config DRM\n\ttristate\n\tprompt\n"
		"config EPOLL\n\tprompt\n"
		"observable kcmp\n\tworks when KCMP\n\tenosys\n";
	struct rules r;
	struct prediction p;
	char err[256] = "";

	CHECK(rules_parse("cond.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK(rules_predict(&r, "yunny", NULL, &p, err, sizeof(err)) == 0);
	CHECK(p.value[1] == 'y');
	CHECK_STR(p.why[1], "KCMP=y: left unset, default y (its condition holds)");
	CHECK(rules_predict(&r, "yunnn", NULL, &p, err, sizeof(err)) == 0);
	CHECK(p.value[1] == 'n');
	CHECK_STR(p.why[1], "KCMP=n: left unset, no default");
	CHECK(rules_predict(&r, "ynnny", NULL, &p, err, sizeof(err)) == 0);	/* a request wins */
	CHECK(p.value[1] == 'n');
	rules_free(&r);
}

/* What the reports read back from a why line: whether a default decided, and how. */
TEST(rules_why_default_reads_rules_predict_words)
{
	size_t len = 0;
	const char *how = rules_why_default("KCMP=y: left unset, default y", &len);

	CHECK(how && len == 10 && !strncmp(how, "left unset", len));
	how = rules_why_default("KCMP=n: prompt hidden, no default", &len);
	CHECK(how && !strncmp(how, "prompt hidden", len) && len == 13);
	CHECK(rules_why_default("EPOLL=y: no prompt, default y (its condition holds)", &len));
	CHECK(!rules_why_default("KCMP=y: selected by DRM=m", &len));
	CHECK(!rules_why_default("KCMP=y: as requested", &len));
	CHECK(!rules_why_default("KCMP: not in this tree", &len));
	CHECK(!rules_why_default("KCMP=n: its dependencies are not met", &len));
}

/* An arch symbol (arch-symbol HAS_IOMEM) takes the arch's value: on an arch whose HAS_IOMEM is
 * n (s390x, whose base has no PCI), DRM's request is not honoured and it selects nothing; an
 * arch that gives no value makes it n, as Kconfig takes a symbol the arch does not define. */
TEST(rules_arch_symbols_take_the_arches_values)
{
	static const char text[] =
		"format 1\nconfig EXPERT\n prompt\nconfig KCMP\n prompt if EXPERT\n"
		" selected-by DRM\nconfig CHECKPOINT_RESTORE\n prompt\n"
		"arch-symbol HAS_IOMEM\narch-symbol EMULATED_CMPXCHG\n"
		"config DRM\n tristate\n prompt\n depends on HAS_IOMEM && !EMULATED_CMPXCHG\n"
		"config EPOLL\n prompt\nobservable kcmp\n works when KCMP\n enosys\n";
	char *io[] = { "HAS_IOMEM=y", "EMULATED_CMPXCHG=n", NULL };
	char *no_io[] = { "HAS_IOMEM=n", "EMULATED_CMPXCHG=n", NULL };
	struct rules r;
	struct prediction p;
	char err[512] = "";

	CHECK(rules_parse("t.rules", text, 5, names, &r, err, sizeof(err)) == 0);
	CHECK(r.narch_sym == 2);
	CHECK(rules_predict(&r, "nnnmy", io, &p, err, sizeof(err)) == 0);
	CHECK(p.value[3] == 'm' && p.value[1] == 'y');
	CHECK_STR(p.observe[0], "works");
	CHECK(rules_predict(&r, "nnnmy", no_io, &p, err, sizeof(err)) == 0);
	CHECK(p.value[3] == 'n' && p.value[1] == 'n');
	CHECK_STR(p.why[3], "DRM=n: its dependencies are not met");
	CHECK_STR(p.observe[0], "enosys");
	CHECK(rules_predict(&r, "nnnyy", NULL, &p, err, sizeof(err)) == 0);
	CHECK(p.value[3] == 'n');
	CHECK(rules_arch_value(io, "HAS_IOMEM") == 'y' && rules_arch_value(io, "HAS_IO") == 0);
	rules_free(&r);
	/* declared before use, once, and never a matrix symbol's name */
	CHECK_CONTAINS(parse_error(ALL_BUT_EPOLL "config EPOLL\n depends on HAS_IOMEM\n"),
		       "t.rules:11: unknown symbol 'HAS_IOMEM' (rules may name only the matrix "
		       "symbols listed in matrix/matrix.conf, and the arch symbols their 'arch-symbol' "
		       "lines declare before)");
	CHECK_CONTAINS(parse_error("format 1\narch-symbol HAS_IOMEM\narch-symbol HAS_IOMEM\n"),
		       "t.rules:3: arch symbol 'HAS_IOMEM' declared twice");
	CHECK_CONTAINS(parse_error("format 1\narch-symbol KCMP\n"),
		       "t.rules:2: expected 'arch-symbol SYMBOL', a Kconfig symbol that is not a "
		       "matrix symbol");
	CHECK_CONTAINS(parse_error("format 1\narch-symbol has_iomem\n"), "t.rules:2: expected "
		       "'arch-symbol SYMBOL'");
}
