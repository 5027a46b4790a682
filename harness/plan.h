/* plan: the cells of a run. A cell is one combination of the matrix symbols, requested of one
 * kernel tree, on one arch, for one variant; it carries everything the later stages find out about it.
 *
 * Combination c is a number in mixed radix, one digit per symbol (the first symbol the most
 * significant), each digit an index into the values the symbol takes (matrix.h: "ny" or "nmy").
 * So combination 0 is all n and the table reads like a truth table.
 */
#ifndef KCMPM_PLAN_H
#define KCMPM_PLAN_H

#include "matrix.h"
#include "rules.h"

#include <stddef.h>

enum cell_status {
	CELL_PENDING,
	CELL_PASS,
	CELL_FAIL,		/* built and booted, but a layer disagrees */
	CELL_BUILD_FAIL,	/* the kernel did not build */
	CELL_BUILD_TIMEOUT,	/* the kernel's build did not finish within the arch's build-timeout */
	CELL_BOOT_FAIL,		/* the kernel crashed or the guest did not complete its KTAP
				 * plan */
	CELL_KERNEL_WARN,	/* the kernel printed a warning (arches.conf's warning lines) */
	CELL_TIMEOUT,		/* the guest did not finish within the arch's boot-timeout */
	CELL_CONFIG_FAIL,	/* Kconfig could not resolve the cell's configuration */
	CELL_XFAIL,		/* did not pass, as the variant's xfail file declares */
	CELL_XPASS,		/* passed, though the variant's xfail file says it fails */
	CELL_CONFIG_OK,		/* a config-only run (nothing built or booted): predicted ==
				 * resolved */
	CELL_ERROR,		/* the machine or the harness failed, not the kernel: a make
				 * killed by a signal not ours, or whose end was lost, twice */
	CELL_NSTATUS		/* how many statuses there are */
};

struct cell {
	int tree, arch, variant;
	unsigned combo;
	char requested[MAX_SYMBOLS];	/* 'y'/'m'/'n', or VALUE_UNSET (rules.h) */
	struct prediction predicted;	/* from the variant's rules */
	char resolved[MAX_SYMBOLS];	/* from the final .config: 'y'/'n'/'m', 0 = no symbol */
	char kernel_tag[17];		/* content hash of the final .config */
	int built;			/* its kernel built */
	int config_mismatch;		/* predicted != resolved: FAIL, never XFAIL */
	int flaky;			/* passed only on a retry of its boot; the failed
					 * attempts' consoles are serial.attempt-<N>.log */
	int attempts;			/* boots of its kernel judged (0: none) */
	char *modules;			/* the modules its build made, "a.ko b.ko"; NULL: none or
					 * unknown */
	int kernel_cached, boot_cached;	/* reused from the cache, not redone in this run */
	int kernel_synced;		/* its build's syncconfig was done in process */
	char *observed[MAX_OBSERVABLES]; /* the guest's state of each of the matrix's observables
					  * (m->obs), NULL where it never said */
	char *booted;			/* the kernel the guest reported */
	char *selftest;			/* the kernel selftest's verdict as the guest reported it
					 * (pass, fail, skip, not-run); NULL: no selftest, or no
					 * word from the guest */
	enum cell_status status;
	char reason[1024];
	char *dir;			/* this cell's directory under results/ */
	char *repro_make;		/* the make commands that build its kernel by hand in
					 * PLAN_REPRO_DIR (the build stage's record) */
	char *repro_qemu;		/* the QEMU line that boots that kernel as the harness
					 * did (the boot stage's record) */
	double build_seconds, boot_seconds;
	int finished;			/* judged and recorded (run.c's cell_done); a run a signal
					 * stops writes these cells alone (atomic: the signal's
					 * thread reads it while the arches' threads run) */
};

/* Which cells to run: NULL lists mean all. only is a pattern: space-separated alternatives,
 * each "SYM=y|m|n|unset[,SYM=...]", e.g. "EXPERT=y,KCMP=y DRM=m" (NULL or empty: all). */
struct plan_filter {
	char **trees;
	char **arches;
	char **variants;
	const char *only;
};

struct plan {
	int ncell;
	struct cell *cell;
	int ncombo;		/* combinations that passed the filter */
	unsigned *combo;
};

/* Checks a filter's names and patterns, and that it selects some cell, before the trees are
 * unpacked (the symbols' types are taken from the rules, which the trees must agree with);
 * arch_on[a] and tree_on[t] say whether it selects arch a and tree t. Returns -1 with a
 * message in err. */
int plan_check_filter(const struct matrix *m, const struct plan_filter *f, int *arch_on,
		      int *tree_on, char *err, size_t errlen);
/* Makes the cells and their predictions. Returns -1 with a message in err (unknown arch,
 * variant or symbol, bad pattern, a rules cycle). */
int plan_make(const struct matrix *m, const struct plan_filter *f, struct plan *p, char *err,
	      size_t errlen);
void plan_free(struct plan *p);

/* Did the cell end as the run wants (PASS, XFAIL, or CONFIG_OK in a config-only run), on its
 * first boot? A flaky pass is not ok: the exit status and JUnit count it as a failure, so a
 * night cannot settle on green through retries. */
int cell_ok(const struct cell *c);
/* The status alone (PASS, XFAIL or CONFIG_OK), flaky or not: what make diff compares. */
int cell_status_ok(const struct cell *c);

/* Does the cell's prediction meet every need of the question's selftest (matrix.conf's
 * selftest line), so that its guest runs it? 0 when the question has none. */
int plan_selftest_runs(const struct matrix *m, const struct cell *c);

/* requested values of combination c */
void plan_combo_values(const struct matrix *m, unsigned combo, char *values);
/* The combination of these values; -1 when a value is not one its symbol takes. */
int plan_combo_of(const struct matrix *m, const char *values, unsigned *combo);
/* "EXPERT=y,KCMP=unset,..." for a combination; caller frees. */
char *plan_combo_name(const struct matrix *m, unsigned combo);

const char *cell_status_name(enum cell_status s);
/* The status called name, or -1. */
int cell_status_from_name(const char *name);

/* A cell's directory relative to results/: cells/<tree>/<variant>/<arch>/<combination>. Caller
 * frees. */
char *plan_cell_path(const struct matrix *m, const struct cell *c);
/* The console of boot k (1-based) of a cell's n boots, as a file name in its directory (and
 * in its boots cache entry): serial.log for the last, serial.attempt-<k>.log for an earlier
 * one (n 0: always that). Caller frees. */
char *plan_console_name(int k, int n);
/* The same for the guest's own channel (arches.conf's guest-channel): guest.log, or
 * guest.attempt-<k>.log. Caller frees. */
char *plan_guest_log_name(int k, int n);
/* Where the cell's reproduce.sh builds its kernel by hand, as its recorded commands name it:
 * a word no command quotes, which the script (reproducer.c) replaces by a directory it makes
 * with mktemp each time it runs, so no name another user could have made first is ever built
 * in or copied to. */
#define PLAN_REPRO_DIR "/kcmpm-by-hand-dir"
/* The name reproduce.sh gives its mktemp directory: kcmpm-repro-<tree>-<variant>-<arch>-<kernel
 * tag>.XXXXXX, so a person can tell whose it is. Caller frees. */
char *plan_repro_template(const struct matrix *m, const struct cell *c);

/* Keeps only shard k of n (1 <= k <= n): a contiguous slice of the cells in plan order, so a
 * shard keeps whole (tree, variant, arch) groups and their incremental builds together where it can.
 * Every cell is in exactly one shard. */
void plan_shard(struct plan *p, int k, int n);

/* Numbers each cell's combination from its requested values (with the matrix's values now),
 * puts cells in plan order (tree, variant, arch, combination) and rebuilds the list of combinations
 * from them; for plans read back from results. Returns -1 with a message when two cells are the
 * same cell or a cell requests a value its symbol does not take. */
int plan_index(const struct matrix *m, struct plan *p, char *err, size_t errlen);

#endif
