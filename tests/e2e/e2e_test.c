/* End-to-end tests: the real harness binary (built with sanitizers) on real kernels booted in
 * QEMU, plus fakes that make a cell go wrong in each way a cell can. Run from the repository
 * top; kernels are cached in the harness's default cache (outside the repository), so a
 * second run is quick.
 *
 * The expected values below are read by hand from init/Kconfig and drivers/gpu/drm/Kconfig
 * (linux 6.1), independently of matrix/rules/v3.rules.
 */
#define _GNU_SOURCE
#include "check.h"
#include "spawn.h"
#include "tree.h"
#include "util.h"
#include "variant.h"

#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *harness = "build/kcmp-matrix-san";
static char scratch[] = "/tmp/kcmpm-e2e-XXXXXX";
static char *cache;	/* the kernel cache every run shares; set in main */

#define OFF "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define VIA_EXPERT "EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define VIA_CR "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=y,DRM=n,EPOLL=y"
#define VIA_DRM "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y"
#define EPOLL_OFF "EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=n"

struct run {
	int status;
	char *out;	/* stdout and stderr */
	char *tsv;	/* results/matrix.tsv, or NULL */
	char *results;
	double seconds;
};

/* Runs the harness with extra arguments into a fresh results directory. */
static struct run harness_run(const char *name, const char *const *args)
{
	struct run r = { 0 };
	const char *argv[32] = { harness, "--cache", cache, "--results" };
	char *log, *tsv;
	struct spawn_result res;
	int n = 4, variants = 0;

	r.results = xasprintf("%s/%s", scratch, name);
	argv[n++] = r.results;
	for (int i = 0; args[i]; i++) {
		variants |= !strcmp(args[i], "--variants");
		argv[n++] = args[i];
	}
	/* Most tests need one variant only: v3, the tree as installed. */
	if (!variants) {
		argv[n++] = "--variants";
		argv[n++] = "v3";
	}
	argv[n] = NULL;
	log = xasprintf("%s.log", r.results);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 1500 }, &res)) {
		CHECK(!"harness could not be started");
		r.status = -1;
	} else {
		r.status = res.status;
		r.seconds = res.seconds;
	}
	r.out = read_file(log, NULL);
	tsv = xasprintf("%s/matrix.tsv", r.results);
	r.tsv = read_file(tsv, NULL);
	printf("# %s: exit %d after %.1f s\n", name, r.status, r.seconds);
	free(tsv);
	free(log);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->tsv);
	free(r->results);
}

/* The TSV line of a cell ("arch\tvariant\tcombo\t..."), copied; NULL if absent. */
static char *variant_cell_line(const struct run *r, const char *variant, const char *arch,
			       const char *combo)
{
	char *key = xasprintf("\n%s\t%s\t%s\t", arch, variant, combo), *at, *end, *line;

	at = r->tsv ? strstr(r->tsv, key) : NULL;
	free(key);
	if (!at)
		return NULL;
	at++;
	end = strchr(at, '\n');
	line = strndup(at, end ? (size_t)(end - at) : strlen(at));
	return line;
}

static char *cell_line(const struct run *r, const char *arch, const char *combo)
{
	return variant_cell_line(r, "v3", arch, combo);
}

/* Checks one cell of a variant: status, observed kcmp/epoll/epoll_tfd, resolved, reason. */
static void expect_variant_cell(const struct run *r, const char *variant, const char *arch,
				const char *combo, const char *status_and_observed)
{
	char *line = variant_cell_line(r, variant, arch, combo);
	char *want = xasprintf("%s\t%s\t%s\t%s", arch, variant, combo, status_and_observed);

	if (!line || strncmp(line, want, strlen(want)))
		printf("# cell %s %s: got '%s', want '%s...'\n", arch, combo, line ? line : "(none)",
		       want);
	CHECK(line && !strncmp(line, want, strlen(want)));
	free(line);
	free(want);
}

static void expect_cell(const struct run *r, const char *arch, const char *combo,
			const char *status_and_observed)
{
	expect_variant_cell(r, "v3", arch, combo, status_and_observed);
}

static const char *const arches[] = { "x86_64", "arm64" };

/* A scratch copy of a repository folder (matrix/ or kernel-patch/) to break on purpose. */
static char *scratch_copy(const char *folder, const char *name)
{
	char *dir = xasprintf("%s/%s", scratch, name);
	const char *cmd[] = { "cp", "-r", folder, dir, NULL };
	struct spawn_result res;

	CHECK(spawn_run(&(struct spawn_req){ .argv = cmd }, &res) == 0 && res.status == 0);
	return dir;
}

TEST(e2e_real_cells_both_arches)
{
	const char *args[] = { "--only", OFF " " VIA_EXPERT " " VIA_CR " " VIA_DRM " " EPOLL_OFF,
			       NULL };
	struct run r = harness_run("real", args);

	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "10 cells: 10 PASS");
	for (int a = 0; a < 2; a++) {
		/* columns: status, kcmp, epoll, epoll_tfd, resolved EXPERT KCMP CR DRM EPOLL */
		expect_cell(&r, arches[a], OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
		expect_cell(&r, arches[a], VIA_EXPERT, "PASS\tworks\tworks\tworks\tyynny\t");
		expect_cell(&r, arches[a], VIA_CR, "PASS\tworks\tworks\tworks\tnyyny\t");
		expect_cell(&r, arches[a], VIA_DRM, "PASS\tworks\tworks\tworks\tnynyy\t");
		expect_cell(&r, arches[a], EPOLL_OFF, "PASS\tworks\tenosys\teopnotsupp\tyynnn\t");
	}
	/* The table marks what Kconfig did not honour: DRM and CHECKPOINT_RESTORE select KCMP. */
	CHECK_CONTAINS(r.out, "| n | n | n | y | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	CHECK_CONTAINS(r.out, "| n | n | n | n | y | PASS kcmp=enosys | PASS kcmp=enosys |");
	{
		const char *files[] = { "config", "serial.log", "build.log", "qemu.cmd" };
		char *json = xasprintf("%s/matrix.json", r.results), *text = read_file(json, NULL);

		CHECK_CONTAINS(text, "\"schema\": 1");
		CHECK_CONTAINS(text, "\"kernel\": \"6.1.192\"");
		free(text);
		free(json);
		for (size_t i = 0; i < 4; i++) {
			char *p = xasprintf("%s/cells/v3/arm64/" VIA_DRM "/%s", r.results, files[i]);

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
	const char *only = OFF " " VIA_EXPERT " " VIA_CR " " VIA_DRM " " EPOLL_OFF;
	struct run first = harness_run("rerun-1", (const char *[]){ "--only", only, NULL });
	struct run again = harness_run("rerun-2", (const char *[]){ "--only", only, NULL });
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
	CHECK_CONTAINS(forced.out, "build cached 0.0s boot 0.");
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
	free(text);
	free(rules);
	free(dir);
}

/* The first kernel image in the cache for x86_64 whose tag differs from the cell's. */
static char *other_kernel(const char *not_tag)
{
	char *dir = xasprintf("%s/kernels/linux-source-6.1/v3/x86_64", cache), *found = NULL;
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) && !found) {
		char *img = xasprintf("%s/%s/image", dir, e->d_name);

		if (e->d_name[0] != '.' && strcmp(e->d_name, not_tag) && path_exists(img))
			found = img;
		else
			free(img);
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

/* The harness's default cache (see main.c), so tests reuse the kernels `make matrix` built;
 * KCMPM_TEST_CACHE overrides it. */
static char *default_cache(void)
{
	const char *forced = getenv("KCMPM_TEST_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (forced && *forced)
		return xstrdup(forced);
	if (xdg && *xdg)
		return xasprintf("%s/kcmp-matrix", xdg);
	return xasprintf("%s/.cache/kcmp-matrix", home && *home ? home : "/tmp");
}

TEST(e2e_mixed_up_kernel_fails_identity)
{
	const char *args[] = { "--arch", "x86_64", "--only", OFF, "--qemu",
			       "tests/fakes/qemu-other-kernel", "--force", "boot", NULL };
	char *tag_line, *tag, *img;
	struct run first, r;

	/* Find this cell's kernel tag from a normal run, then boot another kernel instead. */
	first = harness_run("identity-first", (const char *[]){ "--arch", "x86_64", "--only", OFF,
							       NULL });
	tag_line = cell_line(&first, "x86_64", OFF);
	tag = tag_line ? strrchr(tag_line, '\t') + 1 : NULL;
	img = tag ? other_kernel(tag) : NULL;
	CHECK(img != NULL);
	if (img) {
		setenv("KCMPM_FAKE_KERNEL", img, 1);
		setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
		r = harness_run("identity", args);
		CHECK(r.status == 1);
		expect_cell(&r, "x86_64", OFF, "FAIL\t");
		CHECK_CONTAINS(r.tsv, "identity: the guest booted");
		run_free(&r);
	}
	free(img);
	free(tag_line);
	run_free(&first);
}

TEST(e2e_hung_guest_is_timeout_and_killed)
{
	char *pidfile = xasprintf("%s/hang.pid", scratch), *pid;
	const char *args[] = { "--arch", "x86_64", "--only", OFF, "--qemu", "tests/fakes/qemu-hang",
			       "--boot-timeout", "2", "--force", "boot", NULL };
	struct run r;

	setenv("KCMPM_FAKE_PIDFILE", pidfile, 1);
	r = harness_run("hang", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "TIMEOUT\t-\t-\t-\tnnnny\tguest did not power off within the "
		    "boot timeout (no KTAP output) after 2 s");
	pid = read_file(pidfile, NULL);
	CHECK(pid != NULL);
	if (pid) {
		char *proc = xasprintf("/proc/%ld/stat", strtol(pid, NULL, 10));
		char *stat = read_file(proc, NULL);

		/* gone, or a zombie whose new parent has not reaped it yet */
		CHECK(!stat || strstr(stat, ") Z "));
		free(stat);
		free(proc);
	}
	free(pid);
	free(pidfile);
	run_free(&r);
}

TEST(e2e_panic_and_truncated_ktap_are_boot_fail)
{
	const char *panic[] = { "--arch", "x86_64", "--only", OFF, "--qemu", "tests/fakes/qemu-panic",
				"--force", "boot", NULL };
	const char *trunc[] = { "--arch", "x86_64", "--only", OFF, "--qemu",
				"tests/fakes/qemu-truncated", "--force", "boot", NULL };
	struct run r = harness_run("panic", panic);

	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "BOOT_FAIL\t-\t-\t-\tnnnny\tkernel crashed: Kernel panic - not "
		    "syncing: Attempted to kill init! exitcode=0x0000000b");
	run_free(&r);
	r = harness_run("truncated", trunc);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "BOOT_FAIL\t-\t-\t-\tnnnny\tKTAP plan 1..23 but 3 results");
	run_free(&r);
}

TEST(e2e_compile_error_is_build_fail)
{
	const char *args[] = { "--arch", "arm64", "--only", OFF " " VIA_DRM, "--make",
			       "tests/fakes/make-compile-error", NULL };
	struct run r = harness_run("build-fail", args);

	CHECK(r.status == 1);
	expect_cell(&r, "arm64", OFF, "BUILD_FAIL\t-\t-\t-\tnnnny\t/src/linux/kernel/kcmp.c:140:9: "
		    "error: 'task3' undeclared");
	expect_cell(&r, "arm64", VIA_DRM, "BUILD_FAIL\t");
	CHECK_CONTAINS(r.out, "2 cells: 2 BUILD_FAIL");
	run_free(&r);
}

/* A scratch kernel tree (hard links to the pristine one) whose kcmp() always says ENOSYS.
 * Kept in the cache so its build directory is reused by later runs. */
static char *broken_tree(void)
{
	char *pristine = xasprintf("%s/src/linux-source-6.1", cache);
	char *final = xasprintf("%s/test-trees/kcmp-enosys", cache);
	char *tmp = xasprintf("%s.tmp", final), *kcmp = xasprintf("%s/kernel/kcmp.c", tmp);
	char *parent = xasprintf("%s/test-trees", cache), *text = NULL, *patched = NULL;
	const char *cp[] = { "cp", "-al", pristine, tmp, NULL };
	struct spawn_result res;
	char *at;

	if (path_exists(final))
		goto out;
	remove_tree(tmp);
	mkdir_p(parent);
	CHECK(spawn_run(&(struct spawn_req){ .argv = cp }, &res) == 0 && res.status == 0);
	text = read_file(kcmp, NULL);
	at = text ? strstr(text, "SYSCALL_DEFINE5(kcmp,") : NULL;
	at = at ? strstr(at, "{\n") : NULL;
	CHECK(at != NULL);
	if (!at)
		goto out;
	patched = xasprintf("%.*s{\n\treturn -ENOSYS; /* kcmp-matrix e2e test: a broken kcmp() */\n%s",
			    (int)(at - text), text, at + 2);
	/* The file is a hard link into the pristine tree: replace it, never write through it. */
	CHECK(unlink(kcmp) == 0);
	CHECK(write_file_atomic(kcmp, patched, strlen(patched)) == 0);
	CHECK(rename(tmp, final) == 0);
out:
	free(pristine);
	free(tmp);
	free(kcmp);
	free(parent);
	free(text);
	free(patched);
	return final;
}

TEST(e2e_broken_kernel_fails_observed_layer)
{
	char *tree = broken_tree();
	const char *args[] = { "--ksrc", tree, "--arch", "x86_64", "--only", OFF " " VIA_EXPERT, NULL };
	char *pristine = xasprintf("%s/src/linux-source-6.1/kernel/kcmp.c", cache);
	char *text = read_file(pristine, NULL);
	struct run r;

	CHECK(text && !strstr(text, "kcmp-matrix e2e test"));	/* the pristine tree is untouched */
	r = harness_run("broken-kernel", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "PASS\tenosys\t");
	expect_cell(&r, "x86_64", VIA_EXPERT, "FAIL\tenosys\tworks\tenosys\tyynny\tobserved: kcmp() "
		    "enosys, but the resolved config implies works");
	run_free(&r);
	free(text);
	free(pristine);
	free(tree);
}

/* Does the variant tree hold exactly the pristine tree's files? Compares every regular file
 * (hard links to the same inode are equal by construction) and the file count. */
static int same_trees(const char *a, const char *b, char *diff, size_t difflen)
{
	const char *argv[] = { "diff", "-r", "-q", "--no-dereference", a, b, NULL };
	char *log = xasprintf("%s/tree-diff.log", scratch), *text;
	struct spawn_result res;
	int same;

	unlink(log);
	CHECK(spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log }, &res) == 0);
	text = read_file(log, NULL);
	same = res.status == 0 && text && !*text;
	snprintf(diff, difflen, "%s", text ? text : "");
	free(text);
	free(log);
	return same;
}

/* pre followed by the rebased v3 gives back the installed tree, byte for byte. */
TEST(e2e_pre_plus_v3_is_the_installed_tree)
{
	struct tree pristine;
	struct variant_tree vt;
	char err[1024] = "", diff[4096];

	CHECK(tree_from_tarball("/usr/src/linux-source-6.1.tar.xz", cache, &pristine, err,
				sizeof(err)) == 0);
	CHECK(variant_prepare("kernel-patch/v3", "v3", &pristine, cache, &vt, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(vt.path && strcmp(vt.path, pristine.path));	/* a patched copy, not the tree */
	if (vt.path) {
		CHECK(same_trees(pristine.path, vt.path, diff, sizeof(diff)));
		if (diff[0])
			printf("# differences: %s\n", diff);
	}
	variant_tree_free(&vt);
	/* ...and pre alone does differ, in the files the series touches */
	CHECK(variant_prepare("kernel-patch/pre", "pre", &pristine, cache, &vt, err, sizeof(err)) == 0);
	if (vt.path) {
		CHECK(!same_trees(pristine.path, vt.path, diff, sizeof(diff)));
		CHECK_CONTAINS(diff, "init/Kconfig");
	}
	variant_tree_free(&vt);
	tree_free(&pristine);
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
				   "pretend this cell is broken\n";
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

/* Bad input: one clear line on stderr, exit 2. */
static void expect_harness_error(const char *name, const char *const *args, const char *msg)
{
	struct run r = harness_run(name, args);
	const char *last = r.out ? r.out + strlen(r.out) : NULL;

	CHECK(r.status == 2);
	if (last) {
		while (last > r.out && last[-1] == '\n')
			last--;
		while (last > r.out && last[-1] != '\n')
			last--;
	}
	CHECK(last && !strncmp(last, "kcmp-matrix: ", 13));
	CHECK_CONTAINS(last, msg);
	run_free(&r);
}

TEST(e2e_bad_input_exits_2)
{
	char *dir = scratch_copy("matrix", "matrix-bad");
	char *rules = xasprintf("%s/rules/v3.rules", dir), *text;

	expect_harness_error("bad-arch", (const char *[]){ "--arch", "riscv", NULL },
			     "unknown arch 'riscv'");
	expect_harness_error("bad-only", (const char *[]){ "--only", "KCMP=perhaps", NULL },
			     "ONLY: bad term 'KCMP=perhaps'");
	expect_harness_error("bad-ksrc", (const char *[]){ "--ksrc", "tests", NULL },
			     "KSRC 'tests' is not a kernel source tree");
	expect_harness_error("no-qemu", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--qemu",
							  "/nonexistent/qemu-system-x86_64", NULL },
			     "apt-get install gcc qemu-system-x86");
	text = read_file(rules, NULL);
	if (text) {
		char *bad = xasprintf("%s\nconfig KCMP\n\tprompt if EXPERT &&\n", text);

		write_file_atomic(rules, bad, strlen(bad));
		free(bad);
	}
	expect_harness_error("bad-rules", (const char *[]){ "--matrix", dir, NULL },
			     "rules/v3.rules:");
	free(text);
	free(rules);
	free(dir);
}

int main(int argc, char **argv)
{
	int rc;

	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 2;
	}
	cache = default_cache();
	printf("# kernel cache: %s\n", cache);
	rc = check_main(argc, argv);
	free(cache);
	if (rc == 0)
		remove_tree(scratch);
	else
		printf("# e2e scratch kept in %s\n", scratch);
	return rc;
}
