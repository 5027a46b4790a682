/* progress: what a run tells the person (or CI log) watching, on stderr.
 *
 * On a terminal: finished cells scroll by as lines, and one status line stays at the bottom,
 * redrawn in place: cell k of N, what runs now, elapsed time and an estimate of the time left.
 * Elsewhere (a CI log, a file): plain lines with a [HH:MM:SS] timestamp, including one when
 * each build or boot starts, and no escape codes.
 *
 * The estimate is the mean wall time per finished cell times the cells left; cached cells make
 * it pessimistic early in a warm run and that is acceptable for a hint.
 */
#ifndef KCMPM_PROGRESS_H
#define KCMPM_PROGRESS_H

#include <pthread.h>
#include <stdio.h>

/* Both arches' threads (run.c) report through one progress: each call holds its lock. */
struct progress {
	pthread_mutex_t lock;
	FILE *out;
	int live;		/* redraw a status line (a terminal) */
	int total, done;
	double start;
	char doing[256];	/* what runs now, for the status line */
};

/* live < 0: decide from out (a terminal whose TERM is not "dumb"). */
void progress_init(struct progress *pg, FILE *out, int total, int live);
/* Something starts (a build, a boot): a timestamped line in a log, the status line live. */
void progress_doing(struct progress *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A line to keep (a finished cell, a note). When cell is 1 it counts a finished cell and
 * starts with "[k/N] ", k that cell's number. Returns how many cells are done. */
int progress_line(struct progress *pg, int cell, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Redraws the status line with the current elapsed time (live only; called while waiting). */
void progress_tick(void *pg);
/* Clears the status line (and frees the lock). */
void progress_end(struct progress *pg);

#endif
