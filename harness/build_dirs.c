/* build_dirs: see build_dirs.h. */
#define _GNU_SOURCE
#include "build_dirs.h"
#include "build.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void build_dirs_init(struct build_dirs *d, const char *cache_dir, const char *tree_tag,
		     const char *arch)
{
	d->base = xasprintf("%s/build/%s/%s", cache_dir, tree_tag, arch);
}

char *build_dirs_key(const struct matrix *m, const char *resolved)
{
	struct strbuf sb = { 0 };

	if (m->nsplit == 0)
		return xstrdup("all");
	for (int k = 0; k < m->nsplit; k++) {
		int s = m->split[k];

		sb_printf(&sb, "%s%s-%c", k ? "." : "", m->sym[s], resolved[s] ? resolved[s] : 'n');
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

/* The waiting directory whose .config changed last (the one most recently built in), or
 * NULL. */
static char *newest_waiting(const struct build_dirs *d)
{
	char *pattern = xasprintf("%s.*", d->base), *best = NULL;
	struct timespec best_time = { 0 };
	glob_t g;

	if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *config = xasprintf("%s/.config", g.gl_pathv[i]);
			struct stat st;

			if (!ends_with(g.gl_pathv[i], ".seeding") && build_dir_in_use(g.gl_pathv[i]) &&
			    stat(config, &st) == 0 &&
			    (!best || st.st_mtim.tv_sec > best_time.tv_sec ||
			     (st.st_mtim.tv_sec == best_time.tv_sec &&
			      st.st_mtim.tv_nsec > best_time.tv_nsec))) {
				free(best);
				best = xstrdup(g.gl_pathv[i]);
				best_time = st.st_mtim;
			}
			free(config);
		}
		globfree(&g);
	}
	free(pattern);
	return best;
}

/* Copies the directory from to to, holding key, through a temporary name, so an interrupted
 * copy is never taken for a build directory. */
static int copy_dir(const char *from, const char *to, const char *key, char *err, size_t errlen)
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
	else if (write_key(tmp, key, err, errlen) == 0) {
		remove_tree(to);
		if (rename(tmp, to))
			snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, to,
				 strerror(errno));
		else
			rc = 0;
	}
	if (rc)
		remove_tree(tmp);
	free(tmp);
	return rc;
}

static int move_dir(const char *from, const char *to, char *err, size_t errlen)
{
	remove_tree(to);
	if (rename(from, to) == 0)
		return 0;
	snprintf(err, errlen, "cannot rename '%s' to '%s': %s", from, to, strerror(errno));
	return -1;
}

/* Key's first use with a directory at the build path that holds another key (or none): that
 * directory goes on for key, and a copy of it waits for the key it held. */
static int take_over(const struct build_dirs *d, const char *held, const char *key, char *err,
		     size_t errlen)
{
	int rc = 0;

	if (held) {
		char *copy = waiting_dir(d, held);

		rc = copy_dir(d->base, copy, held, err, errlen);
		free(copy);
	}
	return rc ? rc : write_key(d->base, key, err, errlen);
}

/* Puts key's directory at the build path when no built directory is there: the waiting one,
 * or a copy of the newest waiting one, or an empty one. */
static int fill_build_path(const struct build_dirs *d, const char *key, const char *waiting,
			   char *err, size_t errlen)
{
	char *seed;
	int rc;

	remove_tree(d->base);	/* whatever is there was never built in */
	if (build_dir_in_use(waiting))
		return move_dir(waiting, d->base, err, errlen);
	remove_tree(waiting);
	seed = newest_waiting(d);
	rc = seed ? copy_dir(seed, d->base, key, err, errlen) : write_key(d->base, key, err, errlen);
	free(seed);
	return rc;
}

char *build_dirs_use(struct build_dirs *d, const char *key, char *err, size_t errlen)
{
	char *waiting = waiting_dir(d, key), *held = NULL;
	int rc = 0;

	if (!build_dir_in_use(d->base)) {
		rc = fill_build_path(d, key, waiting, err, errlen);
	} else if ((held = held_key(d->base)) && !strcmp(held, key)) {
		/* in place */
	} else if (build_dir_in_use(waiting)) {
		/* key's directory waits: the one at the build path waits in its place (or goes,
		 * when it holds no key: the layout before the split left it) */
		char *park = held ? waiting_dir(d, held) : NULL;

		rc = park ? move_dir(d->base, park, err, errlen) : 0;
		if (!rc)
			rc = move_dir(waiting, d->base, err, errlen);
		free(park);
	} else {
		rc = take_over(d, held, key, err, errlen);
	}
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
