/* options: the command line of kcmp-matrix, read into struct options; --help's text.
 *
 * Every value is checked here, so the rest of the harness sees only what it can use: a bad one
 * is one line naming the option and what it takes, exit 2.
 */
#ifndef KCMPM_OPTIONS_H
#define KCMPM_OPTIONS_H

#include "plan.h"
#include "run_opts.h"

/* What the command line asks: a run of the matrix, or one of the other commands. */
enum command {
	CMD_RUN,		/* no command: run the matrix */
	CMD_MERGE,		/* merge DIR...: shards' results into one */
	CMD_DIFF,		/* diff OLD [NEW] */
	CMD_VERIFY_CACHE,	/* verify-cache */
	CMD_PRUNE_CACHE,	/* prune-cache */
};

struct options {
	enum command command;
	struct run_opts run;
	struct plan_filter filter;
	const char *ksrc;
	const char *flavour;		/* --flavour: matrix.conf's flavour to add, or NULL */
	const char *unset;		/* --unset: which symbols take unset, replacing
					 * matrix.conf's unset line; NULL: that line */
	int shard_k, shard_n;		/* --shard K/N; 0 when not sharded */
	const char *previous;		/* --previous */
	int single, shell;
	const char *busybox;		/* --busybox, for --shell */
	char **args;			/* what follows the options (merge, diff) */
	int unused_days;		/* prune-cache --unused-days; -1 when not given */
};

/* Reads argv into o (defaults first); prints --help's text and exits 0 on -h, dies on a bad
 * option or value. Run in main() before any thread starts. */
void options_parse(int argc, char **argv, struct options *o);
/* $XDG_CACHE_HOME/kcmp-matrix, else ~/.cache/kcmp-matrix (caller frees); NULL when neither
 * variable is set. */
char *options_default_cache(void);

#endif
