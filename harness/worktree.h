/* worktree: the one source tree an arch's kernels are built from, whatever their variant.
 *
 * Variants differ in a handful of files (the ones their patch series touch), but Kbuild
 * records the source tree's path in every object's command line, so a build directory can
 * follow only one tree path. The worktree is that path: <cache>/worktree/<tree tag>/<arch>, a
 * hard-link copy of the pristine tree whose variant files are switched, by content, to the
 * variant being built. A switch rewrites only the files whose content differs (through a new
 * file and a rename, never through a hard link), so their mtimes move and Kbuild recompiles
 * what depends on them, and nothing else. One build directory per arch then serves every
 * variant, and the expensive configuration changes are paid once per arch, not once per
 * variant.
 *
 * <worktree>/.kcmpm-variant names the variant in place; it is removed before a switch starts
 * and written after it ends, so an interrupted switch is redone in full. Every file any series
 * ever touched is remembered in <worktree>/.kcmpm-files and switched too.
 */
#ifndef KCMPM_WORKTREE_H
#define KCMPM_WORKTREE_H

#include "tree.h"

#include <stddef.h>

struct worktree {
	char *path;
	char **files;		/* files switched between variants, relative, NULL-terminated */
	char *current;		/* the variant in place ("name stamp"), or NULL */
};

/* Makes or reuses the worktree for the pristine tree t; files are those the variants' series
 * touch (added to the remembered ones). A mutable tree (KSRC) gets a fresh copy every run. */
int worktree_prepare(struct worktree *w, const char *cache_dir, const struct tree *t,
		     const char *arch, char **files, char *err, size_t errlen);

/* Puts the variant whose tree is at src in place; id ("name stamp") names it. */
int worktree_switch(struct worktree *w, const char *src, const char *id, char *err,
		    size_t errlen);

void worktree_free(struct worktree *w);

#endif
