/* e2e_trees: variants and trees: KSRC, pre+v3 equal to the installed tree, 6.1 and 6.12 side by side, v1
 * XFAIL, a stale declaration XPASS, a bad series; and the second question (membarrier). See e2e.h. */
#include "e2e.h"

/* The second question (questions/membarrier), asked of real kernels on both arches with no
 * harness C of its own. Expected values read by hand from init/Kconfig: MEMBARRIER and RSEQ
 * are "if EXPERT", default y, and RSEQ selects MEMBARRIER. Its cells where both are off are
 * judged at the config layer only: RSEQ=n changes struct task_struct, so their kernels would
 * be a heavy switch of each arch's build directory, a near-clean build, on a cold cache. */
#define MB_DEFAULTS "EXPERT=n,MEMBARRIER=n,RSEQ=n"	/* not honoured: both y */

#define MB_OFF "EXPERT=y,MEMBARRIER=n,RSEQ=n"		/* both off */

#define MB_BY_RSEQ "EXPERT=y,MEMBARRIER=n,RSEQ=y"	/* RSEQ selects MEMBARRIER */

/* A KSRC tree (a copy of the pristine one, hard links) is a tree of its own: named by its path,
 * nothing of it cached, its configs resolved in it. Config layer only: its first kernel would
 * be a clean build, and the build and boot code it would run is every tree's. */
TEST(e2e_ksrc_tree_resolves_its_own_configs)
{
	char *pristine = xasprintf("%s/src/linux-source-6.1", cache);
	char *tree = xasprintf("%s/ksrc-6.1", scratch);
	const char *cp[] = { "cp", "-al", pristine, tree, NULL };
	struct spawn_result res;
	struct run r;

	CHECK(spawn_run(&(struct spawn_req){ .argv = cp }, &res) == 0 && res.status == 0);
	r = harness_run("ksrc", (const char *[]){ "--ksrc", tree, "--config-only", "--arch",
						  "x86_64", "--only", OFF " " VIA_DRM_M, NULL });
	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "kcmp-matrix: tree ksrc: kernel 6.1.192 from ");
	CHECK_CONTAINS(r.out, "2 cells: 2 CONFIG_OK");
	/* the first config makes the Kconfig objects (make olddefconfig); the other is resolved
	 * by a resolver linked there, in a session of its own (no kit for a tree that may
	 * change) */
	CHECK(!strstr(r.out, "olddefconfig instead"));
	{
		char *off = tree_cell_line(&r, "ksrc", "v3", "x86_64", OFF);
		char *drm = tree_cell_line(&r, "ksrc", "v3", "x86_64", VIA_DRM_M);

		CHECK(off && strstr(off, "\tCONFIG_OK\t-\t-\t-\tnnnny\t"));
		CHECK(drm && strstr(drm, "\tCONFIG_OK\t-\t-\t-\tnynmy\t"));
		free(off);
		free(drm);
	}
	run_free(&r);
	free(tree);
	free(pristine);
}

/* For every tree Debian installs, pre followed by the rebased v3 (the series rebased for that
 * tree where its context differs: kernel-patch/<variant>/6.12/) gives back the installed tree,
 * byte for byte. */
TEST(e2e_pre_plus_v3_is_the_installed_tree)
{
	static const char *const trees[][3] = {
		{ "/usr/src/linux-source-6.1.tar.xz", "linux-source-6.1", "kernel-patch/v3" },
		{ "/usr/src/linux-source-6.12.tar.xz", "linux-source-6.12", "kernel-patch/v3/6.12" },
	};

	for (size_t k = 0; k < sizeof(trees) / sizeof(trees[0]); k++) {
		struct tree pristine;
		struct variant_tree vt;
		char err[1024] = "", diff[4096], *v3_dir, *pre_dir;

		CHECK(tree_from_tarball(trees[k][0], trees[k][1], cache, &pristine, err,
					sizeof(err)) == 0);
		v3_dir = variant_series_dir("kernel-patch/v3", pristine.version);
		pre_dir = variant_series_dir("kernel-patch/pre", pristine.version);
		CHECK_STR(v3_dir, trees[k][2]);
		CHECK(variant_prepare(v3_dir, "kernel-patch", "v3", &pristine, cache, &vt, err, sizeof(err)) == 0);
		CHECK_STR(err, "");
		CHECK(vt.path && strcmp(vt.path, pristine.path));  /* a patched copy, not the tree */
		if (vt.path) {
			CHECK(same_trees(pristine.path, vt.path, diff, sizeof(diff)));
			if (diff[0])
				printf("# %s differences: %s\n", trees[k][1], diff);
		}
		variant_tree_free(&vt);
		/* ...and pre alone does differ, in the files the series touches */
		CHECK(variant_prepare(pre_dir, "kernel-patch", "pre", &pristine, cache, &vt, err, sizeof(err)) == 0);
		if (vt.path) {
			CHECK(!same_trees(pristine.path, vt.path, diff, sizeof(diff)));
			CHECK_CONTAINS(diff, "init/Kconfig");
			CHECK_CONTAINS(diff, "drivers/gpu/drm/Kconfig");
		}
		variant_tree_free(&vt);
		tree_free(&pristine);
		free(v3_dir);
		free(pre_dir);
	}
}

/* Both trees Debian ships, side by side in one run: 6.12's cells resolved from its own tree with
 * the series rebased for it and judged by the same rules (its Kconfig logic for these symbols
 * is 6.1's); the table, TSV, JSON and JUnit carry the tree. At the config layer, on x86_64: a
 * tree's first kernel is a clean build, the dearest thing a cold cache pays, and a cold make
 * test must fit in CI's time; e2e_pre_plus_v3_is_the_installed_tree shows 6.12's rebased
 * series gives back the tree Debian built, and the nightly matrix builds and boots 6.12 on
 * both arches. */
TEST(e2e_trees_6_1_and_6_12_side_by_side)
{
	const char *args[] = { "--trees", "6.1,6.12", "--arch", "x86_64", "--config-only", "--only",
			       OFF " " VIA_DRM_M, NULL };
	struct run r = harness_run("trees", args);
	char *json = xasprintf("%s/matrix.json", r.results), *text = read_file(json, NULL);
	char *junit = xasprintf("%s/junit.xml", r.results), *xml = read_file(junit, NULL);

	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "4 cells: 4 CONFIG_OK");
	CHECK_CONTAINS(r.out, "kcmp-matrix: tree 6.12: kernel 6.12.118 from ");
	for (int t = 0; t < 2; t++) {
		const char *tree = t ? "6.12" : "6.1";
		char *off = tree_cell_line(&r, tree, "v3", "x86_64", OFF);
		char *drm = tree_cell_line(&r, tree, "v3", "x86_64", VIA_DRM_M);

		CHECK(off && strstr(off, "\tCONFIG_OK\t-\t-\t-\tnnnny\t"));
		CHECK(drm && strstr(drm, "\tCONFIG_OK\t-\t-\t-\tnynmy\t"));
		free(off);
		free(drm);
	}
	CHECK_CONTAINS(r.out, "| 6.1 x86_64 v3 | 6.12 x86_64 v3 |");
	CHECK_CONTAINS(text, "{\"name\": \"6.12\", \"kernel\": \"6.12.118\"");
	CHECK_CONTAINS(text, "\"tree\": \"6.12\", \"kernel\": \"6.12.118\", \"arch\": \"x86_64\"");
	/* what the rules predict for each tree's DRM=m cell: kcmp there, by DRM's select */
	CHECK(count(text, "\"KCMP=y: selected by DRM=m; a bool selected by a module is built in\"") ==
	      2);
	CHECK_CONTAINS(xml, "<testsuite name=\"6.12 x86_64 v3\" tests=\"2\" failures=\"0\"");
	free(xml);
	free(junit);
	free(text);
	free(json);
	run_free(&r);
}

/* v1 compiles kcmp.o without eventpoll's helper: a real build failure, declared in
 * kernel-patch/v1/xfail, so XFAIL (and the run still exits 0). */
TEST(e2e_v1_build_failure_is_xfail)
{
	const char *args[] = { "--variants", "v1", "--arch", "x86_64", "--only", OFF, NULL };
	struct run r = harness_run("v1-xfail", args);

	CHECK(r.status == 0);
	/* v1: KCMP defaults to y without EXPERT, so this cell asks for kcmp.o */
	expect_variant_cell(&r, "v1", "x86_64", OFF, "XFAIL\t-\t-\t-\tnynny\tknown: v1 calls "
			    "get_epoll_tfile_raw_ptr() without CHECKPOINT_RESTORE (fixed in v2); kernel/kcmp.c:");
	CHECK_CONTAINS(r.tsv, "get_epoll_tfile_raw_ptr");
	run_free(&r);
}

/* A declared failure that passes is XPASS, and fails the run. */
TEST(e2e_xpass_fails_the_run)
{
	char *dir = scratch_copy("kernel-patch", "patches-xpass");
	char *xfail = xasprintf("%s/v3/xfail", dir);
	static const char decl[] = "format 1\nxfail ARCH=x86_64,EXPERT=n,DRM=n,CHECKPOINT_RESTORE=n "
				   "test:kcmp_present pretend this cell is broken\n";
	const char *args[] = { "--patches", dir, "--arch", "x86_64", "--only", OFF, NULL };
	struct run r;

	CHECK(write_file_atomic(xfail, decl, sizeof(decl) - 1) == 0);
	r = harness_run("xpass", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "XPASS\tenosys\tworks\tenosys\tnnnny\tdeclared failing but "
		    "passed");
	run_free(&r);
	free(xfail);
	free(dir);
}

/* A patch that does not apply: exit 2 naming the patch, nothing lost. */
TEST(e2e_bad_series_exits_2_and_keeps_results)
{
	char *dir = scratch_copy("kernel-patch", "patches-bad");
	char *patch = xasprintf("%s/v3/0001-kcmp-support-selection-of-sys-kcmp-without-checkpoint-"
				"restore.patch", dir);
	char *results = xasprintf("%s/bad-series", scratch), *json = xasprintf("%s/matrix.json", results);
	char *text, *before, *after;
	struct run r;

	text = read_file(patch, NULL);
	CHECK(text && strstr(text, " config KCMP\n") == NULL && strstr(text, "+config KCMP\n"));
	if (text) {
		/* change a context line of the init/Kconfig hunk so it no longer matches */
		char *at = strstr(text, " \tselect PROC_CHILDREN\n");

		CHECK(at != NULL);
		if (at)
			memcpy(at + 2, "SELECT", 6);
		write_file_atomic(patch, text, strlen(text));
	}
	mkdir_p(results);
	{
		static const char earlier[] = "{\"schema\": 1, \"earlier\": true}\n";

		write_file_atomic(json, earlier, sizeof(earlier) - 1);
	}
	before = read_file(json, NULL);
	r = harness_run("bad-series", (const char *[]){ "--patches", dir, NULL });
	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, "0001-kcmp-support-selection-of-sys-kcmp-without-checkpoint-restore.patch' "
		       "does not apply");
	CHECK_CONTAINS(r.out, "does not apply: init/Kconfig: Hunk #1 FAILED");
	after = read_file(json, NULL);
	CHECK_STR(after, before);
	run_free(&r);
	free(text);
	free(before);
	free(after);
	free(json);
	free(results);
	free(patch);
	free(dir);
}

TEST(e2e_second_question_membarrier_both_arches)
{
	struct run r = harness_run("membarrier", (const char *[]){
		"--matrix", "questions/membarrier", "--variants", "installed", "--only",
		MB_DEFAULTS " " MB_BY_RSEQ, NULL });
	struct run off = harness_run("membarrier-off", (const char *[]){
		"--matrix", "questions/membarrier", "--variants", "installed", "--config-only",
		"--only", MB_OFF, NULL });
	char *json = xasprintf("%s/matrix.json", off.results), *text = read_file(json, NULL);

	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "4 cells: 4 PASS");
	CHECK(r.tsv && !strncmp(r.tsv, "tree\tarch\tvariant\tcombination\tstatus\tmembarrier\trseq\t"
				"resolved\treason\tkernel\n", 63));
	CHECK(off.status == 0);
	CHECK_CONTAINS(off.out, "2 cells: 2 CONFIG_OK");
	for (size_t a = 0; a < 2; a++) {
		expect_variant_cell(&r, "installed", arches[a], MB_DEFAULTS, "PASS\tworks\tworks\tnyy\t");
		expect_variant_cell(&r, "installed", arches[a], MB_BY_RSEQ, "PASS\tworks\tworks\tyyy\t");
		expect_variant_cell(&off, "installed", arches[a], MB_OFF, "CONFIG_OK\t-\t-\tynn\t");
	}
	CHECK_CONTAINS(r.out, "| y | n | y | PASS membarrier=works MEMBARRIER→y | PASS membarrier=works "
		       "MEMBARRIER→y |");
	/* what the rules predict for them, had they been booted: both calls missing */
	CHECK(count(text, "\"predicted_observed\": {\"membarrier\": \"enosys\", \"rseq\": "
			  "\"enosys\"}") == 2);
	free(text);
	free(json);
	run_free(&off);
	run_free(&r);
}

/* The second question's twin of the broken-kcmp() test: a series whose membarrier() always says
 * ENOSYS fails a cell where it must work, at the observed layer. */
TEST(e2e_second_question_broken_kernel_fails)
{
	static const struct edit edits[] = {
		{ "kernel/sched/membarrier.c",
		  "SYSCALL_DEFINE3(membarrier, int, cmd, unsigned int, flags, int, cpu_id)\n{\n",
		  "SYSCALL_DEFINE3(membarrier, int, cmd, unsigned int, flags, int, cpu_id)\n{\n"
		  "\treturn -ENOSYS; /* kcmp-matrix e2e test: a broken membarrier() */\n" },
		{ 0 } };
	char *patches = mutant_series(NULL, "patches-membarrier-broken", "installed", edits);
	struct run r = harness_run("membarrier-broken", (const char *[]){
		"--matrix", "questions/membarrier", "--variants", "installed", "--patches", patches,
		"--arch", "x86_64", "--only", MB_DEFAULTS, NULL });

	CHECK(r.status == 1);
	expect_variant_cell(&r, "installed", "x86_64", MB_DEFAULTS, "FAIL\tenosys\tworks\tnyy\t"
			    "observed: membarrier=enosys, but the resolved config implies "
			    "membarrier=works");
	run_free(&r);
	free(patches);
}
