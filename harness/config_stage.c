/* config_stage: see config_stage.h. */
#define _GNU_SOURCE
#include "config_stage.h"
#include "cache_layout.h"
#include "config_targets.h"
#include "judge.h"
#include "dotconfig.h"
#include "arch_tools.h"
#include "progress.h"
#include "record.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tag of a kernel: everything that makes its sources, config or compiler differ. */
static void kernel_tag_of(const struct group *g, const char *config, char out[17])
{
	const char *parts[] = { g->t->tag, g->m->variant[g->variant].name, g->vt->stamp,
				g->tools->toolchain, config, g->t->identity ? g->t->identity : "",
				NULL };

	cache_key(out, parts);
}

/* A cell's requested config (the base with its symbols set) and the cache key of its
 * resolution. A symbol the variant's tree does not have gets no line: Kconfig would ignore
 * it, and without it the requests that differ only there (pre's KCMP=n, y and unset) are one
 * request, resolved once. Caller frees. */
static char *cell_request(const struct group *g, const struct cell *c, char key[17])
{
	char values[MAX_SYMBOLS];

	for (int s = 0; s < g->m->nsym; s++)
		values[s] = g->exists[s] ? c->requested[s] : VALUE_UNSET;
	char *requested = dotconfig_set(g->base, g->m->nsym, (const char *const *)g->m->sym,
				      values);
	const char *parts[] = { g->identity ? g->identity : "", g->vt->stamp,
				g->m->arch[g->arch].name, g->resolver_id, requested, NULL };

	cache_key(key, parts);
	return requested;
}

/* Takes cell i's resolved config (text) or why it could not be resolved (why, kept in
 * g->config_error for the judge): records the symbols it resolved to and its kernel's tag,
 * and writes it into the cell's directory. */
static int cell_resolved(struct group *g, int i, const char *text, const char *why, char *err,
			 size_t errlen)
{
	struct cell *c = g->cells[i];
	char *final;
	int rc = 0;

	if (g->prefetch)
		return 0;
	final = xasprintf("%s/config", c->dir);
	if (!text) {
		free(g->config_error[i]);	/* the judge reads it (run.c) */
		g->config_error[i] = xstrdup(why ? why : "no config");
	} else {
		for (int s = 0; s < g->m->nsym; s++)
			c->resolved[s] = dotconfig_bool(text, g->m->sym[s], g->exists[s]);
		kernel_tag_of(g, text, c->kernel_tag);
		if (write_file_atomic(final, text, strlen(text))) {
			snprintf(err, errlen, "cannot write '%s': %s", final, strerror(errno));
			rc = -1;
		}
	}
	free(final);
	return rc;
}

/* Where the Kconfig kit (resolver.h) of a group's configs is: one per tree and arch, built from
 * the pristine tree and shared by every variant whose series leaves alone what Kconfig's
 * $(shell) runs and how Kbuild calls conf; a variant whose series patches that has one of its
 * own, built from its tree (variant.h's own_kconfig). Its $(shell) memo serves the builds'
 * syncs too (struct group's memo_dir). Caller frees. */
static char *kit_dir(const struct group *g)
{
	const char *aname = g->m->arch[g->arch].name, *vname = g->m->variant[g->variant].name;

	return cache_kit_dir(g->o->cache_dir, g->t->tag, aname, g->vt->own_kconfig ? vname : NULL);
}

/* Where the Kconfig host programs of a group's kit are made once for every arch
 * (build_kit_prepare): one per tree, or per variant whose kit is its own. Caller frees. */
static char *kit_host_dir(const struct group *g)
{
	return cache_kit_host_dir(g->o->cache_dir, g->t->tag,
				  g->vt->own_kconfig ? g->m->variant[g->variant].name : NULL);
}

/* Where the $(shell) memos that the kits of every tree share are, one per compiler and arch
 * (kcmpm_memo.c). Caller frees. */
char *toolchain_memo_dir(const struct run_opts *o)
{
	return cache_toolchain_memo_dir(o->cache_dir);
}

/* The group's shared memo there: named by what the answers of a command that names no tree
 * depend on, the kit's key without the tree. Caller frees. */
static char *toolchain_memo_path(const struct group *g, const char *dir)
{
	const struct arch *a = &g->m->arch[g->arch];
	const char *parts[] = { a->name, a->kernel_arch, a->cross_compile, g->tools->toolchain,
				g->o->cc_wrapper ? g->o->cc_wrapper : "", g->resolver_id, NULL };
	char key[17];

	cache_key(key, parts);
	return xasprintf("%s/%s-%s.memo", dir, a->name, key);
}

/* What makes the group's kit: its tree (the variant's own, when its series changes how
 * Kconfig runs) and arch, with the run's make and compiler. */
static struct build_ctx kit_ctx(const struct group *g)
{
	return (struct build_ctx){ .src = g->vt->own_kconfig ? g->vt->path : g->t->path,
				   .arch = &g->m->arch[g->arch], .make = g->o->make,
				   .cc_wrapper = g->o->cc_wrapper, .jobs = g->o->jobs,
				   .resolver_src = g->o->resolver_src };
}

/* The key of the group's Kconfig host programs: its tree, the make that builds them and the
 * resolver linked with them (its $(shell) memo object too), for every arch. */
static void host_programs_key(const struct group *g, char key[17])
{
	const char *parts[] = { g->identity, g->vt->own_kconfig ? g->vt->stamp : "", g->o->make,
				g->resolver_id, NULL };

	cache_key(key, parts);
}

/* Makes the group's configs with its Kconfig kit from now on (the first call makes or reuses
 * the kit). Not for a tree that may change under us (KSRC: nothing of it is kept), nor for
 * --resolve-with olddefconfig. A kit that cannot be made leaves the group to make's
 * allnoconfig and a resolver of its own, with a warning. */
static void use_kit(struct group *g)
{
	const struct arch *a = &g->m->arch[g->arch];
	const char *parts[] = { g->identity, g->vt->own_kconfig ? g->vt->stamp : "", a->name,
				a->kernel_arch, a->cross_compile, g->tools->toolchain,
				g->o->cc_wrapper ? g->o->cc_wrapper : "", g->resolver_id, NULL };
	struct build_ctx kb = kit_ctx(g);
	char key[17], host_key[17], err[1024], *host_dir, *toolchain_dir, *toolchain_memo;

	if (g->b.kit || g->kit_failed || !g->identity || !g->o->resolver_src)
		return;
	kb.build_dir = kb.work_dir = kit_dir(g);
	host_dir = kit_host_dir(g);
	toolchain_dir = toolchain_memo_dir(g->o);
	toolchain_memo = toolchain_memo_path(g, toolchain_dir);
	/* without its directory, the kit's parses only do without the shared answers */
	if (mkdir_p(toolchain_dir) == 0)
		kb.toolchain_memo = toolchain_memo;
	cache_key(key, parts);
	host_programs_key(g, host_key);
	if (build_kit_prepare(&kb, key, host_dir, host_key, &g->kit, err, sizeof(err)) == 0) {
		g->b.kit = &g->kit;
		g->b.session = &g->session;
	} else {
		warn("%s; the %s %s configs are made without a Kconfig kit", err, a->name,
		     g->m->variant[g->variant].name);
		g->kit_failed = 1;
	}
	free(toolchain_memo);
	free(toolchain_dir);
	free(host_dir);
	free(kb.build_dir);
}

/* The todo entry among the first n whose request has this key, or -1. */
static int same_request(char (*keys)[17], int n, const char *key)
{
	for (int k = 0; k < n; k++)
		if (!strcmp(keys[k], key))
			return k;
	return -1;
}

/* Every cell's resolved config: from the cache, or from olddefconfig (all the group's misses
 * at once, so they run in parallel) and then cached. */
static int resolve_cells(struct group *g, char *err, size_t errlen)
{
	struct build_resolution *todo = xcalloc((size_t)g->ncell, sizeof(*todo));
	char (*todo_key)[17] = xcalloc((size_t)g->ncell, sizeof(*todo_key));
	int *todo_of = xcalloc((size_t)g->ncell, sizeof(*todo_of)), ntodo = 0, rc = 0;

	for (int i = 0; i < g->ncell; i++)
		todo_of[i] = -1;	/* the todo entry that resolves cell i's request */
	for (int i = 0; i < g->ncell && !rc; i++) {
		struct cell *c = g->cells[i];
		char key[17], *requested = cell_request(g, c, key);
		char *text = cache_get_text(&g->cache, "resolved", key, "config");

		if (text) {
			rc = cell_resolved(g, i, text, NULL, err, errlen);
			free(requested);
		} else if ((todo_of[i] = same_request(todo_key, ntodo, key)) >= 0) {
			free(requested);	/* an earlier cell's request: resolved once */
		} else {
			char *combo = plan_combo_name(g->m, c->combo);

			todo[ntodo].requested = requested;
			todo[ntodo].out_path = xasprintf("%s/%s.config", g->b.work_dir, combo);
			memcpy(todo_key[ntodo], key, sizeof(key));
			todo_of[i] = ntodo++;
			free(combo);
		}
		free(text);
	}
	if (!rc && ntodo) {
		use_kit(g);
		rc = build_resolve_all(&g->b, todo, ntodo, err, errlen);
	}
	for (int k = 0; k < ntodo && !rc; k++)
		if (todo[k].text)
			cache_put_text(&g->cache, "resolved", todo_key[k], "config", todo[k].text);
	for (int i = 0; i < g->ncell && !rc; i++)
		if (todo_of[i] >= 0)
			rc = cell_resolved(g, i, todo[todo_of[i]].text, todo[todo_of[i]].err, err,
					   errlen);
	for (int k = 0; k < ntodo; k++) {
		free((char *)todo[k].requested);
		free((char *)todo[k].out_path);
		build_resolution_free(&todo[k]);
	}
	free(todo);
	free(todo_key);
	free(todo_of);
	return rc;
}

/* The base fragments' text: matrix/base/<name>.config for each name in matrix.conf's base
 * line, then the arch's own. */
static char *base_fragments(const struct group *g, char *err, size_t errlen)
{
	struct strbuf sb = { 0 };
	int n = 0;

	while (g->m->base[n])
		n++;
	for (int i = 0; i <= n; i++) {
		char *path = xasprintf("%s/%s.config", g->m->base_dir,
				       i < n ? g->m->base[i] : g->m->arch[g->arch].name);
		char *text = read_file(path, NULL);

		if (!text) {
			snprintf(err, errlen, "cannot read base fragment '%s': %s", path,
				 strerror(errno));
			free(path);
			sb_free(&sb);
			return NULL;
		}
		sb_printf(&sb, "# from %s\n%s\n", path, text);
		free(text);
		free(path);
	}
	return sb.s;
}

/* The group's base config, from the cache or from allnoconfig. */
static char *base_config(struct group *g, char *err, size_t errlen)
{
	char *frags = base_fragments(g, err, errlen), *text = NULL, key[17];

	if (frags) {
		/* what makes it is named too: a kit's conf (the resolver) or make's */
		const char *parts[] = { g->identity ? g->identity : "", g->vt->stamp,
					g->m->arch[g->arch].name, frags, g->resolver_id, NULL };

		cache_key(key, parts);
		text = cache_get_text(&g->cache, "base", key, "config");
		if (!text)
			use_kit(g);
		if (!text && (text = build_base_config(&g->b, frags, err, errlen)))
			cache_put_text(&g->cache, "base", key, "config", text);
	}
	free(frags);
	return text;
}

/* The arch symbols the variant's rules name (rules.h) have, in the group's base config, the
 * values arches.conf gives them and the predictions used: else the question is wrong, not
 * the kernel. Returns 0, or -1 with what differs in err. */
static int arch_symbols_hold(const struct group *g, char *err, size_t errlen)
{
	const struct rules *r = &g->m->variant[g->variant].rules;
	const struct arch *a = &g->m->arch[g->arch];

	for (int i = 0; i < r->narch_sym; i++) {
		char said = rules_arch_value(a->kconfig, r->arch_sym[i]);
		/* no line (not set, or not a symbol of this arch) reads as n, as Kconfig takes it */
		char has = dotconfig_bool(g->base, r->arch_sym[i], 1);

		if (said != has) {
			snprintf(err, errlen, "%s: arch '%s' gives %s=%c, but its base config for %s "
				 "(%s) has %s=%c; correct its kconfig line", g->m->arches_file,
				 a->name, r->arch_sym[i], said, g->t->tag,
				 g->m->variant[g->variant].name, r->arch_sym[i], has);
			return -1;
		}
	}
	return 0;
}

/* The group's configs: its base, then every cell's resolved config (both from the cache when
 * they were made before). Config targets run in the variant's own tree and a small build
 * directory of their own; kernels are built elsewhere (struct arch_build). */
int config_group(struct group *g, struct plan *p, char *err, size_t errlen)
{
	const char *vname = g->m->variant[g->variant].name, *aname = g->m->arch[g->arch].name;
	int rc;

	g->cells = xcalloc((size_t)p->ncell, sizeof(*g->cells));
	g->config_error = xcalloc((size_t)p->ncell, sizeof(*g->config_error));
	for (int i = 0; i < p->ncell; i++)
		if (p->cell[i].variant == g->variant && p->cell[i].arch == g->arch)
			g->cells[g->ncell++] = &p->cell[i];
	g->b = (struct build_ctx){ .src = g->vt->path, .arch = &g->m->arch[g->arch],
				   .make = g->o->make, .cc_wrapper = g->o->cc_wrapper,
				   .jobs = g->o->jobs, .resolver_src = g->o->resolver_src };
	g->b.build_dir = cache_kconfig_dir(g->o->cache_dir, g->t->tag, vname, aname);
	g->b.work_dir = cache_work_dir(g->o->cache_dir, g->t->tag, vname, aname);
	g->kernel_kind = kernel_kind(g->t, g->m, g->variant, g->arch);
	g->identity = g->t->identity;
	g->cache = (struct cache_use){ .dir = g->o->cache_dir,
				       .reuse = g->identity && g->o->force != FORCE_ALL,
				       .reuse_boots = g->identity && g->o->force == FORCE_NONE,
				       .store = g->identity != NULL };
	g->resolver_id = resolver_identity(g->o->resolver_src);
	g->memo_dir = g->identity ? kit_dir(g) : NULL;
	if (!g->resolver_id) {
		snprintf(err, errlen, "cannot read the Kconfig resolver '%s': %s", g->o->resolver_src,
			 strerror(errno));
		return -1;
	}
	if (mkdir_p(g->b.work_dir)) {
		snprintf(err, errlen, "cannot create '%s': %s", g->b.work_dir, strerror(errno));
		return -1;
	}
	if (!g->prefetch)
		progress_doing(g->pg, "%s %s: base config and %d cell configs", aname, vname,
			       g->ncell);
	g->base = base_config(g, err, errlen);
	if (!g->base || arch_symbols_hold(g, err, errlen))
		return -1;
	g->modules = dotconfig_bool(g->base, "MODULES", 1) == 'y';
	for (int i = 0; i < g->ncell; i++) {
		struct cell *c = g->cells[i];

		c->dir = cell_dir(g, c);
		if (mkdir_p(c->dir)) {
			snprintf(err, errlen, "cannot create '%s': %s", c->dir, strerror(errno));
			return -1;
		}
	}
	rc = resolve_cells(g, err, errlen);
	resolver_session_end(&g->session);	/* its memo saved before the next group's parse */
	return rc;
}

/* A config-only run: each resolved cell is judged at the config layer and done; add_jobs then
 * finds nothing to build. */
void judge_configs_only(struct group *g)
{
	for (int i = 0; i < g->ncell; i++) {
		struct cell *c = g->cells[i];

		if (c->status != CELL_PENDING)
			continue;
		judge_config_only(g->m, c);
		cell_done(g, c);
	}
}

/* The jobs of prefetch_configs: the trees' Kconfig host programs, then the (variant, arch)
 * groups of every tree. */
struct prefetch {
	const struct run_opts *o;
	const struct matrix *m;
	struct tree_run *trees;
	const struct arch_tools *tools;
	int (*job)[3];	/* [k] = { tree, variant, arch }; arch -1: the host programs of the
			 * variant's kit */
};

static int prefetch_job(int k, void *arg)
{
	const struct prefetch *pf = arg;
	struct tree_run *tr = &pf->trees[pf->job[k][0]];
	int v = pf->job[k][1], a = pf->job[k][2];
	struct group g = group_of(pf->o, pf->m, tr->t, tr->vts, tr->exists,
				  &pf->tools[a < 0 ? 0 : a], v, a < 0 ? 0 : a);
	char err[1024];
	int rc;

	g.prefetch = 1;
	if (a < 0) {
		/* for every arch: made with the first arch's make arguments, as by the first
		 * kit that gets there */
		struct build_ctx kb = kit_ctx(&g);
		char key[17], *dir = kit_host_dir(&g);

		g.identity = tr->t->identity;
		g.resolver_id = resolver_identity(pf->o->resolver_src);
		host_programs_key(&g, key);
		/* without the resolver's identity, the run reports why (config_group) */
		rc = g.resolver_id ? build_host_programs(&kb, dir, key, err, sizeof(err)) : -1;
		free(dir);
	} else {
		rc = config_group(&g, &tr->p, err, sizeof(err));
	}
	group_free(&g);
	return rc;
}

/* The host-programs jobs of the tree trees[i] (struct prefetch) for its groups' variants: one
 * for the variants that share the tree's kits, one for each that has a kit of its own. */
static int host_jobs(const struct tree_run *tr, int i, const int (*pairs)[2], int npair,
		     int (*job)[3])
{
	int n = 0, shared = 0;

	for (int k = 0; k < npair; k++) {
		int v = pairs[k][0], dup = 0;

		for (int j = 0; j < n; j++)
			dup |= job[j][1] == v;
		if (dup || (!tr->vts[v].own_kconfig && shared))
			continue;
		shared |= !tr->vts[v].own_kconfig;
		job[n][0] = i;
		job[n][1] = v;
		job[n++][2] = -1;
	}
	return n;
}

/* A group's configs cost a Kconfig parse with its compiler probes, seconds of work, and groups
 * share nothing: each has its own config and work directories, and cache entries are written
 * atomically. So before the trees' arches run, the configs of every group of every tree are
 * made in forks, jobs at a time, into the cache; each tree's run then finds them there. All
 * trees' groups are in one queue, so no fork works alone at the end of a tree while the next
 * tree waits. The queue is in tree order: with a few jobs, a tree's kits are made before the
 * next tree's, which then take from them the answers of the probes that name no tree
 * (kcmpm_memo.c's toolchain memo). Before the groups, the queue makes every tree's Kconfig host
 * programs, which the first kits of a tree would otherwise wait for, one fork compiling while
 * the others wait. A fork that fails has only left work undone: the run does it and reports
 * what goes wrong. Not for a tree whose configs are not cached (a KSRC tree), nor for --force
 * all or --resolve-with olddefconfig (which already runs its make processes in parallel). */
void prefetch_configs(const struct run_opts *o, const struct matrix *m,
		      struct tree_run *trees, int ntree, const struct arch_tools *tools,
		      struct progress *pg)
{
	if (ntree == 0 || o->force == FORCE_ALL || !o->resolver_src)
		return;

	int max = ntree * m->nvariant * m->narch, host[max][3], group[max][3], nhost = 0, n = 0;
	struct strbuf names = { 0 };
	double start = now_seconds();

	for (int i = 0; i < ntree; i++) {
		int pairs[m->nvariant * m->narch][2], npair;

		if (!trees[i].t->identity)
			continue;
		npair = group_pairs(m, &trees[i].p, trees[i].vts, pairs);
		nhost += host_jobs(&trees[i], i, (const int (*)[2])pairs, npair, host + nhost);
		for (int k = 0; k < npair; k++, n++) {
			group[n][0] = i;
			group[n][1] = pairs[k][0];
			group[n][2] = pairs[k][1];
		}
		if (npair)
			sb_printf(&names, "%s%s", names.len ? ", " : "",
				  m->tree[trees[i].p.cell[0].tree].name);
	}
	if (n >= 2) {
		int job[nhost + n][3];
		struct prefetch pf = { .o = o, .m = m, .trees = trees, .tools = tools, .job = job };
		struct spawn_result res[nhost + n];

		memcpy(job, host, sizeof(host[0]) * (size_t)nhost);
		memcpy(job + nhost, group, sizeof(group[0]) * (size_t)n);
		progress_doing(pg, "%s: the configs of %d variant and arch pairs, %d at a time",
			       names.s, n, o->jobs);
		spawn_fork_all(nhost + n, o->jobs, prefetch_job, &pf, res);
		progress_line(pg, 0, "%s: configs of %d variant and arch pairs in %.1f s",
			      names.s, n, now_seconds() - start);
	}
	sb_free(&names);
}

/* --force all: everything made afresh, the Kconfig kits of the tree's (variant, arch) pairs
 * too, with their $(shell) memos; the run's first use of each makes it again. (The memos that
 * every tree's kits share go once, before the first tree: run_plan.) */
void remove_kits(const struct run_opts *o, const struct matrix *m, const struct tree *t,
		 struct plan *p, const struct variant_tree *vts,
		 char (*exists)[MAX_SYMBOLS], const struct arch_tools *tools)
{
	int group[m->nvariant * m->narch][2], n = group_pairs(m, p, vts, group);

	for (int k = 0; k < n; k++) {
		int v = group[k][0], a = group[k][1];
		struct group g = group_of(o, m, t, vts, exists, &tools[a], v, a);
		char *dir = kit_dir(&g), *host = kit_host_dir(&g);

		remove_tree(dir);
		remove_tree(host);
		free(host);
		free(dir);
	}
}
