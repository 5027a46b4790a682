/* report_ktap: the whole matrix as one KTAP (Documentation/dev-tools/ktap.rst) test plan, so
 * tools that read kunit and kselftest output can read a matrix run too. One test per cell:
 *
 *   ok 3 x86_64 v3 EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=n # kcmp=works
 *   not ok 7 arm64 v1 ... # XFAIL known: ...      (an expected failure)
 *   not ok 9 x86_64 v3 ... # TIMEOUT ...          (TIMEOUT for a boot or a build, and ERROR
 *                                                  for other build, boot and config failures)
 */
#define _GNU_SOURCE
#include "report.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The KTAP directive for a status, or NULL for a plain ok / not ok. */
static const char *directive(enum cell_status s)
{
	switch (s) {
	case CELL_XFAIL: return "XFAIL";
	case CELL_CONFIG_OK: return "SKIP";
	case CELL_TIMEOUT:
	case CELL_BUILD_TIMEOUT: return "TIMEOUT";
	case CELL_BUILD_FAIL:
	case CELL_CONFIG_FAIL:
	case CELL_BOOT_FAIL:
	case CELL_ERROR: return "ERROR";
	default: return NULL;
	}
}

/* Diagnostic text must stay on one line and not open another directive. */
static void one_line(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++)
		sb_add(sb, *s == '\n' || *s == '\r' || *s == '#' ? " " : s, 1);
}

char *report_ktap(const struct matrix *m, const struct plan *p, const struct run_info *ri)
{
	struct strbuf sb = { 0 };
	char *counts = report_counts(p);

	sb_printf(&sb, "KTAP version 1\n# kcmp-matrix:");
	for (int t = 0; t < m->ntree; t++)
		if (report_tree_used(p, t))
			sb_printf(&sb, " tree %s kernel %s,", m->tree[t].name,
				  m->tree[t].version ? m->tree[t].version : "unknown");
	sb_printf(&sb, " %d cells: %s\n1..%d\n", p->ncell, counts, p->ncell);
	if (ri->partial[0])
		sb_printf(&sb, "# partial run, %s\n", ri->partial);
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		const char *d = directive(c->status);
		char *combo = plan_combo_name(m, c->combo);

		sb_printf(&sb, "%s %d %s %s %s %s # ", c->status == CELL_PASS ||
						       c->status == CELL_CONFIG_OK ? "ok" : "not ok",
			  i + 1, m->tree[c->tree].name, m->arch[c->arch].name,
			  m->variant[c->variant].name, combo);
		if (d)
			sb_printf(&sb, "%s ", d);
		if (c->status == CELL_PASS)
			sb_printf(&sb, "%s=%s%s", m->obs[0], c->observed[0] ? c->observed[0] : "?",
				  c->flaky ? " flaky: passed on a retry of its boot" : "");
		else
			sb_printf(&sb, "%s: ", cell_status_name(c->status));
		if (c->status != CELL_PASS)
			one_line(&sb, c->reason);
		sb_add(&sb, "\n", 1);
		free(combo);
	}
	free(counts);
	return sb.s;
}
