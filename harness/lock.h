/* lock: one kcmp-matrix process at a time per directory. A run locks its cache and its
 * results directory, merge its results directory, and the cache commands (verify-cache,
 * prune-cache) the cache: build directories, cache entries and result files cannot be shared.
 */
#ifndef KCMPM_LOCK_H
#define KCMPM_LOCK_H

/* Takes dir's lock (dir/.lock), waiting for another process that holds it, for hours at most
 * (then: one line, exit 2). The lock is released when the process ends. */
void lock_dir(const char *dir);

/* For command (verify-cache, prune-cache): the lock of a cache that exists. A directory with
 * none of a cache's entry kinds (say --cache /) is no cache: refused (exit 2) before anything,
 * its lock file first of all, is written there. */
void lock_existing_cache(const char *command, const char *cache_dir);

#endif
