/* The table writers: markdown table, JSON and TSV from a hand-made plan. */
#include "check.h"
#include "diff.h"
#include "fixtures.h"
#include "matrix.h"
#include "plan.h"
#include "report.h"
#include "report_defaults.h"
#include "results.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(report_table_rows_columns_marks)
{
	struct matrix m;
	struct plan p;
	char *t;

	fixture_plan(&m, &p);
	t = report_table(&m, &p);
	CHECK_CONTAINS(t, "| EXPERT | KCMP | CHECKPOINT_RESTORE | DRM | EPOLL | 6.1 x86_64 v3 | 6.1 arm64 v3 |");
	/* KCMP requested n, resolved y: marked */
	CHECK_CONTAINS(t, "| n | n | n | y | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	CHECK_CONTAINS(t, "| n | y | n | y | y | PASS kcmp=works | FAIL kcmp=works |");
	CHECK_CONTAINS(t, "FAIL 6.1 arm64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: observed");
	CHECK_CONTAINS(t, "4 cells: 3 PASS 1 FAIL");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

/* A string member of obj (or of its member key2 when given), read back with jansson. */
static const char *field(const json_t *obj, const char *key, const char *key2)
{
	const json_t *v = json_object_get(obj, key);

	return json_string_value(key2 ? json_object_get(v, key2) : v);
}

TEST(report_json_fields_and_escaping)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { 0 };
	json_t *doc, *tree, *cell;
	char *j;

	fixture_plan(&m, &p);
	j = report_json(&m, &p, &ri);
	doc = json_loads(j, 0, NULL);
	tree = json_array_get(json_object_get(doc, "trees"), 0);
	cell = json_array_get(json_object_get(doc, "cells"), 0);
	CHECK(doc && json_integer_value(json_object_get(doc, "schema")) == 1);
	CHECK(json_array_size(json_object_get(doc, "trees")) == 1);
	CHECK_STR(field(tree, "name", NULL), "6.1");
	CHECK_STR(field(tree, "kernel", NULL), "6.1.192");
	CHECK_STR(field(tree, "path", NULL), "/t");
	CHECK_STR(field(cell, "tree", NULL), "6.1");
	CHECK_STR(field(cell, "kernel", NULL), "6.1.192");
	CHECK_STR(field(cell, "arch", NULL), "x86_64");
	CHECK_STR(field(cell, "requested", "EXPERT"), "n");
	CHECK_STR(field(cell, "requested", "KCMP"), "n");
	CHECK_STR(field(cell, "predicted", "EXPERT"), "n");
	CHECK_STR(field(cell, "predicted", "KCMP"), "y");
	CHECK_STR(field(cell, "observed", "kcmp"), "works");
	CHECK(json_is_null(json_object_get(json_object_get(cell, "observed"), "epoll")));
	CHECK(json_is_null(json_object_get(json_object_get(cell, "observed"), "epoll_tfd")));
	CHECK_STR(field(json_array_get(json_object_get(doc, "cells"), 3), "reason", NULL),
		  "observed: a \"quoted\"\treason\n");
	CHECK_CONTAINS(j, "\"reason\": \"observed: a \\\"quoted\\\"\\treason\\n\"");
	CHECK_STR(field(cell, "explain", "KCMP"), "KCMP=y: selected by DRM=y");
	json_decref(doc);
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
	CHECK_CONTAINS(t, "6.1\tx86_64\tv3\tEXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y\tPASS\tworks\t-\t-\tnynyy\t-\t-\t-\n");
	CHECK_CONTAINS(t, "\tFAIL\tworks\t-\t-\tnynyy\tobserved: a \"quoted\" reason \t-\t-\n");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_ktap_directives)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { 0 };
	const char *ktap_head = "KTAP version 1\n# kcmp-matrix: tree 6.1 kernel 6.1.192, 4 cells: "
				"1 PASS 1 FAIL 1 TIMEOUT 1 XFAIL\n1..4\n";
	char *t;

	fixture_plan(&m, &p);
	p.cell[1].status = CELL_XFAIL;
	snprintf(p.cell[1].reason, sizeof(p.cell[1].reason), "known: # not a directive");
	p.cell[2].status = CELL_TIMEOUT;
	t = report_ktap(&m, &p, &ri);
	CHECK(!strncmp(t, ktap_head, strlen(ktap_head)));
	CHECK_CONTAINS(t, "\nok 1 6.1 x86_64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # kcmp=works\n");
	CHECK_CONTAINS(t, "\nnot ok 2 6.1 x86_64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # XFAIL XFAIL: known:   not a directive\n");
	CHECK_CONTAINS(t, "\nnot ok 3 6.1 arm64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # TIMEOUT TIMEOUT: \n");
	CHECK_CONTAINS(t, "\nnot ok 4 6.1 arm64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y # FAIL: observed: a \"quoted\"\treason \n");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_junit_failures_and_escaping)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { 0 };
	char *t;

	fixture_plan(&m, &p);
	matrix_tree_found(&m, 0, "6.1<x>", "/t");
	p.cell[0].status = CELL_XFAIL;
	p.cell[0].build_seconds = 100;
	t = report_junit(&m, &p, &ri);
	CHECK_CONTAINS(t, "<testsuites name=\"kcmp-matrix\" tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"100.0\">");
	CHECK_CONTAINS(t, "<testsuite name=\"6.1 arm64 v3\" tests=\"2\" failures=\"1\"");
	CHECK_CONTAINS(t, "<property name=\"tree\" value=\"6.1\"/><property name=\"kernel\" value=\"6.1&lt;x&gt;\"/>");
	CHECK_CONTAINS(t, "<testcase classname=\"kcmp-matrix.6.1.v3.x86_64\" name=\"EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y\" time=\"100.0\">\n      <skipped message=\"\"/>");
	CHECK_CONTAINS(t, "<failure type=\"FAIL\" message=\"observed: a &quot;quoted&quot;\treason\n\">");
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

TEST(report_html_grid_links_and_explanations)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { 0 };
	char *t;

	fixture_plan(&m, &p);
	matrix_tree_found(&m, 0, "6.1.192", "/t<b>");
	snprintf(p.cell[0].predicted.why[1], sizeof(p.cell[0].predicted.why[1]), "KCMP=y: selected by DRM");
	p.cell[1].built = 0;
	t = report_html(&m, &p, &ri, "1 new failure <here>");
	CHECK_CONTAINS(t, "<title>kcmp-matrix: 4 cells: 3 PASS 1 FAIL</title>");
	CHECK_CONTAINS(t, "Tree 6.1: kernel 6.1.192 from <code>/t&lt;b&gt;</code>");
	CHECK_CONTAINS(t, "<pre id=\"changes\">1 new failure &lt;here&gt;</pre>");
	CHECK_CONTAINS(t, "<th>6.1 x86_64 v3</th><th>6.1 arm64 v3</th>");
	CHECK_CONTAINS(t, "<td class=\"cell s-PASS\" data-status=\"PASS\" id=\"6.1/v3/x86_64/EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y\" title=\"PASS\"><b>PASS</b> kcmp=works <span class=\"mark\">KCMP→y</span>");
	CHECK_CONTAINS(t, "<a href=\"cells/6.1/v3/x86_64/EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y/serial.log\">log</a>");
	CHECK_CONTAINS(t, "KCMP=y: KCMP=y: selected by DRM<br>");
	CHECK_CONTAINS(t, "<td class=\"cell s-FAIL\" data-status=\"FAIL\"");
	CHECK_CONTAINS(t, "<h2>Cells that did not pass (1)</h2>");
	/* a kernel that did not build has no serial log to link */
	CHECK(!strstr(t, "EPOLL=y/serial.log\">log</a><a href=\"cells/6.1/v3/x86_64/EXPERT=n,KCMP=y"));
	free(t);
	plan_free(&p);
	matrix_free(&m);
}

/* Trees are a dimension: one column per tree, arch and variant, and a behaviour diff between
 * trees that lists the rows where a tree's headline or build outcome differs (and says "none"
 * when nothing does). The JSON names every tree with its kernel, and reads back. */
TEST(report_two_trees_columns_and_diff)
{
	struct matrix m;
	struct plan p, back = { 0 };
	struct run_info ri = { 0 };
	char *v3[] = { "v3", NULL }, *x86[] = { "x86_64", NULL }, err[512] = "";
	struct plan_filter f = { .variants = v3, .arches = x86,
				 .only = "EXPERT=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y" };
	char *t, *dir, *json;

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	CHECK(matrix_add_tree(&m, "6.12", "linux-source-6.12", "/usr/src/l.tar.xz", NULL, err,
			      sizeof(err)) == 0);
	matrix_tree_found(&m, 0, "6.1.192", "/t1");
	matrix_tree_found(&m, 1, "6.12.118", "/t2");
	CHECK(plan_make(&m, &f, &p, err, sizeof(err)) == 0);
	CHECK(p.ncell == 4 && p.cell[0].tree == 0 && p.cell[3].tree == 1);
	for (int i = 0; i < p.ncell; i++) {
		p.cell[i].status = CELL_PASS;
		p.cell[i].built = 1;
		p.cell[i].observed[0] = xstrdup("works");
	}
	t = report_table(&m, &p);
	CHECK_CONTAINS(t, "| 6.1 x86_64 v3 | 6.12 x86_64 v3 |");
	CHECK_CONTAINS(t, "Behaviour diff between trees (kcmp state, or no-build):\n  none: every "
		       "tree behaves the same in every cell run\n");
	CHECK(!strstr(t, "between variants"));	/* one variant: nothing to compare */
	free(t);
	free(p.cell[3].observed[0]);
	p.cell[3].observed[0] = xstrdup("enosys");
	p.cell[2].built = 0;
	t = report_table(&m, &p);
	CHECK_CONTAINS(t, "Behaviour diff between trees (kcmp state, or no-build):\n"
		       "  x86_64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: 6.1=works "
		       "6.12=no-build\n"
		       "  x86_64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: 6.1=works "
		       "6.12=enosys\n");
	free(t);
	t = report_json(&m, &p, &ri);
	{
		json_t *doc = json_loads(t, 0, NULL), *trees = json_object_get(doc, "trees");
		json_t *cells = json_object_get(doc, "cells"), *cell;
		size_t i;
		int found = 0;

		CHECK(json_array_size(trees) == 2);
		CHECK_STR(field(json_array_get(trees, 0), "path", NULL), "/t1");
		CHECK_STR(field(json_array_get(trees, 1), "name", NULL), "6.12");
		CHECK_STR(field(json_array_get(trees, 1), "kernel", NULL), "6.12.118");
		CHECK_STR(field(json_array_get(trees, 1), "path", NULL), "/t2");
		json_array_foreach(cells, i, cell)
			found += !strcmp(field(cell, "tree", NULL), "6.12") &&
				 !strcmp(field(cell, "kernel", NULL), "6.12.118") &&
				 !strcmp(field(cell, "arch", NULL), "x86_64");
		CHECK(found >= 1);
		json_decref(doc);
	}
	free(t);
	{	/* a run of 6.1 against a run of 6.12: compared across the trees */
		struct plan old = { .ncell = 2, .cell = p.cell }, new_ = { .ncell = 2,
									     .cell = p.cell + 2 };
		int new_failures = -1;

		t = diff_text(&m, &old, &new_, &new_failures);
		CHECK_CONTAINS(t, "Tree 6.1 (old run) compared with tree 6.12 (new run)\n2 cells in "
			       "both runs: 0 new failures, 0 fixed, 1 observed changes, 1 build "
			       "changes\n");
		CHECK_CONTAINS(t, "  6.12 x86_64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: "
			       "kcmp=works -> kcmp=enosys");
		CHECK(new_failures == 0);
		free(t);
	}
	dir = xasprintf("/tmp/kcmpm-unit-trees-%d", (int)getpid());
	json = xasprintf("%s/matrix.json", dir);
	CHECK(mkdir_p(dir) == 0);
	CHECK(results_write(dir, &m, &p, &ri, NULL, err, sizeof(err)) == 0);
	matrix_tree_found(&m, 1, NULL, NULL);
	CHECK(results_read(json, &m, &back, &ri, err, sizeof(err)) == 0);
	CHECK(plan_index(&m, &back, err, sizeof(err)) == 0);
	CHECK(back.ncell == 4 && back.cell[3].tree == 1);
	CHECK_STR(m.tree[1].version, "6.12.118");
	remove_tree(dir);
	free(json);
	free(dir);
	plan_free(&back);
	plan_free(&p);
	matrix_free(&m);
}

/* A console may hold any bytes, and a reason quotes it: matrix.json stays valid UTF-8, each
 * invalid byte a U+FFFD, the valid multi-byte ones kept. */
TEST(report_json_keeps_utf8_valid)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { 0 };
	json_t *doc;
	char *j;

	fixture_plan(&m, &p);
	snprintf(p.cell[0].reason, sizeof(p.cell[0].reason), "bad \xff byte, good \xc3\xa9");
	j = report_json(&m, &p, &ri);
	doc = json_loads(j, 0, NULL);
	CHECK(doc != NULL);
	CHECK_STR(field(json_array_get(json_object_get(doc, "cells"), 0), "reason", NULL),
		  "bad \xef\xbf\xbd byte, good \xc3\xa9");
	json_decref(doc);
	free(j);
	plan_free(&p);
	matrix_free(&m);
}

/* A run of a flavour says so in matrix.json and above its table, and its matrix.json is read
 * back only by a run of the same flavour (merge, diff and --previous mix no two). */
TEST(report_flavour_is_named_and_kept_apart)
{
	struct matrix m;
	struct plan p, back = { 0 };
	struct run_info ri = { 0 }, back_ri = { 0 };
	char err[512] = "", *j, *md;

	fixture_plan(&m, &p);
	m.flavour_in_use = "debug";
	j = report_json(&m, &p, &ri);
	md = report_markdown(&m, &p, &ri);
	CHECK_CONTAINS(j, "\"flavour\": \"debug\"");
	CHECK(md && !strncmp(md, "Flavour debug: every kernel has its base fragments too.\n\n| ", 59));
	CHECK(results_parse("matrix.json", j, strlen(j), &m, &back, &back_ri, err,
			    sizeof(err)) == 0);
	plan_free(&back);
	free_strings(back_ri.whole_plan);
	back = (struct plan){ 0 };
	back_ri = (struct run_info){ 0 };
	m.flavour_in_use = NULL;
	CHECK(results_parse("matrix.json", j, strlen(j), &m, &back, &back_ri, err,
			    sizeof(err)) == -1);
	CHECK_CONTAINS(err, "its flavour is 'debug', this run's none: pass --flavour as it was run");
	plan_free(&back);
	free(md);
	free(j);
	plan_free(&p);
	matrix_free(&m);
}

/* Unset cells in the reports: · in the table's symbol column, a legend for it, the line that
 * names where v1's and v3's defaults differ, "unset" in matrix.json, and the same plan read
 * back from it. */
TEST(report_unset_cells_and_the_defaults_line)
{
	struct matrix m, back_m;
	struct plan p, back = { 0 };
	struct run_info ri = { 0 };
	char *v1v3[] = { "v1", "v3", NULL }, *x86[] = { "x86_64", NULL }, err[512] = "";
	struct plan_filter f = { .variants = v1v3, .arches = x86,
				 .only = "EXPERT=y,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n" };
	char *t, *d, *json;

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	matrix_tree_found(&m, 0, "6.1.192", "/t1");
	matrix_take_unset(&m, 1, 1);
	CHECK(plan_make(&m, &f, &p, err, sizeof(err)) == 0);
	CHECK(p.ncell == 4);
	for (int i = 0; i < p.ncell; i++) {	/* as if Kconfig agreed with the rules */
		memcpy(p.cell[i].resolved, p.cell[i].predicted.value, (size_t)m.nsym);
		p.cell[i].status = CELL_CONFIG_OK;
	}
	t = report_table(&m, &p);
	CHECK_CONTAINS(t, "| y | · | n | n | y | CONFIG_OK KCMP→y | CONFIG_OK KCMP→n |");
	CHECK_CONTAINS(t, "A · in a symbol's column: the cell left it unset");
	CHECK_CONTAINS(t, "\nDefaults that differ between variants (no request decided):\n"
		       "  KCMP left unset: v1 gives y, v3 gives n (2 cells each, where EXPERT=y,"
		       "KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n)\n");
	free(t);
	d = report_default_differences(&m, &p, "; ");
	CHECK_CONTAINS(d, "KCMP left unset: v1 gives y, v3 gives n");
	free(d);
	json = report_json(&m, &p, &ri);
	CHECK_CONTAINS(json, "\"KCMP\": \"unset\"");
	CHECK_CONTAINS(json, "\"KCMP\": \"nyu\"");
	CHECK_CONTAINS(json, "\"combination\": \"EXPERT=y,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n,"
		       "EPOLL=n\"");
	CHECK_CONTAINS(json, "\"KCMP=n: left unset, no default\"");
	/* read back into a matrix whose conf gives KCMP no unset: the file's values widen it */
	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &back_m, err, sizeof(err)) == 0);
	CHECK(results_parse("matrix.json", json, strlen(json), &back_m, &back, &ri, err,
			    sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(back.ncell == 4 && back_m.takes_unset[1]);
	for (int i = 0; i < back.ncell; i++)
		CHECK(back.cell[i].requested[1] == VALUE_UNSET);
	plan_free(&back);
	/* only a request is ever unset: a file whose resolved KCMP says so is read as no value */
	{
		const char *key = "\"resolved\": {\"EXPERT\": \"y\", \"KCMP\": \"";
		char *at = strstr(json, key), *hostile;

		CHECK(at != NULL);
		if (at) {
			at += strlen(key);
			hostile = xasprintf("%.*sunset%s", (int)(at - json), json, at + 1);
			CHECK(results_parse("matrix.json", hostile, strlen(hostile), &back_m, &back,
					    &ri, err, sizeof(err)) == 0);
			CHECK(back.ncell == 4 && back.cell[0].resolved[1] == 0);
			free(hostile);
		}
	}
	/* with no unset cell, no legend and no defaults line */
	p.ncell = 0;
	t = report_table(&m, &p);
	CHECK(!strstr(t, "A · in") && !strstr(t, "Defaults that differ"));
	free(t);
	p.ncell = 4;
	free(json);
	plan_free(&back);
	matrix_free(&back_m);
	plan_free(&p);
	matrix_free(&m);
}
