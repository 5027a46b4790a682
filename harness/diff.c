/* diff: see diff.h. */
#define _GNU_SOURCE
#include "diff.h"
#include "report.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum section { NEW_FAILURE, FIXED, FLAKY, OBSERVED_CHANGED, BUILD_CHANGED, STATUS_CHANGED, ONLY_OLD,
	       ONLY_NEW, NSECTION };

static const char *const titles[NSECTION] = {
	[NEW_FAILURE] = "New failures", [FIXED] = "Fixed",
	[FLAKY] = "Flaky (passed only on a retry of the boot; the run counts them as failures)",
	[OBSERVED_CHANGED] = "Observed state changed",
	[BUILD_CHANGED] = "Build outcome changed", [STATUS_CHANGED] = "Other status changes",
	[ONLY_OLD] = "Only in the old run", [ONLY_NEW] = "Only in the new run",
};

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

static void name_cell(struct strbuf *sb, const struct matrix *m, const struct cell *c)
{
	char *combo = plan_combo_name(m, c->combo);

	sb_printf(sb, "  %s %s %s %s", m->tree[c->tree].name, m->arch[c->arch].name,
		  m->variant[c->variant].name, combo);
	free(combo);
}

/* One line for a cell whose guest saw something else: each observable that changed. */
static void observed_changes(const struct matrix *m, const struct cell *o, const struct cell *n,
			     struct strbuf *sb)
{
	int changed = 0;

	for (int i = 0; i < m->nobs; i++) {
		if (!strcmp(or_none(o->observed[i]), or_none(n->observed[i])))
			continue;
		if (!changed++)
			name_cell(sb, m, n);
		sb_printf(sb, "%s %s=%s -> %s=%s", changed > 1 ? "," : ":", m->obs[i],
			  or_none(o->observed[i]), m->obs[i], or_none(n->observed[i]));
	}
	if (changed)
		sb_printf(sb, "\n");
}

/* Adds the lines this pair of cells (either may be NULL) contributes to each section. */
static void compare(const struct matrix *m, const struct cell *o, const struct cell *n,
		    struct strbuf *out)
{
	const struct cell *c = n ? n : o;
	struct strbuf *sb;

	if (!o || !n) {
		sb = &out[o ? ONLY_OLD : ONLY_NEW];
		name_cell(sb, m, c);
		sb_printf(sb, ": %s\n", cell_status_name(c->status));
		return;
	}
	if (cell_status_ok(o) != cell_status_ok(n) || o->status != n->status) {
		sb = &out[cell_status_ok(o) && !cell_status_ok(n) ? NEW_FAILURE
			  : !cell_status_ok(o) && cell_status_ok(n) ? FIXED : STATUS_CHANGED];
		name_cell(sb, m, c);
		sb_printf(sb, ": %s -> %s", cell_status_name(o->status), cell_status_name(n->status));
		if (!cell_status_ok(n))
			sb_printf(sb, ": %s", n->reason);
		sb_printf(sb, "\n");
	}
	if (n->flaky) {
		name_cell(&out[FLAKY], m, c);
		sb_printf(&out[FLAKY], ": PASS on a retry\n");
	}
	observed_changes(m, o, n, &out[OBSERVED_CHANGED]);
	if (o->built != n->built) {
		name_cell(&out[BUILD_CHANGED], m, c);
		sb_printf(&out[BUILD_CHANGED], ": %s -> %s\n", o->built ? "built" : "no-build",
			  n->built ? "built" : "no-build");
	}
}

static int lines(const struct strbuf *sb)
{
	int n = 0;

	for (size_t i = 0; i < sb->len; i++)
		n += sb->s[i] == '\n';
	return n;
}

/* The tree of every cell of the plan, or -1 when it has cells of several (or none). */
static int only_tree(const struct plan *p)
{
	int t = p->ncell ? p->cell[0].tree : -1;

	for (int i = 1; i < p->ncell && t >= 0; i++)
		if (p->cell[i].tree != t)
			t = -1;
	return t;
}

char *diff_text(const struct matrix *m, const struct plan *old, const struct plan *new_,
		int *new_failures)
{
	struct strbuf out[NSECTION] = { 0 }, sb = { 0 };
	int compared = 0, old_tree = only_tree(old), new_tree = only_tree(new_);
	/* Two runs of one tree each, different ones (a KSRC tree against the release it came
	 * from, 6.1 against 6.12): their cells are compared across the trees. Otherwise a cell
	 * is compared with the same tree's. */
	int across = old_tree >= 0 && new_tree >= 0 && old_tree != new_tree;

	if (across)
		sb_printf(&sb, "Tree %s (old run) compared with tree %s (new run)\n",
			  m->tree[old_tree].name, m->tree[new_tree].name);
	for (int i = 0; i < new_->ncell; i++) {
		const struct cell *n = &new_->cell[i];
		const struct cell *o = report_find_cell(old, &(struct column){
			across ? old_tree : n->tree, n->variant, n->arch }, n->combo);

		compared += o != NULL;
		compare(m, o, n, out);
	}
	for (int i = 0; i < old->ncell; i++) {
		const struct cell *o = &old->cell[i];

		if (!report_find_cell(new_, &(struct column){ across ? new_tree : o->tree,
							      o->variant, o->arch }, o->combo))
			compare(m, o, NULL, out);
	}
	sb_printf(&sb, "%d cells in both runs: %d new failures, %d fixed, %d observed changes, "
		  "%d build changes\n", compared, lines(&out[NEW_FAILURE]), lines(&out[FIXED]),
		  lines(&out[OBSERVED_CHANGED]), lines(&out[BUILD_CHANGED]));
	if (new_failures)
		*new_failures = lines(&out[NEW_FAILURE]);
	for (int s = 0; s < NSECTION; s++) {
		if (out[s].len)
			sb_printf(&sb, "%s (%d):\n%s", titles[s], lines(&out[s]), out[s].s);
		sb_free(&out[s]);
	}
	return sb.s;
}
