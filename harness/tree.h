/* tree: the kernel source tree a run builds from.
 *
 * By default it is Debian's linux-source tarball, unpacked once into the cache
 * (<cache>/src/<name>) and never changed afterwards; an unpack that was interrupted leaves only
 * a temporary directory, which the next run removes. KSRC names any other tree, used in place.
 */
#ifndef KCMPM_TREE_H
#define KCMPM_TREE_H

#include <stddef.h>

struct tree {
	char *path;	/* top of the source tree */
	char *tag;	/* short name for cache directories: tarball name, or ksrc-<hash> */
	char *version;	/* "6.1.192", from the top Makefile */
	char *identity;	/* what names its content for caches: the tarball's path, size and
			 * mtime; NULL for a KSRC tree, which may change under us */
};

/* What an unpacked tree takes on disk, with room to spare (1.5 GB for 6.1). */
#define TREE_UNPACK_BYTES (2.0 * 1024 * 1024 * 1024)

/* Can the tree be had: unpacked in the cache already, or the tarball readable and room to
 * unpack it? package (NULL: unknown) is named in the message when the tarball is missing.
 * Returns -1 with a message in err. */
int tree_check_tarball(const char *tarball, const char *package, const char *cache_dir,
		       char *err, size_t errlen);
/* Unpacks tarball into cache_dir/src if needed (after tree_check_tarball). The identity of the
 * tarball it was unpacked from is recorded beside it (src/<name>.identity); when the tarball
 * changes (a new Debian point release), the tree and every directory made from it are removed
 * and it is unpacked again. Returns -1 with a message in err. */
int tree_from_tarball(const char *tarball, const char *package, const char *cache_dir,
		      struct tree *t, char *err, size_t errlen);
/* Uses an existing tree after checking it looks like a kernel tree. */
int tree_from_path(const char *path, struct tree *t, char *err, size_t errlen);
/* Removes the unpacks a killed run left in the cache (about 1 GB each), whether or not this
 * run unpacks anything; the caller holds the cache's lock. Returns how many. */
int tree_remove_stale_unpacks(const char *cache_dir);
void tree_free(struct tree *t);

/* "VERSION.PATCHLEVEL.SUBLEVEL[EXTRAVERSION]" from a top-level Makefile's text, or NULL. */
char *tree_version_from_makefile(const char *text);

/* For each name, what the Kconfig files under the tree at path say of it ("config NAME" or
 * "menuconfig NAME" and the type line of that entry): type[i] is 't' (tristate), 'b' (bool),
 * '?' (defined, type not found) or 0 (not defined). Reading every Kconfig file of a tree takes
 * seconds, most of a warm run, so for a tree that never changes in place the answer is kept
 * beside it (<path>.symbols) under identity, a string that names the tree's content: an
 * unpacked tarball's identity, a variant tree's with its series stamp. identity NULL (a KSRC
 * tree, which may change under us): scan every time. */
void tree_find_symbols(const char *path, const char *identity, int n, const char *const *names,
		       char *type);

#endif
