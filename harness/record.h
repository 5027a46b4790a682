/* record: what a judged cell leaves behind, in one step after its verdict: what its kernel and
 * its boots were (the figures the tables and reports show), the tail of its build log and its
 * reproduce.sh in its directory, its line in the log, and the mark that it is finished, which
 * a stopped run's partial tables go by (plan.h).
 */
#ifndef KCMPM_RECORD_H
#define KCMPM_RECORD_H

#include "group.h"

struct kernel;
struct boots;

/* Records a cell judged from its kernel k and its boots b (whose reproducer's QEMU line it
 * takes), then cell_done. built_here: this cell's kernel was built for it in this run, so
 * the build's figures are counted for it. */
void record_cell(struct group *g, struct cell *c, const struct kernel *k, struct boots *b,
		 int built_here);
/* A judged cell: its line in the log, and the mark that it is finished (plan.h). */
void cell_done(struct group *g, struct cell *c);
/* What an interrupted run says on its way out: how far it got (spawn's exit note). */
void note_how_far(int done, int total);

#endif
