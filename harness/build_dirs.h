/* build_dirs: which kernel build directory (O=) each kernel of one (tree, arch) is built in.
 *
 * A few matrix symbols are tested in headers that most of the kernel includes
 * (CHECKPOINT_RESTORE and EPOLL: about 600 of 700-800 objects each), so one build directory
 * that every cell goes through recompiles most of the kernel whenever they change, and a run
 * that rebuilds one variant's kernels (a patch edited) pays those switches again. matrix.conf's
 * build-split line names them: each combination of their values gets a build directory of its
 * own, <cache>/build/<tree>/<arch>.<SYM-v.SYM-v...>, so each directory only ever sees the cheap
 * changes. Without a build-split line there is one, <arch>.all. (No ',' or '=' in these
 * names: Kbuild passes paths through make functions, whose arguments ',' separates.)
 *
 * A directory used for the first time is not built from nothing: it takes over the single
 * directory of the layout before the split (<arch>, by renaming it), or is seeded with a copy
 * of the directory used last, whose objects Kbuild then updates as it would have in place. So
 * a cold run compiles what it did with one directory, and later runs gain.
 */
#ifndef KCMPM_BUILD_DIRS_H
#define KCMPM_BUILD_DIRS_H

#include "matrix.h"

#include <stddef.h>

struct build_dirs {
	char *base;		/* <cache>/build/<tree>/<arch>: the pre-split directory's path and
				 * the prefix of the split ones */
	char *last;		/* the directory used last in this run, or NULL */
};

void build_dirs_init(struct build_dirs *d, const char *cache_dir, const char *tree_tag,
		     const char *arch);

/* The key of the directory for a kernel whose resolved values are resolved (one char per
 * matrix symbol, 0 for a symbol the tree lacks, written n): "CHECKPOINT_RESTORE-n.EPOLL-y",
 * or "all" without a build-split line. Caller frees. */
char *build_dirs_key(const struct matrix *m, const char *resolved);

/* The directory for key, ready to build in: made from the pre-split directory or a copy of
 * the one used last (or, in a new run, of the sibling most recently built) when it does not
 * exist yet. Returns its path (caller frees), or NULL with a message in err. */
char *build_dirs_use(struct build_dirs *d, const char *key, char *err, size_t errlen);

/* Removes every build directory of the (tree, arch): --force all. */
void build_dirs_remove_all(const struct build_dirs *d);

void build_dirs_free(struct build_dirs *d);

#endif
