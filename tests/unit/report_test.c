/* The table writers: markdown table, JSON and TSV from a hand-made plan. */
#include "check.h"
#include "fixtures.h"
#include "matrix.h"
#include "plan.h"
#include "report.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

TEST(report_table_rows_columns_marks)
{
	struct matrix m;
	struct plan p;
	char *t;

	fixture_plan(&m, &p);
	t = report_table(&m, &p);
	CHECK_CONTAINS(t, "| EXPERT | KCMP | CHECKPOINT_RESTORE | DRM | EPOLL | x86_64 v3 | arm64 v3 |");
	/* KCMP requested n, resolved y: marked */
	CHECK_CONTAINS(t, "| n | n | n | y | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	CHECK_CONTAINS(t, "| n | y | n | y | y | PASS kcmp=works | FAIL kcmp=works |");
	CHECK_CONTAINS(t, "FAIL arm64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: observed");
	CHECK_CONTAINS(t, "4 cells: 3 PASS 1 FAIL");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_json_fields_and_escaping)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { .kernel_version = "6.1.192", .tree_path = "/t" };
	char *j;

	fixture_plan(&m, &p);
	j = report_json(&m, &p, &ri);
	CHECK_CONTAINS(j, "\"schema\": 1");
	CHECK_CONTAINS(j, "\"kernel\": \"6.1.192\"");
	CHECK_CONTAINS(j, "\"requested\": {\"EXPERT\": \"n\", \"KCMP\": \"n\"");
	CHECK_CONTAINS(j, "\"predicted\": {\"EXPERT\": \"n\", \"KCMP\": \"y\"");
	CHECK_CONTAINS(j, "\"observed\": {\"kcmp\": \"works\", \"epoll\": null, \"epoll_tfd\": null}");
	CHECK_CONTAINS(j, "\"reason\": \"observed: a \\\"quoted\\\"\\u0009reason\\n\"");
	CHECK_CONTAINS(j, "\"KCMP\": \"KCMP=y: selected by DRM=y\"");
	free(j);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_tsv_one_line_per_cell)
{
	struct matrix m;
	struct plan p;
	char *t;
	int lines = 0;

	fixture_plan(&m, &p);
	t = report_tsv(&m, &p);
	for (char *s = t; *s; s++)
		lines += *s == '\n';
	CHECK(lines == 5);
	CHECK_CONTAINS(t, "x86_64\tv3\tEXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y\tPASS\tworks\t-\t-\tnynyy\t-\t-\n");
	CHECK_CONTAINS(t, "\tFAIL\tworks\t-\t-\tnynyy\tobserved: a \"quoted\" reason \t-\n");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_ktap_directives)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { .kernel_version = "6.1.192" };
	char *t;

	fixture_plan(&m, &p);
	p.cell[1].status = CELL_XFAIL;
	snprintf(p.cell[1].reason, sizeof(p.cell[1].reason), "known: # not a directive");
	p.cell[2].status = CELL_TIMEOUT;
	t = report_ktap(&m, &p, &ri);
	CHECK(!strncmp(t, "KTAP version 1\n# kcmp-matrix: kernel 6.1.192, 4 cells: 1 PASS 1 FAIL 1 TIMEOUT 1 XFAIL\n1..4\n", 87));
	CHECK_CONTAINS(t, "\nok 1 x86_64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # kcmp=works\n");
	CHECK_CONTAINS(t, "\nnot ok 2 x86_64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # XFAIL XFAIL: known:   not a directive\n");
	CHECK_CONTAINS(t, "\nnot ok 3 arm64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # TIMEOUT TIMEOUT: \n");
	CHECK_CONTAINS(t, "\nnot ok 4 arm64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # FAIL: observed: a \"quoted\"\treason \n");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_junit_failures_and_escaping)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { .kernel_version = "6.1<x>" };
	char *t;

	fixture_plan(&m, &p);
	p.cell[0].status = CELL_XFAIL;
	p.cell[0].build_seconds = 100;
	t = report_junit(&m, &p, &ri);
	CHECK_CONTAINS(t, "<testsuites name=\"kcmp-matrix\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"100.0\">");
	CHECK_CONTAINS(t, "<testsuite name=\"v3 arm64\" tests=\"2\" failures=\"1\"");
	CHECK_CONTAINS(t, "<property name=\"kernel\" value=\"6.1&lt;x&gt;\"/>");
	CHECK_CONTAINS(t, "<testcase classname=\"kcmp-matrix.v3.x86_64\" name=\"EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y\" time=\"100.0\">\n      <skipped message=\"\"/>");
	CHECK_CONTAINS(t, "<failure type=\"FAIL\" message=\"observed: a &quot;quoted&quot;\treason\n\">");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_html_grid_links_and_explanations)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { .kernel_version = "6.1.192", .tree_path = "/t<b>" };
	char *t;

	fixture_plan(&m, &p);
	snprintf(p.cell[0].predicted.why[1], sizeof(p.cell[0].predicted.why[1]), "KCMP=y: selected by DRM");
	p.cell[1].built = 0;
	t = report_html(&m, &p, &ri, "1 new failure <here>");
	CHECK_CONTAINS(t, "<title>kcmp-matrix: 4 cells: 3 PASS 1 FAIL</title>");
	CHECK_CONTAINS(t, "<code>/t&lt;b&gt;</code>");
	CHECK_CONTAINS(t, "<pre id=\"changes\">1 new failure &lt;here&gt;</pre>");
	CHECK_CONTAINS(t, "<th>x86_64 v3</th><th>arm64 v3</th>");
	CHECK_CONTAINS(t, "<td class=\"cell s-PASS\" data-status=\"PASS\" id=\"v3/x86_64/EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y\" title=\"PASS\"><b>PASS</b> kcmp=works <span class=\"mark\">KCMP→y</span>");
	CHECK_CONTAINS(t, "<a href=\"cells/v3/x86_64/EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y/serial.log\">log</a>");
	CHECK_CONTAINS(t, "KCMP=y: KCMP=y: selected by DRM<br>");
	CHECK_CONTAINS(t, "<td class=\"cell s-FAIL\" data-status=\"FAIL\"");
	CHECK_CONTAINS(t, "<h2>Cells that did not pass (1)</h2>");
	/* a kernel that did not build has no serial log to link */
	CHECK(!strstr(t, "EPOLL=y/serial.log\">log</a><a href=\"cells/v3/x86_64/EXPERT=n,KCMP=y"));
	free(t);
	plan_free(&p);
	matrix_free(&m);
}
