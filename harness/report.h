/* report: what a run writes. Pure formatting into strings; main writes them to disk.
 *
 *   table (stdout and results/matrix.md): one row per combination, one column per variant and
 *     arch; a cell reads "<STATUS> kcmp=<observed>", plus "KCMP→y" style marks where Kconfig
 *     resolved a symbol differently from the request; then one line per cell that did not pass.
 *   results/matrix.json: schema 1, described in README.md.
 *   results/matrix.tsv: one line per cell, for awk and tests: arch, variant, combination,
 *     status, observed kcmp, epoll, epoll_tfd, resolved values, reason, kernel tag.
 */
#ifndef KCMPM_REPORT_H
#define KCMPM_REPORT_H

#include "plan.h"

struct run_info {
	const char *kernel_version;
	const char *tree_path;
	double seconds;
	long max_rss_kib;	/* the harness's own peak resident memory */
};

char *report_table(const struct matrix *m, const struct plan *p);
char *report_json(const struct matrix *m, const struct plan *p, const struct run_info *ri);
char *report_tsv(const struct matrix *m, const struct plan *p);

/* JSON string literal for s (NULL gives null); caller frees. */
char *report_json_string(const char *s);

#endif
