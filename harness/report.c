/* report: see report.h. */
#define _GNU_SOURCE
#include "report.h"
#include "report_defaults.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int report_in_column(const struct cell *c, const struct column *col)
{
	return c->tree == col->tree && c->variant == col->variant && c->arch == col->arch;
}

const struct cell *report_find_cell(const struct plan *p, const struct column *col,
				    unsigned combo)
{
	for (int i = 0; i < p->ncell; i++)
		if (report_in_column(&p->cell[i], col) && p->cell[i].combo == combo)
			return &p->cell[i];
	return NULL;
}

static void cell_text(struct strbuf *sb, const struct matrix *m, const struct cell *c)
{
	sb_printf(sb, "%s", cell_status_name(c->status));
	if (c->observed[0])
		sb_printf(sb, " %s=%s", m->obs[0], c->observed[0]);
	for (int s = 0; s < m->nsym; s++)
		if (c->resolved[s] && c->resolved[s] != c->requested[s])
			sb_printf(sb, " %s→%c", m->sym[s], c->resolved[s]);
	if (c->flaky)
		sb_printf(sb, " FLAKY");
}

int report_common_mark(const struct matrix *m, const struct plan *p, int *sym, char *from,
		       char *to)
{
	static const char values[] = "nmy";
	int count[MAX_SYMBOLS][3][3] = { { { 0 } } }, best = 0;

	for (int i = 0; i < p->ncell; i++)
		for (int s = 0; s < m->nsym; s++) {
			const struct cell *c = &p->cell[i];
			const char *a = strchr(values, c->requested[s]);
			const char *b = c->resolved[s] ? strchr(values, c->resolved[s]) : NULL;

			if (a && b && a != b)
				count[s][a - values][b - values]++;
		}
	for (int s = 0; s < m->nsym; s++)
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				if (count[s][a][b] > best) {
					best = count[s][a][b];
					*sym = s;
					*from = values[a];
					*to = values[b];
				}
	return best > 0;
}

const char *const report_unset_legend =
	"A · in a symbol's column: the cell left it unset (no line in its config fragment, as a "
	".config from before the symbol existed), so Kconfig's default or a select decided; its "
	"mark says what they gave.";

const char *report_value_mark(char value)
{
	return value == VALUE_UNSET ? "·" : matrix_value_name(value);
}

int report_has_unset(const struct matrix *m, const struct plan *p)
{
	for (int i = 0; i < p->ncell; i++)
		for (int s = 0; s < m->nsym; s++)
			if (p->cell[i].requested[s] == VALUE_UNSET)
				return 1;
	return 0;
}

int report_tree_used(const struct plan *p, int t)
{
	for (int i = 0; i < p->ncell; i++)
		if (p->cell[i].tree == t)
			return 1;
	return 0;
}

int report_columns(const struct matrix *m, const struct plan *p, struct column *col)
{
	int n = 0;

	for (int t = 0; t < m->ntree; t++)
		for (int v = 0; v < m->nvariant; v++)
			for (int a = 0; a < m->narch; a++)
				for (int i = 0; i < p->ncell; i++)
					if (report_in_column(&p->cell[i], &(struct column){ t, v, a })) {
						col[n++] = (struct column){ t, v, a };
						break;
					}
	return n;
}

char *report_column_name(const struct matrix *m, const struct column *col)
{
	return xasprintf("%s %s %s", m->tree[col->tree].name, m->arch[col->arch].name,
			 m->variant[col->variant].name);
}

/* What a cell shows a user: its headline observable's state when it booted, else that it did
 * not build or boot. */
static const char *outcome(const struct cell *c)
{
	if (!c->built)
		return "no-build";
	return c->observed[0] ? c->observed[0] : "no-result";
}

/* Which of the plan's columns are one group of a behaviour diff: the same arch, and the same
 * tree (between variants) or the same variant (between trees). */
static int same_group(const struct column *a, const struct column *b, int across_trees)
{
	return a->arch == b->arch &&
	       (across_trees ? a->variant == b->variant : a->tree == b->tree);
}

/* Rows where the members of a group disagree: in the headline observable or in whether the
 * kernel built. Between variants that is what a patch changed for users; between trees, what
 * the newer kernel changed. label names a member (its variant or its tree). */
static void behaviour_diff(struct strbuf *sb, const struct matrix *m, const struct plan *p,
			   int across_trees)
{
	struct column col[m->ntree * m->nvariant * m->narch];
	int ncol = report_columns(m, p, col), rows = 0, groups = 0;

	for (int k = 0; k < ncol; k++)
		for (int j = k + 1; j < ncol && !groups; j++)
			groups = same_group(&col[k], &col[j], across_trees);
	if (!groups)
		return;
	sb_printf(sb, "\nBehaviour diff between %s (%s state, or no-build):\n",
		  across_trees ? "trees" : "variants", m->obs[0]);
	for (int k = 0; k < ncol; k++) {
		int leader = 1;

		for (int j = 0; j < k && leader; j++)	/* each group once, at its first column */
			leader = !same_group(&col[j], &col[k], across_trees);
		for (int r = 0; r < p->ncombo && leader; r++) {
			const struct cell *first = report_find_cell(p, &col[k], p->combo[r]);
			int differs = 0;
			char *name;

			for (int j = k + 1; j < ncol && first; j++) {
				const struct cell *c = report_find_cell(p, &col[j], p->combo[r]);

				differs |= same_group(&col[k], &col[j], across_trees) && c &&
					   strcmp(outcome(first), outcome(c));
			}
			if (!differs)
				continue;
			rows++;
			name = plan_combo_name(m, p->combo[r]);
			if (across_trees)
				sb_printf(sb, "  %s %s %s:", m->arch[col[k].arch].name,
					  m->variant[col[k].variant].name, name);
			else
				sb_printf(sb, "  %s %s %s:", m->tree[col[k].tree].name,
					  m->arch[col[k].arch].name, name);
			for (int j = k; j < ncol; j++) {
				const struct cell *c = report_find_cell(p, &col[j], p->combo[r]);

				if (c && same_group(&col[k], &col[j], across_trees))
					sb_printf(sb, " %s=%s", across_trees ?
						  m->tree[col[j].tree].name :
						  m->variant[col[j].variant].name, outcome(c));
			}
			sb_printf(sb, "\n");
			free(name);
		}
	}
	if (!rows)
		sb_printf(sb, "  none: every %s behaves the same in every cell run\n",
			  across_trees ? "tree" : "variant");
}

char *report_table(const struct matrix *m, const struct plan *p)
{
	struct column col[m->ntree * m->nvariant * m->narch];
	int ncol = report_columns(m, p, col);
	struct strbuf sb = { 0 };
	char *counts, *defaults, from, to;
	int mark;

	sb_printf(&sb, "|");
	for (int s = 0; s < m->nsym; s++)
		sb_printf(&sb, " %s |", m->sym[s]);
	for (int k = 0; k < ncol; k++) {
		char *name = report_column_name(m, &col[k]);

		sb_printf(&sb, " %s |", name);
		free(name);
	}
	sb_printf(&sb, "\n|");
	for (int k = 0; k < m->nsym + ncol; k++)
		sb_printf(&sb, "---|");
	sb_printf(&sb, "\n");
	for (int r = 0; r < p->ncombo; r++) {
		char v[MAX_SYMBOLS];

		plan_combo_values(m, p->combo[r], v);
		sb_printf(&sb, "|");
		for (int s = 0; s < m->nsym; s++)
			sb_printf(&sb, " %s |", report_value_mark(v[s]));
		for (int k = 0; k < ncol; k++) {
			const struct cell *c = report_find_cell(p, &col[k], p->combo[r]);

			sb_printf(&sb, " ");
			if (c)
				cell_text(&sb, m, c);
			sb_printf(&sb, " |");
		}
		sb_printf(&sb, "\n");
	}
	if (report_common_mark(m, p, &mark, &from, &to))
		sb_printf(&sb, "\nA mark like %s→%c: the cell requested %s=%c and Kconfig resolved it "
			  "to %c.\n", m->sym[mark], to, m->sym[mark], from, to);
	if (report_has_unset(m, p))
		sb_printf(&sb, "%s\n", report_unset_legend);
	behaviour_diff(&sb, m, p, 0);
	behaviour_diff(&sb, m, p, 1);
	defaults = report_default_differences(m, p, "\n  ");
	if (*defaults)
		sb_printf(&sb, "\nDefaults that differ between variants (no request decided):\n  %s\n",
			  defaults);
	free(defaults);
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		char *name;

		if (c->status == CELL_PASS)
			continue;
		name = plan_combo_name(m, c->combo);
		sb_printf(&sb, "%s %s %s %s %s: %s\n", cell_status_name(c->status),
			  m->tree[c->tree].name, m->arch[c->arch].name, m->variant[c->variant].name,
			  name, c->reason);
		free(name);
	}
	counts = report_counts(p);
	sb_printf(&sb, "\n%d cells: %s\n", p->ncell, counts);
	free(counts);
	return sb.s;
}

char *report_counts(const struct plan *p)
{
	int count[CELL_NSTATUS] = { 0 };
	struct strbuf sb = { 0 };

	sb_add(&sb, "", 0);
	for (int i = 0; i < p->ncell; i++)
		count[p->cell[i].status]++;
	for (int s = CELL_PASS; s < CELL_NSTATUS; s++)
		if (count[s])
			sb_printf(&sb, "%s%d %s", sb.len ? " " : "", count[s], cell_status_name(s));
	if (count[CELL_PENDING])
		sb_printf(&sb, "%s%d not run", sb.len ? " " : "", count[CELL_PENDING]);
	return sb.s;
}

void report_xml_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sb_add(sb, "&amp;", 5); break;
		case '<': sb_add(sb, "&lt;", 4); break;
		case '>': sb_add(sb, "&gt;", 4); break;
		case '"': sb_add(sb, "&quot;", 6); break;
		case '\'': sb_add(sb, "&#39;", 5); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				sb_add(sb, "\xef\xbf\xbd", 3);
			else
				sb_add(sb, s, 1);
		}
	}
}

/* A NULL-terminated list of strings as an array. */
static json_t *json_words_list(char *const *list)
{
	json_t *a = json_array();

	for (int i = 0; list[i]; i++)
		json_array_append_new(a, json_string(list[i]));
	return a;
}

/* One value as jansson writes it on one line (", " and ": " between items). Caller frees. */
static char *dump_value(const json_t *v)
{
	char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(12));

	if (!text)
		die("cannot write JSON (out of memory?)");
	return text;
}

char *report_json_dump(const json_t *doc)
{
	struct strbuf sb = { 0 };
	const char *key;
	json_t *value;
	size_t left = json_object_size(doc);

	/* every value written by jansson; the layout a person reads and diffs: a top-level key a
	 * line, and a list of objects (the cells, KCIDB's builds and tests) an object a line */
	sb_add(&sb, "{\n", 2);
	json_object_foreach((json_t *)doc, key, value) {
		json_t *name = json_string(key);
		char *k = dump_value(name);

		json_decref(name);
		sb_printf(&sb, "  %s: ", k);
		free(k);
		if (json_is_array(value) && json_is_object(json_array_get(value, 0))) {
			size_t i;
			json_t *item;

			sb_add(&sb, "[\n", 2);
			json_array_foreach(value, i, item) {
				char *text = dump_value(item);

				sb_printf(&sb, "    %s%s\n", text,
					  i + 1 < json_array_size(value) ? "," : "");
				free(text);
			}
			sb_add(&sb, "  ]", 3);
		} else {
			char *text = dump_value(value);

			sb_add(&sb, text, strlen(text));
			free(text);
		}
		left--;
		sb_add(&sb, left ? ",\n" : "\n", left ? 2 : 1);
	}
	sb_add(&sb, "}\n", 3);
	return sb.s;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when it is not one. */
static int utf8_sequence(const unsigned char *s)
{
	int n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 :
		s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;

	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

json_t *report_json_text(const char *s)
{
	struct strbuf sb = { 0 };
	json_t *v;

	if (!s)
		return json_null();
	/* a console may hold any bytes; JSON strings are UTF-8: each invalid byte becomes U+FFFD */
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int n = utf8_sequence(p);

		if (n)
			sb_add(&sb, (const char *)p, (size_t)n);
		else
			sb_add(&sb, "\xef\xbf\xbd", 3);
		p += n ? n : 1;
	}
	sb_add(&sb, "", 0);
	v = json_string(sb.s);
	sb_free(&sb);
	return v ? v : json_string("");
}

json_t *report_json_tenths(double seconds)
{
	return json_real((double)(long long)(seconds * 10 + 0.5) / 10);
}

/* {"EXPERT": "y", "KCMP": "unset", ...} with 0 as null */
static json_t *json_values(const struct matrix *m, const char *values)
{
	json_t *o = json_object();

	for (int s = 0; s < m->nsym; s++)
		json_object_set_new(o, m->sym[s], values[s] ? json_string(matrix_value_name(values[s]))
							    : json_null());
	return o;
}

/* Space-separated words as an array of strings. */
static json_t *json_words(const char *words)
{
	char *copy = xstrdup(words ? words : ""), *save = NULL;
	json_t *a = json_array();

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		json_array_append_new(a, json_string(w));
	free(copy);
	return a;
}

/* An observable's states by name (NULL: null). */
static json_t *json_states(const struct matrix *m, const char *const *state)
{
	json_t *o = json_object();

	for (int i = 0; i < m->nobs; i++)
		json_object_set_new(o, m->obs[i], report_json_text(state[i]));
	return o;
}

static json_t *json_cell(const struct matrix *m, const struct cell *c)
{
	char *combo = plan_combo_name(m, c->combo), *dir = plan_cell_path(m, c);
	const char *predicted[MAX_OBSERVABLES];
	json_t *o = json_object(), *explain = json_object(), *consoles = json_array();
	json_t *channels = json_array();

	for (int i = 0; i < m->nobs; i++)
		predicted[i] = c->predicted.observe[i];
	for (int s = 0; s < m->nsym; s++)
		json_object_set_new(explain, m->sym[s], report_json_text(c->predicted.why[s]));
	/* every boot's console, the retried ones first (the judge read them all) */
	for (int k = 1; k <= c->attempts; k++) {
		char *name = plan_console_name(k, c->attempts);
		char *path = xasprintf("%s/%s", dir, name);

		json_array_append_new(consoles, json_string(path));
		free(path);
		free(name);
		if (m->arch[c->arch].channel != CHANNEL_NONE) {	/* and its guest channel */
			name = plan_guest_log_name(k, c->attempts);
			path = xasprintf("%s/%s", dir, name);
			json_array_append_new(channels, json_string(path));
			free(path);
			free(name);
		}
	}
	json_object_set_new(o, "tree", json_string(m->tree[c->tree].name));
	json_object_set_new(o, "kernel", report_json_text(m->tree[c->tree].version));
	json_object_set_new(o, "arch", json_string(m->arch[c->arch].name));
	json_object_set_new(o, "variant", json_string(m->variant[c->variant].name));
	json_object_set_new(o, "combination", json_string(combo));
	json_object_set_new(o, "requested", json_values(m, c->requested));
	json_object_set_new(o, "predicted", json_values(m, c->predicted.value));
	json_object_set_new(o, "predicted_observed", json_states(m, predicted));
	json_object_set_new(o, "explain", explain);
	json_object_set_new(o, "resolved", json_values(m, c->resolved));
	json_object_set_new(o, "observed", json_states(m, (const char *const *)c->observed));
	json_object_set_new(o, "config_tag", c->kernel_tag[0] ? json_string(c->kernel_tag)
							      : json_null());
	json_object_set_new(o, "booted", report_json_text(c->booted));
	json_object_set_new(o, "selftest", report_json_text(c->selftest));
	json_object_set_new(o, "status", json_string(cell_status_name(c->status)));
	json_object_set_new(o, "reason", report_json_text(c->reason));
	json_object_set_new(o, "dir", json_string(dir));
	json_object_set_new(o, "boots", json_integer(c->attempts));
	json_object_set_new(o, "consoles", consoles);
	json_object_set_new(o, "guest_channels", channels);
	json_object_set_new(o, "built", json_boolean(c->built));
	json_object_set_new(o, "flaky", json_boolean(c->flaky));
	json_object_set_new(o, "modules", json_words(c->modules));
	json_object_set_new(o, "kernel_cached", json_boolean(c->kernel_cached));
	json_object_set_new(o, "boot_cached", json_boolean(c->boot_cached));
	json_object_set_new(o, "build_seconds", report_json_tenths(c->build_seconds));
	json_object_set_new(o, "boot_seconds", report_json_tenths(c->boot_seconds));
	free(combo);
	free(dir);
	return o;
}

char *report_markdown(const struct matrix *m, const struct plan *p, const struct run_info *ri)
{
	char *table = report_table(m, p), *text, *flavour = NULL;

	if (m->flavour_in_use)
		flavour = xasprintf("Flavour %s: every kernel has its base fragments too.\n\n",
				    m->flavour_in_use);
	if (!ri->partial[0] && !flavour)
		return table;
	text = xasprintf("%s%s%s%s%s", ri->partial[0] ? "PARTIAL RUN, " : "", ri->partial,
			 ri->partial[0] ? "\n\n" : "", flavour ? flavour : "", table);
	free(table);
	free(flavour);
	return text;
}

char *report_cell_name(const struct matrix *m, const struct cell *c)
{
	char *combo = plan_combo_name(m, c->combo);
	char *name = xasprintf("%s %s %s %s", m->tree[c->tree].name, m->variant[c->variant].name,
			       m->arch[c->arch].name, combo);

	free(combo);
	return name;
}

char *report_json(const struct matrix *m, const struct plan *p, const struct run_info *ri)
{
	json_t *doc = json_object(), *trees = json_array(), *symbols = json_array();
	json_t *values = json_object(), *cells = json_array();
	char *text;

	for (int t = 0; t < m->ntree; t++) {
		json_t *tree;

		if (!report_tree_used(p, t))
			continue;
		tree = json_object();
		json_object_set_new(tree, "name", json_string(m->tree[t].name));
		json_object_set_new(tree, "kernel", report_json_text(m->tree[t].version));
		json_object_set_new(tree, "path", report_json_text(m->tree[t].path));
		json_array_append_new(trees, tree);
	}
	json_object_set_new(doc, "schema", json_integer(1));
	json_object_set_new(doc, "trees", trees);
	if (m->flavour_in_use)
		json_object_set_new(doc, "flavour", json_string(m->flavour_in_use));
	if (ri->shard[0])
		json_object_set_new(doc, "shard", json_string(ri->shard));
	if (ri->partial[0])
		json_object_set_new(doc, "partial", json_string(ri->partial));
	if (ri->whole_plan)	/* so a merge can name the cells of a shard that never reported */
		json_object_set_new(doc, "whole_plan", json_words_list(ri->whole_plan));
	json_object_set_new(doc, "seconds", report_json_tenths(ri->seconds));
	json_object_set_new(doc, "harness_max_rss_kib", json_integer(ri->max_rss_kib));
	for (int s = 0; s < m->nsym; s++) {
		json_array_append_new(symbols, json_string(m->sym[s]));
		json_object_set_new(values, m->sym[s], json_string(m->values[s]));
	}
	json_object_set_new(doc, "symbols", symbols);
	json_object_set_new(doc, "symbol_values", values);
	for (int i = 0; i < p->ncell; i++)
		json_array_append_new(cells, json_cell(m, &p->cell[i]));
	json_object_set_new(doc, "cells", cells);
	text = report_json_dump(doc);
	json_decref(doc);
	return text;
}

static void tsv_value(struct strbuf *sb, const char *s)
{
	sb_add(sb, "\t", 1);
	if (!s || !*s) {
		sb_add(sb, "-", 1);
		return;
	}
	for (; *s; s++)
		sb_add(sb, (*s == '\t' || *s == '\n') ? " " : s, 1);
}

char *report_tsv(const struct matrix *m, const struct plan *p)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "tree\tarch\tvariant\tcombination\tstatus");
	for (int i = 0; i < m->nobs; i++)
		sb_printf(&sb, "\t%s", m->obs[i]);
	/* the kernel's tag stays last: scripts take it with the line's last tab */
	sb_printf(&sb, "\tresolved\treason\tselftest\tkernel\n");
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		char *combo = plan_combo_name(m, c->combo);
		char resolved[MAX_SYMBOLS + 1];

		for (int s = 0; s < m->nsym; s++)
			resolved[s] = c->resolved[s] ? c->resolved[s] : '-';
		resolved[m->nsym] = 0;
		sb_printf(&sb, "%s", m->tree[c->tree].name);
		tsv_value(&sb, m->arch[c->arch].name);
		tsv_value(&sb, m->variant[c->variant].name);
		tsv_value(&sb, combo);
		tsv_value(&sb, cell_status_name(c->status));
		for (int k = 0; k < m->nobs; k++)
			tsv_value(&sb, c->observed[k]);
		tsv_value(&sb, resolved);
		tsv_value(&sb, c->reason);
		tsv_value(&sb, c->selftest);
		tsv_value(&sb, c->kernel_tag);
		sb_add(&sb, "\n", 1);
		free(combo);
	}
	return sb.s;
}
