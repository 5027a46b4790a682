/* build_dirs: see build_dirs.h. */
#define _GNU_SOURCE
#include "build_dirs.h"
#include "cache_layout.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void build_dirs_init(struct build_dirs *d, const char *cache_dir, const char *tree_tag,
		     const char *arch)
{
	d->base = cache_build_dir(cache_dir, tree_tag, arch);
}

/* A flavour's keys start with this and its name (matrix.h's struct flavour). */
#define FLAVOUR_PART "flavour-"

char *build_dirs_key(const struct matrix *m, const char *resolved)
{
	struct strbuf sb = { 0 };

	if (m->flavour_in_use)
		sb_printf(&sb, "%s%s", FLAVOUR_PART, m->flavour_in_use);
	if (m->nsplit == 0)
		sb_printf(&sb, "%sall", sb.len ? "." : "");
	for (int k = 0; k < m->nsplit; k++) {
		int s = m->split[k];

		sb_printf(&sb, "%s%s-%c", sb.len ? "." : "", m->sym[s], resolved[s] ? resolved[s] : 'n');
	}
	return sb.s;
}

static char *key_path(const char *dir)
{
	return xasprintf("%s/.kcmpm-dir-key", dir);
}

/* The key the directory at dir holds, or NULL when it says none (the one directory of the
 * layout before the split). */
static char *held_key(const char *dir)
{
	char *path = key_path(dir), *key = read_file(path, NULL);

	free(path);
	if (key)
		key[strcspn(key, "\n")] = 0;
	return key;
}

static int write_key(const char *dir, const char *key, char *err, size_t errlen)
{
	char *path = key_path(dir);
	int rc = mkdir_p(dir) || write_file_atomic(path, key, strlen(key));

	if (rc)
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
	free(path);
	return rc;
}

static char *waiting_dir(const struct build_dirs *d, const char *key)
{
	return xasprintf("%s.%s", d->base, key);
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The part of a key after its first SYM-v, or NULL when it has no other. */
static const char *next_part(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot ? dot + 1 : NULL;
}

/* The length of the flavour part a key starts with ("flavour-debug" of
 * "flavour-debug.CHECKPOINT_RESTORE-n..."), 0 when it names none. */
static size_t flavour_part(const char *key)
{
	return strncmp(key, FLAVOUR_PART, strlen(FLAVOUR_PART)) ? 0 : strcspn(key, ".");
}

/* How much of the kernel Kbuild recompiles going from a directory of key from to one of key
 * to, as far as the keys tell: each split symbol whose value differs weighs more the earlier
 * it is on the build-split line (matrix.conf names the heaviest first); one that from does not
 * name (a directory of an older line) counts as differing. */
static unsigned key_distance(const char *from, const char *to)
{
	unsigned weight = 1, distance = 0;

	/* another flavour's kernels differ all over (its fragments turn on debug code in
	 * headers most objects include): farther than any split symbol */
	if (flavour_part(from) != flavour_part(to) || strncmp(from, to, flavour_part(to)))
		return ~0u - 1;
	from += flavour_part(from) + (from[flavour_part(from)] == '.');
	to += flavour_part(to) + (to[flavour_part(to)] == '.');

	for (const char *t = to; t; t = next_part(t))
		weight <<= 1;
	for (const char *t = to; t; t = next_part(t)) {
		size_t sym = strcspn(t, "-"), len = strcspn(t, ".");
		int same = 0;

		weight >>= 1;
		for (const char *f = from; f && !same; f = next_part(f))
			same = strcspn(f, "-") == sym && strcspn(f, ".") == len && !strncmp(f, t, len);
		if (!same)
			distance += weight;
	}
	return distance;
}

static int later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

/* The waiting directory to start key's from: the nearest by key_distance, and of equals the
 * one built in most recently (its .config changed last); NULL when none waits. Its distance
 * goes to *distance. */
static char *nearest_waiting(const struct build_dirs *d, const char *key, unsigned *distance)
{
	char *pattern = xasprintf("%s.*", d->base), *best = NULL;
	size_t prefix = strlen(d->base) + 1;
	struct timespec best_time = { 0 };
	glob_t g;

	*distance = ~0u;
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *dir = g.gl_pathv[i];
			char *config = xasprintf("%s/.config", dir);
			unsigned far = key_distance(dir + prefix, key);
			struct stat st;

			if (!ends_with(dir, ".seeding") && build_dir_in_use(dir) &&
			    stat(config, &st) == 0 &&
			    (far < *distance || (far == *distance && later(&st.st_mtim, &best_time)))) {
				free(best);
				best = xstrdup(dir);
				best_time = st.st_mtim;
				*distance = far;
			}
			free(config);
		}
		globfree(&g);
	}
	free(pattern);
	return best;
}

/* Renames from to to, replacing whatever is there. */
static int move_dir(const char *from, const char *to, char *err, size_t errlen)
{
	remove_tree(to);
	if (rename(from, to) == 0)
		return 0;
	snprintf(err, errlen, "cannot rename '%s' to '%s': %s", from, to, strerror(errno));
	return -1;
}

/* Copies the directory from to to (its key file too: the caller rewrites it where the copy
 * holds another key) through a temporary name, so an interrupted copy is never taken for a
 * build directory. */
static int copy_dir(const char *from, const char *to, char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.seeding", to);
	const char *argv[] = { "cp", "-a", "--reflink=auto", from, tmp, NULL };
	struct spawn_result res;
	int rc = -1;

	remove_tree(tmp);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .timeout = 1800 }, &res))
		snprintf(err, errlen, "cannot run cp: %s", strerror(errno));
	else if (res.status)
		snprintf(err, errlen, "cannot copy the build directory '%s' to '%s' (cp status %d); "
			 "is the disk full?", from, tmp, res.status);
	else
		rc = move_dir(tmp, to, err, errlen);
	if (rc)
		remove_tree(tmp);
	free(tmp);
	return rc;
}

/* Clears the build path: its directory waits under the key it holds, or goes when it holds
 * none (the layout before the split left it) or was never built in. */
static int clear_build_path(const struct build_dirs *d, const char *held, char *err,
			    size_t errlen)
{
	char *park;
	int rc;

	if (!held || !build_dir_in_use(d->base))
		return remove_tree(d->base) < 0 ? -1 : 0;
	park = waiting_dir(d, held);
	rc = move_dir(d->base, park, err, errlen);
	free(park);
	return rc;
}

/* Key's first use: its directory starts as the nearest one there is (key_distance), the one at
 * the build path if none waits nearer (a copy of it then waits for the key it held; one of
 * the layout before the split, holding no key, is taken as it is), or a copy of the nearest
 * waiting one, or nothing (Kbuild's first build). */
static int start_dir(const struct build_dirs *d, const char *held, const char *key, char *err,
		     size_t errlen)
{
	unsigned seed_distance;
	char *seed = nearest_waiting(d, key, &seed_distance);
	int rc;

	if (build_dir_in_use(d->base) &&
	    (!held || !seed || key_distance(held, key) <= seed_distance)) {
		char *copy = held ? waiting_dir(d, held) : NULL;

		rc = copy ? copy_dir(d->base, copy, err, errlen) : 0;
		free(copy);
	} else {
		rc = clear_build_path(d, held, err, errlen);
		if (!rc && seed)
			rc = copy_dir(seed, d->base, err, errlen);
	}
	free(seed);
	return rc ? rc : write_key(d->base, key, err, errlen);
}

char *build_dirs_use(struct build_dirs *d, const char *key, char *err, size_t errlen)
{
	char *waiting = waiting_dir(d, key);
	char *held = build_dir_in_use(d->base) ? held_key(d->base) : NULL;
	int rc = 0;

	if (held && !strcmp(held, key))
		;	/* in place */
	else if (build_dir_in_use(waiting))
		rc = clear_build_path(d, held, err, errlen) || move_dir(waiting, d->base, err, errlen);
	else
		rc = start_dir(d, held, key, err, errlen);
	free(held);
	free(waiting);
	return rc ? NULL : xstrdup(d->base);
}

void build_dirs_remove_all(const struct build_dirs *d)
{
	char *pattern = xasprintf("%s.*", d->base);
	glob_t g;

	remove_tree(d->base);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			remove_tree(g.gl_pathv[i]);
		globfree(&g);
	}
	free(pattern);
}

void build_dirs_free(struct build_dirs *d)
{
	free(d->base);
	d->base = NULL;
}

static char *srctree_mark(const char *build_dir)
{
	return xasprintf("%s/.kcmpm-srctree", build_dir);
}

int build_dir_in_use(const char *build_dir)
{
	char *mark = srctree_mark(build_dir);
	int yes = path_exists(mark);

	free(mark);
	return yes;
}

/* Did Kbuild ever run in the directory (the Makefile an O= build writes first, or a .config)? */
static int kbuild_was_here(const char *build_dir)
{
	char *makefile = xasprintf("%s/Makefile", build_dir);
	char *config = xasprintf("%s/.config", build_dir);
	int yes = path_exists(makefile) || path_exists(config);

	free(makefile);
	free(config);
	return yes;
}

/* A build directory belongs to one source tree (Kbuild records absolute source paths in it),
 * named in its .kcmpm-srctree; one found holding another tree's objects, or objects of no
 * tree it names, is emptied. (A directory build_dirs made, holding only its key, is not.) */
int build_dirs_prepare(const struct build_ctx *b, char *err, size_t errlen)
{
	char *mark = srctree_mark(b->build_dir), *have = read_file(mark, NULL);
	int fresh = !have || strcmp(have, b->src), rc = 0;

	if (have ? fresh : kbuild_was_here(b->build_dir)) {
		fprintf(stderr, "kcmp-matrix: %s was built from another tree; starting it afresh\n",
			b->build_dir);
		remove_tree(b->build_dir);
	}
	if (mkdir_p(b->build_dir) || mkdir_p(b->work_dir) ||
	    (fresh && write_file_atomic(mark, b->src, strlen(b->src)))) {
		snprintf(err, errlen, "cannot create build directories under '%s': %s",
			 b->work_dir, strerror(errno));
		rc = -1;
	}
	free(mark);
	free(have);
	return rc;
}

char *build_dirs_building_mark(const char *build_dir)
{
	return xasprintf("%s/.kcmpm-building", build_dir);
}

/* nftw has no argument for its callback: the walk's root, the mark's time, the count and the
 * first failure live here, for the one walk build_recover_interrupted makes at a time (the
 * lock: each arch's thread may recover its own build directory). */
static pthread_mutex_t recover_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *recover_root;
static struct timespec recover_since;
static int recover_removed, recover_errno;

static int remove_if_recent(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	/* include/config/ holds what syncconfig writes: auto.conf and auto.conf.cmd, renamed into
	 * place whole, and empty files touched for each symbol that changed. None can be half
	 * written, and together they say which objects the config change leaves to recompile:
	 * removing the touched files would lose that, and removing auto.conf would make the next
	 * sync touch every symbol, a full rebuild. */
	if (type == FTW_D && !strncmp(path, recover_root, strlen(recover_root)) &&
	    !strcmp(path + strlen(recover_root), "/include/config"))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F && type != FTW_SL)
		return FTW_CONTINUE;
	if (st->st_mtim.tv_sec > recover_since.tv_sec ||
	    (st->st_mtim.tv_sec == recover_since.tv_sec &&
	     st->st_mtim.tv_nsec >= recover_since.tv_nsec)) {
		if (unlink(path)) {
			recover_errno = errno;
			return FTW_STOP;
		}
		recover_removed++;
	}
	return FTW_CONTINUE;
}

int build_recover_interrupted(const char *build_dir)
{
	char *mark = build_dirs_building_mark(build_dir);
	struct stat st;
	int rc, e;

	if (lstat(mark, &st)) {
		free(mark);
		return errno == ENOENT ? 0 : -1;
	}
	pthread_mutex_lock(&recover_lock);
	recover_root = build_dir;
	recover_since = st.st_mtim;
	recover_removed = recover_errno = 0;
	rc = nftw(build_dir, remove_if_recent, 32, FTW_PHYS | FTW_ACTIONRETVAL); /* the mark too */
	rc = rc || recover_errno ? -1 : recover_removed;
	e = recover_errno;
	pthread_mutex_unlock(&recover_lock);
	free(mark);
	if (e)
		errno = e;
	return rc;
}

/* build_recover_interrupted, said out loud. Returns 0, or -1 with errno set. */
int build_dirs_recover(const struct build_ctx *b)
{
	int removed = build_recover_interrupted(b->build_dir);

	if (removed > 0)
		fprintf(stderr, "kcmp-matrix: the last kernel build in %s was interrupted; removed "
			"the %d files written since it started, so Kbuild makes them again\n",
			b->build_dir, removed);
	return removed < 0 ? -1 : 0;
}

/* Copies the config into the build directory unless it is already there byte for byte. */
static int install_config(const struct build_ctx *b, const char *config_path)
{
	char *dot = xasprintf("%s/.config", b->build_dir);
	char *want = read_file(config_path, NULL), *have = read_file(dot, NULL);
	int rc = 0;

	if (!want)
		rc = -1;
	else if (!have || strcmp(want, have))
		rc = write_file_atomic(dot, want, strlen(want));
	free(dot);
	free(want);
	free(have);
	return rc;
}

int build_dirs_enter(const struct build_ctx *b, const char *config_path, const char *tag,
		     char *err, size_t errlen)
{
	char *image = xasprintf("%s/%s", b->build_dir, b->arch->image);
	char *mark = build_dirs_building_mark(b->build_dir);
	int rc = 0;

	err[0] = 0;
	if (build_dirs_prepare(b, err, errlen) || build_dirs_recover(b) ||
	    install_config(b, config_path)) {
		if (!*err)
			snprintf(err, errlen, "cannot install '%s' in '%s': %s", config_path,
				 b->build_dir, strerror(errno));
		rc = -1;
	} else {
		/* a stale image from an earlier cell must never stand in for this one */
		unlink(image);
		if (write_file_atomic(mark, tag, strlen(tag))) {
			snprintf(err, errlen, "cannot write '%s': %s", mark, strerror(errno));
			rc = -1;
		}
	}
	free(mark);
	free(image);
	return rc;
}
