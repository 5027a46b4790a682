/* report_defaults: where the variants' defaults, not the request, give one combination
 * different values (see report_defaults.c for why the table says so).
 */
#ifndef KCMPM_REPORT_DEFAULTS_H
#define KCMPM_REPORT_DEFAULTS_H

#include "plan.h"

/* Where the variants' defaults (a symbol left unset, or its prompt hidden) gave the same
 * combination different values, one line per symbol, way and values ("KCMP left unset: v1
 * gives y, v3 gives n (8 cells each, where EXPERT=y,...)"), lines joined by separator; ""
 * when nowhere. Caller frees. */
char *report_default_differences(const struct matrix *m, const struct plan *p,
				 const char *separator);

#endif
