/* report: what a run writes. Pure formatting into strings; main writes them to disk.
 *
 *   table (stdout and results/matrix.md): one row per combination, one column per tree, arch and
 *     variant; a cell reads "<STATUS> kcmp=<observed>", plus "KCMP→y" style marks where Kconfig
 *     resolved a symbol differently from the request; then the behaviour diffs between variants
 *     and between trees, and one line per cell that did not pass.
 *   results/matrix.json: schema 1, described in docs/matrix-json.md.
 *   the other formats: report_ktap.c, report_junit.c, report_html.c.
 *   results/matrix.tsv: one line per cell, for awk and tests: tree, arch, variant, combination,
 *     status, observed kcmp, epoll, epoll_tfd, resolved values, reason, kernel tag.
 */
#ifndef KCMPM_REPORT_H
#define KCMPM_REPORT_H

#include "plan.h"
#include "util.h"

/* What a run was beyond its cells (each tree's kernel version and path are in the matrix). */
struct run_info {
	char shard[32];		/* "K/N" when the run was one shard of a run, else "" */
	char partial[2560];	/* why the run stopped before its last cell, or "": complete */
	double seconds;
	long max_rss_kib;	/* the harness's own peak resident memory */
	char **whole_plan;	/* a shard's: every cell of the run it is a slice of, as
				 * report_cell_name() names it, NULL-terminated; else NULL.
				 * Free with free_strings. */
};

/* "6.1 v3 x86_64 EXPERT=y,KCMP=n,...": a cell by its tree, variant, arch and combination.
 * Caller frees. */
char *report_cell_name(const struct matrix *m, const struct cell *c);

char *report_table(const struct matrix *m, const struct plan *p);
/* matrix.md (and what a run prints): the table, led by a line saying why the run stopped when
 * it is partial. */
char *report_markdown(const struct matrix *m, const struct plan *p, const struct run_info *ri);
char *report_json(const struct matrix *m, const struct plan *p, const struct run_info *ri);
char *report_tsv(const struct matrix *m, const struct plan *p);
/* report_ktap.c: the matrix as one KTAP plan, a test per cell */
char *report_ktap(const struct matrix *m, const struct plan *p, const struct run_info *ri);
/* report_junit.c: JUnit XML, a testsuite per (tree, variant, arch), a testcase per cell */
char *report_junit(const struct matrix *m, const struct plan *p, const struct run_info *ri);
/* report_kcidb.c: kcidb.json, the run as KCIDB I/O data (schema 5.3); it reads each cell's
 * console under results_dir for the guest's tests */
char *report_kcidb(const struct matrix *m, const struct plan *p, const struct run_info *ri,
		   const char *results_dir);
/* KCIDB_ORIGIN, or kcmp_matrix when unset; NULL when it is not [a-z0-9_]+ */
const char *report_kcidb_origin(void);
/* report_html.c: index.html; changes (may be NULL) is a diff against an earlier run */
char *report_html(const struct matrix *m, const struct plan *p, const struct run_info *ri,
		  const char *changes);

/* "172 PASS 20 XFAIL": the count of each status, in status order. Caller frees. */
char *report_counts(const struct plan *p);
/* A column of the table: one tree, variant and arch. */
struct column {
	int tree, variant, arch;
};

/* The table's columns: every (tree, variant, arch) with at least one cell, in plan order; col
 * needs room for ntree * nvariant * narch entries. Returns how many. */
int report_columns(const struct matrix *m, const struct plan *p, struct column *col);
/* "6.1 x86_64 v3": a column's heading. Caller frees. */
char *report_column_name(const struct matrix *m, const struct column *col);
/* The example for the legend of the table's marks: the mark most cells carry (symbol index,
 * requested and resolved value). Returns 0 when no cell has a mark. */
int report_common_mark(const struct matrix *m, const struct plan *p, int *sym, char *from,
		       char *to);

/* How the table shows a requested value: y, m, n, or · for unset. */
const char *report_value_mark(char value);
/* Does some cell of the plan leave a symbol unset? */
int report_has_unset(const struct matrix *m, const struct plan *p);
/* What the table says about · under its marks' legend. */
extern const char *const report_unset_legend;
/* Does the plan have a cell of tree t? */
int report_tree_used(const struct plan *p, int t);
/* Is the cell in column col (its tree, variant and arch)? */
int report_in_column(const struct cell *c, const struct column *col);
/* The cell of the plan in column col with combination combo, or NULL. */
const struct cell *report_find_cell(const struct plan *p, const struct column *col,
				    unsigned combo);

/* Appends s with &, <, >, " and ' escaped, for XML and HTML text and attributes; control
 * characters other than tab and newline (not allowed in XML 1.0) become U+FFFD. */
void report_xml_text(struct strbuf *sb, const char *s);

/* JSON through jansson (report.c's matrix.json, report_kcidb.c's kcidb.json): a string as a
 * JSON value, any invalid UTF-8 byte replaced by U+FFFD (NULL: null); a document as the
 * harness writes it (two spaces of indent, a newline at the end; caller frees). */
struct json_t;
struct json_t *report_json_text(const char *s);
/* Seconds as a JSON number to a tenth, as the tables show them. */
struct json_t *report_json_tenths(double seconds);
char *report_json_dump(const struct json_t *doc);

#endif
