/* report_junit: JUnit XML for CI servers (Jenkins, GitLab, GitHub test reporters). One
 * testsuite per (variant, arch) column, one testcase per cell named by its combination:
 *
 *   PASS                  a plain testcase
 *   XFAIL                 <skipped>: the variant's xfail file declares the failure
 *   everything else       <failure type="FAIL|BUILD_FAIL|BUILD_TIMEOUT|BOOT_FAIL|TIMEOUT|
 *                         CONFIG_FAIL|XPASS">
 *
 * A testcase's time is its build plus boot seconds in this run (0 when both came from the
 * cache). tests/data/junit.xsd is the schema make test checks this file against.
 */
#define _GNU_SOURCE
#include "report.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct tally {
	int tests, failures, skipped;
	double seconds;
};

static void count(const struct cell *c, struct tally *t)
{
	t->tests++;
	t->failures += !cell_ok(c);
	t->skipped += c->status == CELL_XFAIL || c->status == CELL_CONFIG_OK;
	t->seconds += c->build_seconds + c->boot_seconds;
}

static void testcase(struct strbuf *sb, const struct matrix *m, const struct cell *c)
{
	char *combo = plan_combo_name(m, c->combo), *dir = plan_cell_path(m, c);

	sb_printf(sb, "    <testcase classname=\"kcmp-matrix.%s.%s.%s\" name=\"",
		  m->tree[c->tree].name, m->variant[c->variant].name, m->arch[c->arch].name);
	report_xml_text(sb, combo);
	sb_printf(sb, "\" time=\"%.1f\">\n", c->build_seconds + c->boot_seconds);
	if (c->status == CELL_XFAIL || c->status == CELL_CONFIG_OK) {
		sb_printf(sb, "      <skipped message=\"");
		report_xml_text(sb, c->reason);
		sb_printf(sb, "\"/>\n");
	} else if (!cell_ok(c)) {
		const char *why = c->status == CELL_PASS ? "passed only on a retry of its boot"
							 : c->reason;

		sb_printf(sb, "      <failure type=\"%s\" message=\"",
			  c->status == CELL_PASS ? "FLAKY" : cell_status_name(c->status));
		report_xml_text(sb, why);
		sb_printf(sb, "\">");
		report_xml_text(sb, why);
		sb_printf(sb, "</failure>\n");
	}
	sb_printf(sb, "      <system-out>%s", c->flaky ? "FLAKY: passed on a retry of its boot; " : "");
	for (int i = 0; i < m->nobs; i++)
		sb_printf(sb, "%s%s=%s", i ? " " : "", m->obs[i], c->observed[i] ? c->observed[i] : "-");
	sb_printf(sb, "; files: ");
	report_xml_text(sb, dir);
	sb_printf(sb, "/</system-out>\n    </testcase>\n");
	free(combo);
	free(dir);
}

char *report_junit(const struct matrix *m, const struct plan *p, const struct run_info *ri)
{
	struct strbuf sb = { 0 };
	struct tally all = { 0 };
	struct column col[m->ntree * m->nvariant * m->narch];
	int ncol;

	(void)ri;

	for (int i = 0; i < p->ncell; i++)
		count(&p->cell[i], &all);
	sb_printf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		  "<testsuites name=\"kcmp-matrix\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		  "skipped=\"%d\" time=\"%.1f\">\n", all.tests, all.failures, all.skipped, all.seconds);
	ncol = report_columns(m, p, col);
	for (int k = 0; k < ncol; k++) {
		struct tally t = { 0 };
		char *name = report_column_name(m, &col[k]);

		for (int i = 0; i < p->ncell; i++)
			if (report_in_column(&p->cell[i], &col[k]))
				count(&p->cell[i], &t);
		sb_printf(&sb, "  <testsuite name=\"");
		report_xml_text(&sb, name);
		sb_printf(&sb, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" "
			  "time=\"%.1f\">\n", t.tests, t.failures, t.skipped, t.seconds);
		sb_printf(&sb, "    <properties><property name=\"tree\" value=\"");
		report_xml_text(&sb, m->tree[col[k].tree].name);
		sb_printf(&sb, "\"/><property name=\"kernel\" value=\"");
		report_xml_text(&sb, m->tree[col[k].tree].version);
		sb_printf(&sb, "\"/></properties>\n");
		for (int i = 0; i < p->ncell; i++)
			if (report_in_column(&p->cell[i], &col[k]))
				testcase(&sb, m, &p->cell[i]);
		sb_printf(&sb, "  </testsuite>\n");
		free(name);
	}
	sb_printf(&sb, "</testsuites>\n");
	return sb.s;
}
