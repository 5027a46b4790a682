/* cache: content-addressed work a later run can reuse.
 *
 * An entry is a directory <cache>/<kind>/<key>/ whose key is a hash of everything that can
 * change its content. Its files are written atomically, and the file named "complete" last:
 * an entry without it (a run interrupted while writing) is a miss, never a half result.
 * "complete" is the entry's manifest ("format 3", then "NAME SIZE SHA256" per file), checked
 * before every use: an entry whose files no longer match (a truncated image from a dying disk,
 * a half-written config) is thrown away, counted, and made again, never trusted. Keys are the
 * first 64 bits of a SHA-256 (digest.h); entries keyed and checked by the home-made hashes of
 * before are never asked for, and an old manifest never matches: a cold run, never a misread.
 *
 *   kind        key                                               files
 *   base        tree, variant stamp, arch, base fragments          config
 *   resolved    base config, requested values                      config
 *   kernels     tree, variant stamp, toolchain, final config       image, build.log, modules
 *                                                                 (or failed)
 *   boots       kernel tag, guest, QEMU line, timeout, retries    outcome (a line per boot),
 *                                                                 serial.attempt-<k>.log per
 *                                                                 retried boot, serial.log
 *
 * Only immutable trees (Debian's tarball and the variants made from it) are cached; a KSRC
 * tree can change under us, so Kbuild judges it every run. The cache directory's other
 * directories (trees, worktrees, build directories, Kconfig kits, the guest...) are working
 * state, not entries: cache_layout.h lists every one and makes their paths.
 */
#ifndef KCMPM_CACHE_H
#define KCMPM_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Path of a file in an entry (caller frees); the entry's directory is created. */
char *cache_file(const char *cache_dir, const char *kind, const char *key, const char *file);
/* Does the entry exist, complete and matching its manifest? A mismatching entry is removed
 * (with a warning) and is a miss. */
int cache_complete(const char *cache_dir, const char *kind, const char *key);
/* Marks the entry complete (after all its files are written) by writing its manifest. */
int cache_finish(const char *cache_dir, const char *kind, const char *key);
/* How many entries this process found corrupt and threw away. */
int cache_discarded(void);
/* How many entries of an older manifest format (an older harness's) were found and thrown
 * away: misses, but not corrupt ones. */
int cache_obsolete(void);
/* What checking every entry of a cache found (cache_verify_all). */
struct cache_verify {
	int entries;		/* complete entries checked */
	int corrupt;		/* of those, found not to match their manifest and thrown away */
	int obsolete;		/* of those, of an older manifest format: thrown away, not corrupt */
	long long bytes;	/* the files read to check them */
};

/* Checks every complete entry under the cache's entry kinds (base, resolved, kernels/...,
 * boots) against its manifest, as a run does before each use; a corrupt one is thrown away.
 * Returns 0, or -1 when the cache cannot be read. */
int cache_verify_all(const char *cache_dir, struct cache_verify *v);
/* What cache_prune did. */
struct cache_prune {
	int removed, kept;		/* entries, complete or not */
	long long removed_bytes, kept_bytes;
};

/* Removes every entry (complete or left incomplete by a killed run) last used before
 * older_than: an entry's use is stamped when it is made and each time a run reuses it
 * (cache_reusable). Entries under keys no run asks for any more (an older tarball, another
 * compiler, an older guest) so go, and the cache of a nightly stops growing. Working state
 * (trees, build directories, kits) is not touched: cache_layout.h says who keeps it. Hold the
 * cache's lock: a run in progress may be writing an entry. Returns 0, or -1 when the cache
 * cannot be read. */
int cache_prune(const char *cache_dir, time_t older_than, struct cache_prune *pr);
/* Key helpers: hash a list of strings (NULL-terminated) into 16 hex digits. */
void cache_key(char out[17], const char *const *parts);

/* What a run may do with the cache: the policy, in one place. A tree that can change (KSRC)
 * may neither reuse nor store; --force all stores but never reuses; --force boot reuses all but
 * console logs. */
struct cache_use {
	const char *dir;
	int reuse;		/* complete entries may be read */
	int reuse_boots;	/* and boot entries too */
	int store;		/* entries may be written */
};

/* May this entry be reused: allowed, complete and matching its manifest? A yes stamps the
 * entry as used now (cache_prune). */
int cache_reusable(const struct cache_use *u, const char *kind, const char *key);
/* An entry's file as text when the entry may be reused; NULL otherwise. */
char *cache_get_text(const struct cache_use *u, const char *kind, const char *key,
		     const char *file);
/* Starts writing an entry anew, when entries may be stored: what an earlier write left there
 * goes (the directory stays), so the entry will hold only what this write puts in it. */
void cache_begin(const struct cache_use *u, const char *kind, const char *key);
/* Writes one file of an entry and marks the entry complete, when entries may be stored. */
void cache_put_text(const struct cache_use *u, const char *kind, const char *key,
		    const char *file, const char *text);

#endif
