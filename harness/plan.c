/* plan: see plan.h. */
#define _GNU_SOURCE
#include "plan.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plan_combo_values(const struct matrix *m, unsigned combo, char *values)
{
	for (int i = m->nsym - 1; i >= 0; i--) {
		unsigned radix = (unsigned)strlen(m->values[i]);

		values[i] = m->values[i][combo % radix];
		combo /= radix;
	}
}

int plan_combo_of(const struct matrix *m, const char *values, unsigned *combo)
{
	*combo = 0;
	for (int i = 0; i < m->nsym; i++) {
		const char *at = values[i] ? strchr(m->values[i], values[i]) : NULL;

		if (!at)
			return -1;
		*combo = *combo * (unsigned)strlen(m->values[i]) + (unsigned)(at - m->values[i]);
	}
	return 0;
}

char *plan_combo_name(const struct matrix *m, unsigned combo)
{
	struct strbuf sb = { 0 };
	char v[MAX_SYMBOLS];

	plan_combo_values(m, combo, v);
	for (int i = 0; i < m->nsym; i++)
		sb_printf(&sb, "%s%s=%s", i ? "," : "", m->sym[i], matrix_value_name(v[i]));
	return sb.s;
}

/* Marks the combinations an ONLY pattern selects: space-separated alternatives, each a
 * comma-separated list of SYMBOL=y|m|n|unset that must all hold. An empty pattern selects all. */
static int parse_only(const struct matrix *m, const char *only, int *selected, char *err,
		      size_t errlen)
{
	unsigned ncombo = matrix_ncombo(m);
	char *copy = xstrdup(only ? only : ""), *save = NULL, values[MAX_SYMBOLS];
	int nalt = 0, rc = 0;

	for (unsigned c = 0; c < ncombo; c++)
		selected[c] = 0;
	for (char *alt = strtok_r(copy, " \t", &save); alt && !rc;
	     alt = strtok_r(NULL, " \t", &save)) {
		struct pattern t;

		nalt++;
		rc = matrix_parse_pattern(m, alt, "ONLY", &t, err, errlen);
		for (unsigned c = 0; c < ncombo && !rc; c++) {
			plan_combo_values(m, c, values);
			if (matrix_pattern_matches(&t, m->nsym, values, -1))
				selected[c] = 1;
		}
	}
	for (unsigned c = 0; c < ncombo && nalt == 0; c++)
		selected[c] = 1;
	free(copy);
	return rc;
}

/* Turns a list of names into a 0/1 selection over count items; NULL selects all. */
static int select_names(char **names, int count, int (*index)(const struct matrix *, const char *),
			const struct matrix *m, const char *what, int *selected, char *err,
			size_t errlen)
{
	for (int i = 0; i < count; i++)
		selected[i] = names == NULL;
	for (int i = 0; names && names[i]; i++) {
		int k = index(m, names[i]);

		if (k < 0) {
			snprintf(err, errlen, "unknown %s '%s' (matrix/matrix.conf lists the known ones)",
				 what, names[i]);
			return -1;
		}
		selected[k] = 1;
	}
	return 0;
}

/* The arches a run takes (arch_on[a]): those named; every one for "all"; with no names, those
 * of matrix.conf's arches line (not its extra-arches). Returns 0, or -1 with why in err. */
static int select_arches(const struct matrix *m, char **names, int *arch_on, char *err,
			 size_t errlen)
{
	int all = names && names[0] && !strcmp(names[0], "all") && !names[1];

	if (names && !all)
		return select_names(names, m->narch, matrix_arch_index, m, "arch", arch_on, err,
				    errlen);
	for (int a = 0; a < m->narch; a++)
		arch_on[a] = all || !m->arch[a].extra;
	return 0;
}

/* The symbols' types as the rules declare them: a symbol some variant's rules call tristate
 * takes n, m and y. The trees must agree with the rules (main.c checks it once they are
 * unpacked), so the plan made with these types is the one the run will make. */
static void types_from_rules(struct matrix *m)
{
	for (int s = 0; s < m->nsym; s++) {
		int tristate = 0, declared = 0;

		for (int v = 0; v < m->nvariant; v++) {
			const struct rule_symbol *rs = &m->variant[v].rules.sym[s];

			declared |= rs->defined && !rs->absent;
			tristate |= !rs->absent && rs->tristate;
		}
		/* no rules declare it: the tree alone says, so allow every value */
		matrix_set_type(m, s, tristate || !declared ? 't' : 'b');
	}
}

/* Says "the filters select no cell" before the preflight and the trees' unpack, not after. */
static int check_selects_a_cell(const struct matrix *m, const struct plan_filter *f, char *err,
				size_t errlen)
{
	struct matrix *typed = xmalloc(sizeof(*typed));
	struct plan p;
	int rc;

	*typed = *m;	/* a shallow copy: only its values change */
	types_from_rules(typed);
	rc = plan_make(typed, f, &p, err, errlen);
	if (rc == 0)
		plan_free(&p);
	free(typed);
	return rc;
}

int plan_check_filter(const struct matrix *m, const struct plan_filter *f, int *arch_on,
		      int *tree_on, char *err, size_t errlen)
{
	/* the names and ONLY's patterns are checked by the plan check_selects_a_cell makes */
	if (select_names(f->trees, m->ntree, matrix_tree_index, m, "tree", tree_on, err, errlen) ||
	    select_arches(m, f->arches, arch_on, err, errlen))
		return -1;
	return check_selects_a_cell(m, f, err, errlen);
}

/* Adds the cell (tree t, variant v, arch a, combination combo) with its prediction. */
static int add_cell(const struct matrix *m, struct plan *p, int t, int v, int a, unsigned combo,
		    char *err, size_t errlen)
{
	struct cell *c = &p->cell[p->ncell++];

	c->tree = t;
	c->variant = v;
	c->arch = a;
	c->combo = combo;
	plan_combo_values(m, combo, c->requested);
	return rules_predict(&m->variant[v].rules, c->requested, m->arch[a].kconfig, &c->predicted,
			     err, errlen);
}

int plan_make(const struct matrix *m, const struct plan_filter *f, struct plan *p, char *err,
	      size_t errlen)
{
	int tree_on[m->ntree], arch_on[m->narch], variant_on[m->nvariant];
	unsigned ncombo = matrix_ncombo(m);
	int *combo_on = xcalloc(ncombo, sizeof(*combo_on));

	*p = (struct plan){ 0 };
	if (select_names(f->trees, m->ntree, matrix_tree_index, m, "tree", tree_on, err, errlen) ||
	    select_arches(m, f->arches, arch_on, err, errlen) ||
	    select_names(f->variants, m->nvariant, matrix_variant_index, m, "variant", variant_on,
			 err, errlen) ||
	    parse_only(m, f->only, combo_on, err, errlen)) {
		free(combo_on);
		return -1;
	}
	p->combo = xcalloc(ncombo, sizeof(*p->combo));
	for (unsigned c = 0; c < ncombo; c++)
		if (combo_on[c])
			p->combo[p->ncombo++] = c;
	free(combo_on);
	p->cell = xcalloc((size_t)(m->ntree * m->narch * m->nvariant * p->ncombo) + 1,
			  sizeof(*p->cell));
	for (int t = 0; t < m->ntree; t++)
		for (int v = 0; v < m->nvariant && tree_on[t]; v++)
			for (int a = 0; a < m->narch; a++)
				for (int k = 0; k < p->ncombo && variant_on[v] && arch_on[a]; k++)
					if (add_cell(m, p, t, v, a, p->combo[k], err, errlen)) {
						plan_free(p);
						return -1;
					}
	if (p->ncell == 0) {
		snprintf(err, errlen, "the filters select no cell; check TREES, ARCH, VARIANTS and "
			 "ONLY");
		plan_free(p);
		return -1;
	}
	return 0;
}

void plan_free(struct plan *p)
{
	for (int i = 0; i < p->ncell; i++) {
		struct cell *c = &p->cell[i];

		for (int k = 0; k < MAX_OBSERVABLES; k++)
			free(c->observed[k]);
		free(c->booted);
		free(c->selftest);
		free(c->modules);
		free(c->dir);
		free(c->repro_make);
		free(c->repro_qemu);
	}
	free(p->cell);
	free(p->combo);
	*p = (struct plan){ 0 };
}

int plan_selftest_runs(const struct matrix *m, const struct cell *c)
{
	if (!m->selftest_src)
		return 0;
	for (int i = 0; m->selftest_needs[i]; i++) {
		const char *need = m->selftest_needs[i], *eq = strchr(need, '=');
		int met = 0;

		for (int o = 0; o < m->nobs && !met; o++)
			met = strlen(m->obs[o]) == (size_t)(eq - need) &&
			      !strncmp(m->obs[o], need, (size_t)(eq - need)) &&
			      !strcmp(c->predicted.observe[o], eq + 1);
		if (!met)
			return 0;
	}
	return 1;
}

int cell_status_ok(const struct cell *c)
{
	return c->status == CELL_PASS || c->status == CELL_XFAIL || c->status == CELL_CONFIG_OK;
}

int cell_ok(const struct cell *c)
{
	return cell_status_ok(c) && !c->flaky;
}

static const char *const status_names[] = {
	[CELL_PENDING] = "PENDING",	   [CELL_PASS] = "PASS",
	[CELL_FAIL] = "FAIL",		   [CELL_BUILD_FAIL] = "BUILD_FAIL",
	[CELL_BUILD_TIMEOUT] = "BUILD_TIMEOUT",
	[CELL_BOOT_FAIL] = "BOOT_FAIL",	   [CELL_KERNEL_WARN] = "KERNEL_WARN",
	[CELL_TIMEOUT] = "TIMEOUT",
	[CELL_CONFIG_FAIL] = "CONFIG_FAIL", [CELL_XFAIL] = "XFAIL",
	[CELL_XPASS] = "XPASS",		   [CELL_CONFIG_OK] = "CONFIG_OK",
	[CELL_ERROR] = "ERROR",
};

const char *cell_status_name(enum cell_status s)
{
	return status_names[s];
}

int cell_status_from_name(const char *name)
{
	for (int s = CELL_PENDING; s < CELL_NSTATUS; s++)
		if (name && !strcmp(status_names[s], name))
			return s;
	return -1;
}

char *plan_cell_path(const struct matrix *m, const struct cell *c)
{
	char *combo = plan_combo_name(m, c->combo);
	char *path = xasprintf("cells/%s/%s/%s/%s", m->tree[c->tree].name,
			       m->variant[c->variant].name, m->arch[c->arch].name, combo);

	free(combo);
	return path;
}

char *plan_console_name(int k, int n)
{
	return k == n ? xstrdup("serial.log") : xasprintf("serial.attempt-%d.log", k);
}

char *plan_guest_log_name(int k, int n)
{
	return k == n ? xstrdup("guest.log") : xasprintf("guest.attempt-%d.log", k);
}

void plan_shard(struct plan *p, int k, int n)
{
	int from = (int)((long)(k - 1) * p->ncell / n), to = (int)((long)k * p->ncell / n);

	for (int i = 0; i < p->ncell; i++)
		if (i < from || i >= to) {
			free(p->cell[i].dir);
			p->cell[i].dir = NULL;
		}
	memmove(p->cell, p->cell + from, (size_t)(to - from) * sizeof(*p->cell));
	p->ncell = to - from;
}

static int cell_order(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->tree != y->tree)
		return x->tree - y->tree;
	if (x->variant != y->variant)
		return x->variant - y->variant;
	if (x->arch != y->arch)
		return x->arch - y->arch;
	return (x->combo > y->combo) - (x->combo < y->combo);
}

int plan_index(const struct matrix *m, struct plan *p, char *err, size_t errlen)
{
	unsigned ncombo = matrix_ncombo(m);
	char *seen;

	for (int i = 0; i < p->ncell; i++)
		if (plan_combo_of(m, p->cell[i].requested, &p->cell[i].combo)) {
			snprintf(err, errlen, "a cell requests %.*s, a value its symbol does not take "
				 "in this matrix", m->nsym, p->cell[i].requested);
			return -1;
		}
	seen = xcalloc(ncombo, 1);
	qsort(p->cell, (size_t)p->ncell, sizeof(*p->cell), cell_order);
	for (int i = 1; i < p->ncell; i++)
		if (cell_order(&p->cell[i - 1], &p->cell[i]) == 0) {
			char *combo = plan_combo_name(m, p->cell[i].combo);

			snprintf(err, errlen, "cell %s %s %s %s appears twice",
				 m->tree[p->cell[i].tree].name, m->arch[p->cell[i].arch].name,
				 m->variant[p->cell[i].variant].name, combo);
			free(combo);
			free(seen);
			return -1;
		}
	free(p->combo);
	p->combo = xcalloc(ncombo, sizeof(*p->combo));
	p->ncombo = 0;
	for (int i = 0; i < p->ncell; i++)
		seen[p->cell[i].combo] = 1;
	for (unsigned c = 0; c < ncombo; c++)
		if (seen[c])
			p->combo[p->ncombo++] = c;
	free(seen);
	return 0;
}

char *plan_repro_template(const struct matrix *m, const struct cell *c)
{
	return xasprintf("kcmpm-repro-%s-%s-%s-%s.XXXXXX", m->tree[c->tree].name,
			 m->variant[c->variant].name, m->arch[c->arch].name, c->kernel_tag);
}
