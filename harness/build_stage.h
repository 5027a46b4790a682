/* build_stage: a group's kernels. The distinct configs of an arch's groups become kernel jobs,
 * ordered so that each build differs from the previous one as little as it can (add_jobs,
 * job_order); build_stage_kernel takes a kernel from the cache (kernels/<tree>/<variant>/
 * <arch>/<tag>/: image, build.log, modules or failed) or builds it in the arch's worktree and
 * build directory and caches it, and hands it back (struct kernel) for the cells that share
 * it. A build that timed out or that the machine spoilt (make killed by a signal not ours) is
 * not cached; the machine's fault is tried once more.
 */
#ifndef KCMPM_BUILD_STAGE_H
#define KCMPM_BUILD_STAGE_H

#include "build.h"
#include "group.h"

/* One kernel to build: a representative cell of a group. */
struct kernel_job {
	struct group *g;
	int rep;		/* index into g->cells */
	unsigned dir_rank;	/* of its build directory (build_dirs.h), as a Gray rank */
	unsigned rank;
};

/* Adds one job per distinct config of the group's cells still to judge to jobs from index k;
 * returns the new count. */
int add_jobs(struct group *g, struct kernel_job *jobs, int k);
/* qsort comparator of kernel jobs: the build order. */
int job_order(const void *a, const void *b);
/* A kernel as the build stage hands it to the cells that share it. */
struct kernel {
	struct build_outcome outcome;
	int cached;		/* taken from the cache, not built by this run */
	char *image;		/* its cache entry's files */
	char *log;
	char *repro_make;	/* the make commands that build it by hand (reproducer.h) */
};

/* The kernel of the cell rep (every cell with its kernel tag shares it), from the cache or
 * built, into k (kernel_free). Returns -1 with why in err when the harness cannot go on (a
 * build failure is an outcome, not an error). */
int build_stage_kernel(struct group *g, const struct cell *rep, struct kernel *k, char *err,
		       size_t errlen);
void kernel_free(struct kernel *k);

#endif
