/* The results directory: every file written, read back into the same cells (what merge and
 * diff rely on), shards that partition a plan, and the diff between two runs. */
#define _GNU_SOURCE
#include "check.h"
#include "diff.h"
#include "fixtures.h"
#include "report.h"
#include "results.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *scratch_dir(void)
{
	char tmpl[] = "/tmp/kcmpm-unit-XXXXXX";

	CHECK(mkdtemp(tmpl) != NULL);
	return xstrdup(tmpl);
}

TEST(results_read_back_gives_the_same_reports)
{
	struct matrix m;
	struct plan p, back = { 0 };
	struct run_info ri = { .seconds = 3 };
	struct run_info ri_back = { 0 };
	char *dir = scratch_dir(), *json = xasprintf("%s/matrix.json", dir), err[1024] = "";

	fixture_plan(&m, &p);
	snprintf(p.cell[1].predicted.why[1], sizeof(p.cell[1].predicted.why[1]), "KCMP=y: selected by DRM");
	p.cell[2].status = CELL_XFAIL;
	p.cell[2].built = 0;
	CHECK(results_write(dir, &m, &p, &ri, NULL, err, sizeof(err)) == 0);
	CHECK(results_read(json, &m, &back, &ri_back, err, sizeof(err)) == 0);
	CHECK(plan_index(&m, &back, err, sizeof(err)) == 0);
	CHECK(back.ncell == 4 && back.ncombo == 2);
	CHECK_STR(m.tree[0].version, "6.1.192");
	{
		char *texts[2][5] = { { report_table(&m, &p), report_tsv(&m, &p), report_ktap(&m, &p, &ri),
					report_junit(&m, &p, &ri), report_html(&m, &p, &ri, NULL) },
				      { report_table(&m, &back), report_tsv(&m, &back),
					report_ktap(&m, &back, &ri), report_junit(&m, &back, &ri),
					report_html(&m, &back, &ri, NULL) } };

		for (int i = 0; i < 5; i++) {
			CHECK_STR(texts[1][i], texts[0][i]);
			free(texts[0][i]);
			free(texts[1][i]);
		}
	}
	CHECK(back.cell[2].built == 0 && back.cell[1].built == 1);
	CHECK_STR(back.cell[1].predicted.why[1], "KCMP=y: selected by DRM");
	plan_free(&p);
	plan_free(&back);
	matrix_free(&m);
	remove_tree(dir);
	free(json);
	free(dir);
}

/* A run stopped by an error says so in every file that a person or a CI server reads, and the
 * mark survives a read back (merge, diff). */
TEST(results_of_a_partial_run_say_so)
{
	struct matrix m;
	struct plan p, back = { 0 };
	struct run_info ri = { .partial = "stopped after 4 of 9 cells: "
								       "cannot create 'x'" };
	struct run_info ri_back = { 0 };
	char *dir = scratch_dir(), *path, *text, err[1024] = "";

	fixture_plan(&m, &p);
	CHECK(results_write(dir, &m, &p, &ri, NULL, err, sizeof(err)) == 0);
	path = xasprintf("%s/matrix.md", dir);
	text = read_file(path, NULL);
	CHECK(text && !strncmp(text, "PARTIAL RUN, stopped after 4 of 9 cells: cannot create 'x'\n",
			       59));
	free(text);
	free(path);
	path = xasprintf("%s/matrix.ktap", dir);
	text = read_file(path, NULL);
	CHECK_CONTAINS(text, "\n# partial run, stopped after 4 of 9 cells");
	free(text);
	free(path);
	path = xasprintf("%s/index.html", dir);
	text = read_file(path, NULL);
	CHECK_CONTAINS(text, "<b>Partial run</b>, stopped after 4 of 9 cells: cannot create &#39;x&#39;");
	free(text);
	free(path);
	path = xasprintf("%s/matrix.json", dir);
	CHECK(results_read(path, &m, &back, &ri_back, err, sizeof(err)) == 0);
	CHECK_STR(ri_back.partial, ri.partial);
	free(path);
	plan_free(&p);
	plan_free(&back);
	matrix_free(&m);
	remove_tree(dir);
	free(dir);
}

/* A set of tables that a SIGKILL left among its renames (the mark still beside them) is two
 * runs' files: merge, diff and --previous refuse its matrix.json, and the next run's tables
 * replace the set and take the mark away. */
TEST(results_half_replaced_are_refused_until_rewritten)
{
	struct matrix m;
	struct plan p, back = { 0 };
	struct run_info ri = { 0 }, ri_back = { 0 };
	char *dir = scratch_dir(), *path, *mark, err[1024] = "";

	fixture_plan(&m, &p);
	CHECK(results_write(dir, &m, &p, &ri, NULL, err, sizeof(err)) == 0);
	path = xasprintf("%s/matrix.json", dir);
	mark = xasprintf("%s/" RESULTS_REPLACING_MARK, dir);
	CHECK(access(mark, F_OK) != 0);
	CHECK(write_file_atomic(mark, "killed\n", 7) == 0);
	CHECK(results_read(path, &m, &back, &ri_back, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "that a stopped run left half replaced");
	plan_free(&back);
	back = (struct plan){ 0 };
	CHECK(results_write(dir, &m, &p, &ri, NULL, err, sizeof(err)) == 0);
	CHECK(access(mark, F_OK) != 0);
	CHECK(results_read(path, &m, &back, &ri_back, err, sizeof(err)) == 0);
	free(mark);
	free(path);
	plan_free(&p);
	plan_free(&back);
	matrix_free(&m);
	remove_tree(dir);
	free(dir);
}

/* KCIDB's file URLs are URLs: a results directory with a space, '%' or '#' in its name is
 * percent-encoded in them, and a cell's combination stays readable. */
TEST(results_kcidb_file_urls_are_percent_encoded)
{
	struct matrix m;
	struct plan p;
	struct run_info ri = { 0 };
	char *text;

	fixture_plan(&m, &p);
	text = report_kcidb(&m, &p, &ri, "/nonexistent/a b%#c");
	CHECK_CONTAINS(text, "\"log_url\": \"file:///nonexistent/a%20b%25%23c/cells/");
	CHECK(!strstr(text, "a b%#c/"));
	free(text);
	plan_free(&p);
	matrix_free(&m);
}

/* the start of a matrix.json with one well-formed cell, for a field to follow */
#define CELL "{\"schema\": 1, \"symbols\": [], \"cells\": [{\"arch\": \"x86_64\", \"variant\": " \
	"\"v3\", \"status\": \"PASS\", \"requested\": {\"EXPERT\": \"n\", \"KCMP\": \"n\", " \
	"\"CHECKPOINT_RESTORE\": \"n\", \"DRM\": \"n\", \"EPOLL\": \"y\"}, "

TEST(results_read_refuses_what_it_cannot_use)
{
	struct matrix m;
	struct plan p, back = { 0 };
	struct run_info ri = { 0 };
	char *dir = scratch_dir(), *path = xasprintf("%s/x.json", dir), err[1024] = "";
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ "{\"schema\": 2, \"symbols\": [], \"cells\": []}", "not a kcmp-matrix matrix.json" },
		{ "{\"schema\": 1, \"symbols\": [\"EXPERT\", \"NOPE\"], \"cells\": []}",
		  "symbols differ from matrix/matrix.conf" },
		{ "{\"schema\": 1, \"symbols\": [], \"cells\": [{\"arch\": \"riscv\", \"variant\": "
		  "\"v3\", \"status\": \"PASS\"}]}", "('riscv', 'v3', 'PASS')" },
		{ "{\"schema\": 1,", "line 1, column 13" },
		/* what fed the hand-written parser before jansson: each refused, with a place */
		{ "{\"a\": 1,\n  \"b\" 2}", "line 2, column " },
		{ "[1, 2", "line 1, column " },
		{ "\"abc", "line 1, column " },
		{ "\"\\q\"", "line 1, column " },
		{ "\"\\ud800x\"", "line 1, column " },
		{ "tru", "line 1, column " },
		{ "{} x", "line 1, column " },
		{ "", "line " },
		{ "\"a\nb\"", "line " },
		{ "-", "line 1, column " },
		{ "{\"schema\": 1, \"symbols\": [\"\xff\"], \"cells\": []}", "line 1, column " },
		{ "[]", "not a kcmp-matrix matrix.json" },
		{ "\"a\"", "line 1, column " },
		/* figures beyond what a run can say (found by make fuzz: 1e300 cast to int) */
		{ "{\"schema\": 1, \"symbols\": [], \"seconds\": -1, \"cells\": []}",
		  "\"seconds\" is -1, not a figure from 0 to" },
		{ "{\"schema\": 1, \"symbols\": [], \"harness_max_rss_kib\": 1e300, \"cells\": []}",
		  "\"harness_max_rss_kib\" is 1e+300" },
		{ "{\"schema\": 1, \"symbols\": [], \"cells\": [{\"arch\": \"x86_64\", \"variant\": "
		  "\"v3\", \"status\": \"PASS\", \"requested\": {\"EXPERT\": \"n\", \"KCMP\": \"n\", "
		  "\"CHECKPOINT_RESTORE\": \"n\", \"DRM\": \"n\", \"EPOLL\": \"y\"}, "
		  "\"boots\": 1e300}]}", "cell 1 of 1: \"boots\" is 1e+300, not a figure from 0 to 1000" },
		/* names and words that would leave --results or add rows to matrix.md (a shard's
		 * file may come from another machine) */
		{ "{\"schema\": 1, \"symbols\": [], \"cells\": [{\"tree\": \"../../../outside\"}]}",
		  "tree name '../../../outside' is not a plain name" },
		{ "{\"schema\": 1, \"symbols\": [], \"trees\": [{\"name\": \"a/b\"}], \"cells\": []}",
		  "not a plain name" },
		{ CELL "\"observed\": {\"kcmp\": \"works\\n| n | n |\"}}]}",
		  "cell 1 of 1: a cell's kcmp is not a plain word" },
		{ CELL "\"predicted_observed\": {\"epoll\": \"a|b\"}}]}", "a cell's epoll is not a plain" },
		{ CELL "\"selftest\": \"pass fail\"}]}", "a cell's selftest is not a plain word" },
		{ CELL "\"config_tag\": \"../x\"}]}", "a cell's config_tag is not a plain word" },
		{ CELL "\"booted\": \"6.1 #1\\nkcmpm-x\"}]}", "a cell's booted is not a plain word" },
	};

	fixture_plan(&m, &p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(write_file_atomic(path, bad[i].text, strlen(bad[i].text)) == 0);
		CHECK(results_read(path, &m, &back, &ri, err, sizeof(err)) == -1);
		CHECK_CONTAINS(err, bad[i].message);
		CHECK_CONTAINS(err, path);
		plan_free(&back);
	}
	CHECK(results_read("/nonexistent/matrix.json", &m, &back, &ri, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "cannot read '/nonexistent/matrix.json'");
	plan_free(&p);
	matrix_free(&m);
	remove_tree(dir);
	free(path);
	free(dir);
}

/* Every cell lands in exactly one shard, shards are contiguous, and plan_index puts the union
 * back in plan order. */
TEST(plan_shards_partition_the_cells)
{
	struct matrix m;
	struct plan whole;
	char err[512] = "";

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	CHECK(plan_make(&m, &(struct plan_filter){ 0 }, &whole, err, sizeof(err)) == 0);
	for (int n = 1; n <= 7; n++) {
		struct plan all = { 0 };

		for (int k = 1; k <= n; k++) {
			struct plan one;

			CHECK(plan_make(&m, &(struct plan_filter){ 0 }, &one, err, sizeof(err)) == 0);
			plan_shard(&one, k, n);
			CHECK(one.ncell >= whole.ncell / n && one.ncell <= whole.ncell / n + 1);
			all.cell = xrealloc(all.cell, (size_t)(all.ncell + one.ncell) * sizeof(*all.cell));
			memcpy(all.cell + all.ncell, one.cell, (size_t)one.ncell * sizeof(*one.cell));
			all.ncell += one.ncell;
			one.ncell = 0;
			plan_free(&one);
		}
		/* shards came in order k = 1..n, so the union is the whole plan as it was */
		CHECK(all.ncell == whole.ncell);
		for (int i = 0; i < all.ncell && i < whole.ncell; i++)
			CHECK(all.cell[i].combo == whole.cell[i].combo &&
			      all.cell[i].arch == whole.cell[i].arch &&
			      all.cell[i].variant == whole.cell[i].variant);
		CHECK(plan_index(&m, &all, err, sizeof(err)) == 0);
		CHECK(all.ncombo == whole.ncombo);
		/* the same cell twice is refused */
		if (n == 1) {
			all.cell = xrealloc(all.cell, (size_t)(all.ncell + 1) * sizeof(*all.cell));
			all.cell[all.ncell++] = all.cell[5];
			CHECK(plan_index(&m, &all, err, sizeof(err)) == -1);
			CHECK_CONTAINS(err, "appears twice");
			all.ncell--;
		}
		plan_free(&all);
	}
	plan_free(&whole);
	matrix_free(&m);
}

TEST(diff_leads_with_new_failures)
{
	struct matrix m, same;
	struct plan old, new_;
	char *text;
	int new_failures = -1;

	fixture_plan(&m, &old);
	fixture_plan(&same, &new_);
	/* cell 0 newly fails with another kcmp() state; cell 3 (FAIL before) is fixed; cell 1 no
	 * longer builds */
	new_.cell[0].status = CELL_FAIL;
	snprintf(new_.cell[0].reason, sizeof(new_.cell[0].reason), "observed: broken");
	free(new_.cell[0].observed[0]);
	new_.cell[0].observed[0] = xstrdup("enosys");
	new_.cell[3].status = CELL_PASS;
	new_.cell[1].status = CELL_BUILD_FAIL;
	new_.cell[1].built = 0;
	text = diff_text(&m, &old, &new_, &new_failures);
	CHECK(new_failures == 2);
	CHECK_CONTAINS(text, "4 cells in both runs: 2 new failures, 1 fixed, 1 observed changes, "
		       "1 build changes\nNew failures (2):\n");
	CHECK(text && !strncmp(text, "4 cells", 7));
	CHECK_CONTAINS(text, "  6.1 x86_64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: PASS -> FAIL: observed: broken\n");
	CHECK_CONTAINS(text, "Fixed (1):\n  6.1 arm64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: FAIL -> PASS\n");
	CHECK_CONTAINS(text, "Observed state changed (1):\n  6.1 x86_64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: kcmp=works -> kcmp=enosys\n");
	CHECK_CONTAINS(text, "Build outcome changed (1):\n  6.1 x86_64 v3 EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: built -> no-build\n");
	free(text);
	/* the same run twice: nothing to say */
	text = diff_text(&m, &old, &old, &new_failures);
	CHECK(new_failures == 0);
	CHECK_STR(text, "4 cells in both runs: 0 new failures, 0 fixed, 0 observed changes, 0 build changes\n");
	free(text);
	plan_free(&old);
	plan_free(&new_);
	matrix_free(&m);
	matrix_free(&same);
}
