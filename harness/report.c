/* report: see report.h. */
#define _GNU_SOURCE
#include "report.h"
#include "util.h"

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
	char *counts, from, to;
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
			sb_printf(&sb, " %c |", v[s]);
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
	behaviour_diff(&sb, m, p, 0);
	behaviour_diff(&sb, m, p, 1);
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

char *report_json_string(const char *s)
{
	struct strbuf sb = { 0 };

	if (!s) {
		sb_add(&sb, "null", 4);
		return sb.s;
	}
	sb_add(&sb, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(&sb, "\\%c", *p);
		else if (*p == '\n')
			sb_add(&sb, "\\n", 2);
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(&sb, "\\u%04x", *p);
		else
			sb_add(&sb, (const char *)p, 1);
	}
	sb_add(&sb, "\"", 1);
	return sb.s;
}

static void json_field(struct strbuf *sb, const char *key, const char *value, int last)
{
	char *v = report_json_string(value);

	sb_printf(sb, "\"%s\": %s%s", key, v, last ? "" : ", ");
	free(v);
}

/* {"EXPERT": "y", ...} with 0 as null */
static void json_values(struct strbuf *sb, const struct matrix *m, const char *values)
{
	sb_printf(sb, "{");
	for (int s = 0; s < m->nsym; s++) {
		char v[2] = { values[s], 0 };

		json_field(sb, m->sym[s], values[s] ? v : NULL, s == m->nsym - 1);
	}
	sb_printf(sb, "}");
}

/* Space-separated words as JSON strings, comma-separated. */
static void json_words(struct strbuf *sb, const char *words)
{
	char *copy = xstrdup(words ? words : ""), *save = NULL;
	int n = 0;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *q = report_json_string(w);

		sb_printf(sb, "%s%s", n++ ? ", " : "", q);
		free(q);
	}
	free(copy);
}

static void json_cell(struct strbuf *sb, const struct matrix *m, const struct cell *c)
{
	char *combo = plan_combo_name(m, c->combo), *dir = plan_cell_path(m, c);

	sb_printf(sb, "    {");
	json_field(sb, "tree", m->tree[c->tree].name, 0);
	json_field(sb, "kernel", m->tree[c->tree].version, 0);
	json_field(sb, "arch", m->arch[c->arch].name, 0);
	json_field(sb, "variant", m->variant[c->variant].name, 0);
	json_field(sb, "combination", combo, 0);
	sb_printf(sb, "\"requested\": ");
	json_values(sb, m, c->requested);
	sb_printf(sb, ", \"predicted\": ");
	json_values(sb, m, c->predicted.value);
	sb_printf(sb, ", \"predicted_observed\": {");
	for (int i = 0; i < m->nobs; i++)
		json_field(sb, m->obs[i], c->predicted.observe[i], i == m->nobs - 1);
	sb_printf(sb, "}, \"explain\": {");
	for (int s = 0; s < m->nsym; s++)
		json_field(sb, m->sym[s], c->predicted.why[s], s == m->nsym - 1);
	sb_printf(sb, "}, \"resolved\": ");
	json_values(sb, m, c->resolved);
	sb_printf(sb, ", \"observed\": {");
	for (int i = 0; i < m->nobs; i++)
		json_field(sb, m->obs[i], c->observed[i], i == m->nobs - 1);
	sb_printf(sb, "}, ");
	json_field(sb, "config_tag", c->config_tag[0] ? c->config_tag : NULL, 0);
	json_field(sb, "booted", c->booted, 0);
	json_field(sb, "status", cell_status_name(c->status), 0);
	json_field(sb, "reason", c->reason, 0);
	json_field(sb, "dir", dir, 0);
	/* every boot's console, the retried ones first (the judge read them all) */
	sb_printf(sb, "\"boots\": %d, \"consoles\": [", c->attempts);
	for (int k = 1; k <= c->attempts; k++) {
		char *name = plan_console_name(k, c->attempts);

		sb_printf(sb, "%s\"%s/%s\"", k > 1 ? ", " : "", dir, name);
		free(name);
	}
	sb_printf(sb, "], \"built\": %s, \"flaky\": %s, \"modules\": [", c->built ? "true" : "false",
		  c->flaky ? "true" : "false");
	json_words(sb, c->modules);
	sb_printf(sb, "], ");
	sb_printf(sb, "\"kernel_cached\": %s, \"boot_cached\": %s, ", c->kernel_cached ? "true" : "false",
		  c->boot_cached ? "true" : "false");
	sb_printf(sb, "\"build_seconds\": %.1f, \"boot_seconds\": %.1f}", c->build_seconds,
		  c->boot_seconds);
	free(combo);
	free(dir);
}

char *report_markdown(const struct matrix *m, const struct plan *p, const struct run_info *ri)
{
	char *table = report_table(m, p), *text;

	if (!ri->partial[0])
		return table;
	text = xasprintf("PARTIAL RUN, %s\n\n%s", ri->partial, table);
	free(table);
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
	struct strbuf sb = { 0 };

	sb_printf(&sb, "{\n  \"schema\": 1,\n  \"trees\": [");
	for (int t = 0, n = 0; t < m->ntree; t++) {
		if (!report_tree_used(p, t))
			continue;
		sb_printf(&sb, "%s{", n++ ? ", " : "");
		json_field(&sb, "name", m->tree[t].name, 0);
		json_field(&sb, "kernel", m->tree[t].version, 0);
		json_field(&sb, "path", m->tree[t].path, 1);
		sb_printf(&sb, "}");
	}
	sb_printf(&sb, "],\n  ");
	if (ri->shard[0])
		json_field(&sb, "shard", ri->shard, 0);
	if (ri->partial[0])
		json_field(&sb, "partial", ri->partial, 0);
	if (ri->whole_plan) {	/* so a merge can name the cells of a shard that never reported */
		sb_printf(&sb, "\"whole_plan\": [");
		for (int i = 0; ri->whole_plan[i]; i++)
			sb_printf(&sb, "%s\"%s\"", i ? ", " : "", ri->whole_plan[i]);
		sb_printf(&sb, "],\n  ");
	}
	sb_printf(&sb, "\"seconds\": %.1f, \"harness_max_rss_kib\": %ld,\n  \"symbols\": [",
		  ri->seconds, ri->max_rss_kib);
	for (int s = 0; s < m->nsym; s++)
		sb_printf(&sb, "%s\"%s\"", s ? ", " : "", m->sym[s]);
	sb_printf(&sb, "],\n  \"symbol_values\": {");
	for (int s = 0; s < m->nsym; s++)
		sb_printf(&sb, "%s\"%s\": \"%s\"", s ? ", " : "", m->sym[s], m->values[s]);
	sb_printf(&sb, "},\n  \"cells\": [\n");
	for (int i = 0; i < p->ncell; i++) {
		json_cell(&sb, m, &p->cell[i]);
		sb_printf(&sb, "%s\n", i + 1 < p->ncell ? "," : "");
	}
	sb_printf(&sb, "  ]\n}\n");
	return sb.s;
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
	sb_printf(&sb, "\tresolved\treason\tkernel\n");
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
		tsv_value(&sb, c->config_tag);
		sb_add(&sb, "\n", 1);
		free(combo);
	}
	return sb.s;
}
