/* build_stage: see build_stage.h. */
#define _GNU_SOURCE
#include "build_stage.h"
#include "build.h"
#include "progress.h"
#include "spawn.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Position of a resolved config in the reflected (boustrophedon) Gray code over the symbols in
 * build order (matrix.conf's build-order first, slowest-changing), each a digit over the values
 * it takes (n m y). Walking configs in this order, each build differs from the previous one in
 * as few symbols as possible, by one step of one value, and the symbols whose toggling
 * recompiles the most change the least often. A digit counts down while the digits before it
 * have an odd rank, up otherwise. */
static unsigned gray_rank(const struct matrix *m, const int *order, int n, const struct cell *c)
{
	unsigned rank = 0;

	for (int k = 0; k < n; k++) {
		int s = order[k];
		const char *values = m->values[s];
		const char *at = c->resolved[s] ? strchr(values, c->resolved[s]) : NULL;
		unsigned radix = (unsigned)strlen(values), digit = at ? (unsigned)(at - values) : 0;

		rank = rank * radix + (rank & 1 ? radix - 1 - digit : digit);
	}
	return rank;
}

/* Adds one job per distinct config of the group to jobs (cells whose config failed to
 * resolve build nothing); returns the new count. */
int add_jobs(struct group *g, struct kernel_job *jobs, int k)
{
	int first = k;

	for (int i = 0; i < g->ncell; i++) {
		int dup = g->cells[i]->status != CELL_PENDING;

		for (int j = first; j < k && !dup; j++)
			dup = !strcmp(g->cells[jobs[j].rep]->kernel_tag, g->cells[i]->kernel_tag);
		if (!dup)
			jobs[k++] = (struct kernel_job){
				.g = g, .rep = i,
				.dir_rank = gray_rank(g->m, g->m->split, g->m->nsplit, g->cells[i]),
				.rank = gray_rank(g->m, g->m->build_order, g->m->nsym, g->cells[i]) };
	}
	return k;
}

/* Build order over all variants of an arch: build directory by build directory, within one
 * by Gray rank (see gray_rank), and within one rank by variant, forwards on even ranks and
 * backwards on odd ones, so consecutive kernels differ in as few symbols as possible and the
 * worktree switches variant as rarely as it can. */
int job_order(const void *a, const void *b)
{
	const struct kernel_job *x = a, *y = b;
	int vx = x->g->variant, vy = y->g->variant;

	if (x->dir_rank != y->dir_rank)
		return x->dir_rank < y->dir_rank ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->rank & 1 ? vy - vx : vx - vy;
}

/* The last lines of a build log, for the cell's directory. */
static void write_log_tail(const char *log_path, const char *out_path, int lines)
{
	size_t len;
	char *log = read_file(log_path, &len);
	size_t i = len;

	if (!log)
		return;
	while (i > 0 && lines >= 0) {
		i--;
		if (log[i] == '\n')
			lines--;
	}
	if (i > 0)
		i++;
	write_file_atomic(out_path, log + i, len - i);
	free(log);
}

/* A kernel from the cache: 1 when the entry exists (built, or failed to build), 0 on a miss. */
static int reuse_kernel(const struct group *g, const char *tag, struct build_outcome *bo)
{
	char *failed, *modules;

	if (!cache_reusable(&g->cache, g->kernel_kind, tag))
		return 0;
	failed = cache_get_text(&g->cache, g->kernel_kind, tag, "failed");
	modules = failed ? NULL : cache_get_text(&g->cache, g->kernel_kind, tag, "modules");
	*bo = (struct build_outcome){ .ok = failed == NULL };
	if (failed)
		snprintf(bo->first_error, sizeof(bo->first_error), "%s", failed);
	snprintf(bo->modules, sizeof(bo->modules), "%s", modules ? modules : "");
	free(failed);
	free(modules);
	return 1;
}

/* Points the arch's build context at the build directory of this cell's kernel. */
static int use_build_dir(struct group *g, const struct cell *c, char *err, size_t errlen)
{
	char *key = build_dirs_key(g->m, c->resolved);
	char *dir = build_dirs_use(&g->ab->dirs, key, err, errlen);

	free(key);
	if (!dir)
		return -1;
	free(g->ab->b.build_dir);
	g->ab->b.build_dir = dir;
	return 0;
}

/* The resolver server that syncs this variant's kernels (see resolver_serve), started at the
 * variant's first build once the build directory has Kconfig's objects and its auto.conf.cmd
 * (a fresh directory's first build makes them through Kbuild). Called with the variant's
 * tree in place, which it parses. NULL: Kbuild syncs. */
static struct spawn_server *syncconfig_for(struct group *g)
{
	struct arch_build *ab = g->ab;
	struct spawn_server *s = &ab->syncconfig[g->variant];
	char why[600];

	if (s->pid > 0)
		return s;
	if (!g->o->resolver_src || ab->syncconfig_off[g->variant] || !resolver_ready(&ab->b))
		return NULL;
	/* its environment is the kit's but for srctree (the worktree): the kit's memo serves */
	if (resolver_serve(&ab->b, g->o->resolver_src, g->memo_dir, s, why, sizeof(why)) == 0)
		return s;
	warn("%s; Kbuild syncs the configuration of each %s %s kernel itself", why,
	     g->m->arch[g->arch].name, g->m->variant[g->variant].name);
	ab->syncconfig_off[g->variant] = 1;
	return NULL;
}

/* The kernel k->image of the cell rep, built (k->outcome says how it went) in the arch's
 * worktree and build directory, and cached unless the build timed out or the machine spoilt
 * it (tried once more then). Returns -1 with why in err when the harness cannot go on. */
static int build_afresh(struct group *g, const struct cell *rep, struct kernel *k, char *err,
			size_t errlen)
{
	const char *tag = rep->kernel_tag;
	struct build_outcome *bo = &k->outcome;
	char *config = xasprintf("%s/config", rep->dir);
	char *id = xasprintf("%s %s", g->m->variant[g->variant].name, g->vt->stamp);
	int rc = -1;

	if (worktree_switch(&g->ab->wt, g->vt->path, id, err, errlen) ||
	    use_build_dir(g, rep, err, errlen))
		goto out;
	g->ab->b.syncconfig = syncconfig_for(g);
	progress_doing(g->pg, "building %s %s kernel %d of %d (%s)", g->m->arch[g->arch].name,
		       g->m->variant[g->variant].name, g->ab->built + 1, g->ab->nbuild, tag);
	/* a rebuild (--force all, or after a timeout) starts the entry anew: nothing of an earlier
	 * build, a "failed" mark least of all, outlives it */
	cache_begin(&g->cache, g->kernel_kind, tag);
	if (build_kernel(&g->ab->b, config, tag, k->log, k->image, bo, err, errlen))
		goto out;
	if (bo->machine_fault) {	/* the machine's noise: once more */
		progress_line(g->pg, 0, "%s %s kernel %s: %s; building it again",
			      g->m->arch[g->arch].name, g->m->variant[g->variant].name, tag,
			      bo->first_error);
		if (build_kernel(&g->ab->b, config, tag, k->log, k->image, bo, err, errlen))
			goto out;
	}
	g->ab->built++;
	/* a timeout or the machine's fault says nothing about the kernel: nothing is cached, the
	 * next run builds it again */
	if (!bo->timed_out && !bo->machine_fault) {
		if (!bo->ok)
			cache_put_text(&g->cache, g->kernel_kind, tag, "failed", bo->first_error);
		else	/* marks the entry complete */
			cache_put_text(&g->cache, g->kernel_kind, tag, "modules", bo->modules);
	}
	rc = 0;
out:
	free(id);
	free(config);
	return rc;
}

int build_stage_kernel(struct group *g, const struct cell *rep, struct kernel *k, char *err,
		       size_t errlen)
{
	const char *tag = rep->kernel_tag;

	*k = (struct kernel){ .image = cache_file(g->o->cache_dir, g->kernel_kind, tag, "image"),
			      .log = cache_file(g->o->cache_dir, g->kernel_kind, tag, "build.log"),
			      /* the group's config context: the by-hand build needs no build
			       * directory of the harness's */
			      .repro_make = build_reproducer(&g->b, tag, g->modules,
							     PLAN_REPRO_DIR) };
	k->cached = reuse_kernel(g, tag, &k->outcome);
	if (k->cached || build_afresh(g, rep, k, err, errlen) == 0)
		return 0;
	kernel_free(k);
	return -1;
}

void kernel_to_cell(const struct kernel *k, struct cell *c, int built_here)
{
	const struct build_outcome *bo = &k->outcome;
	char *tail = xasprintf("%s/build.log", c->dir);

	write_log_tail(k->log, tail, 100);
	free(tail);
	c->build_seconds = built_here ? bo->seconds : 0;
	c->kernel_synced = built_here && bo->synced;
	c->kernel_cached = k->cached;
	c->built = bo->ok;
	c->modules = bo->ok ? xstrdup(bo->modules) : NULL;
	free(c->repro_make);
	c->repro_make = xstrdup(k->repro_make);
}

void kernel_free(struct kernel *k)
{
	free(k->image);
	free(k->log);
	free(k->repro_make);
	*k = (struct kernel){ 0 };
}
