/* diff: what changed between two runs of the matrix, cell by cell (matched by tree, arch,
 * variant and combination; two runs of one tree each, different ones, are matched across the
 * trees), leading with what a developer acts on:
 *
 *   new failures         ended PASS or XFAIL before, do not now
 *   fixed                the other way round
 *   observed changed     the guest saw another state of an observable (kcmp=works -> enosys)
 *   build changed        a kernel that built no longer does, or the other way round
 *   other status changes (say FAIL -> TIMEOUT), and cells only one run has
 */
#ifndef KCMPM_DIFF_H
#define KCMPM_DIFF_H

#include "plan.h"

/* The changes from old to new as text; *new_failures (may be NULL) gets how many cells newly
 * fail. Caller frees. */
char *diff_text(const struct matrix *m, const struct plan *old, const struct plan *new_,
		int *new_failures);

#endif
