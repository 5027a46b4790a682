/* e2e_cells: real cells pass, the configs equal Kconfig's own, and the build directories recompile only
 * what changed. See e2e.h. */
#include "e2e.h"

/* How many lines of text start with prefix. */
static int count_lines_starting(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

/* The cells of one group whose config differs between two runs' results; prints each. */
static int configs_differing(const char *results_a, const char *results_b, const char *group,
			     int *compared)
{
	char *cells = xasprintf("%s/cells/%s", results_a, group);
	DIR *d = opendir(cells);
	struct dirent *e;
	int differ = 0;

	while (d && (e = readdir(d))) {
		char *a, *b, *ta, *tb;

		if (e->d_name[0] == '.')
			continue;
		a = xasprintf("%s/%s/config", cells, e->d_name);
		b = xasprintf("%s/cells/%s/%s/config", results_b, group, e->d_name);
		ta = read_file(a, NULL);
		tb = read_file(b, NULL);
		(*compared)++;
		if (!ta || !tb || strcmp(ta, tb)) {
			printf("# %s %s: the in-process config differs from olddefconfig's\n", group,
			       e->d_name);
			differ++;
		}
		free(a);
		free(b);
		free(ta);
		free(tb);
	}
	if (d)
		closedir(d);
	free(cells);
	return differ;
}

/* A file of the group's config work (kconfig.log: its Kconfig session's log, base and cells). */
static char *group_file(const char *variant, const char *name)
{
	char *path = xasprintf("%s/work/linux-source-6.1/%s/x86_64/%s", cache, variant, name);
	char *text = read_file(path, NULL);

	free(path);
	return text;
}

/* `make allnoconfig` of the base fragment the run wrote for a group, in a build directory of
 * its own: the base config Kbuild would make. Caller frees. */
static char *kbuild_allnoconfig(const char *variant)
{
	char *tree = xasprintf("%s/trees/linux-source-6.1/%s", cache, variant);
	char *dir = xasprintf("%s/kbuild-allnoconfig", cache);
	char *odir = xasprintf("O=%s", dir);
	char *frag = xasprintf("KCONFIG_ALLCONFIG=%s/work/linux-source-6.1/%s/x86_64/base.fragment",
			       cache, variant);
	char *config = xasprintf("KCONFIG_CONFIG=%s/base.config", dir), *out, *text;
	const char *make[] = { "make", "-C", tree, odir, "ARCH=x86_64", "CROSS_COMPILE=", frag,
			       config, "allnoconfig", NULL };
	int status;

	remove_tree(dir);
	mkdir_p(dir);
	out = tool_run("kbuild-allnoconfig", make, &status);
	text = status == 0 ? read_file(config + strlen("KCONFIG_CONFIG="), NULL) : NULL;
	free(out);
	free(config);
	free(frag);
	free(odir);
	free(dir);
	free(tree);
	return text;
}

/* Are both paths there and one file (hard links)? */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* When a file was last written, in seconds; 0 when it is not there. */
static double written_at(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

/* How many of the $(shell) answers a Kconfig kit's parse took from the memo that every tree's
 * kits share (its "N of those answered by the toolchain's" line); -1 without that line. */
static int toolchain_answers(const char *tree)
{
	char *path = xasprintf("%s/kconfig-kit/%s/x86_64/kconfig.log", cache, tree);
	char *log = read_file(path, NULL), *at = log ? strstr(log, "$(shell) memo: ") : NULL;
	int n = -1;

	/* the kit's conf prints two memo lines: how many it answered, then how many of those
	 * came from the shared memo */
	if (at && (at = strstr(at + 1, "$(shell) memo: ")) &&
	    sscanf(at, "$(shell) memo: %d of those answered by the toolchain's", &n) != 1)
		n = -1;
	free(log);
	free(path);
	return n;
}

/* The 6.1 x86_64 build path (build_dirs.h): after a run whose last kernel is OFF's (or
 * VIA_EXPERT's, the same build directory), it holds their directory. */
#define OFF_BUILD_DIR "build/linux-source-6.1/x86_64"

/* A file's text under OFF's build directory; NULL when it cannot be read. */
static char *build_dir_file(const char *name)
{
	char *path = xasprintf("%s/" OFF_BUILD_DIR "/%s", cache, name);
	char *text = read_file(path, NULL);

	free(path);
	return text;
}

/* The cache entry of the v3 x86_64 kernel of a cell of a run. */
static char *kernel_entry(const struct run *r, const char *combo)
{
	char *line = cell_line(r, "x86_64", combo), *tag = line ? strrchr(line, '\t') + 1 : NULL;
	char *entry = xasprintf("%s/kernels/linux-source-6.1/v3/x86_64/%s", cache, tag ? tag : "?");

	CHECK(tag != NULL);
	free(line);
	return entry;
}

/* Removes the cached kernel of a cell of a run, so the next run builds it again. */
static void forget_kernel(const struct run *r, const char *combo)
{
	char *entry = kernel_entry(r, combo);

	remove_tree(entry);
	free(entry);
}

/* The x86_64 cells a and b of a first run, run again without their cached kernels: built
 * again, and passing. */
static struct run rerun_without_kernels(const struct run *first, const char *name,
					const char *const *args, const char *a, const char *b)
{
	struct run r;

	forget_kernel(first, a);
	forget_kernel(first, b);
	r = harness_run(name, args);
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", a, "PASS\t");
	expect_cell(&r, "x86_64", b, "PASS\t");
	return r;
}

/* The whole build log of the kernel of a cell of a run, from the cache (the cell's own is its
 * tail). */
static char *kernel_build_log(const struct run *r, const char *combo)
{
	char *entry = kernel_entry(r, combo), *path = xasprintf("%s/build.log", entry);
	char *log = read_file(path, NULL);

	free(path);
	free(entry);
	return log;
}

/* Did make run a syncconfig of its own for this cell (a SYNC line in its build log)? */
static int kbuild_synced(const struct run *r, const char *combo)
{
	char *path = xasprintf("%s/cells/6.1/v3/x86_64/%s/build.log", r->results, combo);
	char *log = read_file(path, NULL);
	int synced = !log || strstr(log, "  SYNC    include/config/");

	free(log);
	free(path);
	return synced;
}

/* A cached build failure does not outlive a rebuild: a make that failed, then a fixed one at
 * the same path with FORCE=all, then a plain rerun: PASS both times, from the new entry.
 * It runs first of all the end-to-end tests on purpose: FORCE=all empties the arch's build
 * directories, so its kernel is a clean build, and here that is the clean build the real cells
 * below would make anyway (they find its build directory warm); later, it would cost a second
 * one (212 s of a cold make test). */
TEST(e2e_force_all_clears_a_cached_build_failure)
{
	char *make = own_make("make-fixed-later", "tests/fakes/make-compile-error");
	const char *args[] = { "--arch", "x86_64", "--only", OFF, "--make", make, NULL, NULL, NULL };
	static const char fixed[] = "#!/bin/sh\nexec make \"$@\"\n";
	struct run r;

	r = harness_run("make-broken", args);
	expect_cell(&r, "x86_64", OFF, "BUILD_FAIL\t");
	run_free(&r);
	CHECK(write_file_atomic(make, fixed, sizeof(fixed) - 1) == 0 && chmod(make, 0755) == 0);
	args[6] = "--force";
	args[7] = "all";
	r = harness_run("make-fixed-forced", args);
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", OFF, "PASS\t");
	run_free(&r);
	args[6] = NULL;
	r = harness_run("make-fixed-cached", args);
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", OFF, "PASS\t");
	CHECK_CONTAINS(r.out, "build cached");
	run_free(&r);
	free(make);
}

/* The five cells on both arches, all in one build directory per arch: one clean build each,
 * then a few objects per kernel. CHECKPOINT_RESTORE=y or EPOLL=n would be one more near-clean
 * build (matrix.conf's build-split): the real CR_NO_EPOLL cell, the only one with kcmp() by
 * CHECKPOINT_RESTORE's select and no epoll, is heavy_debug_flavour_detectors_fire's (make
 * debug-check), and the config layer checks every such cell in make test (config-only). */
TEST(e2e_real_cells_both_arches)
{
	struct run r = harness_run("real", (const char *[]){ "--only", FIVE " " UNSET_KCMP " "
							      UNSET_VIA_DRM_M, NULL });
	int kernels = -1;
	const char *built = r.out ? strstr(r.out, "kernels built ") : NULL;

	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "14 cells: 14 PASS");
	/* the unset cells resolve like NO_KCMP and VIA_DRM_M: no kernel of their own */
	CHECK(built && sscanf(built, "kernels built %d", &kernels) == 1 && kernels <= 10);
	for (int a = 0; a < 2; a++) {
		char *unset = tree_cell_line(&r, "6.1", "v3", arches[a], UNSET_KCMP);
		char *same = tree_cell_line(&r, "6.1", "v3", arches[a], NO_KCMP);
		const char *tag = unset ? strrchr(unset, '\t') : NULL;

		expect_cell(&r, arches[a], UNSET_KCMP, "PASS\tenosys\tworks\tenosys\tynnny\t");
		expect_cell(&r, arches[a], UNSET_VIA_DRM_M, "PASS\tworks\tworks\tworks\tnynmy\t");
		/* the same kernel (its tag, the TSV's last column) */
		CHECK(tag && same && strstr(same, tag));
		free(unset);
		free(same);
	}
	CHECK_CONTAINS(r.out, "| y | · | n | n | y | PASS kcmp=enosys KCMP→n | PASS kcmp=enosys KCMP→n |");
	CHECK_CONTAINS(r.out, "A · in a symbol's column: the cell left it unset");
	for (int a = 0; a < 2; a++) {
		/* columns: status, kcmp, epoll, epoll_tfd, resolved EXPERT KCMP CR DRM EPOLL */
		expect_cell(&r, arches[a], OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
		expect_cell(&r, arches[a], VIA_EXPERT, "PASS\tworks\tworks\tworks\tyynny\t");
		expect_cell(&r, arches[a], NO_KCMP, "PASS\tenosys\tworks\tenosys\tynnny\t");
		expect_cell(&r, arches[a], VIA_DRM, "PASS\tworks\tworks\tworks\tnynyy\t");
		/* DRM=m, as distributions build it: it selects the bool KCMP, which is built in */
		expect_cell(&r, arches[a], VIA_DRM_M, "PASS\tworks\tworks\tworks\tnynmy\t");
	}
	/* The table marks what Kconfig did not honour: DRM and CHECKPOINT_RESTORE select KCMP. */
	CHECK_CONTAINS(r.out, "| n | n | n | y | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	CHECK_CONTAINS(r.out, "| n | n | n | n | y | PASS kcmp=enosys | PASS kcmp=enosys |");
	CHECK_CONTAINS(r.out, "| n | n | n | m | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	{
		const char *files[] = { "config", "serial.log", "build.log", "qemu.cmd" };
		char *json = xasprintf("%s/matrix.json", r.results), *text = read_file(json, NULL);

		CHECK_CONTAINS(text, "\"schema\": 1");
		CHECK_CONTAINS(text, "{\"name\": \"6.1\", \"kernel\": \"6.1.192\"");
		/* DRM's type comes from the tree; its m cells really built drm.ko, and no other
		 * cell built a module */
		CHECK_CONTAINS(text, "\"symbol_values\": {\"EXPERT\": \"ny\", \"KCMP\": \"nyu\", "
			       "\"CHECKPOINT_RESTORE\": \"ny\", \"DRM\": \"nmy\", \"EPOLL\": \"ny\"}");
		CHECK(count(text, "\"modules\": [\"") == 4);
		CHECK(count(text, "\"drivers/gpu/drm/drm.ko\"") == 4);
		CHECK_CONTAINS(text, "\"KCMP\": \"unset\"");
		CHECK_CONTAINS(text, "\"KCMP=n: left unset, no default\"");
		CHECK_CONTAINS(text, "\"KCMP=y: selected by DRM=m; a bool selected by a module is built in\"");
		/* the observables come from the rules (one field per name), in the same layout
		 * for prediction and observation, and the TSV has a column per observable, as
		 * before observables were data */
		CHECK_CONTAINS(text, "\"predicted_observed\": {\"kcmp\": \"enosys\", \"epoll\": "
			       "\"works\", \"epoll_tfd\": \"enosys\"}");
		CHECK_CONTAINS(text, "\"observed\": {\"kcmp\": \"enosys\", \"epoll\": \"works\", "
			       "\"epoll_tfd\": \"enosys\"}");
		CHECK(r.tsv && !strncmp(r.tsv, "tree\tarch\tvariant\tcombination\tstatus\tkcmp\t"
					"epoll\tepoll_tfd\tresolved\treason\tselftest\tkernel\n", 80));
		/* the tree's own kcmp selftest ran beside the guest where kcmp, epoll and
		 * epoll_tfd are predicted to work, on both arches, and passed; elsewhere not */
		CHECK(count(text, "\"selftest\": \"pass\"") == 8);
		CHECK(count(text, "\"selftest\": \"not-run\"") == 6);
		/* the default run names no flavour (a debug one: e2e_flavour_is_the_runs) */
		CHECK(!strstr(text, "\"flavour\""));
		free(text);
		free(json);
		for (size_t i = 0; i < 4; i++) {
			char *p = xasprintf("%s/cells/6.1/v3/arm64/" VIA_DRM "/%s", r.results, files[i]);

			CHECK(path_exists(p));
			free(p);
		}
	}
	run_free(&r);
}

/* The same cells again: every kernel and every boot comes from the cache, and the results are
 * the same, byte for byte. FORCE=boot boots again without building. */
TEST(e2e_rerun_reuses_the_cache)
{
	struct run first = harness_run("rerun-1", (const char *[]){ "--only", FIVE, NULL });
	struct run again = harness_run("rerun-2", (const char *[]){ "--only", FIVE, NULL });
	struct run forced = harness_run("rerun-forced", (const char *[]){ "--only", OFF, "--arch",
									  "arm64", "--force", "boot",
									  NULL });
	int cached = 0;

	for (const char *p = again.out; p && (p = strstr(p, "build cached 0.0s boot cached")); p++)
		cached++;
	CHECK(again.status == 0);
	CHECK(cached == 10);
	CHECK(first.tsv && again.tsv && !strcmp(first.tsv, again.tsv));
	CHECK(forced.status == 0);
	/* booted again (however long it took), not read from the cache */
	CHECK_CONTAINS(forced.out, "build cached 0.0s boot ");
	CHECK(!strstr(forced.out, "boot cached"));
	run_free(&first);
	run_free(&again);
	run_free(&forced);
}

/* A rules file that forgets DRM selects KCMP: the config layer must catch it. */
TEST(e2e_wrong_rules_fail_at_config_layer)
{
	char *dir = scratch_copy("matrix", "matrix-wrong");
	char *rules = xasprintf("%s/rules/v3.rules", dir), *text;
	const char *args[] = { "--matrix", dir, "--arch", "x86_64", "--only", VIA_DRM, NULL };
	struct run r;

	text = read_file(rules, NULL);
	CHECK(text && strstr(text, "\tselected-by DRM\n"));
	if (text) {
		char *at = strstr(text, "\tselected-by DRM\n");

		memmove(at, at + 17, strlen(at + 17) + 1);
		write_file_atomic(rules, text, strlen(text));
	}
	r = harness_run("wrong-rules", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_DRM, "FAIL\tworks\tworks\tworks\tnynyy\tconfig: KCMP predicted n, "
		    "resolved y");
	run_free(&r);
	/* Rules that forget the promotion: DRM selects KCMP only when built in. DRM=y still
	 * passes; DRM=m, the distributions' case, fails at the config layer. */
	CHECK(copy_file("matrix/rules/v3.rules", rules) == 0);	/* the text above was edited */
	edit_file(rules, "\tselected-by DRM\n", "\tselected-by DRM if DRM=y\n");
	r = harness_run("forgotten-promotion", (const char *[]){ "--matrix", dir, "--arch", "x86_64",
								  "--only", VIA_DRM " " VIA_DRM_M, NULL });
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_DRM, "PASS\tworks\tworks\tworks\tnynyy\t");
	expect_cell(&r, "x86_64", VIA_DRM_M, "FAIL\tworks\tworks\tworks\tnynmy\tconfig: KCMP predicted "
		    "n, resolved y (rules: KCMP=n: prompt hidden, no default)");
	run_free(&r);
	free(text);
	free(rules);
	free(dir);
}

/* The config layer of every cell of every variant on both arches of both trees, with no kernel
 * built: the pre and v1 rules, and the rules' claim that 6.12's Kconfig logic is 6.1's, are
 * checked against real Kconfig on every run, not only where a kernel is built (v3's are, by
 * every built cell). A v3 rules file that forgets DRM selects KCMP fails
 * exactly the cells where that matters. The in-process resolver makes this cheap: one Kconfig
 * parse per group instead of one olddefconfig per cell (about 9 minutes cold for the 288). */
/* A config Kconfig cannot resolve: make olddefconfig fails (a make that fails that target and
 * runs every other as the real one does). The cells are CONFIG_FAIL, judged once, saying
 * why; nothing is cached, so the next run with a working make resolves them. In a cache of
 * its own whose trees are links to the shared one's: its configs must not be found there. */
TEST(e2e_unresolvable_config_is_config_fail)
{
	char *own = xasprintf("%s/config-fail-cache", scratch), *shared = cache;
	char *link = xasprintf("mkdir -p %s/src %s/trees && cp -al %s/src/linux-source-6.1* %s/src "
			       "&& cp -al %s/trees/linux-source-6.1 %s/trees", own, own, shared, own,
			       shared, own);
	char *make = xasprintf("%s/olddefconfig-fails.make", scratch);
	static const char fake[] = "#!/bin/sh\n"
				   "case \" $* \" in *\" olddefconfig \"*)\n"
				   "\techo 'fake make: olddefconfig refused' >&2; exit 2;;\n"
				   "esac\nexec make \"$@\"\n";
	const char *cp[] = { "sh", "-c", link, NULL };
	const char *args[] = { "--config-only", "--arch", "x86_64", "--resolve-with", "olddefconfig",
			       "--only", NO_KCMP " " UNSET_KCMP, "--make", make, NULL };
	struct spawn_result res;
	struct run broken, fixed;

	CHECK(spawn_run(&(struct spawn_req){ .argv = cp }, &res) == 0 && res.status == 0);
	CHECK(write_file_atomic(make, fake, sizeof(fake) - 1) == 0 && chmod(make, 0755) == 0);
	cache = own;
	broken = harness_run("config-fail", args);
	args[8] = "make";
	fixed = harness_run("config-fail-fixed", args);
	cache = shared;
	CHECK(broken.status == 1);
	CHECK_CONTAINS(broken.out, "\n2 cells: 2 CONFIG_FAIL\n");
	expect_cell(&broken, "x86_64", UNSET_KCMP, "CONFIG_FAIL\t-\t-\t-\t");
	CHECK_CONTAINS(broken.out, "olddefconfig' failed for x86_64 with status 2");
	CHECK(fixed.status == 0);
	CHECK_CONTAINS(fixed.out, "\n2 cells: 2 CONFIG_OK\n");
	run_free(&fixed);
	run_free(&broken);
	free(make);
	free(link);
	free(own);
}

/* A flavour adds its fragments to every kernel's base, and the run says so: the debug
 * flavour's configs (config-only: its kernels are heavy builds, built by make debug-check)
 * hold its detectors, the table names the flavour, and so does matrix.json. */
TEST(e2e_flavour_is_the_runs)
{
	struct run r = harness_run("flavour-debug", (const char *[]){ "--config-only", "--arch",
								       "x86_64", "--only", CR_NO_EPOLL,
								       "--flavour", "debug", NULL });
	char *json = results_file(&r, "matrix.json");
	char *config = xasprintf("%s/cells/6.1/v3/x86_64/" CR_NO_EPOLL "/config", r.results);
	char *text = read_file(config, NULL);

	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", CR_NO_EPOLL, "CONFIG_OK\t-\t-\t-\tyyynn\t");
	CHECK_CONTAINS(r.out, "Flavour debug: every kernel has its base fragments too.");
	CHECK_CONTAINS(json, "\"flavour\": \"debug\"");
	CHECK_CONTAINS(text, "\nCONFIG_PROVE_LOCKING=y\n");
	CHECK_CONTAINS(text, "\nCONFIG_DETECT_HUNG_TASK=y\n");
	free(text);
	free(config);
	free(json);
	run_free(&r);
}

TEST(e2e_config_only_sweep_of_every_variant)
{
	char *dir = scratch_copy("matrix", "matrix-sweep");
	char *rules = xasprintf("%s/rules/v3.rules", dir);
	struct run all = harness_run("config-sweep", (const char *[]){ "--config-only", "--variants",
								       "pre,v1,v3", "--trees",
								       "6.1,6.12", NULL });
	struct run wrong;

	CHECK(all.status == 0);
	/* 48 combinations of requests and 24 with KCMP left unset, per variant, arch and tree */
	CHECK_CONTAINS(all.out, "\n864 cells: 864 CONFIG_OK\n");
	CHECK(all.out && !strstr(all.out, "building") && !strstr(all.out, "booting"));
	/* both trees' six groups were resolved in forks first, in one queue (prefetch_configs),
	 * and the values below are what the run then read back from the cache */
	CHECK_CONTAINS(all.out, "] 6.1, 6.12: configs of 12 variant and arch pairs in ");
	for (size_t a = 0; a < 2; a++)
		for (int t = 0; t < 2; t++) {
			const char *tree = t ? "6.12" : "6.1";
			char *pre = tree_cell_line(&all, tree, "pre", arches[a], VIA_DRM_M);
			char *v1 = tree_cell_line(&all, tree, "v1", arches[a], OFF);
			char *v3 = tree_cell_line(&all, tree, "v3", arches[a], VIA_DRM_M);

			CHECK(pre && strstr(pre, "\tCONFIG_OK\t-\t-\t-\tn-nmy\t"));
			CHECK(v1 && strstr(v1, "\tCONFIG_OK\t-\t-\t-\tnynny\t"));
			CHECK(v3 && strstr(v3, "\tCONFIG_OK\t-\t-\t-\tnynmy\t"));
			free(pre);
			free(v1);
			free(v3);
			/* KCMP left unset, by hand from each variant's init/Kconfig: pre has no
			 * KCMP; v1's default is y, visible prompt or not; v3 has none, so only
			 * DRM's select gives it */
			for (int u = 0; u < 2; u++) {
				static const char *const want[2][3] = {
					{ "\ty-nny\t", "\tyynny\t", "\tynnny\t" },
					{ "\tn-nmy\t", "\tnynmy\t", "\tnynmy\t" } };
				static const char *const variants[] = { "pre", "v1", "v3" };
				const char *combo = u ? UNSET_VIA_DRM_M : UNSET_KCMP;

				for (int v = 0; v < 3; v++) {
					char *line = tree_cell_line(&all, tree, variants[v], arches[a],
								    combo);

					CHECK(line && strstr(line, "\tCONFIG_OK\t") &&
					      strstr(line, want[u][v]));
					free(line);
				}
			}
		}
	/* the line that names where v1 and v3 differ by a default, the visible one too */
	CHECK_CONTAINS(all.out, "\nDefaults that differ between variants (no request decided):\n");
	CHECK_CONTAINS(all.out, "  KCMP left unset: v1 gives y, v3 gives n (8 cells each, where "
		       "EXPERT=y,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n)\n");
	edit_file(rules, "\tselected-by DRM\n", "");
	wrong = harness_run("config-sweep-wrong", (const char *[]){ "--config-only", "--matrix", dir,
								    NULL });
	CHECK(wrong.status == 1);
	/* DRM=y or m, CHECKPOINT_RESTORE=n, and not EXPERT=y with KCMP=y (the only other way to
	 * KCMP=y): 2 DRM values x 5 (EXPERT, KCMP: n, y or unset) x 2 EPOLL = 20 cells per
	 * arch */
	CHECK_CONTAINS(wrong.out, "\n144 cells: 40 FAIL 104 CONFIG_OK\n");
	for (size_t a = 0; a < 2; a++)
		expect_cell(&wrong, arches[a], VIA_DRM_M, "FAIL\t-\t-\t-\tnynmy\tconfig: KCMP "
			    "predicted n, resolved y");
	run_free(&wrong);
	run_free(&all);
	free(rules);
	free(dir);
}

/* Every arch Debian ships a cross compiler and a QEMU for (--arch all: matrix.conf's arches
 * and extra-arches), planned on one tree: every cell resolves as the rules predict, with each
 * arch's own symbols (arches.conf's kconfig lines) in the prediction. By hand from the trees'
 * Kconfig: DRM depends on HAS_IOMEM (drivers/video/Kconfig's "if HAS_IOMEM"), which s390
 * defines as PCI (arch/s390/Kconfig) and its base leaves off, so there a DRM request is not
 * honoured and DRM selects no KCMP; on the six others DRM=m selects KCMP=y. The same plan
 * without HAS_IOMEM in the rules fails exactly s390x's DRM cells, and an arches.conf that
 * gives s390x HAS_IOMEM=y is refused against the base config, before any cell is judged. */
TEST(e2e_plan_of_every_arch)
{
	static const char *const every[] = { "x86_64", "arm64", "i386", "armhf", "riscv64",
					     "ppc64el", "s390x" };
	char *dir = scratch_copy("matrix", "matrix-every-arch");
	char *rules = xasprintf("%s/rules/v3.rules", dir), *conf = xasprintf("%s/arches.conf", dir);
	const char *args[] = { "--config-only", "--arch", "all", "--trees", "6.12", "--variants",
			       "v3", NULL, NULL, NULL };
	struct run all = harness_run("plan-every-arch", args), blind, lying;

	CHECK(all.status == 0);
	/* 72 combinations (48 requests, 24 with KCMP unset) on each of the seven arches */
	CHECK_CONTAINS(all.out, "\n504 cells: 504 CONFIG_OK\n");
	for (size_t a = 0; a < sizeof(every) / sizeof(every[0]); a++) {
		int s390 = !strcmp(every[a], "s390x");
		char *drm = tree_cell_line(&all, NULL, "v3", every[a], VIA_DRM_M);
		char *off = tree_cell_line(&all, NULL, "v3", every[a], OFF);

		if (!drm || !strstr(drm, s390 ? "\tCONFIG_OK\t-\t-\t-\tnnnny\t"
					      : "\tCONFIG_OK\t-\t-\t-\tnynmy\t"))
			printf("# %s: %s\n", every[a], drm ? drm : "(no line)");
		CHECK(drm && strstr(drm, s390 ? "\tCONFIG_OK\t-\t-\t-\tnnnny\t"
					      : "\tCONFIG_OK\t-\t-\t-\tnynmy\t"));
		CHECK(off && strstr(off, "\tCONFIG_OK\t-\t-\t-\tnnnny\t"));
		free(drm);
		free(off);
	}
	/* the table shows the value s390x does not allow as what Kconfig made of it */
	CHECK_CONTAINS(all.out, "CONFIG_OK DRM→n |\n");
	/* rules blind to the arch: s390x's 48 DRM=m and DRM=y cells fail, nothing else */
	edit_file(rules, " && HAS_IOMEM\n", "\n");
	args[7] = "--matrix";
	args[8] = dir;
	blind = harness_run("plan-every-arch-blind", args);
	CHECK(blind.status == 1);
	CHECK_CONTAINS(blind.out, "\n504 cells: 48 FAIL 456 CONFIG_OK\n");
	expect_variant_cell(&blind, "v3", "s390x", VIA_DRM_M, "FAIL\t-\t-\t-\tnnnny\tconfig: ");
	CHECK_CONTAINS(blind.out, "DRM predicted m, resolved n");
	/* an arch that says what its base config does not have is bad input */
	edit_file(rules, "&& HAS_DMA\n", "&& HAS_DMA && HAS_IOMEM\n");
	edit_file(conf, "HAS_IOMEM=n", "HAS_IOMEM=y");
	lying = harness_run("plan-every-arch-lying", args);
	CHECK(lying.status == 2);
	CHECK_CONTAINS(lying.out, "arches.conf: arch 's390x' gives HAS_IOMEM=y, but its base "
		       "config for linux-source-6.12 (v3) has HAS_IOMEM=n; correct its kconfig line");
	run_free(&lying);
	run_free(&blind);
	run_free(&all);
	free(conf);
	free(rules);
	free(dir);
}

/* A v3 whose KCMP default differs from its rules only where the prompt is visible ("default y
 * if EXPERT": v1's answer to an EXPERT=y config that never mentions KCMP): every cell that
 * requests KCMP passes, as the whole matrix did before KCMP took unset, and the unset cells
 * with the prompt visible and nothing selecting KCMP fail at the config layer, and only
 * those. */
TEST(e2e_flipped_default_fails_in_the_unset_cells_only)
{
	static const struct edit edits[] = {
		{ "init/Kconfig", "\tbool \"Enable kcmp() system call\" if EXPERT\n",
		  "\tbool \"Enable kcmp() system call\" if EXPERT\n\tdefault y if EXPERT\n" },
		{ 0 } };
	char *patches = mutant_series("kernel-patch", "patches-default-y", "v3", edits);
	const char *only = "EXPERT=y,CHECKPOINT_RESTORE=n DRM=m,EXPERT=n";
	struct run r = harness_run("flipped-default", (const char *[]){ "--config-only",
									 "--patches", patches,
									 "--arch", "x86_64",
									 "--only", only, NULL });
	struct run before = harness_run("flipped-default-requested", (const char *[]){
		"--config-only", "--patches", patches, "--arch", "x86_64", "--only", only,
		"--unset", "none", NULL });

	/* EXPERT=y,CR=n: 3 KCMP x 3 DRM x 2 EPOLL; DRM=m,EXPERT=n: 3 KCMP x 2 CR x 2 EPOLL
	 * (without unset: 2 KCMP values, 12 + 8 cells) */
	CHECK(before.status == 0);
	CHECK_CONTAINS(before.out, "\n20 cells: 20 CONFIG_OK\n");
	CHECK(r.status == 1);
	CHECK_CONTAINS(r.out, "\n30 cells: 2 FAIL 28 CONFIG_OK\n");
	expect_cell(&r, "x86_64", UNSET_KCMP, "FAIL\t-\t-\t-\tyynny\tconfig: KCMP predicted n, "
		    "resolved y (rules: KCMP=n: left unset, no default)");
	expect_cell(&r, "x86_64", "EXPERT=y,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=n",
		    "FAIL\t-\t-\t-\tyynnn\t");
	expect_cell(&r, "x86_64", UNSET_VIA_DRM_M, "CONFIG_OK\t-\t-\t-\tnynmy\t");
	expect_cell(&r, "x86_64", NO_KCMP, "CONFIG_OK\t-\t-\t-\tynnny\t");
	run_free(&before);
	run_free(&r);
	free(patches);
}

/* The in-process resolver (harness/resolver.h) against the olddefconfig it replaces, on a whole
 * group: the cells of v3 x86_64 with EPOLL=y, byte for byte, and its base against Kbuild's
 * allnoconfig. The in-process side is made afresh each time (--force all: its Kconfig kit and $(shell) memo too,
 * and its session's log must list v3's base and all 72 of its cells); the olddefconfig side is
 * cached by tree and request like any resolution, so only a cold cache pays its two minutes.
 * The in-process run has pre and v1 too, before v3: the groups share the kit, so v3's base and
 * cells are made entirely from the memo's answers, recorded by the parses before it, and those
 * are what is checked against olddefconfig. The kit starts from the tree's Kconfig host
 * programs and resolver, compiled and linked once for every arch (made afresh by --force all
 * too). The kit's own make allnoconfig records the first answers, so no group's parse runs a
 * probe. Each group's session parses once: its base is made by conf's main in a fork of the
 * parsed process, and its cells are resolved after it, in the process conf's main did not
 * touch. */
TEST(e2e_in_process_kconfig_equals_olddefconfig)
{
	/* olddefconfig's side takes the 36 cells with EPOLL=y. It leaves out the 18 with
	 * EXPERT=n and EPOLL=n, whose EPOLL request the hidden prompt ignores (the EXPERT=n,
	 * KCMP=y cells' path too), and the 18 with EXPERT=y and EPOLL=n, a visible bool set to n
	 * (the KCMP=n and CHECKPOINT_RESTORE=n cells' path too): each olddefconfig costs a cold
	 * CI about 1.2 s */
	struct run ref = harness_run("resolve-olddefconfig", (const char *[]){
		"--config-only", "--arch", "x86_64", "--resolve-with", "olddefconfig", "--only",
		"EPOLL=y", NULL });
	struct run fresh = harness_run("resolve-in-process", (const char *[]){
		"--config-only", "--arch", "x86_64", "--force", "all", "--variants", "pre,v1,v3",
		NULL });
	char *log = group_file("v3", "kconfig.log"), *first_log = group_file("pre", "kconfig.log");
	char *base = group_file("v3", "base.config"), *kbuild_base = kbuild_allnoconfig("v3");
	char *kit = xasprintf("%s/kconfig-kit/linux-source-6.1/x86_64/kit.key", cache);
	char *kit_log = xasprintf("%s/kconfig-kit/linux-source-6.1/x86_64/kconfig.log", cache);
	char *host_log = xasprintf("%s/kconfig-kit/linux-source-6.1/host/kconfig.log", cache);
	char *host_resolver = xasprintf("%s/kconfig-kit/linux-source-6.1/host/kcmpm-resolve", cache);
	char *kit_resolver = xasprintf("%s/kconfig-kit/linux-source-6.1/x86_64/kcmpm-resolve",
				       cache);
	char *kit_text = read_file(kit_log, NULL), *host_text = read_file(host_log, NULL);
	int compared = 0, differ = 0;

	CHECK(ref.status == 0 && fresh.status == 0);
	/* 24 requested combinations and 12 that leave KCMP unset, whose requests have no KCMP
	 * line at all: the resolver must treat the missing line as olddefconfig does */
	CHECK_CONTAINS(ref.out, "\n36 cells: 36 CONFIG_OK\n");
	CHECK_CONTAINS(fresh.out, "\n216 cells: 216 CONFIG_OK\n");
	/* one session made v3's base and resolved its cells: one parse, one memo report */
	CHECK(count_lines_starting(log, "kcmpm-resolve: based ") == 1);
	CHECK(count_lines_starting(log, "kcmpm-resolve: resolved ") == 72);
	CHECK(count_lines_starting(log, "kcmpm-resolve: $(shell) memo: ") == 2);
	CHECK(path_exists(kit));
	CHECK_CONTAINS(log, " answered, 0 run\n");
	/* the kit's own make allnoconfig (Kbuild's conf, linked with the memo) recorded the
	 * probes, so even the first group's parse runs none */
	CHECK_CONTAINS(first_log, " answered, 0 run\n");
	/* the tree's Kconfig host programs were compiled and linked once, for every arch's kit:
	 * a copy of them started this kit, and Kbuild found each one's command unchanged, conf's
	 * link with the $(shell) memo too (its parse reported the memo); the kit's resolver is
	 * the one linked beside them; and the configs compared below were made with these */
	CHECK_CONTAINS(host_text, "HOSTCC  scripts/kconfig/confdata.o\n");
	CHECK_CONTAINS(host_text, "HOSTLD  scripts/kconfig/conf\n");
	CHECK(kit_text && !strstr(kit_text, "HOSTCC  ") && !strstr(kit_text, "HOSTLD  "));
	CHECK_CONTAINS(kit_text, "kcmpm-resolve: $(shell) memo: ");
	CHECK(same_file(host_resolver, kit_resolver));
	if (!base || !kbuild_base || strcmp(base, kbuild_base))
		printf("# 6.1/v3/x86_64: the session's base config differs from make allnoconfig's\n");
	CHECK(base && kbuild_base && !strcmp(base, kbuild_base));
	differ = configs_differing(ref.results, fresh.results, "6.1/v3/x86_64", &compared);
	CHECK(compared == 36 && differ == 0);
	free(kit_text);
	free(host_text);
	free(kit_log);
	free(host_log);
	free(host_resolver);
	free(kit_resolver);
	free(kit);
	free(kbuild_base);
	free(base);
	free(first_log);
	free(log);
	run_free(&ref);
	run_free(&fresh);
}

/* A cold config-only run with more groups than jobs: the queue of forks (prefetch_configs)
 * starts with every tree's Kconfig host programs, so 6.12's are compiled while 6.1's are,
 * rather than after 6.1's kits and groups have taken the forks. In a cache of its own whose
 * trees are links to the shared one's (nothing else made), like bench.sh's plan step. */
TEST(e2e_cold_plan_makes_every_trees_host_programs_first)
{
	char *cold = xasprintf("%s/cold-cache", scratch), *shared = cache;
	/* the two trees only (links are cheap, but not the KSRC trees of other tests) */
	char *link = xasprintf("mkdir -p %s/src %s/trees && cp -al %s/src/linux-source-6.1* %s/src "
			       "&& cp -al %s/trees/linux-source-6.1 %s/trees/linux-source-6.12 "
			       "%s/trees", cold, cold, shared, cold, shared, shared, cold);
	const char *cp[] = { "sh", "-c", link, NULL };
	char *host = xasprintf("%s/kconfig-kit/linux-source-6.12/host/empty.Kconfig", cold);
	char *kit = xasprintf("%s/kconfig-kit/linux-source-6.1/x86_64/kit.key", cold);
	struct spawn_result res;
	struct run r;

	CHECK(spawn_run(&(struct spawn_req){ .argv = cp }, &res) == 0 && res.status == 0);
	cache = cold;
	r = harness_run("cold-plan", (const char *[]){ "--config-only", "--arch", "x86_64",
						       "--variants", "pre,v3", "--trees", "6.1,6.12",
						       "--jobs", "2", NULL });
	cache = shared;
	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "\n288 cells: 288 CONFIG_OK\n");	/* 2 x 2 x 72 */
	CHECK_CONTAINS(r.out, "] 6.1, 6.12: configs of 4 variant and arch pairs in ");
	/* 6.12's host programs were begun before 6.1's first kit was done */
	printf("# 6.12's host programs begun %.1f s before 6.1's x86_64 kit was done\n",
	       written_at(kit) - written_at(host));
	CHECK(written_at(host) > 0 && written_at(kit) > written_at(host));
	run_free(&r);
	remove_tree(cold);
	free(kit);
	free(host);
	free(link);
	free(cold);
}

/* The $(shell) answers that the Kconfig kits of every tree share for one compiler and arch
 * (kcmpm_memo.c's toolchain memo): with everything made afresh, 6.1's kit runs every probe and
 * 6.12's, made after it, takes from it the answers of the commands that name no tree (most of
 * $(cc-option) and friends). Those answers must be right for 6.12: its configs made with that
 * kit equal its olddefconfig's, byte for byte (every config holds every probe's symbol). The
 * olddefconfig side is cached like any resolution. */
TEST(e2e_second_tree_takes_the_toolchain_answers)
{
	const char *only = "EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=n";
	struct run ref = harness_run("toolchain-olddefconfig", (const char *[]){
		"--config-only", "--arch", "x86_64", "--trees", "6.12", "--only", only,
		"--resolve-with", "olddefconfig", NULL });
	struct run fresh = harness_run("toolchain-shared", (const char *[]){
		"--config-only", "--arch", "x86_64", "--trees", "6.1,6.12", "--only", only,
		"--force", "all", NULL });
	int first = toolchain_answers("linux-source-6.1");
	int second = toolchain_answers("linux-source-6.12");
	int compared = 0, differ;

	CHECK(ref.status == 0 && fresh.status == 0);
	CHECK_CONTAINS(ref.out, "\n6 cells: 6 CONFIG_OK\n");
	CHECK_CONTAINS(fresh.out, "\n12 cells: 12 CONFIG_OK\n");
	printf("# toolchain answers taken: 6.1's kit %d, 6.12's kit %d\n", first, second);
	CHECK(first == 0);
	/* gcc 12: 85 of 6.12 x86_64's 107 commands name no tree and read no variable, and 60 of
	 * those are 6.1's too */
	CHECK(second >= 50);
	differ = configs_differing(ref.results, fresh.results, "6.12/v3/x86_64", &compared);
	CHECK(compared == 6 && differ == 0);
	run_free(&ref);
	run_free(&fresh);
}

/* The kernel build's syncconfig done in process: kernels rebuilt in a warm build directory
 * are synced by one resolver server, so make runs no syncconfig of its own, and the files the
 * server wrote for the last of them (not only the first: Kconfig empties its list of the
 * environment variables as it writes it) are byte for byte those Kbuild's own syncconfig
 * writes for that .config. */
TEST(e2e_in_process_syncconfig_equals_kbuilds)
{
	static const char *const files[] = { "include/config/auto.conf",
					     "include/config/auto.conf.cmd",
					     "include/generated/autoconf.h" };
	const char *args[] = { "--arch", "x86_64", "--only", OFF " " VIA_EXPERT, NULL };
	struct run first = harness_run("sync-first", args), again;
	char *ours[3] = { 0 }, *out;
	char *worktree = xasprintf("%s/worktree/linux-source-6.1/x86_64", cache);
	char *odir = xasprintf("O=%s/" OFF_BUILD_DIR, cache);
	char *config = xasprintf("%s/" OFF_BUILD_DIR "/.config", cache);
	const char *make[] = { "make", "-C", worktree, odir, "ARCH=x86_64", "CROSS_COMPILE=",
			       "syncconfig", NULL };
	int status;

	CHECK(first.status == 0);
	/* without their cached kernels the cells are built again, incrementally, and synced */
	again = rerun_without_kernels(&first, "sync-again", args, OFF, VIA_EXPERT);
	CHECK_CONTAINS(again.out, "kernels built 2, synced in process 2, ");
	CHECK(!kbuild_synced(&again, OFF) && !kbuild_synced(&again, VIA_EXPERT));
	for (int i = 0; i < 3; i++)
		ours[i] = build_dir_file(files[i]);
	/* Kbuild's own syncconfig of the same .config, with the harness's make arguments */
	CHECK(utimensat(AT_FDCWD, config, NULL, 0) == 0);
	out = tool_run("kbuild-syncconfig", make, &status);
	CHECK(status == 0);
	for (int i = 0; i < 3; i++) {
		char *kbuild = build_dir_file(files[i]);

		if (!ours[i] || !kbuild || strcmp(ours[i], kbuild))
			printf("# %s: the in-process sync wrote other content than Kbuild's\n",
			       files[i]);
		CHECK(ours[i] && kbuild && !strcmp(ours[i], kbuild));
		free(kbuild);
		free(ours[i]);
	}
	free(out);
	free(config);
	free(odir);
	free(worktree);
	run_free(&again);
	run_free(&first);
}

/* A build directory used for the first time starts from the nearest one (here the one at the
 * build path, which differs in DRM alone), at the same path: Kbuild recompiles what the config
 * change needs (DRM's core, n to y), not the whole kernel.
 * (At another path, x86's objtool, whose .cmd files name its absolute output path, is rebuilt,
 * and every object that depends on it with it.) */
TEST(e2e_new_build_dir_recompiles_only_what_changed)
{
	const char *both[] = { "--arch", "x86_64", "--only", OFF " " VIA_DRM, NULL };
	const char *off[] = { "--arch", "x86_64", "--only", OFF, NULL };
	struct run first = harness_run("newdir-1", both), at_off, again;
	char *waiting = xasprintf("%s/" OFF_BUILD_DIR ".CHECKPOINT_RESTORE-n.EPOLL-y.DRM-y", cache);
	char *off_dir = xasprintf("%s/" OFF_BUILD_DIR ".CHECKPOINT_RESTORE-n.EPOLL-y.DRM-n", cache);
	char *build_path = xasprintf("%s/" OFF_BUILD_DIR, cache), *held, *log;
	int objects, compiled;

	CHECK(first.status == 0);
	/* the build path holds OFF's directory (DRM=n), and VIA_DRM's (DRM=y) is not there */
	forget_kernel(&first, OFF);
	at_off = harness_run("newdir-2", off);
	CHECK(at_off.status == 0);
	held = build_dir_file(".kcmpm-dir-key");
	CHECK_STR(held, "CHECKPOINT_RESTORE-n.EPOLL-y.DRM-n");
	remove_tree(waiting);
	again = rerun_without_kernels(&first, "newdir-3", both, OFF, VIA_DRM);
	/* both directories are kept, whichever of them is at the build path */
	free(held);
	held = build_dir_file(".kcmpm-dir-key");
	CHECK(held && (!strcmp(held, "CHECKPOINT_RESTORE-n.EPOLL-y.DRM-y") ? path_exists(off_dir)
									 : path_exists(waiting)));
	objects = count_files_named(build_path, "*.o.cmd");
	log = kernel_build_log(&again, VIA_DRM);
	compiled = count(log, "\n  CC ");
	printf("# DRM=n to y in a new build directory: %d objects compiled of %d\n", compiled,
	       objects);
	CHECK(objects > 500 && compiled > 20 && compiled < objects / 4);
	CHECK(log && !strstr(log, "tools/objtool/check.o"));
	free(log);
	free(held);
	free(build_path);
	free(off_dir);
	free(waiting);
	run_free(&again);
	run_free(&at_off);
	run_free(&first);
}
