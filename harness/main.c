/* kcmp-matrix: build, boot and judge every cell of the Kconfig matrix; and the commands around
 * a run (merge, diff, verify-cache, prune-cache).
 *
 * This file takes the locks (lock.h), cleans up after a killed run, runs the command and
 * writes the results. The pipeline, a file a stage: plan.c (cells and predictions from the
 * rules) -> config_stage.c (each cell's final .config) -> build_stage.c (a kernel per distinct config)
 * -> boot_stage.c (QEMU, the guest as /init) -> judge.c (the one place a status is decided) ->
 * record.c (what a judged cell leaves) -> report*.c, results.c (the tables). run.c strings
 * the stages together; options.c reads the command line; spawn.c is the only place that
 * starts processes; lock.c keeps two runs off one directory.
 *
 * Exit status: 0 every cell passed, 1 some cell did not, 2 the harness could not run.
 */
#define _GNU_SOURCE
#include "cache.h"
#include "cache_layout.h"
#include "diff.h"
#include "lock.h"
#include "matrix.h"
#include "merge.h"
#include "syscalls.h"
#include "options.h"
#include "plan.h"
#include "preflight.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "shell.h"
#include "spawn.h"
#include "tree.h"
#include "util.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A make or kernel variable in our environment (say from `make matrix ARCH=arm64`) must not
 * leak into the kernel builds, which get every setting on their command line. */
static void clean_environment(void)
{
	static const char *const vars[] = { "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES",
					    "ARCH", "CROSS_COMPILE", "KBUILD_OUTPUT", "O", "CC",
					    "KCONFIG_CONFIG", "KCONFIG_ALLCONFIG", "KBUILD_BUILD_TIMESTAMP" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* The cache and the results must be two directories: one run locks both, and would wait on
 * itself forever. */
static void check_apart(const char *cache_dir, const char *results_dir)
{
	char *c = realpath(cache_dir, NULL), *r = realpath(results_dir, NULL);

	if (c && r && !strcmp(c, r))
		die("--cache and --results name the same directory '%s'; give each its own", c);
	free(c);
	free(r);
}

/* A run killed with SIGKILL (or by a power cut) leaves what no handler could clean: children
 * of its children still running, and temporary files of writes it was making. Both are
 * removed here, with the locks held, so they belonged to no live run. Finished results and
 * complete cache entries are untouched. */
static void clean_up_after_a_killed_run(const struct options *o)
{
	char real[4096], *owner;
	struct stat st;
	int killed, temps = remove_stale_temps(o->run.results_dir);

	/* The mark names the cache by its path and its inode: a run in a chroot (make
	 * fresh-check) sees this machine's processes, and its cache may have the same path. */
	if (!realpath(o->run.cache_dir, real) || stat(real, &st))
		die("cannot resolve '%s':", o->run.cache_dir);
	owner = xasprintf("%s %llu:%llu", real, (unsigned long long)st.st_dev,
			  (unsigned long long)st.st_ino);
	killed = spawn_claim_children(owner);
	free(owner);
	temps += tree_remove_stale_unpacks(o->run.cache_dir);
	for (int i = 0; cache_layout_written[i]; i++) {
		char *dir = xasprintf("%s/%s", o->run.cache_dir, cache_layout_written[i]);

		temps += remove_stale_temps(dir);
		free(dir);
	}
	if (killed || temps)
		warn("an earlier run was killed: stopped %d of its processes, removed %d partial "
		     "files", killed, temps);
}

/* The CPU seconds of the harness and of the processes it has waited for, theirs included. */
static double cpu_seconds(void)
{
	double cpu = 0;
	struct rusage ru;

	for (int who = 0; who < 2; who++)
		if (getrusage(who ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru) == 0)
			cpu += (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
			       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return cpu;
}

/* One line of figures for benchmarks and logs. The CPU time of the harness and of every process
 * it started and waited for (compilers under make, guests, probes), against wall time, says how
 * many cores the run kept busy on average: what a better schedule could still win. */
static void print_summary(const struct plan *p, const struct run_info *ri, int ran_here)
{
	int built = 0, synced = 0, boots = 0;
	double compile = 0, boot = 0;

	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];

		built += c->build_seconds > 0;
		synced += c->kernel_synced;
		compile += c->build_seconds;
		boots += c->boot_seconds > 0;
		boot += c->boot_seconds;
	}
	fprintf(stderr, "kcmp-matrix: summary: cells %d, kernels built %d, synced in process %d, "
		"compile %.1f s, boots %d, boot %.1f s, wall %.1f s, peak RSS %ld KiB, corrupt cache "
		"entries remade %d", p->ncell, built, synced, compile, boots, boot, ri->seconds,
		ri->max_rss_kib, cache_discarded());
	/* a merge's wall is its shards' and its CPU its own: no figure to give */
	if (ran_here) {
		double cpu = cpu_seconds();
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		fprintf(stderr, ", CPU %.1f s, cores busy %.2f of %ld", cpu,
			ri->seconds > 0 ? cpu / ri->seconds : 0, cores < 1 ? 1 : cores);
	}
	fputc('\n', stderr);
}

/* A finished run's matrix.json read back as a plan; dies on bad input. */
static void load_run(const char *path, struct matrix *m, struct plan *p, struct run_info *ri)
{
	char err[2048];

	*p = (struct plan){ 0 };
	if (results_read(path, m, p, ri, err, sizeof(err)) || plan_index(m, p, err, sizeof(err)))
		die("%s", err);
}

static void write_results(const struct options *o, const struct matrix *m, const struct plan *p,
			  struct run_info *ri, const struct plan *previous, int ran_here)
{
	struct rusage ru;
	char err[2048];

	if (getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > ri->max_rss_kib)
		ri->max_rss_kib = ru.ru_maxrss;
	print_summary(p, ri, ran_here);
	if (results_write(o->run.results_dir, m, p, ri, previous, err, sizeof(err)))
		die("%s", err);
}

static int exit_status(const struct plan *p)
{
	for (int i = 0; i < p->ncell; i++)
		if (!cell_ok(&p->cell[i]))
			return EXIT_SOME_FAIL;
	return EXIT_ALL_PASS;
}

/* kcmp-matrix verify-cache: every entry checked as a run checks it before use (cache.h), with
 * what it cost; exit 1 when some entry was corrupt (it is gone, and a run makes it again). */
static int verify_cache_command(const struct options *o)
{
	struct cache_verify v;
	double start = now_seconds();

	lock_existing_cache("verify-cache", o->run.cache_dir);
	if (cache_verify_all(o->run.cache_dir, &v))
		die("verify-cache: cannot read every entry of '%s':", o->run.cache_dir);
	printf("verify-cache: %d entries, %.1f MiB, %d corrupt (thrown away), %d of an older "
	       "harness's format (thrown away: obsolete, not corrupt), %.2f s\n", v.entries,
	       (double)v.bytes / (1024 * 1024), v.corrupt, v.obsolete, now_seconds() - start);
	return v.corrupt ? EXIT_SOME_FAIL : EXIT_ALL_PASS;
}

/* kcmp-matrix prune-cache: the entries no run used for --unused-days go (cache_prune), so a
 * nightly's cache holds what the nights use, not every tarball and guest it ever saw. */
static int prune_cache_command(const struct options *o)
{
	struct cache_prune pr;
	double start = now_seconds(), mib = 1024 * 1024;
	int days = o->unused_days < 0 ? 30 : o->unused_days;

	lock_existing_cache("prune-cache", o->run.cache_dir);
	if (cache_prune(o->run.cache_dir, time(NULL) - (time_t)days * 24 * 3600, &pr))
		die("prune-cache: cannot read every entry of '%s':", o->run.cache_dir);
	printf("prune-cache: %d entries unused for %d days removed (%.1f MiB), %d kept (%.1f MiB), "
	       "%.2f s\n", pr.removed, days, (double)pr.removed_bytes / mib, pr.kept,
	       (double)pr.kept_bytes / mib, now_seconds() - start);
	return EXIT_ALL_PASS;
}

/* kcmp-matrix diff OLD [NEW]: exit 1 when some cell newly fails. */
static int diff_command(const struct options *o, struct matrix *m)
{
	struct plan old, new_;
	struct run_info ri_old = { 0 }, ri_new = { 0 };
	char *fallback = xasprintf("%s/matrix.json", o->run.results_dir), *text;
	int new_failures;

	if (!o->args[0] || (o->args[1] && o->args[2]))
		die("diff: give the old run's matrix.json, and optionally the new one (default %s)",
		    fallback);
	load_run(o->args[0], m, &old, &ri_old);
	load_run(o->args[1] ? o->args[1] : fallback, m, &new_, &ri_new);
	free_strings(ri_old.whole_plan);
	free_strings(ri_new.whole_plan);
	text = diff_text(m, &old, &new_, &new_failures);
	fputs(text, stdout);
	free(text);
	free(fallback);
	plan_free(&old);
	plan_free(&new_);
	return new_failures ? EXIT_SOME_FAIL : EXIT_ALL_PASS;
}

/* kcmp-matrix merge DIR...: one results directory from the shards' ones (merge.h), compared
 * with --previous when given; exits 1 when a cell did not pass or did not run. */
static int merge_command(const struct options *o, struct matrix *m)
{
	struct plan all = { 0 }, previous = { 0 };
	struct run_info ri = { 0 };
	char *table;
	int status;

	merge_shards(o->args, o->run.results_dir, m, &all, &ri);
	if (o->previous) {
		struct run_info unused = { 0 };

		load_run(o->previous, m, &previous, &unused);
		free_strings(unused.whole_plan);
	}
	write_results(o, m, &all, &ri, o->previous ? &previous : NULL, 0);
	plan_free(&previous);
	table = report_markdown(m, &all, &ri);
	fputs(table, stdout);
	free(table);
	status = exit_status(&all);
	plan_free(&all);
	return status;
}

/* Before any build: does this machine have all the run needs (preflight.h)? Dies with the
 * packages to install when not. */
static void check_machine(const struct options *o, const struct matrix *m, const int *arch_used,
			  const int *tree_used, struct arch_tools *tools)
{
	char err[2048];

	if (preflight(&(struct preflight_req){ .o = &o->run, .m = m, .tree_used = tree_used,
					       .arch_used = arch_used }, tools, err, sizeof(err)))
		die("%s", err);
}

/* A run stopped by an error or a signal: the cells it finished are written as a partial run,
 * marked with why, so hours of finished work stay readable and no table of an earlier run
 * stays beside cells this one rewrote. Nothing is written when no cell finished: the results
 * of an earlier run stay as they were. */
static void write_partial_results(const struct options *o, const struct matrix *m,
				  const struct plan *p, struct run_info *ri,
				  const struct plan *previous, const char *why)
{
	struct plan done = { .cell = xcalloc((size_t)p->ncell + 1, sizeof(*p->cell)) };
	char *table;

	for (int i = 0; i < p->ncell; i++)
		if (__atomic_load_n(&p->cell[i].finished, __ATOMIC_ACQUIRE))
			done.cell[done.ncell++] = p->cell[i];
	if (done.ncell && plan_index(m, &done, ri->partial, sizeof(ri->partial)) == 0) {
		snprintf(ri->partial, sizeof(ri->partial), "stopped after %d of %d cells: %s",
			 done.ncell, p->ncell, why);
		table = report_markdown(m, &done, ri);
		fputs(table, stdout);
		free(table);
		write_results(o, m, &done, ri, previous, 1);
		warn("the %d finished cells are in %s (marked partial)", done.ncell,
		     o->run.results_dir);
	}
	free(done.cell);	/* the cells' own strings belong to p */
	free(done.combo);
}

/* Each matrix symbol takes the values its Kconfig type allows (bool: n y; tristate: n m y). Every
 * tree of the run that defines it must give it the same type, and every variant's rules must say
 * that type. */
static void take_symbol_types(struct matrix *m, const struct tree *trees, const int *tree_used)
{
	char type[MAX_SYMBOLS] = { 0 }, found[MAX_SYMBOLS];
	int from[MAX_SYMBOLS];

	for (int t = 0; t < m->ntree; t++) {
		if (!tree_used[t])
			continue;
		tree_find_symbols(trees[t].path, trees[t].identity, m->nsym,
				  (const char *const *)m->sym, found);
		for (int s = 0; s < m->nsym; s++) {
			if (found[s] && type[s] && (found[s] == 't') != (type[s] == 't'))
				die("%s is %s in tree %s but %s in tree %s; a matrix symbol must have "
				    "one type in every tree (leave one out with TREES=)", m->sym[s],
				    found[s] == 't' ? "tristate" : "bool", m->tree[t].name,
				    type[s] == 't' ? "tristate" : "bool", m->tree[from[s]].name);
			if (found[s] && !type[s]) {
				type[s] = found[s];
				from[s] = t;
			}
		}
	}
	for (int s = 0; s < m->nsym; s++) {
		matrix_set_type(m, s, type[s]);
		for (int v = 0; v < m->nvariant; v++) {
			const struct rule_symbol *rs = &m->variant[v].rules.sym[s];

			if (type[s] && !rs->absent && rs->tristate != (type[s] == 't'))
				die("%s: %s is %s in %s's Kconfig but %s in the rules; say '%s' in its "
				    "block", m->variant[v].rules_path, m->sym[s],
				    type[s] == 't' ? "tristate" : "bool", trees[from[s]].path,
				    rs->tristate ? "tristate" : "bool",
				    type[s] == 't' ? "tristate" : "bool");
		}
	}
}

/* The run's trees: each unpacked into the cache (or a KSRC tree checked), its version and place
 * recorded in the matrix. */
static void open_trees(const struct options *o, struct matrix *m, const int *tree_used,
		       struct tree *trees)
{
	char err[2048];

	for (int t = 0; t < m->ntree; t++) {
		const struct tree_decl *d = &m->tree[t];

		trees[t] = (struct tree){ 0 };
		if (!tree_used[t])
			continue;
		if (d->ksrc ? tree_from_path(d->ksrc, &trees[t], err, sizeof(err))
			    : tree_from_tarball(d->tarball, d->package, o->run.cache_dir, &trees[t],
						err, sizeof(err)))
			die("%s", err);
		matrix_tree_found(m, t, trees[t].version, trees[t].path);
	}
}

/* KSRC= is a tree of its own, named ksrc; asked for alone unless TREES= names others too. */
static void add_ksrc_tree(struct options *o, struct matrix *m)
{
	char err[512];

	if (!o->ksrc)
		return;
	if (matrix_add_tree(m, "ksrc", NULL, NULL, o->ksrc, err, sizeof(err)))
		die("KSRC: %s", err);
	if (!o->filter.trees) {
		o->filter.trees = xcalloc(2, sizeof(char *));
		o->filter.trees[0] = xstrdup("ksrc");
	}
}

/* What a signal's stop needs to write the cells a run finished (spawn_set_stop_hook). */
struct stopped_run {
	const struct options *o;
	const struct matrix *m;
	const struct plan *p, *previous;
	struct run_info *ri;
	double start;
};

static void write_stopped_run(int sig, void *arg)
{
	struct stopped_run *s = arg;
	char why[64];

	snprintf(why, sizeof(why), "interrupted by SIG%s", sigabbrev_np(sig));
	s->ri->seconds = now_seconds() - s->start;
	write_partial_results(s->o, s->m, s->p, s->ri, s->previous, why);
}

/* --shard K/N: the plan keeps its shard's cells, and the run's info the whole plan's names
 * (merge checks that the shards add up to it). */
static void take_shard(const struct options *o, const struct matrix *m, struct plan *p,
		       struct run_info *ri)
{
	ri->whole_plan = xcalloc((size_t)p->ncell + 1, sizeof(*ri->whole_plan));
	for (int i = 0; i < p->ncell; i++)
		ri->whole_plan[i] = report_cell_name(m, &p->cell[i]);
	plan_shard(p, o->shard_k, o->shard_n);
	snprintf(ri->shard, sizeof(ri->shard), "%d/%d", o->shard_k, o->shard_n);
	if (p->ncell == 0)
		die("--shard %s: this shard has no cells (there are fewer cells than shards)",
		    ri->shard);
}

/* What the run is about to do, on stderr: each tree's kernel and where it is, the cells, the
 * cache. */
static void announce_run(const struct options *o, const struct matrix *m,
			 const struct tree *trees, const int *tree_used, const struct plan *p)
{
	for (int t = 0; t < m->ntree; t++)
		if (tree_used[t])
			fprintf(stderr, "kcmp-matrix: tree %s: kernel %s from %s\n", m->tree[t].name,
				trees[t].version, trees[t].path);
	fprintf(stderr, "kcmp-matrix: %d cells, cache %s\n", p->ncell, o->run.cache_dir);
}

static int run_command(struct options *o, struct matrix *m)
{
	struct plan p, previous = { 0 };
	struct run_info ri = { 0 };
	struct tree trees[MAX_TREES];
	struct arch_tools tools[m->narch];
	int arch_used[m->narch], tree_used[MAX_TREES];
	char err[2048], *table;
	double start = now_seconds();
	int status, rc;

	add_ksrc_tree(o, m);
	if (plan_check_filter(m, &o->filter, arch_used, tree_used, err, sizeof(err)))
		die("%s", err);
	if (o->previous) {
		struct run_info unused = { 0 };

		load_run(o->previous, m, &previous, &unused);
		free_strings(unused.whole_plan);
	}
	if (mkdir_p(o->run.results_dir) || mkdir_p(o->run.cache_dir))
		die("cannot create '%s' or '%s':", o->run.results_dir, o->run.cache_dir);
	check_apart(o->run.cache_dir, o->run.results_dir);
	lock_dir(o->run.cache_dir);
	lock_dir(o->run.results_dir);
	clean_up_after_a_killed_run(o);
	check_machine(o, m, arch_used, tree_used, tools);
	open_trees(o, m, tree_used, trees);
	/* a plan compiles no guest: its C library's numbers were not read */
	if (!o->run.config_only &&
	    syscalls_check(m, trees, tree_used, arch_used, tools, err, sizeof(err)))
		die("%s", err);
	take_symbol_types(m, trees, tree_used);
	if (plan_make(m, &o->filter, &p, err, sizeof(err)) ||
	    (o->previous && plan_index(m, &previous, err, sizeof(err))))
		die("%s", err);
	if (o->single && p.ncell != 1)
		die("the filters select %d cells, not one; name the arch, the variant and all %d "
		    "symbols (say %s=y,%s=n,...), and the tree if there are several (TREES=)",
		    p.ncell, m->nsym, m->sym[0], m->sym[m->nsym > 1 ? 1 : 0]);
	if (o->shard_n)
		take_shard(o, m, &p, &ri);
	announce_run(o, m, trees, tree_used, &p);
	spawn_set_stop_hook(write_stopped_run, &(struct stopped_run){
		.o = o, .m = m, .p = &p, .ri = &ri, .start = start,
		.previous = o->previous ? &previous : NULL });
	rc = run_plan(&o->run, m, trees, tools, &p, err, sizeof(err));
	spawn_set_stop_hook(NULL, NULL);	/* from here on, this thread writes the results */
	if (rc) {
		ri.seconds = now_seconds() - start;
		write_partial_results(o, m, &p, &ri, o->previous ? &previous : NULL, err);
		/* the build's own full-disk message says what to do already */
		if (strstr(err, "No space left on device") && !strstr(err, "Free space"))
			die("%s; free space and run again: finished cells are kept", err);
		die("%s", err);
	}
	arch_tools_free(tools, m->narch);
	table = report_markdown(m, &p, &ri);	/* the table, led by the flavour when there is one */
	fputs(table, stdout);
	free(table);
	ri.seconds = now_seconds() - start;
	write_results(o, m, &p, &ri, o->previous ? &previous : NULL, 1);
	status = exit_status(&p);
	if (o->shell)
		status = shell_boot(&o->run, m, &trees[p.cell[0].tree], &p.cell[0], o->busybox);
	plan_free(&p);
	plan_free(&previous);
	free_strings(ri.whole_plan);
	for (int t = 0; t < m->ntree; t++)
		tree_free(&trees[t]);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[2048] = "", *cache = NULL;
	struct matrix m;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IOLBF, 0);
	options_parse(argc, argv, &o);
	clean_environment();
	/* a closed stdout (make matrix | head, a tee killed beside us) must not end the run
	 * before its results are written: a write to it fails with EPIPE instead; spawn.c
	 * gives every program it starts the default back */
	signal(SIGPIPE, SIG_IGN);
	spawn_install_signal_handlers();
	if (!o.run.cache_dir)
		o.run.cache_dir = cache = options_default_cache();
	if (!o.run.cache_dir)
		die("no cache directory: neither XDG_CACHE_HOME nor HOME is set; pass --cache DIR "
		    "(make: CACHE=DIR)");
	if (!o.run.jobs)
		o.run.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o.run.jobs < 1)
		o.run.jobs = 1;
	/* the cache's commands need no matrix: they run from any directory */
	if (o.command == CMD_VERIFY_CACHE || o.command == CMD_PRUNE_CACHE) {
		status = o.command == CMD_VERIFY_CACHE ? verify_cache_command(&o)
						       : prune_cache_command(&o);
		free(cache);
		return status;
	}
	if (matrix_load(o.run.matrix_dir, o.run.patch_dir, &m, err, sizeof(err)) ||
	    (o.flavour && matrix_use_flavour(&m, o.flavour, err, sizeof(err))) ||
	    (o.unset && matrix_set_unset(&m, o.unset, err, sizeof(err))))
		die("%s", err);
	if (o.filter.only)
		matrix_unset_in_pattern(&m, o.filter.only);
	/* the question's folder names its guest and patches; --guest and --patches override */
	if (!o.run.guest_src)
		o.run.guest_src = m.guest_src;
	if (!o.run.guest_src)
		die("%s/matrix.conf names no guest test; add 'guest PATH' or pass --guest",
		    o.run.matrix_dir);
	switch (o.command) {
	case CMD_DIFF: status = diff_command(&o, &m); break;
	case CMD_MERGE:
		if (mkdir_p(o.run.results_dir))
			die("cannot create '%s':", o.run.results_dir);
		lock_dir(o.run.results_dir);
		remove_stale_temps(o.run.results_dir);
		status = merge_command(&o, &m);
		break;
	default: status = run_command(&o, &m); break;
	}
	free_strings(o.filter.trees);
	free_strings(o.filter.arches);
	free_strings(o.filter.variants);
	matrix_free(&m);
	free(cache);
	return status;
}
