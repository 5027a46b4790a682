/* The table writers: markdown table, JSON and TSV from a hand-made plan. */
#include "check.h"
#include "matrix.h"
#include "plan.h"
#include "report.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

static void make_plan(struct matrix *m, struct plan *p)
{
	char err[512] = "";
	char *v3[] = { "v3", NULL };
	struct plan_filter f = { .variants = v3, .only = "EXPERT=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y" };

	CHECK(matrix_load("matrix", "kernel-patch", m, err, sizeof(err)) == 0);
	CHECK(plan_make(m, &f, p, err, sizeof(err)) == 0);
	CHECK(p->ncombo == 2 && p->ncell == 4);
	for (int i = 0; i < p->ncell; i++) {
		struct cell *c = &p->cell[i];

		memcpy(c->resolved, "nynyy", 5);
		c->status = CELL_PASS;
		c->observed_kcmp = xstrdup("works");
	}
	p->cell[3].status = CELL_FAIL;
	snprintf(p->cell[3].reason, sizeof(p->cell[3].reason), "observed: a \"quoted\"\treason\n");
}

TEST(report_table_rows_columns_marks)
{
	struct matrix m;
	struct plan p;
	char *t;

	make_plan(&m, &p);
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

	make_plan(&m, &p);
	j = report_json(&m, &p, &ri);
	CHECK_CONTAINS(j, "\"schema\": 1");
	CHECK_CONTAINS(j, "\"kernel\": \"6.1.192\"");
	CHECK_CONTAINS(j, "\"requested\": {\"EXPERT\": \"n\", \"KCMP\": \"n\"");
	CHECK_CONTAINS(j, "\"predicted\": {\"EXPERT\": \"n\", \"KCMP\": \"y\"");
	CHECK_CONTAINS(j, "\"observed\": {\"kcmp\": \"works\", \"epoll\": null, \"epoll_tfd\": null}");
	CHECK_CONTAINS(j, "\"reason\": \"observed: a \\\"quoted\\\"\\u0009reason\\n\"");
	CHECK_CONTAINS(j, "\"KCMP\": \"KCMP=y: selected by DRM\"");
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

	make_plan(&m, &p);
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
