/* run: see run.h. */
#define _GNU_SOURCE
#include "run.h"
#include "boot.h"
#include "build.h"
#include "build_dirs.h"
#include "cache.h"
#include "jobserver.h"
#include "judge.h"
#include "kconfig.h"
#include "arch_tools.h"
#include "progress.h"
#include "resolver.h"
#include "ktap.h"
#include "spawn.h"
#include "util.h"
#include "variant.h"
#include "worktree.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What one (variant, arch) group shares while its cells run. */
struct group {
	const struct run_opts *o;
	const struct matrix *m;
	const struct tree *t;
	const struct variant_tree *vt;	/* the variant's source tree */
	const char *exists;		/* exists[s]: the variant's tree defines matrix symbol s */
	int variant, arch;
	struct build_ctx b;
	char *base;			/* full base config text */
	const struct arch_tools *tools;	/* the arch's guest and tool hashes */
	const char *identity;		/* the tree's identity; NULL: mutable, nothing cached */
	struct cache_use cache;		/* what it may do with the cache */
	char *resolver_id;		/* what resolves its configs (resolver_identity) */
	char *kernel_kind;		/* cache kind of this group's kernels */
	int modules;			/* the base has MODULES: kernels are built with modules */
	struct progress *pg;		/* the run's progress display */
	struct arch_build *ab;		/* the arch's worktree and build directory */
	struct cell **cells;		/* this group's cells */
	int ncell;
	int prefetch;			/* only filling the cache (see prefetch_configs) */
	struct resolver_kit kit;	/* its Kconfig kit once made (use_kit); b.kit points here */
	struct resolver_session session; /* the kit's Kconfig session for its base and cells,
					  * started at the first of them; b.session points here */
	int kit_failed;			/* use_kit could not make it: make's own ways instead */
};

/* What every variant of one arch shares while its kernels build: the worktree (switched to
 * each kernel's variant) and the one build directory, and how far the builds are. */
struct arch_build {
	struct worktree wt;
	struct build_dirs dirs;		/* which build directory each kernel is built in */
	struct build_ctx b;		/* b.build_dir: the one of the kernel being built */
	int nbuild, built;
	struct spawn_server *syncconfig;	/* per variant: its resolver server, once started */
	char *syncconfig_off;			/* per variant: it could not start; Kbuild syncs */
};

/* One kernel to build: a representative cell of a group. */
struct kernel_job {
	struct group *g;
	int rep;		/* index into g->cells */
	unsigned dir_rank;	/* of its build directory (build_dirs.h), as a Gray rank */
	unsigned rank;
};

/* Does the plan hold a cell of this variant and arch? -1 for either: of any. */
static int plan_has_cells(const struct plan *p, int variant, int arch)
{
	for (int i = 0; i < p->ncell; i++)
		if ((variant < 0 || p->cell[i].variant == variant) &&
		    (arch < 0 || p->cell[i].arch == arch))
			return 1;
	return 0;
}

/* A (variant, arch) group before its configs: what it is made of, not yet the run's display
 * or the arch's build state. */
static struct group group_of(const struct run_opts *o, const struct matrix *m,
			     const struct tree *t, const struct variant_tree *vts,
			     char (*exists)[MAX_SYMBOLS], const struct arch_tools *arch_tools,
			     int v, int a)
{
	return (struct group){ .o = o, .m = m, .t = t, .vt = &vts[v], .exists = exists[v],
			       .variant = v, .arch = a, .tools = arch_tools };
}

/* The (variant, arch) pairs of the tree's groups: those with cells and a variant tree, as
 * group[k] = { v, a }. Variant-major, so the first of them are one per arch (the config forks
 * then start each making its arch's kit, rather than two of one arch where the second would
 * wait for the first's). Returns how many. */
static int group_pairs(const struct matrix *m, const struct plan *p,
		       const struct variant_tree *vts, int (*group)[2])
{
	int n = 0;

	for (int v = 0; v < m->nvariant; v++)
		for (int a = 0; a < m->narch; a++)
			if (plan_has_cells(p, v, a) && vts[v].path) {
				group[n][0] = v;
				group[n++][1] = a;
			}
	return n;
}

static char *cell_dir(const struct group *g, const struct cell *c)
{
	char *rel = plan_cell_path(g->m, c);
	char *dir = xasprintf("%s/%s", g->o->results_dir, rel);

	free(rel);
	return dir;
}

/* The tag of a kernel: everything that makes its sources, config or compiler differ. */
static void config_tag(const struct group *g, const char *config, char out[17])
{
	const char *parts[] = { g->t->tag, g->m->variant[g->variant].name, g->vt->stamp,
				g->tools->toolchain, config, g->t->identity ? g->t->identity : "",
				NULL };

	cache_key(out, parts);
}

/* What an interrupted run says on its way out (spawn's signal handler prints it). */
static void note_how_far(int done, int total)
{
	char note[512];

	snprintf(note, sizeof(note), "kcmp-matrix: interrupted after %d of %d cells; children "
		 "killed. Run the same command again to finish: finished kernels and boots are "
		 "reused from the cache.\n", done, total);
	spawn_set_exit_note(note);
}

/* A finished cell: one line for the log and the terminal, and the mark a stopped run's
 * partial tables go by (set last: everything of the cell is written before it). */
static void cell_done(struct group *g, struct cell *c)
{
	char *combo = plan_combo_name(g->m, c->combo);
	struct progress *pg = g->pg;
	int done = progress_line(pg, 1, "%s %-7s %s %s  build %s%.1fs boot %s%.1fs  %s%s%s",
				 g->m->tree[c->tree].name, g->m->arch[c->arch].name,
				 g->m->variant[c->variant].name, combo,
				 c->kernel_cached ? "cached " : "", c->build_seconds,
				 c->boot_cached ? "cached " : "", c->boot_seconds,
				 cell_status_name(c->status), c->reason[0] ? ": " : "", c->reason);

	note_how_far(done, pg->total);
	free(combo);
	__atomic_store_n(&c->finished, 1, __ATOMIC_RELEASE);
}

/* A cell's requested config (the base with its symbols set) and the cache key of its
 * resolution. Caller frees. */
static char *cell_request(const struct group *g, const struct cell *c, char key[17])
{
	char *requested = kconfig_set(g->base, g->m->nsym, (const char *const *)g->m->sym,
				      c->requested);
	const char *parts[] = { g->identity ? g->identity : "", g->vt->stamp,
				g->m->arch[g->arch].name, g->resolver_id, requested, NULL };

	cache_key(key, parts);
	return requested;
}

/* Takes a cell's resolved config (text) or why it could not be resolved (why): records the
 * symbols it resolved to and its kernel's tag, and writes it into the cell's directory. */
static int cell_resolved(struct group *g, struct cell *c, const char *text, const char *why,
			 char *err, size_t errlen)
{
	char *final;
	int rc = 0;

	if (g->prefetch)
		return 0;
	final = xasprintf("%s/config", c->dir);
	if (!text) {
		judge_cell(&(struct judge_input){ .m = g->m, .config_error = why }, c);
		cell_done(g, c);
	} else {
		for (int s = 0; s < g->m->nsym; s++)
			c->resolved[s] = kconfig_bool(text, g->m->sym[s], g->exists[s]);
		config_tag(g, text, c->config_tag);
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
 * own, built from its tree (variant.h's own_kconfig). Caller frees. */
static char *kit_dir(const struct group *g)
{
	const char *aname = g->m->arch[g->arch].name, *vname = g->m->variant[g->variant].name;

	if (g->vt->own_kconfig)
		return xasprintf("%s/kconfig-kit/%s/%s.%s", g->o->cache_dir, g->t->tag, aname,
				 vname);
	return xasprintf("%s/kconfig-kit/%s/%s", g->o->cache_dir, g->t->tag, aname);
}

/* Where the Kconfig host programs of a group's kit are made once for every arch
 * (build_kit_prepare): one per tree, or per variant whose kit is its own. Caller frees. */
static char *kit_host_dir(const struct group *g)
{
	if (g->vt->own_kconfig)
		return xasprintf("%s/kconfig-kit/%s/host.%s", g->o->cache_dir, g->t->tag,
				 g->m->variant[g->variant].name);
	return xasprintf("%s/kconfig-kit/%s/host", g->o->cache_dir, g->t->tag);
}

/* Where the $(shell) memos that the kits of every tree share are, one per compiler and arch
 * (kcmpm_memo.c). Caller frees. */
static char *toolchain_memo_dir(const struct run_opts *o)
{
	return xasprintf("%s/kconfig-kit/toolchain", o->cache_dir);
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

/* Every cell's resolved config: from the cache, or from olddefconfig (all the group's misses
 * at once, so they run in parallel) and then cached. */
static int resolve_cells(struct group *g, char *err, size_t errlen)
{
	struct build_resolution *todo = xcalloc((size_t)g->ncell, sizeof(*todo));
	struct cell **todo_cell = xcalloc((size_t)g->ncell, sizeof(*todo_cell));
	char (*todo_key)[17] = xcalloc((size_t)g->ncell, sizeof(*todo_key));
	int ntodo = 0, rc = 0;

	for (int i = 0; i < g->ncell && !rc; i++) {
		struct cell *c = g->cells[i];
		char key[17], *requested = cell_request(g, c, key);
		char *text = cache_get_text(&g->cache, "resolved", key, "config");

		if (text) {
			rc = cell_resolved(g, c, text, NULL, err, errlen);
			free(requested);
		} else {
			char *combo = plan_combo_name(g->m, c->combo);

			todo[ntodo].requested = requested;
			todo[ntodo].out_path = xasprintf("%s/%s.config", g->b.work_dir, combo);
			memcpy(todo_key[ntodo], key, sizeof(key));
			todo_cell[ntodo++] = c;
			free(combo);
		}
		free(text);
	}
	if (!rc && ntodo) {
		use_kit(g);
		rc = build_resolve_all(&g->b, todo, ntodo, err, errlen);
	}
	for (int k = 0; k < ntodo; k++) {
		if (!rc && todo[k].text)
			cache_put_text(&g->cache, "resolved", todo_key[k], "config", todo[k].text);
		if (!rc)
			rc = cell_resolved(g, todo_cell[k], todo[k].text, todo[k].err, err, errlen);
		free((char *)todo[k].requested);
		free((char *)todo[k].out_path);
		build_resolution_free(&todo[k]);
	}
	free(todo);
	free(todo_cell);
	free(todo_key);
	return rc;
}

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
static int add_jobs(struct group *g, struct kernel_job *jobs, int k)
{
	int first = k;

	for (int i = 0; i < g->ncell; i++) {
		int dup = g->cells[i]->status != CELL_PENDING;

		for (int j = first; j < k && !dup; j++)
			dup = !strcmp(g->cells[jobs[j].rep]->config_tag, g->cells[i]->config_tag);
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
static int job_order(const void *a, const void *b)
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

enum { MAX_GUEST_ARGS = 1 + MAX_OBSERVABLES + MAX_GUEST_CONFIG + 1, MAX_BOOT_ATTEMPTS = 8 };

/* The guest's expectations, as words for the kernel command line (free each), which the kernel
 * hands to the guest as its environment: KCMPM_ID=<the kernel's tag> first, then
 * KCMPM_EXPECT_<observable>=<predicted state> for each observable and
 * KCMPM_CONFIG_<SYMBOL>=<y|m|n> for each guest-config symbol, from the cell's final config. */
static void guest_args(const struct group *g, const struct cell *c, char *args[MAX_GUEST_ARGS])
{
	char *path = xasprintf("%s/config", c->dir), *config = read_file(path, NULL);
	int n = 0;

	args[n++] = xasprintf("KCMPM_ID=kcmpm-%s", c->config_tag);
	for (int i = 0; i < g->m->nobs; i++)
		args[n++] = xasprintf("KCMPM_EXPECT_%s=%s", g->m->obs[i], c->predicted.observe[i]);
	for (int k = 0; g->m->guest_config[k]; k++) {
		char v = config ? kconfig_bool(config, g->m->guest_config[k], 1) : 0;

		args[n++] = xasprintf("KCMPM_CONFIG_%s=%c", g->m->guest_config[k], v ? v : 'n');
	}
	args[n] = NULL;
	free(config);
	free(path);
}

/* cells/.../reproduce.sh: the cell again through make cell, and by hand: its final .config
 * built into a scratch directory with the same make commands, then booted with the same QEMU
 * line. For a person to read and run; the harness never runs it. */
static void write_reproducer(const struct group *g, const struct cell *c)
{
	const struct arch *a = &g->m->arch[c->arch];
	const char *vname = g->m->variant[c->variant].name, *tname = g->m->tree[c->tree].name;
	char *combo = plan_combo_name(g->m, c->combo), *args[MAX_GUEST_ARGS];
	char *out = xasprintf("/tmp/kcmpm-repro/%s-%s-%s-%s", tname, vname, a->name, c->config_tag);
	char *make = build_reproducer(&g->b, c->config_tag, g->modules, out);
	char *kernel = xasprintf("%s/%s", out, a->image), *qemu, *text, *path;
	char *cell = xasprintf("TREES=%s ARCH=%s VARIANT=%s COMBO=%s", tname, a->name, vname, combo);

	guest_args(g, c, args);
	qemu = boot_command(&(struct boot_req){ .arch = a, .qemu = g->o->qemu, .kernel = kernel,
						.initramfs = g->tools->initramfs, .guest_args = args });
	text = xasprintf("#!/bin/sh\n"
			 "# kcmp-matrix cell %s %s %s %s (kernel %s)\n"
			 "# requested on top of matrix/base/: %s\n"
			 "#\n"
			 "# The same cell through the harness, from the repository top:\n"
			 "#   make cell %s\n"
			 "# and its kernel with an interactive busybox shell:\n"
			 "#   make shell %s\n"
			 "#\n"
			 "# By hand (this script): the cell's final .config (./config) built into %s,\n"
			 "# then booted as the harness boots it; the guest prints KTAP on the console.\n"
			 "set -eu\ncd \"$(dirname \"$0\")\"\nmkdir -p %s\ncp config %s/.config\n%s%s\n",
			 tname, a->name, vname, combo, g->t->version, combo, cell, cell, out, out, out,
			 make, qemu);
	free(cell);
	path = xasprintf("%s/reproduce.sh", c->dir);
	if (write_file_atomic(path, text, strlen(text)) == 0)
		chmod(path, 0755);
	for (int i = 0; args[i]; i++)
		free(args[i]);
	free(path);
	free(text);
	free(qemu);
	free(kernel);
	free(make);
	free(out);
	free(combo);
}

/* A cell's boots: the console of each, and what the judge needs of it. */
struct boots {
	int n;
	struct boot_attempt attempt[MAX_BOOT_ATTEMPTS];
};

static void boots_free(struct boots *b)
{
	for (int i = 0; i < b->n; i++)
		ktap_free(&b->attempt[i].log);
	b->n = 0;
}

/* Reads a boot's console into the next attempt. */
static void add_attempt(const struct group *g, struct boots *b, const char *log_path,
			const struct boot_outcome *out)
{
	size_t len = 0;
	char *text = read_file(log_path, &len);
	struct boot_attempt *a = &b->attempt[b->n++];

	a->outcome = *out;
	ktap_parse(text ? text : "", text ? len : 0, &g->m->arch[g->arch].marks, &a->log);
	free(text);
}

/* Earlier boots' consoles go, so the cell's directory shows this run's boots only. */
static void remove_attempt_logs(const char *dir)
{
	for (int k = 1; k <= MAX_BOOT_ATTEMPTS; k++) {
		char *name = plan_console_name(k, 0), *path = xasprintf("%s/%s", dir, name);

		unlink(path);
		free(path);
		free(name);
	}
}

/* The boots' cache entry: each attempt's outcome line ("status timed_out seconds"), then its
 * console as serial.attempt-<k>.log, the last one as serial.log. The key names the format, so
 * an entry of another layout is a miss, never misread. Boots whose last one was the machine's
 * noise (judge_boot_retryable) are never kept: the next run boots again. */
static void boot_key(const struct group *g, const struct cell *c, const struct boot_req *req,
		     char key[17])
{
	char *line = boot_command(req), timeout[32], retries[16];
	const char *parts[] = { "boots 2", c->config_tag, g->tools->guest_hash, g->tools->emulator,
				line, timeout, retries, NULL };

	/* the kernel's path names its tag, so the command line is enough of a key */
	snprintf(timeout, sizeof(timeout), "%g", req->timeout);
	snprintf(retries, sizeof(retries), "%d", g->o->boot_retries);
	cache_key(key, parts);
	free(line);
}

/* The boots from the cache into the cell's directory: 0, or -1 when the entry is missing or
 * unreadable (then boot afresh). */
static int reuse_boots(struct group *g, const struct cell *c, const char *key, struct boots *b)
{
	char *outcome = g->cache.reuse_boots ? cache_get_text(&g->cache, "boots", key, "outcome")
					     : NULL;
	const char *line = outcome;
	struct boot_outcome out[MAX_BOOT_ATTEMPTS];
	int n = 0, used;

	while (line && n < MAX_BOOT_ATTEMPTS &&
	       sscanf(line, "%d %d %lf%n", &out[n].status, &out[n].timed_out, &out[n].seconds,
		      &used) == 3) {
		n++;
		line = strchr(line + used, '\n');
		line = line ? line + 1 : NULL;
	}
	free(outcome);
	for (int k = 1; k <= n; k++) {
		char *name = plan_console_name(k, n);
		char *cached = cache_file(g->o->cache_dir, "boots", key, name);
		char *dest = xasprintf("%s/%s", c->dir, name);
		int failed = copy_file(cached, dest);

		if (!failed)
			add_attempt(g, b, dest, &out[k - 1]);
		free(dest);
		free(cached);
		free(name);
		if (failed)
			break;
	}
	/* an entry from before noise was kept out is never trusted: booted again */
	if (b->n == n && n && !judge_boot_retryable(&b->attempt[n - 1]))
		return 0;
	boots_free(b);
	remove_attempt_logs(c->dir);	/* what it copied */
	return -1;
}

/* Caches the boots of a cell: every attempt's console and outcome, so a rerun judges the same
 * attempts (a flaky pass stays flaky). The entry is written anew. */
static void store_boots(struct group *g, const struct cell *c, const char *key,
			const struct boots *b)
{
	struct strbuf outcome = { 0 };
	int failed = 0;

	if (!g->cache.store)
		return;
	cache_begin(&g->cache, "boots", key);
	for (int k = 1; k <= b->n && !failed; k++) {
		const struct boot_outcome *o = &b->attempt[k - 1].outcome;
		char *name = plan_console_name(k, b->n), *from = xasprintf("%s/%s", c->dir, name);
		char *to = cache_file(g->o->cache_dir, "boots", key, name);

		failed = copy_file(from, to);
		sb_printf(&outcome, "%d %d %.3f\n", o->status, o->timed_out, o->seconds);
		free(to);
		free(from);
		free(name);
	}
	if (!failed)
		cache_put_text(&g->cache, "boots", key, "outcome", outcome.s);
	sb_free(&outcome);
}

/* A boot keeps a core busy while it runs (QEMU's TCG), so it runs in a job slot of the
 * builds' jobserver, like a make: a boot beside the other arch's compile jobs neither slows
 * them nor runs slow itself, which its time limit would count against it. */
static int boot_in_slot(struct group *g, const struct boot_req *req, struct boot_outcome *out,
			char *err, size_t errlen)
{
	struct jobserver *js = g->ab ? g->ab->b.jobserver : NULL;
	int rc;

	if (jobserver_take(js, err, errlen))
		return -1;
	rc = boot_run(req, out, err, errlen);
	jobserver_give(js);
	return rc;
}

/* Boots the kernel until a boot is not the machine's noise (judge_boot_retryable) or the
 * retries are spent; each earlier attempt's console stays as serial.attempt-<k>.log. */
static int boot_afresh(struct group *g, struct cell *c, struct boot_req *req, struct boots *b,
		       char *err, size_t errlen)
{
	char *combo = plan_combo_name(g->m, c->combo);
	int rc = 0;

	for (int k = 1; rc == 0; k++) {
		struct boot_outcome out = { 0 };

		progress_doing(g->pg, "booting %s %s %s%s", g->m->arch[c->arch].name,
			       g->m->variant[c->variant].name, combo, k > 1 ? " again" : "");
		rc = boot_in_slot(g, req, &out, err, errlen);
		if (rc)
			break;
		add_attempt(g, b, req->log_path, &out);
		if (!judge_boot_retryable(&b->attempt[b->n - 1]) || k > g->o->boot_retries ||
		    b->n == MAX_BOOT_ATTEMPTS)
			break;
		{
			char *name = plan_console_name(k, 0), *kept = xasprintf("%s/%s", c->dir, name);

			if (rename(req->log_path, kept))
				warn("cannot keep '%s' as '%s':", req->log_path, kept);
			progress_line(g->pg, 0, "%s %s %s: boot %d timed out with no crash or warning "
				      "(the machine's noise); booting again", g->m->arch[c->arch].name,
				      g->m->variant[c->variant].name, combo, k);
			free(kept);
			free(name);
		}
	}
	free(combo);
	return rc;
}

/* Boots a cell's kernel (or takes its boots from the cache) and judges the cell. */
static int boot_cell(struct group *g, struct cell *c, const char *kernel, char *err,
		     size_t errlen)
{
	char *args[MAX_GUEST_ARGS];
	char *log_path = xasprintf("%s/serial.log", c->dir);
	char *cmd_path = xasprintf("%s/qemu.cmd", c->dir), *line, key[17];
	const struct arch *a = &g->m->arch[c->arch];
	struct boot_req req = { .arch = a, .qemu = g->o->qemu, .kernel = kernel,
				.initramfs = g->tools->initramfs, .guest_args = args,
				.log_path = log_path, .cmd_path = cmd_path,
				.timeout = g->o->boot_timeout > 0 ? g->o->boot_timeout
								  : a->boot_timeout };
	struct boots b = { 0 };
	int rc = 0;

	guest_args(g, c, args);
	boot_key(g, c, &req, key);
	remove_attempt_logs(c->dir);
	c->boot_cached = reuse_boots(g, c, key, &b) == 0;
	if (c->boot_cached) {
		char *command = boot_command(&req);

		line = xasprintf("%s\n", command);
		if (write_file_atomic(cmd_path, line, strlen(line)))
			warn("cannot write '%s':", cmd_path);
		free(command);
		free(line);
	} else {
		rc = boot_afresh(g, c, &req, &b, err, errlen);
		/* boots that ended in the machine's noise say nothing of the kernel: not kept, so
		 * the next run boots it again */
		if (rc == 0 && !judge_boot_retryable(&b.attempt[b.n - 1]))
			store_boots(g, c, key, &b);
	}
	if (rc == 0) {
		for (int k = 0; k < b.n && !c->boot_cached; k++)
			c->boot_seconds += b.attempt[k].outcome.seconds;
		c->attempts = b.n;
		judge_cell(&(struct judge_input){ .m = g->m, .nattempt = b.n, .attempt = b.attempt,
						  .boot_timeout = req.timeout,
						  .kernel_id = args[0] + strlen("KCMPM_ID="),
						  .tests = (const char *const *)g->tools->tests }, c);
	}
	boots_free(&b);
	for (int i = 0; args[i]; i++)
		free(args[i]);
	free(log_path);
	free(cmd_path);
	return rc;
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
	char why[600], *memo_dir;
	int rc;

	if (s->pid > 0)
		return s;
	if (!g->o->resolver_src || ab->syncconfig_off[g->variant] || !resolver_ready(&ab->b))
		return NULL;
	/* its environment is the kit's but for srctree (the worktree): the kit's memo serves */
	memo_dir = g->identity ? kit_dir(g) : NULL;
	rc = resolver_serve(&ab->b, g->o->resolver_src, memo_dir, s, why, sizeof(why));
	free(memo_dir);
	if (rc == 0)
		return s;
	warn("%s; Kbuild syncs the configuration of each %s %s kernel itself", why,
	     g->m->arch[g->arch].name, g->m->variant[g->variant].name);
	ab->syncconfig_off[g->variant] = 1;
	return NULL;
}

static int build_and_boot(struct group *g, int rep, char *err, size_t errlen)
{
	struct cell **cells = g->cells;
	int n = g->ncell;
	const char *tag = cells[rep]->config_tag;
	char *config = xasprintf("%s/config", cells[rep]->dir);
	char *image = cache_file(g->o->cache_dir, g->kernel_kind, tag, "image");
	char *log = cache_file(g->o->cache_dir, g->kernel_kind, tag, "build.log");
	struct build_outcome bo;
	int cached = reuse_kernel(g, tag, &bo), rc = -1;

	if (!cached) {
		char *id = xasprintf("%s %s", g->m->variant[g->variant].name, g->vt->stamp);
		int switched = worktree_switch(&g->ab->wt, g->vt->path, id, err, errlen);

		free(id);
		if (switched || use_build_dir(g, cells[rep], err, errlen))
			goto out;
		g->ab->b.syncconfig = syncconfig_for(g);
		progress_doing(g->pg, "building %s %s kernel %d of %d (%s)",
			       g->m->arch[g->arch].name, g->m->variant[g->variant].name,
			       g->ab->built + 1, g->ab->nbuild, tag);
		/* a rebuild (--force all, or after a timeout) starts the entry anew: nothing of an
		 * earlier build, a "failed" mark least of all, outlives it */
		cache_begin(&g->cache, g->kernel_kind, tag);
		if (build_kernel(&g->ab->b, config, tag, log, image, &bo, err, errlen))
			goto out;
		if (bo.machine_fault) {	/* the machine's noise: once more */
			progress_line(g->pg, 0, "%s %s kernel %s: %s; building it again",
				      g->m->arch[g->arch].name, g->m->variant[g->variant].name, tag,
				      bo.first_error);
			if (build_kernel(&g->ab->b, config, tag, log, image, &bo, err, errlen))
				goto out;
		}
		g->ab->built++;
		/* a timeout or the machine's fault says nothing about the kernel: nothing is
		 * cached, the next run builds it again */
		if (!bo.timed_out && !bo.machine_fault) {
			if (!bo.ok)
				cache_put_text(&g->cache, g->kernel_kind, tag, "failed", bo.first_error);
			else	/* marks the entry complete */
				cache_put_text(&g->cache, g->kernel_kind, tag, "modules", bo.modules);
		}
	}
	for (int i = 0; i < n; i++) {
		struct cell *c = cells[i];
		char *tail;

		if (c->status != CELL_PENDING || strcmp(c->config_tag, tag))
			continue;
		tail = xasprintf("%s/build.log", c->dir);
		write_log_tail(log, tail, 100);
		free(tail);
		c->build_seconds = i == rep && !cached ? bo.seconds : 0;
		c->kernel_synced = i == rep && !cached && bo.synced;
		c->kernel_cached = cached;
		c->built = bo.ok;
		c->modules = bo.ok ? xstrdup(bo.modules) : NULL;
		if (!bo.ok) {
			judge_cell(&(struct judge_input){ .m = g->m, .build_error = bo.first_error,
							  .build_timed_out = bo.timed_out,
							  .build_machine_fault = bo.machine_fault }, c);
		} else if (boot_cell(g, c, image, err, errlen)) {
			goto out;
		}
		write_reproducer(g, c);
		cell_done(g, c);
	}
	rc = 0;
out:
	free(config);
	free(image);
	free(log);
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

static char *kernel_kind(const struct tree *t, const struct matrix *m, int variant, int arch)
{
	return xasprintf("kernels/%s/%s/%s", t->tag, m->variant[variant].name, m->arch[arch].name);
}

char *run_kernel_image(const struct run_opts *o, const struct matrix *m, const struct tree *t,
		       const struct cell *c)
{
	char *kind = kernel_kind(t, m, c->variant, c->arch);
	char *path = cache_file(o->cache_dir, kind, c->config_tag, "image");

	free(kind);
	return path;
}

/* The group's configs: its base, then every cell's resolved config (both from the cache when
 * they were made before). Config targets run in the variant's own tree and a small build
 * directory of their own; kernels are built elsewhere (struct arch_build). */
static int config_group(struct group *g, struct plan *p, char *err, size_t errlen)
{
	const char *vname = g->m->variant[g->variant].name, *aname = g->m->arch[g->arch].name;
	int rc;

	g->cells = xcalloc((size_t)p->ncell, sizeof(*g->cells));
	for (int i = 0; i < p->ncell; i++)
		if (p->cell[i].variant == g->variant && p->cell[i].arch == g->arch)
			g->cells[g->ncell++] = &p->cell[i];
	g->b = (struct build_ctx){ .src = g->vt->path, .arch = &g->m->arch[g->arch],
				   .make = g->o->make, .cc_wrapper = g->o->cc_wrapper,
				   .jobs = g->o->jobs, .resolver_src = g->o->resolver_src };
	g->b.build_dir = xasprintf("%s/kconfig/%s/%s/%s", g->o->cache_dir, g->t->tag, vname, aname);
	g->b.work_dir = xasprintf("%s/work/%s/%s/%s", g->o->cache_dir, g->t->tag, vname, aname);
	g->kernel_kind = kernel_kind(g->t, g->m, g->variant, g->arch);
	g->identity = g->t->identity;
	g->cache = (struct cache_use){ .dir = g->o->cache_dir,
				       .reuse = g->identity && g->o->force != FORCE_ALL,
				       .reuse_boots = g->identity && g->o->force == FORCE_NONE,
				       .store = g->identity != NULL };
	g->resolver_id = resolver_identity(g->o->resolver_src);
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
	if (!g->base)
		return -1;
	g->modules = kconfig_bool(g->base, "MODULES", 1) == 'y';
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

static void group_free(struct group *g)
{
	resolver_session_end(&g->session);
	resolver_kit_free(&g->kit);
	free(g->cells);
	free(g->kernel_kind);
	free(g->resolver_id);
	free(g->b.build_dir);
	free(g->b.work_dir);
	free(g->base);
}

/* A config-only run: each resolved cell is judged at the config layer and done; add_jobs then
 * finds nothing to build. */
static void judge_configs_only(struct group *g)
{
	for (int i = 0; i < g->ncell; i++) {
		struct cell *c = g->cells[i];

		if (c->status != CELL_PENDING)
			continue;
		judge_config_only(g->m, c);
		cell_done(g, c);
	}
}

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
	build_dirs_init(&ab.dirs, o->cache_dir, r->t->tag, m->arch[a].name);
	ab.b.work_dir = xasprintf("%s/work/%s/%s", o->cache_dir, r->t->tag, m->arch[a].name);
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

/* One tree's share of a run: its cells (a slice of the plan, which keeps each tree's cells
 * together) and its variants' trees. */
struct tree_run {
	const struct tree *t;
	struct plan p;
	struct variant_tree *vts;	/* [variant]; .path NULL: not made */
	char (*exists)[MAX_SYMBOLS];	/* [variant]: which matrix symbols its tree has */
	char **series_dir;		/* [variant] */
};

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
static void prefetch_configs(const struct run_opts *o, const struct matrix *m,
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
static void remove_kits(const struct run_opts *o, const struct matrix *m, const struct tree *t,
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
