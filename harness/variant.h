/* variant: a variant's source tree, made from the pristine tree and the patch series in
 * kernel-patch/<variant>/series (quilt style: one patch path per line, relative to that folder,
 * '#' comments; applied with patch -p1 in order).
 *
 * A variant without a series (or with an empty one) builds the pristine tree itself. Otherwise
 * its tree lives in <cache>/trees/<tree tag>/<variant>: a hard-link copy of the pristine tree
 * (cp -al) with the series applied. GNU patch writes each patched file anew, so the pristine
 * tree is never changed. The tree is remade only when the series or a patch changes (a stamp
 * holds their hash), at the same path so its build directories stay warm; files touched by the
 * old or the new series get a fresh mtime so Kbuild recompiles them.
 *
 * A patch that does not apply is an error naming the patch and the file, and leaves the
 * pristine tree and the previous variant tree as they were.
 */
#ifndef KCMPM_VARIANT_H
#define KCMPM_VARIANT_H

#include "tree.h"

#include <stddef.h>

struct variant_tree {
	char *path;		/* the tree to build */
	char stamp[17];		/* hash of the series and its patches; "" without patches */
	int own_kconfig;	/* the series patches scripts/, a *.sh, an arch's tools/ or the
				 * top Makefile: what Kconfig's $(shell) runs, or the environment
				 * Kbuild gives conf, may differ from the pristine tree's, so its
				 * configs need a Kconfig kit (resolver.h) of its own */
};

/* Makes or reuses the tree for variant name. patch_dir is kernel-patch/<name> (or its
 * <VERSION.PATCHLEVEL>/), root the patches folder its series may name files in. */
int variant_prepare(const char *patch_dir, const char *root, const char *name,
		    const struct tree *pristine, const char *cache_dir, struct variant_tree *vt,
		    char *err, size_t errlen);
void variant_tree_free(struct variant_tree *vt);

/* Where a variant's series for a tree of this kernel version is: patch_dir/<VERSION.PATCHLEVEL>/
 * (kernel-patch/pre/6.12/ for 6.12.118) when it has a series, the series rebased for that
 * tree; else patch_dir itself. Caller frees. */
char *variant_series_dir(const char *patch_dir, const char *version);

/* The patch files a series names, as paths (patch_dir/entry); NULL-terminated; NULL with a
 * message in err if the series cannot be read, or names a file outside root (the question's
 * patches folder: v3's series may name ../pre/0001-..., never /etc/passwd or ../../x). A
 * missing series gives an empty list. */
char **variant_series(const char *patch_dir, const char *root, char *err, size_t errlen);

/* The files a patch text modifies ("+++ b/path" lines), NULL-terminated. */
char **variant_patched_files(const char *patch_text);
/* The first file name of a patch's "--- "/"+++ " lines (and a context diff's "*** " ones) that
 * -p1 would put outside the tree it applies to (absolute, or with a ".." part), or NULL when
 * there is none. Caller frees. */
char *variant_name_outside_tree(const char *patch_text);
/* Why a patch text is not a unified diff (a context diff, or no "+++ " header at all), or NULL
 * when it is one: the series takes only unified diffs, whose names are checked and whose
 * files are listed. Caller frees. */
char *variant_not_unified(const char *patch_text);

#endif
