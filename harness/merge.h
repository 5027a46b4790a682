/* merge: one run from the results of its shards (`kcmp-matrix merge DIR...`, make merge).
 * Each shard K/N of one N is given at most once; the cells of a shard that is missing (its
 * runner died), and those a shard stopped before (its matrix.json partial), are listed as not
 * run (PENDING, "not run: shard 2/4 did not report", "... stopped before it"), never passing,
 * and the run is marked partial. The result equals what an unsharded run writes.
 */
#ifndef KCMPM_MERGE_H
#define KCMPM_MERGE_H

#include "plan.h"
#include "report.h"

/* Reads each shard's matrix.json (dirs, NULL-terminated), copies its cells' files into
 * results_dir, and gives the merged cells in *all (plan_index'd) and the run's figures in
 * *ri. Dies with one line (exit 2) on a shard that is none, of another run, or given twice. */
void merge_shards(char *const *dirs, const char *results_dir, struct matrix *m,
		  struct plan *all, struct run_info *ri);

#endif
