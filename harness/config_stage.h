/* config_stage: a group's configs. Its base config (matrix/base/ fragments through allnoconfig)
 * and every cell's resolved config, each from the cache when it was made before, else made
 * with the group's Kconfig kit (resolver.h: the tree's own Kconfig code in one process) and
 * cached; each cell's kernel tag (kernel_tag; "config_tag" in matrix.json: what makes its
 * kernel differ) is set here. The cache entries: base/ and resolved/ (cache.h); the kits in
 * kconfig-kit/.
 *
 * Before the trees' arches run, prefetch_configs makes every group's configs at once in forks,
 * so the run's own config_group then finds them in the cache.
 */
#ifndef KCMPM_CONFIG_STAGE_H
#define KCMPM_CONFIG_STAGE_H

#include "group.h"

/* Fills in a group's cells (those of p with its variant and arch), makes each one's directory
 * under the results, its base and each cell's resolved config. A cell whose config cannot be
 * resolved is judged (CONFIG_FAIL) and done. Returns -1 with why in err when the harness
 * cannot go on. */
int config_group(struct group *g, struct plan *p, char *err, size_t errlen);
/* --config-only: each resolved cell judged at the config layer, and done. */
void judge_configs_only(struct group *g);
/* Makes the configs of every group of the trees in forks, jobs at a time, into the cache. */
void prefetch_configs(const struct run_opts *o, const struct matrix *m, struct tree_run *trees,
		      int ntree, const struct arch_tools *tools, struct progress *pg);
/* --force all: the Kconfig kits of the tree's groups go, so they are made afresh. */
void remove_kits(const struct run_opts *o, const struct matrix *m, const struct tree *t,
		 struct plan *p, const struct variant_tree *vts, char (*exists)[MAX_SYMBOLS],
		 const struct arch_tools *tools);
/* The directory of the $(shell) memos every tree's kits share. Caller frees. */
char *toolchain_memo_dir(const struct run_opts *o);

#endif
