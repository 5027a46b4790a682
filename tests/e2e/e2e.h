/* e2e: what the end-to-end tests share. The tests run the real harness binary (built with
 * sanitizers) on real kernels booted in QEMU, plus fakes that make a cell go wrong in each way
 * a cell can; they run from the repository top, with kernels cached in the harness's default
 * cache (outside the repository), so a second run is quick.
 *
 *   e2e_cells.c        real cells pass; configs equal Kconfig's own; the build directories
 *   e2e_verdicts.c     each wrong kernel fails at its layer (identity, observed, a crash, a
 *                      warning, a hang, a build error, the machine's fault)
 *   e2e_trees.c        variants and trees (KSRC, pre+v3, 6.1 and 6.12, xfail, xpass), and the
 *                      second question
 *   e2e_interfaces.c   shards and merge, the page, KTAP, make cell and shell, diff, KCIDB
 *   e2e_reliability.c  signals, locks, full disks, the preflight, retries, corrupt cache
 *                      entries, pruning the cache, bad input
 *   e2e_support.c      the helpers below, and main
 *
 * The expected values are read by hand from init/Kconfig and drivers/gpu/drm/Kconfig (linux
 * 6.1), independently of matrix/rules/v3.rules.
 */
#ifndef KCMPM_E2E_H
#define KCMPM_E2E_H

#define _GNU_SOURCE

#include "check.h"
#include "spawn.h"
#include "tree.h"
#include "util.h"
#include "variant.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The harness binary under test, the scratch directory of this test run, and the kernel cache
 * every run shares (set in main). */
extern const char *harness;
extern char scratch[];
extern char *cache;

/* The cells the tests build, chosen to share kernels so that a cold cache stays affordable.
 * CHECKPOINT_RESTORE and EPOLL are tested in headers most objects include, so each of their
 * value pairs is a build directory of its own that costs a near-clean build to seed
 * (matrix.conf's build-split). FIVE, on both arches, is all in the (n, y) directory: a first
 * build per arch, then a few objects per kernel. CR_NO_EPOLL is the one cell outside it, on
 * x86_64 only: one more heavy build, for the only real kernels that have kcmp() by
 * CHECKPOINT_RESTORE's select and no epoll; so make test resolves it (config-only) and make
 * debug-check builds and boots it. */
#define OFF "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define VIA_EXPERT "EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define NO_KCMP "EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define VIA_DRM "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y"
#define VIA_DRM_M "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=m,EPOLL=y"
#define FIVE OFF " " VIA_EXPERT " " NO_KCMP " " VIA_DRM " " VIA_DRM_M
#define CR_NO_EPOLL "EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=y,DRM=n,EPOLL=n"
/* KCMP left unset (matrix.conf's unset line): v3 has no default, so the first resolves like
 * NO_KCMP and the second, where DRM=m selects KCMP, like VIA_DRM_M; each shares that cell's
 * kernel and boot */
#define UNSET_KCMP "EXPERT=y,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define UNSET_VIA_DRM_M "EXPERT=n,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=m,EPOLL=y"

struct run {
	int status;
	char *out;	/* stdout and stderr */
	char *tsv;	/* results/matrix.tsv, or NULL */
	char *results;
	double seconds;
};

/* One edit of a wrong kernel: in file, the text from (found once) becomes to. */
struct edit {
	const char *file, *from, *to;
};

/* Runs the harness with extra arguments into a fresh results directory. */
struct run harness_run(const char *name, const char *const *args);

void run_free(struct run *r);

/* The TSV line of a cell of tree tree (NULL: of the run's only tree) without its tree column
 * ("arch\tvariant\tcombo\t..."), copied; NULL if absent. */
char *tree_cell_line(const struct run *r, const char *tree, const char *variant,
			    const char *arch, const char *combo);

char *variant_cell_line(const struct run *r, const char *variant, const char *arch,
			       const char *combo);

char *cell_line(const struct run *r, const char *arch, const char *combo);

/* Checks one cell of a variant: status, observed kcmp/epoll/epoll_tfd, resolved, reason. */
void expect_variant_cell(const struct run *r, const char *variant, const char *arch,
				const char *combo, const char *status_and_observed);

void expect_cell(const struct run *r, const char *arch, const char *combo,
			const char *status_and_observed);

extern const char *const arches[];

/* Runs a tool; its output (stdout and stderr) goes to scratch/<name>.out and is returned. */
char *tool_run(const char *name, const char *const *argv, int *status);

/* results/junit.xml is valid against tests/data/junit.xsd and counts the failures it should. */
void expect_valid_junit(const struct run *r, int failures);

/* Replaces the first 'from' in a file by 'to'; CHECKs that there was one. */
/* Replaces the first from in the file by to; returns whether it was there. */
int edit_file_once(const char *path, const char *from, const char *to);

void edit_file(const char *path, const char *from, const char *to);

/* A scratch copy of a repository folder (matrix/ or kernel-patch/) to break on purpose. */
char *scratch_copy(const char *folder, const char *name);

int count(const char *hay, const char *needle);

/* How many files under dir find's -name pattern part matches. */
int count_files_named(const char *dir, const char *part);

/* The harness's default cache (see main.c), so tests reuse the kernels `make matrix` built;
 * KCMPM_TEST_CACHE overrides it. */
char *default_cache(void);

/* The pristine file with the edits that name it applied; NULL (a failed check) when an edit's
 * text is not found. */
char *edited(const char *pristine, const char *file, const struct edit *edits);

/* A wrong kernel, as a patch series: a scratch copy of the patch folder (NULL: an empty one)
 * whose variant's series ends with one more patch, the edits as a diff against the pristine 6.1
 * tree (which is v3's tree, and the membarrier question's installed one). Its kernels are built
 * like the variant's own, in the same work tree and build directories, so Kbuild recompiles the
 * edited files and links; a tree of its own (KSRC) would cost a clean build of the arch. */
char *mutant_series(const char *folder, const char *name, const char *variant,
			   const struct edit *edits);

/* kcmp() always says ENOSYS: a patch series in scratch/<name>. */
/* A copy of a fake make at a path of the test's own (the kernel cache is keyed by the make
 * program); free it. */
char *own_make(const char *name, const char *fake);
char *broken_series_named(const char *name);

char *broken_series(void);

/* Does the variant tree hold exactly the pristine tree's files? Compares every regular file
 * (hard links to the same inode are equal by construction) and the file count. */
int same_trees(const char *a, const char *b, char *diff, size_t difflen);

char *results_file(const struct run *r, const char *name);

/* A kcmp() that answers right but, as its command line says (kcmpm_mutant=), panics at its
 * first call, WARNs on every KCMP_FILE call, or neither; with no word it tosses a coin once per
 * boot (about half of its boots panic), which the test forces through tests/fakes/qemu-append:
 * each side is seen every run. */
extern const struct edit health_edits[];

#endif
