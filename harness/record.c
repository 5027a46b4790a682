/* record: see record.h. */
#define _GNU_SOURCE
#include "record.h"
#include "boot_stage.h"
#include "build_stage.h"
#include "progress.h"
#include "reproducer.h"
#include "spawn.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

/* The last lines of a build log, for the cell's directory. */
static void write_log_tail(const char *log_path, const char *out_path, int lines)
{
	size_t len;
	char *log = read_file(log_path, &len);
	size_t i = len;

	if (!log)
		return;
	while (i > 0 && lines >= 0) {
		i--;
		if (log[i] == '\n')
			lines--;
	}
	if (i > 0)
		i++;
	write_file_atomic(out_path, log + i, len - i);
	free(log);
}

void record_cell(struct group *g, struct cell *c, const struct kernel *k, struct boots *b,
		 int built_here)
{
	const struct build_outcome *bo = &k->outcome;
	char *tail = xasprintf("%s/build.log", c->dir);

	write_log_tail(k->log, tail, 100);
	free(tail);
	c->build_seconds = built_here ? bo->seconds : 0;
	c->kernel_synced = built_here && bo->synced;
	c->kernel_cached = k->cached;
	c->built = bo->ok;
	c->modules = bo->ok ? xstrdup(bo->modules) : NULL;
	free(c->repro_make);
	c->repro_make = xstrdup(k->repro_make);
	c->boot_cached = b->cached;
	c->boot_seconds = b->seconds;
	c->attempts = b->n;
	free(c->repro_qemu);
	c->repro_qemu = b->repro_qemu;
	b->repro_qemu = NULL;
	write_reproducer(g->m, c, g->t->version);
	cell_done(g, c);
}

/* What an interrupted run says on its way out (spawn's signal handler prints it). */
void note_how_far(int done, int total)
{
	char note[512];

	snprintf(note, sizeof(note), "kcmp-matrix: interrupted after %d of %d cells; children "
		 "killed. Run the same command again to finish: finished kernels and boots are "
		 "reused from the cache.\n", done, total);
	spawn_set_exit_note(note);
}

/* A finished cell: one line for the log and the terminal, and the mark a stopped run's
 * partial tables go by (set last: everything of the cell is written before it). */
void cell_done(struct group *g, struct cell *c)
{
	char *combo = plan_combo_name(g->m, c->combo);
	struct progress *pg = g->pg;
	int done = progress_line(pg, 1, "%s %-7s %s %s  build %s%.1fs boot %s%.1fs  %s%s%s",
				 g->m->tree[c->tree].name, g->m->arch[c->arch].name,
				 g->m->variant[c->variant].name, combo,
				 c->kernel_cached ? "cached " : "", c->build_seconds,
				 c->boot_cached ? "cached " : "", c->boot_seconds,
				 cell_status_name(c->status), c->reason[0] ? ": " : "", c->reason);

	note_how_far(done, pg->total);
	free(combo);
	__atomic_store_n(&c->finished, 1, __ATOMIC_RELEASE);
}
