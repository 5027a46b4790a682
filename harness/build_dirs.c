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
	d->last = NULL;
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

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The split directory whose .config changed last (the one most recently built in), or NULL. */
static char *newest_sibling(const struct build_dirs *d)
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

/* Copies seed to dir through a temporary name, so an interrupted copy is never taken for a
 * build directory. */
static int seed_copy(const char *seed, const char *dir, char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.seeding", dir);
	const char *argv[] = { "cp", "-a", "--reflink=auto", seed, tmp, NULL };
	struct spawn_result res;
	int rc = -1;

	remove_tree(tmp);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .timeout = 1800 }, &res))
		snprintf(err, errlen, "cannot run cp: %s", strerror(errno));
	else if (res.status)
		snprintf(err, errlen, "cannot copy the build directory '%s' to '%s' (cp status %d); "
			 "is the disk full?", seed, tmp, res.status);
	else if (rename(tmp, dir))
		snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, dir, strerror(errno));
	else
		rc = 0;
	if (rc)
		remove_tree(tmp);
	free(tmp);
	return rc;
}

char *build_dirs_use(struct build_dirs *d, const char *key, char *err, size_t errlen)
{
	char *dir = xasprintf("%s.%s", d->base, key), *seed = NULL;

	if (!build_dir_in_use(dir)) {
		remove_tree(dir);	/* whatever is there was never built in */
		if (build_dir_in_use(d->base)) {
			if (rename(d->base, dir)) {
				snprintf(err, errlen, "cannot rename '%s' to '%s': %s", d->base, dir,
					 strerror(errno));
				goto fail;
			}
		} else if ((seed = d->last ? xstrdup(d->last) : newest_sibling(d)) &&
			   seed_copy(seed, dir, err, errlen)) {
			goto fail;
		}
	}
	free(seed);
	free(d->last);
	d->last = xstrdup(dir);
	return dir;
fail:
	free(seed);
	free(dir);
	return NULL;
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
	free(d->last);
	d->base = d->last = NULL;
}
