/* run: see run.h. */
#define _GNU_SOURCE
#include "run.h"
#include "cache_layout.h"
#include "boot_stage.h"
#include "build_stage.h"
#include "config_stage.h"
#include "digest.h"
#include "guest.h"
#include "jobserver.h"
#include "judge.h"
#include "arch_tools.h"
#include "progress.h"
#include "record.h"
#include "spawn.h"
#include "group.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The files any variant's series (in series_dir[v]) touches: what the worktree switches. */
static char **variant_files(const struct matrix *m, char *const *series_dir)
{
	char **all = xcalloc(1, sizeof(*all));
	int n = 0;

	for (int v = 0; v < m->nvariant; v++) {
		char err[256], **series = variant_series(series_dir[v], m->patch_root, err,
							     sizeof(err));

		for (int i = 0; series && series[i]; i++) {
			char *text = read_file(series[i], NULL), **files = variant_patched_files(text);

			for (int f = 0; files[f]; f++) {
				all = xrealloc(all, (size_t)(n + 2) * sizeof(*all));
				all[n++] = xstrdup(files[f]);
				all[n] = NULL;
			}
			free_strings(files);
			free(text);
		}
		free_strings(series);
	}
	return all;
}

/* One arch's share of a tree's run: what run_arch needs, and how it ended. */
struct arch_run {
	const struct run_opts *o;
	const struct matrix *m;
	const struct tree *t;
	struct plan *p;
	int a;
	const struct variant_tree *vts;
	char (*exists)[MAX_SYMBOLS];
	char *const *series_dir;
	const struct arch_tools *tools;
	struct progress *pg;
	struct jobserver *jobserver;	/* shared with the other arches' builds and boots */
	pthread_t thread;
	int rc;
	char err[1024];
};

/* The cell's verdict, the one place a cell of a run that builds is judged: from why its config
 * could not be resolved, else from its build's outcome and, when it built, its boots. */
static void judge_once(const struct group *g, struct cell *c, const char *config_error,
		       const struct kernel *k, const struct boots *b)
{
	struct judge_input in = { .m = g->m, .config_error = config_error };

	if (config_error) {
		/* nothing was built or booted */
	} else if (!k->outcome.ok) {
		in.build_error = k->outcome.first_error;
		in.build_timed_out = k->outcome.timed_out;
		in.build_machine_fault = k->outcome.machine_fault;
	} else {
		in.modules = k->outcome.modules;
		in.nattempt = b->n;
		in.attempt = b->attempt;
		in.boot_timeout = b->timeout;
		in.kernel_id = b->kernel_id;
		in.tests = (const char *const *)g->tools->tests;
	}
	judge_cell(&in, c);
}

/* The group's cells whose config could not be resolved: judged, and done (no kernel, no
 * reproducer). */
static void judge_config_errors(struct group *g)
{
	for (int i = 0; i < g->ncell; i++)
		if (g->config_error[i] && g->cells[i]->status == CELL_PENDING) {
			judge_once(g, g->cells[i], g->config_error[i], NULL, NULL);
			cell_done(g, g->cells[i]);
		}
}

/* One kernel and every cell of the group that shares it: built (or taken from the cache),
 * then each cell given it, booted, judged once, and recorded. */
static int build_and_boot(struct group *g, int rep, char *err, size_t errlen)
{
	const char *tag = g->cells[rep]->kernel_tag;
	struct kernel k;
	int rc = 0;

	if (build_stage_kernel(g, g->cells[rep], &k, err, errlen))
		return -1;
	for (int i = 0; i < g->ncell && rc == 0; i++) {
		struct cell *c = g->cells[i];
		struct boots boots;

		if (c->status != CELL_PENDING || strcmp(c->kernel_tag, tag))
			continue;
		rc = boot_cell(g, c, k.outcome.ok ? k.image : NULL, &boots, err, errlen);
		if (rc == 0) {
			judge_once(g, c, NULL, &k, &boots);
			record_cell(g, c, &k, &boots, i == rep && !k.cached);
			boots_free(&boots);
		}
	}
	kernel_free(&k);
	return rc;
}

/* What this tree's kernels boot on this arch: the arch's guest, or, when the question names a
 * selftest, the guest with the selftest built from this tree beside it. Returns 0, or -1 with
 * why in r->err. */
static int guest_for_tree(struct arch_run *r, struct arch_build *ab)
{
	const struct matrix *m = r->m;
	char *guest_dir, *dir;

	if (!m->selftest_src) {
		ab->initramfs = xstrdup(r->tools->initramfs);
		memcpy(ab->guest_hash, r->tools->guest_hash, sizeof(ab->guest_hash));
		return 0;
	}
	guest_dir = cache_guest_dir(r->o->cache_dir, m->arch[r->a].name);
	dir = xasprintf("%s/selftest-%s", guest_dir, r->t->tag);
	progress_doing(r->pg, "%s: the selftest %s of %s", m->arch[r->a].name, m->selftest_src,
		       r->t->tag);
	ab->initramfs = guest_prepare_selftest(&m->arch[r->a], r->tools->guest_init, r->t->path,
					       m->selftest_src, r->tools->cc_version, dir, r->err,
					       sizeof(r->err));
	free(dir);
	free(guest_dir);
	if (!ab->initramfs)
		return -1;
	digest_tag_of_file(ab->initramfs, ab->guest_hash);
	return 0;
}

/* Every cell of one arch: each variant's configs, then all the arch's distinct kernels in one
 * order through one worktree and the arch's build directories (build_dirs.h), each booted as
 * soon as it is built. Touches nothing another arch's run_arch touches but the plan's cells of
 * other arches (never), the progress (locked) and the cache (entries keyed by arch, written
 * atomically), so tree_run_arches runs the arches in threads at once. */
static int run_arch(struct arch_run *r)
{
	const struct run_opts *o = r->o;
	const struct matrix *m = r->m;
	int a = r->a;
	struct group groups[m->nvariant];
	struct arch_build ab = { 0 };
	struct kernel_job *jobs = xcalloc((size_t)r->p->ncell, sizeof(*jobs));
	char **files = variant_files(m, r->series_dir);
	int ngroup = 0, njob = 0, rc = -1;

	/* --config-only builds nothing, so it needs no worktree: making one is a hard-link copy of
	 * the whole tree, seconds per tree and arch (measured: 2 s of a 35 s make plan each) */
	if (!o->config_only && worktree_prepare(&ab.wt, o->cache_dir, r->t, m->arch[a].name, files,
						 r->err, sizeof(r->err)))
		goto out;
	ab.b = (struct build_ctx){ .src = ab.wt.path, .arch = &m->arch[a], .make = o->make,
				   .cc_wrapper = o->cc_wrapper, .jobs = o->jobs,
				   .jobserver = r->jobserver,
				   .timeout = o->build_timeout > 0 ? o->build_timeout
								   : m->arch[a].build_timeout };
	ab.syncconfig = xcalloc((size_t)m->nvariant, sizeof(*ab.syncconfig));
	ab.syncconfig_off = xcalloc((size_t)m->nvariant, 1);
	for (int v = 0; v < m->nvariant; v++)
		ab.syncconfig[v] = (struct spawn_server){ .pid = -1, .fd = -1 };
	if (!o->config_only && guest_for_tree(r, &ab))
		goto out;
	build_dirs_init(&ab.dirs, o->cache_dir, r->t->tag, m->arch[a].name);
	ab.b.work_dir = cache_work_dir(o->cache_dir, r->t->tag, NULL, m->arch[a].name);
	/* --config-only builds nothing: the kernels' build directory is not its to empty. */
	if (o->force == FORCE_ALL && !o->config_only)
		build_dirs_remove_all(&ab.dirs);
	for (int v = 0; v < m->nvariant; v++) {
		struct group *g = &groups[ngroup];

		if (!plan_has_cells(r->p, v, a) || !r->vts[v].path)
			continue;
		*g = group_of(o, m, r->t, r->vts, r->exists, r->tools, v, a);
		g->pg = r->pg;
		g->ab = &ab;
		ngroup++;
		if (config_group(g, r->p, r->err, sizeof(r->err)))
			goto out;
		judge_config_errors(g);
		if (o->config_only)
			judge_configs_only(g);
		njob = add_jobs(g, jobs, njob);
	}
	qsort(jobs, (size_t)njob, sizeof(*jobs), job_order);
	ab.nbuild = njob;
	progress_line(r->pg, 0, "%s: %d distinct kernels for %d variants", m->arch[a].name, njob,
		      ngroup);
	for (int k = 0; k < njob; k++)
		if (build_and_boot(jobs[k].g, jobs[k].rep, r->err, sizeof(r->err)))
			goto out;
	rc = 0;
out:
	for (int i = 0; i < ngroup; i++)
		group_free(&groups[i]);
	free_strings(files);
	for (int v = 0; ab.syncconfig && v < m->nvariant; v++)
		spawn_server_stop(&ab.syncconfig[v]);
	free(ab.syncconfig);
	free(ab.syncconfig_off);
	worktree_free(&ab.wt);
	build_dirs_free(&ab.dirs);
	free(ab.b.build_dir);
	free(ab.b.work_dir);
	free(ab.initramfs);
	free(jobs);
	return rc;
}

static void *arch_thread(void *arg)
{
	struct arch_run *r = arg;

	r->rc = run_arch(r);
	return NULL;
}

/* Runs each arch's run_arch, all at once in threads of their own unless o->arch_by_arch (or
 * a thread cannot be made: then in this one). Each arch's kernels build one after another,
 * and the parts of a build that use one core (links, kallsyms, boots) leave the other to the
 * second arch's build. (Measured: 9% off a touched run; Kbuild's -j walk already kept both
 * cores mostly busy.) The jobserver keeps the two makes' compile jobs to o->jobs in all. The first failing arch's message goes to err. */
static int run_arches(struct arch_run *runs, int n, const struct run_opts *o, char *err,
		      size_t errlen)
{
	int started[n], rc = 0, failed = 0;

	for (int i = 0; i < n; i++) {
		started[i] = n > 1 && !o->arch_by_arch &&
			     pthread_create(&runs[i].thread, NULL, arch_thread, &runs[i]) == 0;
		if (!started[i] && !failed) {	/* in turn: the first failure ends the run */
			arch_thread(&runs[i]);
			failed = runs[i].rc;
		}
	}
	for (int i = 0; i < n; i++) {
		if (started[i])
			pthread_join(runs[i].thread, NULL);
		if (runs[i].rc && rc == 0) {
			snprintf(err, errlen, "%s", runs[i].err);
			rc = -1;
		}
	}
	return rc;
}

/* Makes a tree's variant trees (each series, rebased for this tree's version where there is
 * one) and finds which matrix symbols each has. Returns 0, or -1 with why in err. */
static int tree_prepare(const struct run_opts *o, const struct matrix *m, struct tree_run *tr,
			const struct arch_tools *tools, struct progress *pg, char *err,
			size_t errlen)
{
	const char *name = m->tree[tr->p.cell[0].tree].name;
	int rc = 0;

	tr->vts = xcalloc((size_t)m->nvariant, sizeof(*tr->vts));
	tr->exists = xcalloc((size_t)m->nvariant, sizeof(*tr->exists));
	tr->series_dir = xcalloc((size_t)m->nvariant, sizeof(*tr->series_dir));
	for (int v = 0; v < m->nvariant; v++)
		tr->series_dir[v] = variant_series_dir(m->variant[v].patch_dir, tr->t->version);
	for (int v = 0; v < m->nvariant && rc == 0; v++) {
		if (!plan_has_cells(&tr->p, v, -1))
			continue;
		progress_doing(pg, "%s %s: its tree", name, m->variant[v].name);
		rc = variant_prepare(tr->series_dir[v], m->patch_root, m->variant[v].name, tr->t,
				     o->cache_dir, &tr->vts[v], err, errlen);
		if (rc == 0) {
			char *id = tr->t->identity ? xasprintf("%s series %s", tr->t->identity,
							       tr->vts[v].stamp) : NULL;

			tree_find_symbols(tr->vts[v].path, id, m->nsym,
					  (const char *const *)m->sym, tr->exists[v]);
			free(id);
		}
	}
	if (rc == 0 && o->force == FORCE_ALL)
		remove_kits(o, m, tr->t, &tr->p, tr->vts, tr->exists, tools);
	return rc;
}

/* Every cell of one prepared tree, its arches at once (run_arches). */
static int tree_run_arches(const struct run_opts *o, const struct matrix *m,
			   struct tree_run *tr, const struct arch_tools *tools,
			   struct progress *pg, struct jobserver *js, char *err, size_t errlen)
{
	struct arch_run runs[m->narch];
	int nrun = 0;

	for (int a = 0; a < m->narch; a++)
		if (plan_has_cells(&tr->p, -1, a))
			runs[nrun++] = (struct arch_run){ .o = o, .m = m, .t = tr->t, .p = &tr->p,
							  .a = a, .vts = tr->vts,
							  .exists = tr->exists,
							  .series_dir = tr->series_dir,
							  .tools = &tools[a], .pg = pg,
							  .jobserver = js };
	return run_arches(runs, nrun, o, err, errlen);
}

static void tree_run_free(const struct matrix *m, struct tree_run *tr)
{
	for (int v = 0; tr->vts && v < m->nvariant; v++)
		variant_tree_free(&tr->vts[v]);
	for (int v = 0; tr->series_dir && v < m->nvariant; v++)
		free(tr->series_dir[v]);
	free(tr->vts);
	free(tr->exists);
	free(tr->series_dir);
}

/* The plan's trees (its cells in runs of one tree each, as plan order puts them), as tree
 * runs; returns how many. */
static int split_by_tree(const struct plan *p, const struct tree *trees, struct tree_run *out)
{
	int n = 0;

	for (int from = 0, to; from < p->ncell; from = to) {
		for (to = from; to < p->ncell && p->cell[to].tree == p->cell[from].tree; to++)
			;
		out[n++] = (struct tree_run){ .t = &trees[p->cell[from].tree],
					      .p = { .ncombo = p->ncombo, .combo = p->combo,
						     .cell = p->cell + from, .ncell = to - from } };
	}
	return n;
}

char *run_kernel_image(const struct run_opts *o, const struct matrix *m, const struct tree *t,
		       const struct cell *c)
{
	char *kind = kernel_kind(t, m, c->variant, c->arch);
	char *path = cache_file(o->cache_dir, kind, c->kernel_tag, "image");

	free(kind);
	return path;
}

int run_plan(const struct run_opts *o, const struct matrix *m, const struct tree *trees,
	     const struct arch_tools *tools, struct plan *p, char *err, size_t errlen)
{
	struct tree_run *runs = xcalloc((size_t)(p->ncell ? p->ncell : 1), sizeof(*runs));
	int nrun = split_by_tree(p, trees, runs), prepared = 0, rc = 0;
	struct progress pg;
	struct jobserver js;

	if (jobserver_open(&js, o->jobs)) {
		snprintf(err, errlen, "cannot make a pipe for the builds' jobserver: %s",
			 strerror(errno));
		free(runs);
		return -1;
	}
	if (o->force == FORCE_ALL) {
		char *toolchain = toolchain_memo_dir(o);

		remove_tree(toolchain);
		free(toolchain);
	}
	progress_init(&pg, stderr, p->ncell, -1);
	note_how_far(0, p->ncell);
	spawn_set_tick(progress_tick, &pg);
	/* every tree made first, so the configs of all can be made at once; a tree that cannot
	 * be made ends the run after the trees before it have run */
	while (prepared < nrun && tree_prepare(o, m, &runs[prepared], tools, &pg, err, errlen) == 0)
		prepared++;
	rc = prepared < nrun ? -1 : 0;
	prefetch_configs(o, m, runs, prepared, tools, &pg);
	for (int i = 0; i < prepared; i++) {
		char why[1024];

		if (tree_run_arches(o, m, &runs[i], tools, &pg, &js, why, sizeof(why))) {
			snprintf(err, errlen, "%s", why);
			rc = -1;
			break;
		}
	}
	for (int i = 0; i < nrun; i++)
		tree_run_free(m, &runs[i]);
	free(runs);
	spawn_set_tick(NULL, NULL);
	progress_end(&pg);
	jobserver_close(&js);
	return rc;
}
