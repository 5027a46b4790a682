/* build_stage: see build_stage.h. */
#define _GNU_SOURCE
#include "build_stage.h"
#include "build.h"
#include "make_cmd.h"
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

/* What building one kernel takes, made once from the group and its representative cell
 * (kernel_build_make), so what follows takes this and not the group: the kernel's tag and
 * config, its cache entry, the arch's build state it builds with, and the variant's tree. */
struct kernel_build {
	const char *tag;
	char *config;			/* the representative cell's config */
	const char *kind;		/* the cache kind of the group's kernels */
	const struct cache_use *cache;
	struct arch_build *ab;		/* the arch's worktree, build directories and context */
	struct spawn_server *sync;	/* the variant's resolver server (syncconfig_for) */
	char *sync_off;			/* it could not start: Kbuild syncs */
	const char *resolver_src, *memo_dir;	/* what starts it (resolver_serve) */
	const char *src;		/* the variant's tree, which the worktree switches to */
	char *src_id;			/* "<variant> <stamp>": the worktree's mark of it */
	char *dir_key;			/* which build directory (build_dirs_key) */
	struct progress *pg;
	char *what;			/* "<arch> <variant>", for the progress lines */
};

static void kernel_build_make(const struct group *g, const struct cell *rep,
			      struct kernel_build *kb)
{
	const char *vname = g->m->variant[g->variant].name;

	*kb = (struct kernel_build){
		.tag = rep->kernel_tag, .config = xasprintf("%s/config", rep->dir),
		.kind = g->kernel_kind, .cache = &g->cache, .ab = g->ab,
		.sync = &g->ab->syncconfig[g->variant],
		.sync_off = &g->ab->syncconfig_off[g->variant],
		.resolver_src = g->o->resolver_src, .memo_dir = g->memo_dir, .src = g->vt->path,
		.src_id = xasprintf("%s %s", vname, g->vt->stamp),
		.dir_key = build_dirs_key(g->m, rep->resolved), .pg = g->pg,
		.what = xasprintf("%s %s", g->m->arch[g->arch].name, vname) };
}

static void kernel_build_free(struct kernel_build *kb)
{
	free(kb->config);
	free(kb->src_id);
	free(kb->dir_key);
	free(kb->what);
}

/* A kernel from the cache: 1 when the entry exists (built, or failed to build), 0 on a miss. */
static int reuse_kernel(const struct kernel_build *kb, struct build_outcome *bo)
{
	char *failed, *modules;

	if (!cache_reusable(kb->cache, kb->kind, kb->tag))
		return 0;
	failed = cache_get_text(kb->cache, kb->kind, kb->tag, "failed");
	modules = failed ? NULL : cache_get_text(kb->cache, kb->kind, kb->tag, "modules");
	*bo = (struct build_outcome){ .ok = failed == NULL };
	if (failed)
		snprintf(bo->first_error, sizeof(bo->first_error), "%s", failed);
	snprintf(bo->modules, sizeof(bo->modules), "%s", modules ? modules : "");
	free(failed);
	free(modules);
	return 1;
}

/* Puts the variant's tree in the arch's worktree and points the arch's build context at the
 * build directory of this kernel. */
static int use_build_dir(const struct kernel_build *kb, char *err, size_t errlen)
{
	struct arch_build *ab = kb->ab;
	char *dir;

	if (worktree_switch(&ab->wt, kb->src, kb->src_id, err, errlen) ||
	    !(dir = build_dirs_use(&ab->dirs, kb->dir_key, err, errlen)))
		return -1;
	free(ab->b.build_dir);
	ab->b.build_dir = dir;
	return 0;
}

/* The resolver server that syncs this variant's kernels (see resolver_serve), started at the
 * variant's first build once the build directory has Kconfig's objects and its auto.conf.cmd
 * (a fresh directory's first build makes them through Kbuild). Called with the variant's
 * tree in place, which it parses. NULL: Kbuild syncs. */
static struct spawn_server *syncconfig_for(const struct kernel_build *kb)
{
	char why[600];

	if (kb->sync->pid > 0)
		return kb->sync;
	if (!kb->resolver_src || *kb->sync_off || !resolver_ready(&kb->ab->b))
		return NULL;
	/* its environment is the kit's but for srctree (the worktree): the kit's memo serves */
	if (resolver_serve(&kb->ab->b, kb->resolver_src, kb->memo_dir, kb->sync, why,
			   sizeof(why)) == 0)
		return kb->sync;
	warn("%s; Kbuild syncs the configuration of each %s kernel itself", why, kb->what);
	*kb->sync_off = 1;
	return NULL;
}

/* The kernel k->image, built (k->outcome says how it went) in the arch's worktree and build
 * directory, and cached unless the build timed out or the machine spoilt it (tried once more
 * then). Returns -1 with why in err when the harness cannot go on. */
static int build_afresh(const struct kernel_build *kb, struct kernel *k, char *err,
			size_t errlen)
{
	struct arch_build *ab = kb->ab;
	struct build_outcome *bo = &k->outcome;

	if (use_build_dir(kb, err, errlen))
		return -1;
	ab->b.syncconfig = syncconfig_for(kb);
	progress_doing(kb->pg, "building %s kernel %d of %d (%s)", kb->what, ab->built + 1,
		       ab->nbuild, kb->tag);
	/* a rebuild (--force all, or after a timeout) starts the entry anew: nothing of an earlier
	 * build, a "failed" mark least of all, outlives it */
	cache_begin(kb->cache, kb->kind, kb->tag);
	for (int attempt = 1;; attempt++) {
		if (build_dirs_enter(&ab->b, kb->config, kb->tag, err, errlen) ||
		    build_kernel(&ab->b, kb->config, kb->tag, k->log, k->image, bo, err, errlen))
			return -1;
		if (!bo->machine_fault || attempt == 2)
			break;
		/* the machine's fault: once more */
		progress_line(kb->pg, 0, "%s kernel %s: %s; building it again", kb->what, kb->tag,
			      bo->first_error);
	}
	ab->built++;
	/* a timeout or the machine's fault says nothing about the kernel: nothing is cached, the
	 * next run builds it again */
	if (!bo->timed_out && !bo->machine_fault) {
		if (!bo->ok)
			cache_put_text(kb->cache, kb->kind, kb->tag, "failed", bo->first_error);
		else	/* marks the entry complete */
			cache_put_text(kb->cache, kb->kind, kb->tag, "modules", bo->modules);
	}
	return 0;
}

int build_stage_kernel(struct group *g, const struct cell *rep, struct kernel *k, char *err,
		       size_t errlen)
{
	struct kernel_build kb;
	int rc = 0;

	kernel_build_make(g, rep, &kb);
	*k = (struct kernel){ .image = cache_file(kb.cache->dir, kb.kind, kb.tag, "image"),
			      .log = cache_file(kb.cache->dir, kb.kind, kb.tag, "build.log"),
			      /* the group's config context: the by-hand build needs no build
			       * directory of the harness's */
			      .repro_make = make_cmd_reproducer(&g->b, kb.tag, g->modules,
								PLAN_REPRO_DIR) };
	k->cached = reuse_kernel(&kb, &k->outcome);
	if (!k->cached && build_afresh(&kb, k, err, errlen)) {
		kernel_free(k);
		rc = -1;
	}
	kernel_build_free(&kb);
	return rc;
}

void kernel_free(struct kernel *k)
{
	free(k->image);
	free(k->log);
	free(k->repro_make);
	*k = (struct kernel){ 0 };
}
