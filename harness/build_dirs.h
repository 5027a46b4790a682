/* build_dirs: which kernel build directory (O=) each kernel of one (tree, arch) is built in.
 *
 * A few matrix symbols are tested in headers that most of the kernel includes
 * (CHECKPOINT_RESTORE and EPOLL: about 600 of 700-800 objects each), or switch a whole
 * subsystem between built in and module (DRM: its core, some 50 objects), so one build
 * directory that every cell goes through recompiles all that whenever they change, and a run
 * that rebuilds one variant's kernels (a patch edited) pays those switches again. matrix.conf's
 * build-split line names them: each combination of their values gets a build directory of its
 * own, so each directory only ever sees the cheap changes. Without a build-split line there
 * is one.
 *
 * Every directory is built at one path, <cache>/build/<tree>/<arch>: the one in use is there,
 * and the others wait renamed to <arch>.<key> (key: SYM-v.SYM-v..., no ',' or '=', which make
 * functions would split). The path must not change under a built directory: Kbuild builds
 * x86's objtool with its absolute output path in objtool's .cmd files, and every x86 object
 * depends on objtool, so a directory copied or renamed to another path and built there
 * recompiles everything (measured: a copy of a warm x86_64 directory took 339 s, a full build,
 * where 11 s was due). The directory at the path says which key it holds in .kcmpm-dir-key.
 *
 * A key used for the first time is not built from nothing but from the nearest directory
 * there is (fewest split symbols differing, the earlier on the build-split line the heavier):
 * the one at the path keeps its objects for the new key (Kbuild updates them as it would any
 * config change) after a copy of it is left under its own key, unless a waiting one is nearer,
 * which is then copied in. So a cold run, whose order walks the keys one step at a time,
 * compiles what it would in one directory; a later run that adds keys (the m column) starts
 * each from its neighbour, not from whichever was built last; and reruns find each key's
 * directory as its last build left it. (After the build-split line
 * changes, the waiting directories of the old line seed the first new one; they stay, as
 * another matrix sharing the cache may use them, until --force all.) Which directory holds
 * which key only decides what Kbuild recompiles, never what a kernel is: a wrong or missing
 * key file costs time, not correctness.
 *
 * A flavour's kernels (matrix.conf's flavour lines: debug) differ all over, so its keys start
 * with flavour-<name>. and its directories are apart; another flavour's directory is the
 * farthest there is, so it seeds a key only when nothing of the key's own flavour waits.
 */
#ifndef KCMPM_BUILD_DIRS_H
#define KCMPM_BUILD_DIRS_H

#include "build_ctx.h"
#include "matrix.h"

#include <stddef.h>

struct build_dirs {
	char *base;		/* <cache>/build/<tree>/<arch>: where every kernel is built, and the
				 * prefix of the waiting directories' names */
};

void build_dirs_init(struct build_dirs *d, const char *cache_dir, const char *tree_tag,
		     const char *arch);

/* The key of the directory for a kernel whose resolved values are resolved (one char per
 * matrix symbol, 0 for a symbol the tree lacks, written n): "CHECKPOINT_RESTORE-n.EPOLL-y",
 * or "all" without a build-split line; led by "flavour-<name>." in a flavour's run. Caller
 * frees. */
char *build_dirs_key(const struct matrix *m, const char *resolved);

/* Puts the directory for key at the build path, ready to build in: the waiting one renamed
 * there, or, for a key used for the first time, the nearest one (above), or nothing (Kbuild's
 * first build). Returns the build path (caller frees), or NULL with a message in err. */
char *build_dirs_use(struct build_dirs *d, const char *key, char *err, size_t errlen);

/* Removes every build directory of the (tree, arch): --force all. */
void build_dirs_remove_all(const struct build_dirs *d);

void build_dirs_free(struct build_dirs *d);

/* The state of one build directory (or config directory) itself. */

/* Has a kernel build directory been made and built in (its .kcmpm-srctree mark, which names
 * the source tree it belongs to)? */
int build_dir_in_use(const char *build_dir);

/* Makes b->build_dir and b->work_dir. A build directory belongs to one source tree (Kbuild
 * records absolute source paths in it), named in its .kcmpm-srctree; one found holding
 * another tree's objects, or objects of no tree it names, is emptied first. Returns 0, or -1
 * with why in err. */
int build_dirs_prepare(const struct build_ctx *b, char *err, size_t errlen);

/* A kernel build marks its build directory (.kcmpm-building) while make runs, and clears the
 * mark only when make ended by itself. A mark found at the next build means that build was
 * killed (a SIGKILLed harness, a timeout): make could not delete what it was writing, and a
 * truncated object newer than its source would pass for up to date. So every file written
 * since the mark (no older than it) is removed, and Kbuild makes them again; but not those in
 * include/config/, which syncconfig writes whole (and so the in-process sync): they record
 * which objects the config change still leaves to recompile. Returns how many were removed
 * (0 without a mark), or -1 with errno set. */
int build_recover_interrupted(const char *build_dir);

/* build_recover_interrupted for b->build_dir, said out loud on stderr when it removed files.
 * Returns 0, or -1 with errno set. */
int build_dirs_recover(const struct build_ctx *b);
/* The mark (.kcmpm-building) a kernel build writes in build_dir while make runs. Caller
 * frees. */
char *build_dirs_building_mark(const char *build_dir);

/* Makes b->build_dir ready for one kernel's make: prepared (build_dirs_prepare), what an
 * interrupted build left undone (build_dirs_recover), the config at config_path installed as
 * its .config (unless it is there byte for byte), no image of an earlier kernel, and the
 * building mark written with the kernel's tag. Returns 0, or -1 with why in err. */
int build_dirs_enter(const struct build_ctx *b, const char *config_path, const char *tag,
		     char *err, size_t errlen);

#endif
