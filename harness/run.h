/* run: the pipeline for one plan, as an orchestrator. For each tree, for each arch: for each
 * variant, its base config and every cell's resolved config (config_stage.h); then the arch's
 * distinct kernels, all variants together, in one order (so each build differs little from the
 * previous one in symbols and in variant), built in the arch's build directories from its
 * worktree (build_stage.h), each cell of a kernel booted as soon as it is built (boot_stage.h),
 * judged here once from its config, its build and its boots (judge.h), and recorded: its
 * figures, its reproduce.sh and its finished mark (record.h). Each finished cell's files are
 * written under results/ at once; the tables are written at the end (results.h, by main).
 *
 * The arches of a tree run at once, each in a thread of its own: one arch's kernel builds and
 * boots one after another, and the parts of a build that use one core (links, kallsyms, the
 * boot) leave the other to the second arch's. Every kernel build's make and every
 * boot runs in a slot of one jobserver (jobserver.h) of --jobs slots, so together they never
 * run more compile jobs than one arch alone did. (Config work runs outside the slots: cached
 * or in process it is short; --resolve-with olddefconfig runs --jobs makes per arch.)
 * --arch-by-arch runs the arches in turn.
 *
 * With an immutable tree, every step's product is kept in the content-addressed cache
 * (cache.h), so a rerun, or a run after an interruption, redoes only what changed. Verdicts are
 * never cached: each run judges the cached console log against the current rules.
 */
#ifndef KCMPM_RUN_H
#define KCMPM_RUN_H

#include "matrix.h"
#include "plan.h"
#include "run_opts.h"
#include "tree.h"

/* Where the kernel of a built cell is kept. Caller frees. */
char *run_kernel_image(const struct run_opts *o, const struct matrix *m, const struct tree *t,
		       const struct cell *c);

struct arch_tools;

/* Runs every cell of the plan, tree by tree (trees is indexed like m->tree; the plan's cells
 * in plan order), with each arch's tools as preflight prepared them (indexed by arch). Returns -1 (message in err) when the harness itself cannot go on; cell failures are
 * results, not errors. */
int run_plan(const struct run_opts *o, const struct matrix *m, const struct tree *trees,
	     const struct arch_tools *tools, struct plan *p, char *err, size_t errlen);

#endif
