/* report_defaults: where the variants' defaults, not the request, give one combination
 * different values. The seed series' v1 made KCMP default y and v3 made it n: a config that
 * leaves KCMP unset with its prompt visible (EXPERT=y), as a .config from before the series
 * does, gets kcmp() in one and not in the other. The table and the page say so in a line of
 * their own, beside the behaviour diff that names v1's build failure.
 */
#define _GNU_SOURCE
#include "report_defaults.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line of the report: a symbol, how its default came to apply, the value each variant's
 * default gave it, and the requested values its rows share ('*' where they differ). */
struct difference {
	int sym;
	char how[16];
	char value[64];		/* per variant: its value, or '-' where no default decided */
	char common[MAX_SYMBOLS];	/* the requested value its rows share, or '*' */
	char common_resolved[MAX_SYMBOLS];	/* the resolved one (the first variant's) */
	int rows;
};

/* Orders cell indices (into the plan arg) by tree, arch, combination, then variant: one table
 * row's cells across the variants come together. */
static int by_row(const void *a, const void *b, void *arg)
{
	const struct plan *p = arg;
	const struct cell *x = &p->cell[*(const int *)a], *y = &p->cell[*(const int *)b];

	if (x->tree != y->tree)
		return x->tree - y->tree;
	if (x->arch != y->arch)
		return x->arch - y->arch;
	if (x->combo != y->combo)
		return (x->combo > y->combo) - (x->combo < y->combo);
	return x->variant - y->variant;
}

/* The values the default gave symbol s in the row's cells (one per variant), into value; 1
 * when at least two variants' defaults gave different values, all applying the same way. */
static int row_differs(const struct matrix *m, const struct plan *p, const int *row, int n,
		       int s, char *value, char *how, size_t howlen)
{
	char first = 0;
	int differs = 0;

	memset(value, '-', (size_t)m->nvariant);
	value[m->nvariant] = 0;
	how[0] = 0;
	for (int k = 0; k < n; k++) {
		const struct cell *c = &p->cell[row[k]];
		size_t len;
		const char *h = rules_why_default(c->predicted.why[s], &len);

		if (!h || !c->resolved[s])
			continue;
		if (!how[0])
			snprintf(how, howlen, "%.*s", (int)len, h);
		else if (strncmp(how, h, len) || how[len])
			return 0;
		value[c->variant] = c->resolved[s];
		differs |= first && first != c->resolved[s];
		first = first ? first : c->resolved[s];
	}
	return differs;
}

static void add_row(struct difference **d, int *nd, const struct matrix *m, const struct cell *c,
		    int s, const char *value, const char *how)
{
	struct difference *g = NULL;

	for (int i = 0; i < *nd && !g; i++)
		if ((*d)[i].sym == s && !strcmp((*d)[i].how, how) && !strcmp((*d)[i].value, value))
			g = &(*d)[i];
	if (!g) {
		*d = xrealloc(*d, sizeof(**d) * (size_t)(*nd + 1));
		g = &(*d)[(*nd)++];
		*g = (struct difference){ .sym = s };
		snprintf(g->how, sizeof(g->how), "%s", how);
		snprintf(g->value, sizeof(g->value), "%s", value);
		memcpy(g->common, c->requested, (size_t)m->nsym);
		memcpy(g->common_resolved, c->resolved, (size_t)m->nsym);
	}
	for (int k = 0; k < m->nsym; k++) {
		if (g->common[k] != c->requested[k])
			g->common[k] = '*';
		if (g->common_resolved[k] != c->resolved[k])
			g->common_resolved[k] = '*';
	}
	g->rows++;
}

static void format(struct strbuf *sb, const struct matrix *m, const struct difference *g)
{
	int n = 0, shared = 0;

	sb_printf(sb, "%s %s:", m->sym[g->sym], g->how);
	for (int v = 0; v < m->nvariant; v++)
		if (g->value[v] != '-')
			sb_printf(sb, "%s %s gives %c", n++ ? "," : "", m->variant[v].name,
				  g->value[v]);
	sb_printf(sb, " (%d cells each", g->rows);
	/* what the rows asked for in common, else what they resolved to in common (a mark as
	 * in the table: DRM→n), so rows that asked n or left it unset are still described */
	for (int k = 0; k < m->nsym; k++)
		if (g->common[k] != '*')
			sb_printf(sb, "%s%s=%s", shared++ ? "," : ", where ", m->sym[k],
				  matrix_value_name(g->common[k]));
		else if (k != g->sym && g->common_resolved[k] != '*' && g->common_resolved[k])
			sb_printf(sb, "%s%s→%c", shared++ ? "," : ", where ", m->sym[k],
				  g->common_resolved[k]);
	sb_printf(sb, ")");
}

char *report_default_differences(const struct matrix *m, const struct plan *p,
				 const char *separator)
{
	int *order = xcalloc((size_t)p->ncell + 1, sizeof(*order)), nd = 0;
	struct difference *d = NULL;
	struct strbuf sb = { 0 };

	sb_add(&sb, "", 0);
	if (m->nvariant >= (int)sizeof(d->value)) {	/* a value per variant, and its end */
		free(order);
		return sb.s;
	}
	for (int i = 0; i < p->ncell; i++)
		order[i] = i;
	qsort_r(order, (size_t)p->ncell, sizeof(*order), by_row, (void *)p);
	for (int i = 0, end; i < p->ncell; i = end) {
		const struct cell *c = &p->cell[order[i]];

		for (end = i + 1; end < p->ncell && p->cell[order[end]].combo == c->combo &&
				  p->cell[order[end]].arch == c->arch &&
				  p->cell[order[end]].tree == c->tree; end++)
			;
		for (int s = 0; s < m->nsym; s++) {
			char value[sizeof(d->value)], how[16];

			if (row_differs(m, p, order + i, end - i, s, value, how, sizeof(how)))
				add_row(&d, &nd, m, c, s, value, how);
		}
	}
	for (int i = 0; i < nd; i++) {
		if (i)
			sb_printf(&sb, "%s", separator);
		format(&sb, m, &d[i]);
	}
	free(order);
	free(d);
	return sb.s;
}
