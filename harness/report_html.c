/* report_html: results/index.html, one static self-contained page (no script, no outside
 * file): the run's figures and a legend on top, then the grid of combinations (rows) by variant
 * and arch (columns), each cell coloured by verdict, linking its serial log, final .config,
 * build-log tail and reproducer, with the rules' explanation of every symbol folded under it;
 * then the cells that did not pass, and the changes since a previous run when one was given.
 *
 * Hooks for tools and tests: the grid is table#grid, every cell a td.cell with data-status and
 * an id "<variant>/<arch>/<combination>".
 */
#define _GNU_SOURCE
#include "report.h"
#include "report_defaults.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	enum cell_status status;
	const char *colour, *meaning;
} legend[] = {
	{ CELL_PASS, "#b7e4b0", "built, booted, and every layer agrees with the rules" },
	{ CELL_FAIL, "#f4a6a6", "booted, but a layer disagrees (config, observed, identity or a guest test)" },
	{ CELL_BUILD_FAIL, "#f0b27a", "the kernel did not build" },
	{ CELL_BUILD_TIMEOUT, "#c39bd3", "the kernel's build did not finish within the arch's build timeout" },
	{ CELL_BOOT_FAIL, "#e59866", "the kernel crashed or the guest did not finish its KTAP plan" },
	{ CELL_KERNEL_WARN, "#ec7063", "the kernel printed a warning (WARNING:, BUG:, UBSAN:, a stall ...)" },
	{ CELL_TIMEOUT, "#d7bde2", "the guest did not finish within the arch's boot timeout" },
	{ CELL_CONFIG_FAIL, "#f5cba7", "Kconfig could not resolve the configuration" },
	{ CELL_XFAIL, "#d5dbdb", "failed, as the variant's xfail file declares" },
	{ CELL_XPASS, "#f9e79f", "passed, though the variant's xfail file says it fails" },
	{ CELL_ERROR, "#aab7b8", "the machine failed, not the kernel (make, a compiler or QEMU killed by a signal, twice); nothing cached" },
	{ CELL_CONFIG_OK, "#d4efdf", "config-only run: rules and Kconfig agree (nothing built or booted)" },
	{ CELL_PENDING, "#ffffff", "not run" },
};

/* "Tree 6.1: kernel 6.1.192 from <code>path</code>; tree 6.12: ..." */
static void trees(struct strbuf *sb, const struct matrix *m, const struct plan *p)
{
	int n = 0;

	for (int t = 0; t < m->ntree; t++) {
		if (!report_tree_used(p, t))
			continue;
		sb_printf(sb, "%s ", n++ ? "; tree" : "Tree");
		report_xml_text(sb, m->tree[t].name);
		sb_printf(sb, ": kernel ");
		report_xml_text(sb, m->tree[t].version ? m->tree[t].version : "unknown");
		sb_printf(sb, " from <code>");
		report_xml_text(sb, m->tree[t].path ? m->tree[t].path : "unknown");
		sb_printf(sb, "</code>");
	}
}

static void head(struct strbuf *sb, const struct matrix *m, const struct plan *p,
		 const struct run_info *ri)
{
	char *counts = report_counts(p), *defaults, from, to;
	int mark;

	sb_printf(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<title>kcmp-matrix: %d cells: %s</title>\n<style>\n"
		  "body { font-family: sans-serif; margin: 1em; }\n"
		  "table { border-collapse: collapse; font-size: 12px; }\n"
		  "th, td { border: 1px solid #999; padding: 2px 4px; vertical-align: top; }\n"
		  "td.sym { text-align: center; font-family: monospace; }\n"
		  "td.cell { min-width: 11em; }\n"
		  "td.cell a { margin-right: 0.4em; }\n"
		  ".mark { font-family: monospace; color: #6c3483; }\n"
		  "details { font-size: 11px; }\n"
		  "pre { background: #f4f6f6; padding: 0.5em; white-space: pre-wrap; }\n",
		  p->ncell, counts);
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++)
		sb_printf(sb, ".s-%s { background: %s; }\n", cell_status_name(legend[i].status),
			  legend[i].colour);
	sb_printf(sb, "</style>\n</head>\n<body>\n<h1>kcmp-matrix</h1>\n<p id=\"figures\">");
	trees(sb, m, p);
	sb_printf(sb, "%s%s: <b>%d cells: %s</b>; %.0f s wall; harness peak RSS %ld KiB.</p>\n",
		  ri->shard[0] ? ", shard " : "", ri->shard, p->ncell, counts, ri->seconds,
		  ri->max_rss_kib);
	if (ri->partial[0]) {
		sb_printf(sb, "<p id=\"partial\" class=\"s-FAIL\"><b>Partial run</b>, ");
		report_xml_text(sb, ri->partial);
		sb_printf(sb, "</p>\n");
	}
	sb_printf(sb, "<table id=\"legend\">\n");
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++)
		sb_printf(sb, "<tr><td class=\"s-%s\">%s</td><td>%s</td></tr>\n",
			  cell_status_name(legend[i].status), cell_status_name(legend[i].status),
			  legend[i].meaning);
	sb_printf(sb, "</table>\n<p>");
	if (report_common_mark(m, p, &mark, &from, &to))
		sb_printf(sb, "A mark like <span class=\"mark\">%s→%c</span>: the cell requested "
			  "%s=%c and Kconfig resolved it to %c. ", m->sym[mark], to, m->sym[mark],
			  from, to);
	if (report_has_unset(m, p))
		sb_printf(sb, "%s ", report_unset_legend);
	sb_printf(sb, "Each cell's <i>why</i> gives the rules' reasoning for every symbol.</p>\n");
	defaults = report_default_differences(m, p, "; ");
	if (*defaults) {
		sb_printf(sb, "<p id=\"defaults\">Defaults that differ between variants (no request "
			  "decided): ");
		report_xml_text(sb, defaults);
		sb_printf(sb, ".</p>\n");
	}
	free(defaults);
	free(counts);
}

static void link(struct strbuf *sb, const char *dir, const char *file, const char *label)
{
	sb_printf(sb, "<a href=\"");
	report_xml_text(sb, dir);
	sb_printf(sb, "/%s\">%s</a>", file, label);
}

static void grid_cell(struct strbuf *sb, const struct matrix *m, const struct cell *c)
{
	char *dir = plan_cell_path(m, c);
	const char *status = cell_status_name(c->status);

	sb_printf(sb, "<td class=\"cell s-%s\" data-status=\"%s\" id=\"", status, status);
	report_xml_text(sb, dir + strlen("cells/"));
	sb_printf(sb, "\" title=\"");
	report_xml_text(sb, c->reason[0] ? c->reason : status);
	sb_printf(sb, "\"><b>%s</b>", status);
	if (c->observed[0])
		sb_printf(sb, " %s=%s", m->obs[0], c->observed[0]);
	for (int s = 0; s < m->nsym; s++)
		if (c->resolved[s] && c->resolved[s] != c->requested[s])
			sb_printf(sb, " <span class=\"mark\">%s→%c</span>", m->sym[s], c->resolved[s]);
	if (c->flaky)
		sb_printf(sb, " <span class=\"mark\" title=\"passed on a retry of its boot; the "
			  "failed attempts' consoles are serial.attempt*.log\">FLAKY</span>");
	sb_printf(sb, "<br>");
	if (c->kernel_tag[0])
		link(sb, dir, "config", "config");
	if (c->kernel_tag[0])
		link(sb, dir, "build.log", "build");
	if (c->built)
		link(sb, dir, "serial.log", "log");
	link(sb, dir, "reproduce.sh", "repro");
	sb_printf(sb, "<details><summary>why</summary>");
	for (int s = 0; s < m->nsym; s++) {
		sb_printf(sb, "%s=%c: ", m->sym[s], c->predicted.value[s] ? c->predicted.value[s] : '-');
		report_xml_text(sb, c->predicted.why[s]);
		sb_printf(sb, "<br>");
	}
	sb_printf(sb, "</details></td>");
	free(dir);
}

static void grid(struct strbuf *sb, const struct matrix *m, const struct plan *p)
{
	struct column col[m->ntree * m->nvariant * m->narch];
	int ncol = report_columns(m, p, col);

	sb_printf(sb, "<table id=\"grid\">\n<thead><tr>");
	for (int s = 0; s < m->nsym; s++)
		sb_printf(sb, "<th>%s</th>", m->sym[s]);
	for (int k = 0; k < ncol; k++) {
		char *name = report_column_name(m, &col[k]);

		sb_printf(sb, "<th>");
		report_xml_text(sb, name);
		sb_printf(sb, "</th>");
		free(name);
	}
	sb_printf(sb, "</tr></thead>\n<tbody>\n");
	for (int r = 0; r < p->ncombo; r++) {
		char values[MAX_SYMBOLS];

		plan_combo_values(m, p->combo[r], values);
		sb_printf(sb, "<tr>");
		for (int s = 0; s < m->nsym; s++)
			sb_printf(sb, "<td class=\"sym\">%s</td>", report_value_mark(values[s]));
		for (int k = 0; k < ncol; k++) {
			const struct cell *c = report_find_cell(p, &col[k], p->combo[r]);

			if (c)
				grid_cell(sb, m, c);
			else
				sb_printf(sb, "<td></td>");
		}
		sb_printf(sb, "</tr>\n");
	}
	sb_printf(sb, "</tbody>\n</table>\n");
}

static void not_passed(struct strbuf *sb, const struct matrix *m, const struct plan *p)
{
	int n = 0;

	for (int i = 0; i < p->ncell; i++)
		n += p->cell[i].status != CELL_PASS;
	sb_printf(sb, "<h2>Cells that did not pass (%d)</h2>\n<ul id=\"not-passed\">\n", n);
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		char *dir;

		if (c->status == CELL_PASS)
			continue;
		dir = plan_cell_path(m, c);
		sb_printf(sb, "<li><a href=\"#");
		report_xml_text(sb, dir + strlen("cells/"));
		sb_printf(sb, "\">%s %s</a> ", cell_status_name(c->status), dir + strlen("cells/"));
		report_xml_text(sb, c->reason);
		sb_printf(sb, "</li>\n");
		free(dir);
	}
	sb_printf(sb, "</ul>\n");
}

char *report_html(const struct matrix *m, const struct plan *p, const struct run_info *ri,
		  const char *changes)
{
	struct strbuf sb = { 0 };

	head(&sb, m, p, ri);
	if (changes) {
		sb_printf(&sb, "<h2>Changes since the previous run</h2>\n<pre id=\"changes\">");
		report_xml_text(&sb, changes);
		sb_printf(&sb, "</pre>\n");
	}
	grid(&sb, m, p);
	not_passed(&sb, m, p);
	sb_printf(&sb, "</body>\n</html>\n");
	return sb.s;
}
