/* results: see results.h. */
#define _GNU_SOURCE
#include "results.h"
#include "diff.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int results_write(const char *dir, const struct matrix *m, const struct plan *p,
		  const struct run_info *ri, const struct plan *previous, char *err, size_t errlen)
{
	static const char *const names[] = { "matrix.md", "matrix.json", "matrix.tsv",
					      "matrix.ktap", "junit.xml", "index.html", "kcidb.json" };
	enum { NFILE = sizeof(names) / sizeof(names[0]) };
	char *changes = previous ? diff_text(m, previous, p, NULL) : NULL;
	char *text[NFILE] = { report_markdown(m, p, ri), report_json(m, p, ri), report_tsv(m, p),
			      report_ktap(m, p, ri), report_junit(m, p, ri),
			      report_html(m, p, ri, changes), report_kcidb(m, p, ri, dir) };
	int rc = write_files_as_one(dir, names, text, NFILE, RESULTS_REPLACING_MARK);

	if (rc)
		snprintf(err, errlen, "cannot write the tables in '%s': %s", dir, strerror(errno));
	for (int i = 0; i < NFILE; i++)
		free(text[i]);
	free(changes);
	return rc;
}

/* Bounds of what a matrix.json may say; beyond them a file is refused, not misread. A cell
 * boots at most a few times, a run lasts days at most, the harness uses megabytes. */
#define MAX_BOOTS 1000
#define MAX_SECONDS (3600.0 * 24 * 365)
#define MAX_RSS_KIB (1024.0 * 1024 * 1024)

/* The string member key of an object (jansson), or NULL when missing, null or not a string,
 * or when obj is not an object. */
static const char *get_string(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* The number member key, or dflt when missing or not a number. */
static double get_number(const json_t *obj, const char *key, double dflt)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* A figure the harness writes as a whole number or seconds, 0 when missing. A file from another
 * machine may say anything: a value outside 0..max is refused rather than cast (a cast of 1e300
 * to int is undefined). */
static int get_figure(const json_t *obj, const char *key, double max, double *out, char *err,
		      size_t errlen)
{
	const json_t *v = json_object_get(obj, key);

	*out = json_is_number(v) ? json_number_value(v) : 0;
	if (*out >= 0 && *out <= max)
		return 0;
	snprintf(err, errlen, "\"%s\" is %g, not a figure from 0 to %g", key, *out, max);
	return -1;
}

/* values of the matrix symbols from {"EXPERT": "y", ...}; null or missing gives 0, and so
 * does "unset" unless it may be one (only a request can: predicted and resolved values are
 * y, m or n) */
static void read_values(const struct matrix *m, const json_t *obj, int unset_ok, char *values)
{
	for (int s = 0; s < m->nsym; s++) {
		const char *v = get_string(obj, m->sym[s]);

		values[s] = v ? matrix_value_from_name(v) : 0;
		if (values[s] == VALUE_UNSET && !unset_ok)
			values[s] = 0;
	}
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* A JSON array of strings as space-separated words; NULL when missing or empty. */
static char *read_words(const json_t *array)
{
	struct strbuf sb = { 0 };
	const json_t *item;
	size_t i;

	json_array_foreach(array, i, item)
		if (json_is_string(item))
			sb_printf(&sb, "%s%s", sb.len ? " " : "", json_string_value(item));
	return sb.s;
}

/* The tree a cell names; files from before trees were a dimension have one tree: the first. A
 * tree this matrix does not declare (a KSRC tree, say) is added, so its cells can be read. */
static int cell_tree(struct matrix *m, const char *name, char *err, size_t errlen)
{
	int t;

	if (!name)
		return 0;
	t = matrix_tree_index(m, name);
	if (t < 0 && matrix_add_tree(m, name, NULL, NULL, NULL, err, errlen) == 0)
		t = m->ntree - 1;
	return t;
}

/* Is s a word the harness itself would have written: a state, a kernel tag, a selftest
 * verdict? A shard's file may come from another machine, and these values go into tables and
 * paths: a newline or a '|' would add rows to matrix.md. */
/* A value the harness writes into a table cell: missing, empty (a cell not run predicts and
 * sees nothing: PENDING's predicted_observed are ""), or a word of these characters. */
static int plain_word(const char *s)
{
	return !s || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789_-.:+") == strlen(s);
}

/* The cell's words are plain (plain_word), else -1 with which one in err: checked before the
 * cell owns anything it read. */
static int plain_values(const struct matrix *m, const json_t *j, const json_t *predicted_obs,
			char *err, size_t errlen)
{
	static const char *const fields[] = { "selftest", "config_tag" };
	const char *bad = NULL, *booted = get_string(j, "booted");

	for (int i = 0; i < m->nobs && !bad; i++)
		if (!plain_word(get_string(json_object_get(j, "observed"), m->obs[i])) ||
		    !plain_word(get_string(predicted_obs, m->obs[i])))
			bad = m->obs[i];
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && !bad; i++)
		if (!plain_word(get_string(j, fields[i])))
			bad = fields[i];
	/* the kernel's banner words: "6.1.192 #2 kcmpm-...", one line, no table syntax */
	for (const char *b = booted; b && *b && !bad; b++)
		if ((unsigned char)*b < ' ' || *b == '|' || *b == 0x7f)
			bad = "booted";
	if (!bad)
		return 0;
	snprintf(err, errlen, "a cell's %s is not a plain word (letters, digits, '_-.:+'): not "
		 "a matrix.json the harness wrote", bad);
	return -1;
}

static int read_cell(struct matrix *m, const json_t *j, struct cell *c, char *err,
		     size_t errlen)
{
	const char *arch = get_string(j, "arch"), *variant = get_string(j, "variant");
	int tree = cell_tree(m, get_string(j, "tree"), err, errlen);
	const char *status = get_string(j, "status");
	const json_t *obs = json_object_get(j, "observed");
	const json_t *predicted_obs = json_object_get(j, "predicted_observed") ?
		json_object_get(j, "predicted_observed") : json_object_get(j, "predicted_syscalls");
	const json_t *explain = json_object_get(j, "explain");
	int st = cell_status_from_name(status);
	double boots;

	if (tree < 0)
		return -1;
	*c = (struct cell){ .tree = tree, .arch = arch ? matrix_arch_index(m, arch) : -1,
			    .variant = variant ? matrix_variant_index(m, variant) : -1 };
	if (c->arch < 0 || c->variant < 0 || st < 0) {
		snprintf(err, errlen, "a cell has an arch, variant or status this matrix does not "
			 "know ('%s', '%s', '%s')", arch ? arch : "?", variant ? variant : "?",
			 status ? status : "?");
		return -1;
	}
	read_values(m, json_object_get(j, "requested"), 1, c->requested);
	for (int s = 0; s < m->nsym; s++)
		if (!c->requested[s]) {
			snprintf(err, errlen, "a cell's requested %s is not y, m, n or unset",
				 m->sym[s]);
			return -1;
		}
	/* the last refusals: from here on the cell owns what it reads */
	if (plain_values(m, j, predicted_obs, err, errlen) ||
	    get_figure(j, "boots", MAX_BOOTS, &boots, err, errlen) ||
	    get_figure(j, "build_seconds", MAX_SECONDS, &c->build_seconds, err, errlen) ||
	    get_figure(j, "boot_seconds", MAX_SECONDS, &c->boot_seconds, err, errlen))
		return -1;
	for (int s = 0; s < m->nsym; s++)
		snprintf(c->predicted.why[s], sizeof(c->predicted.why[s]), "%s",
			 get_string(explain, m->sym[s]) ? get_string(explain, m->sym[s]) : "");
	read_values(m, json_object_get(j, "predicted"), 0, c->predicted.value);
	read_values(m, json_object_get(j, "resolved"), 0, c->resolved);
	for (int i = 0; i < m->nobs; i++) {
		const char *want = get_string(predicted_obs, m->obs[i]);

		snprintf(c->predicted.observe[i], sizeof(c->predicted.observe[i]), "%s",
			 want ? want : "");
		c->observed[i] = dup_or_null(get_string(obs, m->obs[i]));
	}
	c->booted = dup_or_null(get_string(j, "booted"));
	c->selftest = dup_or_null(get_string(j, "selftest"));
	snprintf(c->kernel_tag, sizeof(c->kernel_tag), "%s",
		 get_string(j, "config_tag") ? get_string(j, "config_tag") : "");
	snprintf(c->reason, sizeof(c->reason), "%s",
		 get_string(j, "reason") ? get_string(j, "reason") : "");
	c->status = (enum cell_status)st;
	/* files written before "built" existed: a kernel that booted was built */
	c->built = json_object_get(j, "built") ? json_is_true(json_object_get(j, "built"))
					       : c->booted != NULL;
	c->modules = read_words(json_object_get(j, "modules"));
	c->flaky = json_is_true(json_object_get(j, "flaky"));
	c->kernel_cached = json_is_true(json_object_get(j, "kernel_cached"));
	c->boot_cached = json_is_true(json_object_get(j, "boot_cached"));
	c->attempts = (int)boots;
	return 0;
}

/* "symbol_values": {"DRM": "nmy", ...}: the values each symbol took in that run (its tree's
 * Kconfig types). A file without them is from before tristates: every symbol bool. The matrix
 * takes the widest values seen, so runs of trees that differ can still be merged and diffed
 * (plan_index numbers the cells' combinations afterwards). */
static int read_symbol_values(const json_t *doc, struct matrix *m, char *err, size_t errlen)
{
	const json_t *values = json_object_get(doc, "symbol_values");

	for (int s = 0; s < m->nsym; s++) {
		const char *v = get_string(values, m->sym[s]);

		if (v && strcmp(v, "nmy") && strcmp(v, "ny") && strcmp(v, "nmyu") && strcmp(v, "nyu")) {
			snprintf(err, errlen, "symbol_values: %s takes '%s', none of 'ny', 'nmy', "
				 "'nyu' and 'nmyu'", m->sym[s], v);
			return -1;
		}
		if (v && strchr(v, VALUE_UNSET))
			matrix_take_unset(m, s, 1);
		if (v && strchr(v, 'm'))
			matrix_set_type(m, s, 't');
	}
	return 0;
}

/* "trees": [{"name": "6.1", "kernel": "6.1.192", "path": ...}, ...]: what each tree was. A
 * file from before trees were a dimension names one kernel and tree path at the top: the first
 * tree's. */
static int read_trees(const json_t *doc, struct matrix *m, char *err, size_t errlen)
{
	const json_t *trees = json_object_get(doc, "trees"), *one;
	size_t i;

	if (!trees) {
		if (get_string(doc, "kernel"))
			matrix_tree_found(m, 0, get_string(doc, "kernel"),
					  get_string(doc, "tree"));
		return 0;
	}
	json_array_foreach(trees, i, one) {
		int t = cell_tree(m, get_string(one, "name"), err, errlen);

		if (t < 0 || !get_string(one, "name")) {
			if (t >= 0)
				snprintf(err, errlen, "a tree in \"trees\" has no name");
			return -1;
		}
		matrix_tree_found(m, t, get_string(one, "kernel"), get_string(one, "path"));
	}
	return 0;
}

/* "whole_plan": [names...]: a shard's record of the whole run. */
static int read_whole_plan(const json_t *list, struct run_info *ri, char *err, size_t errlen)
{
	const json_t *name;
	size_t i;

	if (!list)
		return 0;
	if (!json_is_array(list)) {
		snprintf(err, errlen, "whole_plan is not a list of cell names");
		return -1;
	}
	ri->whole_plan = xcalloc(json_array_size(list) + 1, sizeof(*ri->whole_plan));
	json_array_foreach(list, i, name) {
		if (!json_is_string(name)) {
			snprintf(err, errlen, "whole_plan is not a list of cell names");
			return -1;
		}
		ri->whole_plan[i] = xstrdup(json_string_value(name));
	}
	return 0;
}

/* A run's cells are of one flavour: its kernels are other kernels (matrix.conf's flavour). */
static int same_flavour(const json_t *doc, const struct matrix *m, char *err, size_t errlen)
{
	const char *theirs = get_string(doc, "flavour");

	if (!theirs != !m->flavour_in_use || (theirs && strcmp(theirs, m->flavour_in_use))) {
		snprintf(err, errlen, "its flavour is %s%s%s, this run's %s%s%s: pass --flavour as "
			 "it was run (FLAVOUR=)", theirs ? "'" : "", theirs ? theirs : "none",
			 theirs ? "'" : "", m->flavour_in_use ? "'" : "",
			 m->flavour_in_use ? m->flavour_in_use : "none", m->flavour_in_use ? "'" : "");
		return -1;
	}
	return 0;
}

static int read_document(const json_t *doc, struct matrix *m, struct plan *p,
			 struct run_info *ri, char *err, size_t errlen)
{
	const json_t *symbols = json_object_get(doc, "symbols");
	const json_t *cells = json_object_get(doc, "cells"), *item;
	double seconds, rss_kib;
	size_t i;

	if (get_number(doc, "schema", 0) != 1 || !json_is_array(symbols) || !json_is_array(cells)) {
		snprintf(err, errlen, "not a kcmp-matrix matrix.json (schema 1 with symbols and "
			 "cells)");
		return -1;
	}
	json_array_foreach(symbols, i, item)
		if ((int)i >= m->nsym || !json_is_string(item) ||
		    strcmp(json_string_value(item), m->sym[i])) {
			snprintf(err, errlen, "its symbols differ from matrix/matrix.conf's");
			return -1;
		}
	if (read_symbol_values(doc, m, err, errlen) || same_flavour(doc, m, err, errlen))
		return -1;
	if (read_trees(doc, m, err, errlen))
		return -1;
	snprintf(ri->shard, sizeof(ri->shard), "%s",
		 get_string(doc, "shard") ? get_string(doc, "shard") : "");
	snprintf(ri->partial, sizeof(ri->partial), "%s",
		 get_string(doc, "partial") ? get_string(doc, "partial") : "");
	if (!ri->whole_plan && read_whole_plan(json_object_get(doc, "whole_plan"), ri, err, errlen))
		return -1;
	if (get_figure(doc, "seconds", MAX_SECONDS, &seconds, err, errlen) ||
	    get_figure(doc, "harness_max_rss_kib", MAX_RSS_KIB, &rss_kib, err, errlen))
		return -1;
	ri->seconds += seconds;
	if (rss_kib > ri->max_rss_kib)
		ri->max_rss_kib = (long)rss_kib;
	p->cell = xrealloc(p->cell, ((size_t)p->ncell + json_array_size(cells)) * sizeof(*p->cell));
	json_array_foreach(cells, i, item) {
		char what[900];

		if (read_cell(m, item, &p->cell[p->ncell], what, sizeof(what))) {
			snprintf(err, errlen, "cell %zu of %zu: %s", i + 1, json_array_size(cells),
				 what);
			return -1;
		}
		p->ncell++;
	}
	return 0;
}

int results_parse(const char *name, const char *text, size_t len, struct matrix *m,
		  struct plan *p, struct run_info *ri, char *err, size_t errlen)
{
	char what[1024];
	json_error_t error;
	json_t *doc;
	int rc = -1;

	/* a NUL inside a string is refused, as the harness never writes one */
	doc = json_loadb(text, len, 0, &error);
	if (!doc)
		snprintf(what, sizeof(what), "line %d, column %d: %s", error.line, error.column,
			 error.text);
	else if (!json_is_object(doc))
		snprintf(what, sizeof(what), "not a kcmp-matrix matrix.json (schema 1 with symbols "
			 "and cells)");
	else
		rc = read_document(doc, m, p, ri, what, sizeof(what));
	json_decref(doc);
	if (rc)
		snprintf(err, errlen, "%s: %s", name, what);
	return rc;
}

int results_read(const char *path, struct matrix *m, struct plan *p, struct run_info *ri,
		 char *err, size_t errlen)
{
	size_t len;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	char *mark = xasprintf("%s/%s", slash ? (*slash = 0, dir) : ".", RESULTS_REPLACING_MARK);
	char *text;
	int rc, mixed = path_exists(mark);

	free(mark);
	free(dir);
	if (mixed) {
		snprintf(err, errlen, "'%s' is one of a set of tables that a stopped run left half "
			 "replaced (its directory still has %s): run the matrix into that results "
			 "directory again, which rewrites them all", path, RESULTS_REPLACING_MARK);
		return -1;
	}
	text = read_file(path, &len);
	if (!text) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	rc = results_parse(path, text, len, m, p, ri, err, errlen);
	free(text);
	return rc;
}
