/* build_stage: a group's kernels. The distinct configs of an arch's groups become kernel jobs,
 * ordered so that each build differs from the previous one as little as it can (add_jobs,
 * job_order); build_kernel_cached takes a kernel from the cache (kernels/<tree>/<variant>/
 * <arch>/<tag>/: image, build.log, modules or failed) or builds it in the arch's worktree and
 * build directory and caches it. A build that timed out or that the machine spoilt (make
 * killed by a signal not ours) is not cached; the machine's fault is tried once more.
 */
#ifndef KCMPM_BUILD_STAGE_H
#define KCMPM_BUILD_STAGE_H

#include "build.h"
#include "stage.h"

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
/* The kernel of the cell rep (every cell with its kernel tag shares it): *cached says whether
 * it came from the cache; bo says how the build went. Returns -1 with why in err when the
 * harness cannot go on (a build failure is an outcome, not an error). */
int build_kernel_cached(struct group *g, const struct cell *rep, struct build_outcome *bo,
			int *cached, char *err, size_t errlen);
/* Records in the cell the make commands that build its kernel by hand (reproducer.h). */
void build_record_repro(const struct group *g, struct cell *c);
/* The last lines of a build log, for the cell's directory. */
void write_log_tail(const char *log_path, const char *out_path, int lines);

#endif
