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
#include <fcntl.h>
#include <signal.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *harness = "build/kcmp-matrix-san";
static char scratch[] = "/tmp/kcmpm-e2e-XXXXXX";
static char *cache;	/* the kernel cache every run shares; set in main */

/* The cells the tests build, chosen to share kernels so that a cold cache stays affordable.
 * CHECKPOINT_RESTORE and EPOLL are tested in headers most objects include, so each of their
 * value pairs is a build directory of its own that costs a near-clean build to seed
 * (matrix.conf's build-split). FIVE, on both arches, is all in the (n, y) directory: a first
 * build per arch, then a few objects per kernel. CR_NO_EPOLL is the one cell outside it, on
 * x86_64 only: one more heavy build, for the only real kernels that have kcmp() by
 * CHECKPOINT_RESTORE's select and no epoll. */
#define OFF "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define VIA_EXPERT "EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define NO_KCMP "EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y"
#define VIA_DRM "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y"
#define VIA_DRM_M "EXPERT=n,KCMP=n,CHECKPOINT_RESTORE=n,DRM=m,EPOLL=y"
#define FIVE OFF " " VIA_EXPERT " " NO_KCMP " " VIA_DRM " " VIA_DRM_M
#define CR_NO_EPOLL "EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=y,DRM=n,EPOLL=n"

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
	int n = 4, variants = 0, trees = 0;

	r.results = xasprintf("%s/%s", scratch, name);
	argv[n++] = r.results;
	for (int i = 0; args[i]; i++) {
		variants |= !strcmp(args[i], "--variants");
		trees |= !strcmp(args[i], "--trees") || !strcmp(args[i], "--ksrc");
		argv[n++] = args[i];
	}
	/* Most tests need one variant only: v3, the tree as installed... */
	if (!variants) {
		argv[n++] = "--variants";
		argv[n++] = "v3";
	}
	/* ...of one tree, 6.1 (a KSRC tree is the run's only tree by itself) */
	if (!trees) {
		argv[n++] = "--trees";
		argv[n++] = "6.1";
	}
	argv[n] = NULL;
	log = xasprintf("%s.log", r.results);
	/* a cold run of a dozen kernels, heavy switches included, takes tens of minutes on a slow
	 * machine; the limit only stops a run that hangs */
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 3600 }, &res)) {
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

/* The TSV line of a cell of tree tree (NULL: of the run's only tree) without its tree column
 * ("arch\tvariant\tcombo\t..."), copied; NULL if absent. */
static char *tree_cell_line(const struct run *r, const char *tree, const char *variant,
			    const char *arch, const char *combo)
{
	char *key = xasprintf("\t%s\t%s\t%s\t", arch, variant, combo), *at, *end, *line;
	size_t tlen = tree ? strlen(tree) : 0;

	for (at = r->tsv ? strstr(r->tsv, key) : NULL; at; at = strstr(at + 1, key)) {
		const char *start = at;

		while (start > r->tsv && start[-1] != '\n')
			start--;
		if (!tree || ((size_t)(at - start) == tlen && !strncmp(start, tree, tlen)))
			break;
	}
	free(key);
	if (!at)
		return NULL;
	at++;
	end = strchr(at, '\n');
	line = strndup(at, end ? (size_t)(end - at) : strlen(at));
	return line;
}

static char *variant_cell_line(const struct run *r, const char *variant, const char *arch,
			       const char *combo)
{
	return tree_cell_line(r, NULL, variant, arch, combo);
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

/* Runs a tool; its output (stdout and stderr) goes to scratch/<name>.out and is returned. */
static char *tool_run(const char *name, const char *const *argv, int *status)
{
	char *log = xasprintf("%s/%s.out", scratch, name), *out;
	struct spawn_result res;

	unlink(log);
	*status = -1;
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 300 }, &res))
		printf("# %s: cannot run %s: %s\n", name, argv[0], strerror(errno));
	else
		*status = res.status;
	out = read_file(log, NULL);
	free(log);
	return out;
}

/* results/junit.xml is valid against tests/data/junit.xsd and counts the failures it should. */
static void expect_valid_junit(const struct run *r, int failures)
{
	char *junit = xasprintf("%s/junit.xml", r->results), *text = read_file(junit, NULL);
	char *want = xasprintf("failures=\"%d\"", failures), *out;
	const char *argv[] = { "xmllint", "--noout", "--schema", "tests/data/junit.xsd", junit, NULL };
	int status;

	out = tool_run("xmllint", argv, &status);
	if (status)
		printf("# xmllint: %s\n", out ? out : "");
	CHECK(status == 0);
	CHECK_CONTAINS(out, "validates");
	CHECK_CONTAINS(text, want);
	free(out);
	free(want);
	free(text);
	free(junit);
}

/* Replaces the first 'from' in a file by 'to'; CHECKs that there was one. */
/* Replaces the first from in the file by to; returns whether it was there. */
static int edit_file_once(const char *path, const char *from, const char *to)
{
	char *text = read_file(path, NULL), *at = text ? strstr(text, from) : NULL;

	if (at) {
		char *edited = xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));

		write_file_atomic(path, edited, strlen(edited));
		free(edited);
	}
	free(text);
	return at != NULL;
}

static void edit_file(const char *path, const char *from, const char *to)
{
	CHECK(edit_file_once(path, from, to));
}

/* A scratch copy of a repository folder (matrix/ or kernel-patch/) to break on purpose. */
static char *scratch_copy(const char *folder, const char *name)
{
	char *dir = xasprintf("%s/%s", scratch, name), *conf = xasprintf("%s/matrix.conf", dir);
	const char *cmd[] = { "cp", "-r", folder, dir, NULL };
	struct spawn_result res;

	CHECK(spawn_run(&(struct spawn_req){ .argv = cmd }, &res) == 0 && res.status == 0);
	/* a question folder names files beside it (../guest-tests, ../kernel-patch): in the
	 * copy they are the repository's own */
	if (path_exists(conf)) {
		char *top = getcwd(NULL, 0), *there = xasprintf(" %s/", top);

		while (edit_file_once(conf, " ../", there))
			;
		free(there);
		free(top);
	}
	free(conf);
	return dir;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

TEST(e2e_real_cells_both_arches)
{
	struct run r = harness_run("real", (const char *[]){ "--only", FIVE, NULL });
	struct run cr = harness_run("real-cr", (const char *[]){ "--arch", "x86_64", "--only",
								 CR_NO_EPOLL, NULL });

	CHECK(r.status == 0);
	CHECK_CONTAINS(r.out, "10 cells: 10 PASS");
	for (int a = 0; a < 2; a++) {
		/* columns: status, kcmp, epoll, epoll_tfd, resolved EXPERT KCMP CR DRM EPOLL */
		expect_cell(&r, arches[a], OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
		expect_cell(&r, arches[a], VIA_EXPERT, "PASS\tworks\tworks\tworks\tyynny\t");
		expect_cell(&r, arches[a], NO_KCMP, "PASS\tenosys\tworks\tenosys\tynnny\t");
		expect_cell(&r, arches[a], VIA_DRM, "PASS\tworks\tworks\tworks\tnynyy\t");
		/* DRM=m, as distributions build it: it selects the bool KCMP, which is built in */
		expect_cell(&r, arches[a], VIA_DRM_M, "PASS\tworks\tworks\tworks\tnynmy\t");
	}
	CHECK(cr.status == 0);
	expect_cell(&cr, "x86_64", CR_NO_EPOLL, "PASS\tworks\tenosys\teopnotsupp\tyyynn\t");
	/* The table marks what Kconfig did not honour: DRM and CHECKPOINT_RESTORE select KCMP. */
	CHECK_CONTAINS(r.out, "| n | n | n | y | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	CHECK_CONTAINS(r.out, "| n | n | n | n | y | PASS kcmp=enosys | PASS kcmp=enosys |");
	CHECK_CONTAINS(r.out, "| n | n | n | m | y | PASS kcmp=works KCMP→y | PASS kcmp=works KCMP→y |");
	CHECK_CONTAINS(cr.out, "| y | n | y | n | n | PASS kcmp=works KCMP→y |");
	{
		const char *files[] = { "config", "serial.log", "build.log", "qemu.cmd" };
		char *json = xasprintf("%s/matrix.json", r.results), *text = read_file(json, NULL);
		char *cr_json = xasprintf("%s/matrix.json", cr.results);
		char *cr_text = read_file(cr_json, NULL);

		CHECK_CONTAINS(text, "\"schema\": 1");
		CHECK_CONTAINS(text, "\"trees\": [{\"name\": \"6.1\", \"kernel\": \"6.1.192\"");
		/* DRM's type comes from the tree; its m cells really built drm.ko, and no other
		 * cell built a module */
		CHECK_CONTAINS(text, "\"symbol_values\": {\"EXPERT\": \"ny\", \"KCMP\": \"ny\", "
			       "\"CHECKPOINT_RESTORE\": \"ny\", \"DRM\": \"nmy\", \"EPOLL\": \"ny\"}");
		CHECK(count(text, "\"modules\": [\"") == 2);
		CHECK(count(text, "\"drivers/gpu/drm/drm.ko\"") == 2);
		CHECK_CONTAINS(text, "\"KCMP=y: selected by DRM=m; a bool selected by a module is built in\"");
		/* the observables come from the rules (one field per name), in the same layout
		 * for prediction and observation, and the TSV has a column per observable, as
		 * before observables were data */
		CHECK_CONTAINS(cr_text, "\"predicted_observed\": {\"kcmp\": \"works\", \"epoll\": "
			       "\"enosys\", \"epoll_tfd\": \"eopnotsupp\"}");
		CHECK_CONTAINS(cr_text, "\"observed\": {\"kcmp\": \"works\", \"epoll\": \"enosys\", "
			       "\"epoll_tfd\": \"eopnotsupp\"}");
		CHECK(r.tsv && !strncmp(r.tsv, "tree\tarch\tvariant\tcombination\tstatus\tkcmp\t"
					"epoll\tepoll_tfd\tresolved\treason\tkernel\n", 71));
		free(cr_text);
		free(cr_json);
		free(text);
		free(json);
		for (size_t i = 0; i < 4; i++) {
			char *p = xasprintf("%s/cells/6.1/v3/arm64/" VIA_DRM "/%s", r.results, files[i]);

			CHECK(path_exists(p));
			free(p);
		}
	}
	run_free(&cr);
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
TEST(e2e_config_only_sweep_of_every_variant)
{
	char *dir = scratch_copy("matrix", "matrix-sweep");
	char *rules = xasprintf("%s/rules/v3.rules", dir);
	struct run all = harness_run("config-sweep", (const char *[]){ "--config-only", "--variants",
								       "pre,v1,v3", "--trees",
								       "6.1,6.12", NULL });
	struct run wrong;

	CHECK(all.status == 0);
	CHECK_CONTAINS(all.out, "\n576 cells: 576 CONFIG_OK\n");
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
		}
	edit_file(rules, "\tselected-by DRM\n", "");
	wrong = harness_run("config-sweep-wrong", (const char *[]){ "--config-only", "--matrix", dir,
								    NULL });
	CHECK(wrong.status == 1);
	/* DRM=y or m, CHECKPOINT_RESTORE=n, and not EXPERT=y with KCMP=y (the only other way to
	 * KCMP=y): 2 DRM values x 3 (EXPERT, KCMP) x 2 EPOLL = 12 cells per arch */
	CHECK_CONTAINS(wrong.out, "\n96 cells: 24 FAIL 72 CONFIG_OK\n");
	for (size_t a = 0; a < 2; a++)
		expect_cell(&wrong, arches[a], VIA_DRM_M, "FAIL\t-\t-\t-\tnynmy\tconfig: KCMP "
			    "predicted n, resolved y");
	run_free(&wrong);
	run_free(&all);
	free(rules);
	free(dir);
}

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

/* The in-process resolver (harness/resolver.h) against the olddefconfig it replaces, on a whole
 * group: every cell of v3 x86_64, byte for byte, and its base against Kbuild's allnoconfig. The
 * in-process side is made afresh each time (--force all: its Kconfig kit and $(shell) memo too,
 * and its session's log must list v3's base and all 48 of its cells); the olddefconfig side is
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
	struct run ref = harness_run("resolve-olddefconfig", (const char *[]){
		"--config-only", "--arch", "x86_64", "--resolve-with", "olddefconfig", NULL });
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
	CHECK_CONTAINS(ref.out, "\n48 cells: 48 CONFIG_OK\n");
	CHECK_CONTAINS(fresh.out, "\n144 cells: 144 CONFIG_OK\n");
	/* one session made v3's base and resolved its cells: one parse, one memo report */
	CHECK(count_lines_starting(log, "kcmpm-resolve: based ") == 1);
	CHECK(count_lines_starting(log, "kcmpm-resolve: resolved ") == 48);
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
	CHECK(compared == 48 && differ == 0);
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

/* When a file was last written, in seconds; 0 when it is not there. */
static double written_at(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
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
	CHECK_CONTAINS(r.out, "\n192 cells: 192 CONFIG_OK\n");
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

/* How many files under dir find's -name pattern part matches. */
static int count_files_named(const char *dir, const char *part)
{
	const char *argv[] = { "find", dir, "-name", part, NULL };
	char *out;
	int n = 0, status;

	out = tool_run("find", argv, &status);
	for (char *p = out; p && *p; p++)
		n += *p == '\n';
	free(out);
	return n;
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
	run_free(&r);
	/* a timeout with no crash is the machine's noise: not cached, the next run boots again */
	unlink(pidfile);
	r = harness_run("hang-again", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--qemu",
						       "tests/fakes/qemu-hang", "--boot-timeout", "2",
						       NULL });
	CHECK(r.status == 1);
	CHECK(path_exists(pidfile));
	CHECK(!strstr(r.out, "boot cached"));
	expect_cell(&r, "x86_64", OFF, "TIMEOUT\t");
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

/* A copy of a fake make at a path of the test's own: the kernel cache is keyed by the make
 * program, so no other run's entries answer for it. Returns the path (free it). */
static char *own_make(const char *name, const char *fake)
{
	char *path = xasprintf("%s/%s.make", scratch, name);
	char *text = read_file(fake, NULL);

	CHECK(text && write_file_atomic(path, text, strlen(text)) == 0 && chmod(path, 0755) == 0);
	free(text);
	return path;
}

/* A make that the machine killed (SIGKILL, as the OOM killer does) says nothing about the
 * kernel: the cell is ERROR, the build was tried once more, and nothing was cached, so the
 * next run builds again. */
TEST(e2e_killed_make_is_error_and_not_cached)
{
	char *make = own_make("make-killed", "tests/fakes/make-killed");
	char *state = xasprintf("%s/make-killed.state", scratch), *builds;
	const char *args[] = { "--arch", "x86_64", "--only", OFF, "--make", make, NULL };
	struct run r;

	unlink(state);
	setenv("KCMPM_FAKE_STATE", state, 1);
	r = harness_run("make-killed", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "ERROR\t-\t-\t-\tnnnny\tmake was killed by signal 9, not "
		    "by the harness");
	CHECK_CONTAINS(r.out, "building it again");
	run_free(&r);
	r = harness_run("make-killed-again", args);
	unsetenv("KCMPM_FAKE_STATE");
	expect_cell(&r, "x86_64", OFF, "ERROR\t");
	builds = read_file(state, NULL);
	CHECK(builds && count(builds, "build") == 4);	/* two runs, each with its retry */
	run_free(&r);
	free(builds);
	free(state);
	free(make);
}

/* A cached build failure does not outlive a rebuild: a make that failed, then a fixed one at
 * the same path with FORCE=all, then a plain rerun: PASS both times, from the new entry. */
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

/* How a run with the fake make-meets-other-arch went on both arches: *met is 1 when each
 * arch's make saw the other's start before it ended, *alone 1 when one of them waited for
 * the other in vain. The fake make is copied to a path of the run's own, so the cache (keyed
 * by the make program) never answers for it and each run really builds. */
static void meet_run(const char *name, const char *const *extra, int *met, int *alone)
{
	char *meet = xasprintf("%s/%s-meet", scratch, name), *make = xasprintf("%s/%s-make", scratch, name);
	const char *cp[] = { "cp", "tests/fakes/make-meets-other-arch", make, NULL };
	const char *args[16] = { "--only", OFF, "--make", make };
	struct spawn_result res;
	struct run r;
	int n = 4;

	while (*extra)
		args[n++] = *extra++;
	args[n] = NULL;
	CHECK(mkdir_p(meet) == 0);
	CHECK(spawn_run(&(struct spawn_req){ .argv = cp }, &res) == 0 && res.status == 0);
	setenv("KCMPM_TEST_MEET", meet, 1);
	r = harness_run(name, args);
	unsetenv("KCMPM_TEST_MEET");
	CHECK(r.status == 1);
	CHECK_CONTAINS(r.out, "2 cells: 2 BUILD_FAIL");
	*met = *alone = 0;
	for (int a = 0; a < 2; a++) {
		char *path = xasprintf("%s/cells/6.1/v3/%s/" OFF "/build.log", r.results, arches[a]);
		char *log = read_file(path, NULL);

		CHECK_CONTAINS(log, "fake make: the jobserver's pipe is open");
		CHECK(log && !strstr(log, "fake make: MAKEFLAGS=\n"));
		*met += log && strstr(log, "fake make: 2 kernel builds had started") != NULL;
		*alone |= log && strstr(log, "fake make: 1 kernel builds had started") != NULL;
		free(log);
		free(path);
	}
	*met = *met == 2;
	run_free(&r);
	free(meet);
	free(make);
}

/* Both arches' kernels build at once, each make a client of one jobserver. With --jobs 2 the
 * two makes run side by side; with --jobs 1, or --arch-by-arch, one waits for the other. */
TEST(e2e_arches_build_at_once_within_the_jobs)
{
	int met, alone;

	meet_run("meet-jobs2", (const char *[]){ "--jobs", "2", NULL }, &met, &alone);
	CHECK(met && !alone);
	meet_run("meet-jobs1", (const char *[]){ "--jobs", "1", NULL }, &met, &alone);
	CHECK(!met && alone);
	meet_run("meet-arch-by-arch", (const char *[]){ "--jobs", "2", "--arch-by-arch", NULL },
		 &met, &alone);
	CHECK(!met && alone);
}

/* One edit of a wrong kernel: in file, the text from (found once) becomes to. */
struct edit {
	const char *file, *from, *to;
};

/* The pristine file with the edits that name it applied; NULL (a failed check) when an edit's
 * text is not found. */
static char *edited(const char *pristine, const char *file, const struct edit *edits)
{
	char *path = xasprintf("%s/%s", pristine, file), *text = read_file(path, NULL);

	CHECK(text != NULL);
	for (int i = 0; text && edits[i].file; i++) {
		char *at, *next;

		if (strcmp(edits[i].file, file))
			continue;
		at = strstr(text, edits[i].from);
		CHECK(at != NULL);
		if (!at) {
			free(text);
			text = NULL;
			break;
		}
		next = xasprintf("%.*s%s%s", (int)(at - text), text, edits[i].to,
				 at + strlen(edits[i].from));
		free(text);
		text = next;
	}
	free(path);
	return text;
}

/* A wrong kernel, as a patch series: a scratch copy of the patch folder (NULL: an empty one)
 * whose variant's series ends with one more patch, the edits as a diff against the pristine 6.1
 * tree (which is v3's tree, and the membarrier question's installed one). Its kernels are built
 * like the variant's own, in the same work tree and build directories, so Kbuild recompiles the
 * edited files and links; a tree of its own (KSRC) would cost a clean build of the arch. */
static char *mutant_series(const char *folder, const char *name, const char *variant,
			   const struct edit *edits)
{
	char *dir = folder ? scratch_copy(folder, name) : xasprintf("%s/%s", scratch, name);
	char *vdir = xasprintf("%s/%s", dir, variant), *series = xasprintf("%s/series", vdir);
	char *patch = xasprintf("%s/9999-kcmp-matrix-e2e-mutant.patch", vdir);
	char *pristine = xasprintf("%s/src/linux-source-6.1", cache), *text = read_file(series, NULL);
	struct strbuf diff = { 0 };

	for (int i = 0; edits[i].file; i++) {
		const char *file = edits[i].file;
		char *old, *new_, *want, *label_a, *label_b, *out;
		int status, seen = 0;

		for (int j = 0; j < i; j++)
			seen |= !strcmp(edits[j].file, file);
		if (seen)
			continue;	/* one hunk set per file, with all of its edits */
		old = xasprintf("%s/%s", pristine, file);
		new_ = xasprintf("%s/%s.mutant", scratch, name);
		want = edited(pristine, file, edits);
		label_a = xasprintf("a/%s", file);
		label_b = xasprintf("b/%s", file);
		CHECK(want && write_file_atomic(new_, want, strlen(want)) == 0);
		out = tool_run(name, (const char *[]){ "diff", "-u", "--label", label_a, "--label",
						       label_b, old, new_, NULL }, &status);
		CHECK(status == 1 && out);	/* diff: 1 when the files differ */
		sb_printf(&diff, "%s", out ? out : "");
		free(out);
		free(label_b);
		free(label_a);
		free(want);
		free(new_);
		free(old);
	}
	mkdir_p(vdir);
	CHECK(diff.s && write_file_atomic(patch, diff.s, strlen(diff.s)) == 0);
	{
		char *next = xasprintf("%s9999-kcmp-matrix-e2e-mutant.patch\n", text ? text : "");

		CHECK(write_file_atomic(series, next, strlen(next)) == 0);
		free(next);
	}
	sb_free(&diff);
	free(text);
	free(pristine);
	free(patch);
	free(series);
	free(vdir);
	return dir;
}

/* kcmp() always says ENOSYS: a patch series in scratch/<name>. */
static char *broken_series_named(const char *name)
{
	static const struct edit edits[] = {
		{ "kernel/kcmp.c", "unsigned long, idx1, unsigned long, idx2)\n{\n",
		  "unsigned long, idx1, unsigned long, idx2)\n{\n"
		  "\treturn -ENOSYS; /* kcmp-matrix e2e test: a broken kcmp() */\n" },
		{ 0 } };

	return mutant_series("kernel-patch", name, "v3", edits);
}

static char *broken_series(void)
{
	return broken_series_named("patches-broken");
}

TEST(e2e_broken_kernel_fails_observed_layer)
{
	char *patches = broken_series();
	const char *args[] = { "--patches", patches, "--arch", "x86_64", "--only", OFF " " VIA_EXPERT,
			       NULL };
	char *pristine = xasprintf("%s/src/linux-source-6.1/kernel/kcmp.c", cache);
	char *text = read_file(pristine, NULL);
	struct run r;

	CHECK(text && !strstr(text, "kcmp-matrix e2e test"));	/* the pristine tree is untouched */
	r = harness_run("broken-kernel", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "PASS\tenosys\t");
	expect_cell(&r, "x86_64", VIA_EXPERT, "FAIL\tenosys\tworks\tenosys\tyynny\tobserved: "
		    "kcmp=enosys, but the resolved config implies kcmp=works");
	expect_valid_junit(&r, 1);
	run_free(&r);
	free(text);
	free(pristine);
	free(patches);
}

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

static char *results_file(const struct run *r, const char *name)
{
	char *path = xasprintf("%s/%s", r->results, name), *text = read_file(path, NULL);

	free(path);
	return text;
}

/* Drops the one line of a results file that holds the run's own figures (wall time, the
 * harness's memory), which no two runs share. */
static char *without_line(char *text, const char *start)
{
	char *at = text ? strstr(text, start) : NULL, *end = at ? strchr(at, '\n') : NULL;

	if (at && end)
		memmove(at, end + 1, strlen(end + 1) + 1);
	return text;
}

/* Three shards of the ten cells, merged, give the results of one unsharded run: the same
 * table, TSV, KTAP, JUnit, cells in the JSON, page grid and cell files. */
TEST(e2e_shards_merge_to_the_unsharded_run)
{
	struct run whole = harness_run("whole", (const char *[]){ "--only", FIVE, NULL });
	struct run shard[3], merged, missing;
	static const char *const files[] = { "matrix.md", "matrix.tsv", "matrix.ktap", "junit.xml",
					     "matrix.json", "index.html" };

	for (int k = 0; k < 3; k++) {
		char *name = xasprintf("shard-%d", k + 1), *which = xasprintf("%d/3", k + 1);

		shard[k] = harness_run(name, (const char *[]){ "--only", FIVE, "--shard", which, NULL });
		CHECK(shard[k].status == 0);
		free(name);
		free(which);
	}
	CHECK(shard[0].tsv && !strstr(shard[0].tsv, "arm64"));	/* contiguous: x86_64 first */
	merged = harness_run("merged", (const char *[]){ "merge", shard[0].results, shard[1].results,
							  shard[2].results, NULL });
	CHECK(merged.status == 0);
	CHECK_CONTAINS(merged.out, "10 cells: 10 PASS");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *a = without_line(without_line(results_file(&whole, files[i]), "<p id=\"figures\">"),
				       "\"seconds\":");
		char *b = without_line(without_line(results_file(&merged, files[i]), "<p id=\"figures\">"),
				       "\"seconds\":");

		if (!a || !b || strcmp(a, b))
			printf("# %s differs between the unsharded and the merged run\n", files[i]);
		CHECK(a && b && !strcmp(a, b));
		free(a);
		free(b);
	}
	{
		char *a = xasprintf("%s/cells", whole.results), *b = xasprintf("%s/cells", merged.results);
		char diff[4096];

		CHECK(same_trees(a, b, diff, sizeof(diff)));
		free(a);
		free(b);
	}
	/* a shard whose runner died: its cells are not run, in every output, and the merge
	 * fails; the cells of the shards that reported are all there */
	missing = harness_run("merged-missing", (const char *[]){ "merge", shard[0].results,
								   shard[2].results, NULL });
	CHECK(missing.status == 1);
	CHECK_CONTAINS(missing.out, "PARTIAL RUN, 2 of 3 shards reported; the cells of the others "
		       "did not run");
	CHECK_CONTAINS(missing.out, "10 cells: 7 PASS 3 not run");
	CHECK(count(missing.tsv, "\tPENDING\t") == 3 && count(missing.tsv, "\tPASS\t") == 7);
	CHECK(count(missing.tsv, "not run: shard 2/3 did not report") == 3);
	{
		char *json = results_file(&missing, "matrix.json");
		char *page = results_file(&missing, "index.html");

		CHECK(count(json, "\"status\": \"PENDING\"") == 3);
		CHECK_CONTAINS(json, "\"partial\": \"2 of 3 shards reported");
		CHECK_CONTAINS(page, "not run");
		free(page);
		free(json);
	}
	run_free(&missing);
	run_free(&merged);
	for (int k = 0; k < 3; k++)
		run_free(&shard[k]);
	run_free(&whole);
}

/* Reads a PNG's width and height from its IHDR chunk; 0 when it is not a PNG. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t len;
	unsigned char *p = (unsigned char *)read_file(path, &len);

	*w = *h = 0;
	if (p && len > 24 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8) && !memcmp(p + 12, "IHDR", 4)) {
		*w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
		*h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
	}
	free(p);
}


/* index.html in a real browser: headless Chromium renders it (a screenshot) and its DOM holds
 * the grid: ten cells, a known verdict in a known place, links to the cell's files. */
TEST(e2e_page_in_a_browser)
{
	struct run r = harness_run("page", (const char *[]){ "--only", FIVE, NULL });
	char *page = xasprintf("file://%s/index.html", r.results);
	char *shot = xasprintf("%s/page.png", scratch), *profile = xasprintf("--user-data-dir=%s/chromium", scratch);
	char *shot_arg = xasprintf("--screenshot=%s", shot), *dom, *out, *cell;
	const char *dump[] = { "chromium", "--headless", "--no-sandbox", "--disable-gpu", profile,
			       "--dump-dom", page, NULL };
	const char *png[] = { "chromium", "--headless", "--no-sandbox", "--disable-gpu", profile,
			      "--window-size=1400,900", shot_arg, page, NULL };
	unsigned w, h;
	int status;

	CHECK(r.status == 0);
	expect_valid_junit(&r, 0);
	dom = tool_run("chromium-dom", dump, &status);
	CHECK(status == 0);
	CHECK(count(dom, "<td class=\"cell ") == 10);
	CHECK(count(dom, "data-status=\"PASS\"") == 10);
	cell = dom ? strstr(dom, "id=\"6.1/v3/arm64/" OFF "\"") : NULL;
	CHECK(cell != NULL);
	/* the cell's own text: its verdict, kcmp() state and link to its console log */
	if (cell) {
		char *end = strstr(cell, "</td>");

		if (end)
			*end = 0;
		CHECK_CONTAINS(cell, "<b>PASS</b> kcmp=enosys");
		CHECK_CONTAINS(cell, "href=\"cells/6.1/v3/arm64/" OFF "/serial.log\"");
		CHECK_CONTAINS(cell, "KCMP=n: ");
	}
	CHECK_CONTAINS(dom, "10 cells: 10 PASS");
	out = tool_run("chromium-png", png, &status);
	CHECK(status == 0);
	png_size(shot, &w, &h);
	printf("# screenshot %s: %ux%u\n", shot, w, h);
	CHECK(w == 1400 && h == 900);
	free(out);
	free(dom);
	free(shot_arg);
	free(profile);
	free(shot);
	free(page);
	run_free(&r);
}

/* matrix.ktap is KTAP the kernel's own tools read: kunit.py parse (from the tree) counts the
 * cells as tests and their verdicts. */
TEST(e2e_ktap_summary_reads_in_kunit_tool)
{
	struct run r = harness_run("ktap", (const char *[]){ "--only", FIVE, NULL });
	char *kunit = xasprintf("%s/src/linux-source-6.1/tools/testing/kunit/kunit.py", cache);
	char *ktap = xasprintf("%s/matrix.ktap", r.results), *out;
	int status;

	CHECK(r.status == 0);
	out = tool_run("kunit-parse", (const char *[]){ "python3", kunit, "parse", ktap, NULL },
		       &status);
	CHECK(status == 0);
	CHECK_CONTAINS(out, "[PASSED] 6.1 arm64 v3 " VIA_DRM);
	CHECK_CONTAINS(out, "Ran 10 tests: passed: 10");
	free(out);
	free(ktap);
	free(kunit);
	run_free(&r);
}

/* make shell's busybox on arch: the guest's shell computes 6*7, so the answer can only come
 * from a shell that ran in the guest. Like a person at the console, the input is typed once the
 * shell has said it is up: bytes that reach a serial port before its driver and the shell are
 * ready are lost (arm64's PL011 then takes no more). Exiting the shell panics the kernel, and
 * QEMU ends. */
static int shell_computes(int answer, const char *arch, const char *busybox)
{
	char *want = xasprintf("kcmp-shell-%d", answer);
	char *console = xasprintf("%s/shell-%s.console", scratch, arch);
	char *script = xasprintf(
		"wait_for() { n=0; until grep -q \"$1\" %s 2>/dev/null; do sleep 0.2; "
		"n=$((n+1)); [ $n -lt 900 ] || return 1; done; }\n"
		"{ wait_for 'job control turned off' && sleep 1 && "
		"printf 'echo kcmp-shell-$((6*7)); exit\\n' && wait_for 'Kernel panic'; } | "
		"%s --cache %s --results %s/shell-%s --trees 6.1 --variants v3 --arch %s --only %s --shell "
		"--busybox %s > %s 2>&1\ncat %s\n",
		console, harness, cache, scratch, arch, arch, OFF, busybox, console, console);
	char *name = xasprintf("shell-%s", arch), *out;
	int status, ok;

	out = tool_run(name, (const char *[]){ "sh", "-c", script, NULL }, &status);
	ok = out && strstr(out, "with a busybox shell on the console") && strstr(out, want);
	if (!ok)
		printf("# %s shell: no '%s' in its console\n", arch, want);
	free(out);
	free(name);
	free(script);
	free(console);
	free(want);
	return ok;
}

/* make cell: one cell named in full, with its reproducer; a partial name is refused. make
 * shell: that cell's kernel with busybox as /bin/sh, driven through the serial console. */
TEST(e2e_one_cell_and_its_shell)
{
	struct run one = harness_run("one-cell", (const char *[]){ "--arch", "x86_64", "--only", OFF,
								   "--single", NULL });
	struct run many = harness_run("many-cells", (const char *[]){ "--arch", "x86_64", "--only",
								      "EXPERT=y", "--single", NULL });
	struct run arm = harness_run("arm-shell", (const char *[]){ "--arch", "arm64", "--only", OFF,
								    "--shell", NULL });
	char *repro = xasprintf("%s/cells/6.1/v3/x86_64/" OFF "/reproduce.sh", one.results);
	char *text = read_file(repro, NULL), *busybox;
	int status;

	CHECK(one.status == 0);
	CHECK_CONTAINS(one.out, "1 cells: 1 PASS");
	CHECK_CONTAINS(text, "make cell TREES=6.1 ARCH=x86_64 VARIANT=v3 COMBO=" OFF "\n");
	CHECK_CONTAINS(text, "olddefconfig\nmake -C ");
	CHECK_CONTAINS(text, "qemu-system-x86_64 ");
	CHECK_CONTAINS(text, "/arch/x86/boot/bzImage -initrd ");
	CHECK(many.status == 2);
	CHECK_CONTAINS(many.out, "the filters select 24 cells, not one");	/* DRM takes n, m, y */
	CHECK(arm.status == 2);
	CHECK_CONTAINS(arm.out, "no static busybox for arm64");
	/* the native busybox, then arm64's from Debian's archive */
	CHECK(shell_computes(42, "x86_64", "/bin/busybox"));
	setenv("CACHE", cache, 1);
	busybox = tool_run("fetch-busybox", (const char *[]){ "scripts/fetch-busybox", "arm64", NULL },
			   &status);
	unsetenv("CACHE");
	CHECK(status == 0 && busybox);
	if (status == 0 && busybox) {
		*strchrnul(busybox, '\n') = 0;
		CHECK(shell_computes(42, "arm64", busybox));
	}
	free(busybox);
	free(text);
	free(repro);
	run_free(&arm);
	run_free(&many);
	run_free(&one);
}

/* The exit status a finished run had, from its matrix.json: 1 when a cell did not pass. */
static int earlier_run_status(const char *json_path)
{
	char *text = read_file(json_path, NULL);
	int status = !text ? -1 : count(text, "\"status\": \"") ==
					   count(text, "\"status\": \"PASS\"") +
					   count(text, "\"status\": \"XFAIL\"") ? 0 : 1;

	free(text);
	return status;
}

/* diff: a cell that newly fails leads the report and the exit status is 1; the other way
 * round it is a fix; --previous puts the same on the page. */
TEST(e2e_diff_between_runs)
{
	const char *only[] = { "--arch", "x86_64", "--only", OFF " " VIA_EXPERT, NULL };
	struct run good = harness_run("diff-good", only);
	char *earlier = xasprintf("%s/broken-kernel/matrix.json", scratch);
	/* the broken kernel's run from e2e_broken_kernel_fails_observed_layer, when it ran: its
	 * status is read back from its matrix.json (1 when some cell did not pass), not assumed */
	char *patches = path_exists(earlier) ? NULL : broken_series();
	struct run bad = !patches
				 ? (struct run){ .status = earlier_run_status(earlier),
						 .results = xasprintf("%s/broken-kernel", scratch) }
				 : harness_run("diff-bad", (const char *[]){ "--patches", patches, "--arch",
									     "x86_64", "--only", OFF " " VIA_EXPERT,
									     NULL });
	char *good_json = xasprintf("%s/matrix.json", good.results);
	char *bad_json = xasprintf("%s/matrix.json", bad.results);
	struct run worse = harness_run("diff-worse", (const char *[]){ "diff", good_json, bad_json, NULL });
	struct run better = harness_run("diff-better", (const char *[]){ "diff", bad_json, good_json, NULL });
	struct run page = harness_run("diff-page", (const char *[]){ "--arch", "x86_64", "--only",
								     OFF " " VIA_EXPERT, "--previous",
								     bad_json, NULL });
	char *html = results_file(&page, "index.html");

	CHECK(good.status == 0 && bad.status == 1);
	CHECK(worse.status == 1);
	/* the broken kernel is 6.1's v3 with one more patch: the same cells of the same tree */
	CHECK_CONTAINS(worse.out, "2 cells in both runs: 1 new failures, 0 fixed, 1 observed changes, "
		       "0 build changes\nNew failures (1):\n  6.1 x86_64 v3 " VIA_EXPERT ": PASS -> FAIL: "
		       "observed: kcmp=enosys");
	CHECK_CONTAINS(worse.out, "Observed state changed (1):\n  6.1 x86_64 v3 " VIA_EXPERT
		       ": kcmp=works -> kcmp=enosys, epoll_tfd=works -> epoll_tfd=enosys\n");
	CHECK(better.status == 0);
	CHECK_CONTAINS(better.out, "Fixed (1):\n  6.1 x86_64 v3 " VIA_EXPERT ": FAIL -> PASS");
	CHECK_CONTAINS(html, "<pre id=\"changes\">2 cells in both runs: 0 new failures, 1 fixed");
	free(html);
	run_free(&page);
	run_free(&better);
	run_free(&worse);
	free(good_json);
	free(bad_json);
	run_free(&bad);
	run_free(&good);
	free(earlier);
	free(patches);
}

/* A kcmp() that is wrong for every resource type in a way the guest used to miss: each type
 * answers by comparing another type's pointer, SYSVSEM by the io_context, EPOLL_TFD says "same"
 * for any registered target, only the second task's access is checked, KCMP_FILE looks idx2 up
 * in the first task's fd table, and every inequality is 1 (no order). The kcmp, epoll
 * and epoll_tfd presence is right, so only the guest's checks can tell; the cell must FAIL
 * with each of them named. (One kernel for all of them, so make test builds one, not eight;
 * each wrongness sits in its own branch of kcmp(), so none hides another.) */
TEST(e2e_mutant_kernel_fails_each_resource_check)
{
	static const struct edit edits[] = {
		{ "kernel/kcmp.c", "kcmp_ptr(task1->mm, task2->mm, KCMP_VM)",
		  "kcmp_ptr(task1->sighand, task2->sighand, KCMP_VM)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->files, task2->files, KCMP_FILES)",
		  "kcmp_ptr(task1->fs, task2->fs, KCMP_FILES)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->fs, task2->fs, KCMP_FS)",
		  "kcmp_ptr(task1->files, task2->files, KCMP_FS)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->sighand, task2->sighand, KCMP_SIGHAND)",
		  "kcmp_ptr(task1->mm, task2->mm, KCMP_SIGHAND)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->io_context, task2->io_context, KCMP_IO)",
		  "kcmp_ptr(task1->files, task2->files, KCMP_IO)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->sysvsem.undo_list,\n\t\t\t       task2->sysvsem.undo_list,",
		  "kcmp_ptr(task1->io_context,\n\t\t\t       task2->io_context," },
		{ "kernel/kcmp.c", "return kcmp_ptr(filp, filp_tgt, KCMP_FILE);",
		  "return filp ? 0 : -EBADF;" },
		{ "kernel/kcmp.c", "if (!ptrace_may_access(task1, PTRACE_MODE_READ_REALCREDS) ||\n\t    ",
		  "if (" },
		{ "kernel/kcmp.c", "filp2 = get_file_raw_ptr(task2, idx2);",
		  "filp2 = get_file_raw_ptr(task1, idx2);" },
		{ "kernel/kcmp.c", "return (t1 < t2) | ((t1 > t2) << 1);", "return t1 != t2;" },
		{ 0 } };
	/* the first check each wrongness fails, in the guest's order */
	static const char *const named[] = {
		"kcmp_vm_clone_vm_child", "kcmp_files_clone_files_child", "kcmp_files_clone_fs_child",
		"kcmp_fs_clone_fs_child", "kcmp_fs_clone_files_child", "kcmp_sighand_clone_vm_child",
		"kcmp_io_clone_io_child", "kcmp_io_clone_files_child",
		"kcmp_sysvsem_clone_sysvsem_child", "kcmp_epoll_tfd_other_file",
		"kcmp_eperm_pid1_unprivileged", "kcmp_file_across_dup2", "kcmp_file_across_received",
		"kcmp_file_across_ebadf_idx2", "kcmp_order_file", "kcmp_epoll_tfd_across_other_file" };
	char *patches = mutant_series("kernel-patch", "patches-mutant", "v3", edits);
	const char *args[] = { "--patches", patches, "--arch", "x86_64", "--only", VIA_EXPERT, NULL };
	struct run r = harness_run("mutant-kernel", args);
	char *line = cell_line(&r, "x86_64", VIA_EXPERT);

	CHECK(r.status == 1);
	/* presence is right: the observed layer agrees, only the guest's checks fail */
	expect_cell(&r, "x86_64", VIA_EXPERT, "FAIL\tworks\tworks\tworks\tyynny\tguest: not ok ");
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		char *want = xasprintf(" %s", named[i]);

		if (!line || !strstr(line, want))
			printf("# the mutant's reason does not name %s\n", named[i]);
		CHECK(line && strstr(line, want));
		free(want);
	}
	CHECK(line && !strstr(line, "kcmp_vm_forked_child") && !strstr(line, "kcmp_file_dup"));
	if (line)
		printf("# %s\n", line);
	free(line);
	run_free(&r);
	free(patches);
}

/* A kcmp() that answers right but, as its command line says (kcmpm_mutant=), panics at its
 * first call, WARNs on every KCMP_FILE call, or neither; with no word it tosses a coin once per
 * boot (about half of its boots panic), which the test forces through tests/fakes/qemu-append:
 * each side is seen every run. */
static const struct edit health_edits[] = {
	{ "kernel/kcmp.c", "SYSCALL_DEFINE5(kcmp, pid_t, pid1, pid_t, pid2, int, type,\n",
	  "/* kcmp-matrix e2e test: a kcmp() that panics or warns */\n"
	  "static int kcmpm_mutant = -1;\n"
	  "static int __init kcmpm_mutant_setup(char *s)\n{\n"
	  "\tkcmpm_mutant = !strcmp(s, \"panic\") ? 1 : !strcmp(s, \"warn\") ? 2 : 0;\n"
	  "\treturn 1;\n}\n__setup(\"kcmpm_mutant=\", kcmpm_mutant_setup);\n\n"
	  "SYSCALL_DEFINE5(kcmp, pid_t, pid1, pid_t, pid2, int, type,\n" },
	{ "kernel/kcmp.c", "\tstruct task_struct *task1, *task2;\n\tint ret;\n\n",
	  "\tstruct task_struct *task1, *task2;\n\tint ret;\n\n"
	  "\tif (kcmpm_mutant < 0)\n\t\tkcmpm_mutant = get_random_u32() & 1;\n"
	  "\tif (kcmpm_mutant == 1)\n\t\tpanic(\"kcmp-matrix e2e mutant: a bad boot\");\n"
	  "\tWARN(kcmpm_mutant == 2 && type == KCMP_FILE, \"kcmp-matrix e2e mutant\");\n" },
	{ 0 } };

/* Runs the health mutant's cell with the command line words first (first boot) and later
 * (every other boot), booting afresh. */
static struct run health_run(const char *name, const char *patches, const char *first,
			     const char *later)
{
	char *state = xasprintf("%s/%s.state", scratch, name);
	const char *args[] = { "--patches", patches, "--arch", "x86_64", "--only", VIA_EXPERT,
			       "--qemu", "tests/fakes/qemu-append", "--force", "boot", NULL };
	struct run r;

	unlink(state);
	setenv("KCMPM_FAKE_STATE", state, 1);
	setenv("KCMPM_FAKE_APPEND_1", first, 1);
	setenv("KCMPM_FAKE_APPEND_2", later, 1);
	setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
	r = harness_run(name, args);
	unsetenv("KCMPM_FAKE_STATE");
	unsetenv("KCMPM_FAKE_APPEND_1");
	unsetenv("KCMPM_FAKE_APPEND_2");
	unsetenv("KCMPM_REAL_QEMU");
	free(state);
	return r;
}

/* A kernel that crashes or warns never passes: a panic on the first boot is BOOT_FAIL even
 * though the retry (the default one) would pass, and is not booted again; a WARNING with every
 * answer right is KERNEL_WARN naming the line; the same kernel with neither passes (so the
 * two failures are the kernel's faults, not the test's). A known warning declared in xfail is
 * XFAIL, and covers nothing else: the panic stays BOOT_FAIL. */
TEST(e2e_kernel_that_crashes_or_warns_never_passes)
{
	char *patches = mutant_series("kernel-patch", "patches-health", "v3", health_edits);
	char *xfail = xasprintf("%s/v3/xfail", patches);
	static const char decl[] = "format 1\nxfail ARCH=x86_64,KCMP=y warning:kernel/kcmp.c "
				   "the e2e mutant warns on purpose\n";
	struct run r;

	r = health_run("health-none", patches, "kcmpm_mutant=none", "kcmpm_mutant=none");
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", VIA_EXPERT, "PASS\tworks\tworks\tworks\tyynny\t");
	run_free(&r);

	r = health_run("health-warn", patches, "kcmpm_mutant=warn", "kcmpm_mutant=warn");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "KERNEL_WARN\tworks\tworks\tworks\tyynny\tkernel "
		    "warning: WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:");
	CHECK(!strstr(r.out, "booting again"));
	run_free(&r);

	r = health_run("health-coin", patches, "kcmpm_mutant=panic", "kcmpm_mutant=none");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "BOOT_FAIL\t-\t-\t-\tyynny\tkernel crashed: Kernel "
		    "panic - not syncing: kcmp-matrix e2e mutant: a bad boot");
	CHECK(!strstr(r.out, "booting again") && !strstr(r.out, "FLAKY"));
	run_free(&r);

	CHECK(write_file_atomic(xfail, decl, sizeof(decl) - 1) == 0);
	r = health_run("health-warn-known", patches, "kcmpm_mutant=warn", "kcmpm_mutant=warn");
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", VIA_EXPERT, "XFAIL\tworks\tworks\tworks\tyynny\tknown: the e2e "
		    "mutant warns on purpose; kernel warning: WARNING:");
	run_free(&r);
	r = health_run("health-coin-known", patches, "kcmpm_mutant=panic", "kcmpm_mutant=none");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "BOOT_FAIL\t");
	CHECK_CONTAINS(r.tsv, "not the failure");
	run_free(&r);
	free(xfail);
	free(patches);
}

/* Validates a run's kcidb.json against KCIDB's schema (../shared/kcidb) and its links with
 * tests/kcidb_check.py; returns its one line (free it), or NULL when it is not valid. */
static char *kcidb_check(const struct run *r, const char *schema)
{
	char *file = xasprintf("%s/kcidb.json", r->results), *out;
	int status;

	out = tool_run("kcidb-check", (const char *[]){ "/usr/bin/python3", "tests/kcidb_check.py",
							schema, file, NULL }, &status);
	printf("# kcidb %s: %s", r->results, out ? out : "(no output)\n");
	free(file);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}

/* results/kcidb.json is KCIDB I/O data (schema 5.3) with its links whole, for runs whose
 * cells are PASS, FAIL, XFAIL and BOOT_FAIL: each harness status maps to the KCIDB status the
 * README's table gives, v1's known build failure is an issue with an incident on its build,
 * and the same inputs give the same ids. Without ../shared/kcidb the test says so and skips. */
TEST(e2e_kcidb_json_is_valid_kcidb)
{
	static const char schema[] = "../shared/kcidb/kcidb-v5.3.schema.json";
	char *health = mutant_series("kernel-patch", "patches-kcidb-health", "v3", health_edits);
	char *broken = broken_series_named("patches-kcidb-broken");
	char *state = xasprintf("%s/kcidb.state", scratch), *a_line, *b_line, *again_line;
	/* the third combination resolves to OFF's config: in v1 two XFAIL cells of one kernel,
	 * whose known build failure is one incident on that build */
	const char *a_args[] = { "--patches", health, "--variants", "v1,v3", "--arch", "x86_64",
				 "--only", OFF " " VIA_EXPERT " EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,"
				 "DRM=n,EPOLL=y", "--qemu", "tests/fakes/qemu-append", "--force",
				 "boot", NULL };
	const char *b_args[] = { "--patches", broken, "--arch", "x86_64", "--only",
				 OFF " " VIA_EXPERT, NULL };
	struct run a, b, again;
	char *ids_a, *ids_again;

	if (!path_exists(schema)) {
		check_skip("../shared/kcidb is not here: kcidb.json not validated");
		free(state);
		free(broken);
		free(health);
		return;
	}
	setenv("KCMPM_FAKE_STATE", state, 1);
	setenv("KCMPM_FAKE_APPEND_1", "kcmpm_mutant=panic", 1);
	setenv("KCMPM_FAKE_APPEND_2", "kcmpm_mutant=panic", 1);
	setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
	a = harness_run("kcidb-a", a_args);
	unlink(state);
	again = harness_run("kcidb-a-again", a_args);
	unsetenv("KCMPM_FAKE_STATE");
	unsetenv("KCMPM_FAKE_APPEND_1");
	unsetenv("KCMPM_FAKE_APPEND_2");
	unsetenv("KCMPM_REAL_QEMU");
	b = harness_run("kcidb-b", b_args);
	expect_variant_cell(&a, "v3", "x86_64", VIA_EXPERT, "BOOT_FAIL\t");
	expect_variant_cell(&a, "v1", "x86_64", OFF, "XFAIL\t");
	expect_variant_cell(&a, "v3", "x86_64", OFF, "PASS\t");
	expect_cell(&b, "x86_64", VIA_EXPERT, "FAIL\t");
	a_line = kcidb_check(&a, schema);
	b_line = kcidb_check(&b, schema);
	again_line = kcidb_check(&again, schema);
	CHECK(a_line && b_line && again_line);
	CHECK_CONTAINS(a_line, "1 issues 2 incidents");
	CHECK_CONTAINS(a_line, "BOOT_FAIL=FAIL");
	CHECK_CONTAINS(a_line, "PASS=PASS");
	CHECK_CONTAINS(a_line, "XFAIL=FAIL");
	CHECK_CONTAINS(b_line, "FAIL=FAIL");
	{
		char *doc = results_file(&a, "kcidb.json");

		/* the known build failure's incident is on the build, which FAILed */
		CHECK_CONTAINS(doc, "\"issue_version\": 1, \"build_id\": \"kcmp_matrix:");
		CHECK_CONTAINS(doc, "\"status\": \"FAIL\", \"log_excerpt\": ");
		CHECK_CONTAINS(doc, "\"path\": \"kcmp_matrix.guest.kcmp_present\"");
		free(doc);
	}
	/* the same inputs, the same ids: only times and durations may differ */
	ids_a = results_file(&a, "kcidb.json");
	ids_again = results_file(&again, "kcidb.json");
	CHECK(ids_a && ids_again && count(ids_a, "\"id\": \"kcmp_matrix:") ==
	      count(ids_again, "\"id\": \"kcmp_matrix:"));
	for (const char *p = ids_a; p && (p = strstr(p, "\"id\": \"")); p++) {
		char id[64] = "";

		sscanf(p, "\"id\": \"%63[^\"]", id);
		if (!strstr(ids_again, id))
			printf("# id %s of the first run is not in the second\n", id);
		CHECK(strstr(ids_again, id) != NULL);
	}
	free(ids_again);
	free(ids_a);
	free(again_line);
	free(b_line);
	free(a_line);
	run_free(&again);
	run_free(&b);
	run_free(&a);
	free(state);
	free(broken);
	free(health);
}

/* Starts the harness in the background with args, waits until wait_file (NULL: its output)
 * holds wait_for, sends it the signal sig (a name, like INT), and waits for it to end. Returns
 * its output, followed by a line "exit=N". */
static char *interrupted_run(const char *name, const char *const *args, const char *wait_file,
			     const char *wait_for, const char *sig)
{
	const char *argv[32] = { harness, "--cache", cache, "--results" };
	char *results = xasprintf("%s/%s", scratch, name), *log = xasprintf("%s.log", results);
	char *line, *script, *out;
	int n = 4, status;

	argv[n++] = results;
	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "--variants";
	argv[n++] = "v3";
	argv[n++] = "--trees";
	argv[n++] = "6.1";
	argv[n] = NULL;
	line = spawn_format_argv(argv);
	script = xasprintf("%s > %s 2>&1 & pid=$!; n=0\n"
			   "until grep -q -F -e '%s' %s; do sleep 0.05; n=$((n+1)); "
			   "[ $n -lt 3000 ] || break; done\n"
			   "kill -%s $pid; wait $pid; echo exit=$? >> %s\n",
			   line, log, wait_for, wait_file ? wait_file : log, sig, log);
	free(tool_run(name, (const char *[]){ "sh", "-c", script, NULL }, &status));
	out = read_file(log, NULL);
	printf("# %s: %s", name, out && strstr(out, "exit=") ? strstr(out, "exit=") : "no exit\n");
	free(script);
	free(line);
	free(log);
	free(results);
	return out;
}

/* Is the process running? A zombie is not: it has ended, and waits for whoever adopted it to
 * reap it. */
static int alive(long pid)
{
	char *path = xasprintf("/proc/%ld/stat", pid), *stat = read_file(path, NULL);
	char *paren = stat ? strrchr(stat, ')') : NULL;
	int running = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';

	free(stat);
	free(path);
	return running;
}

/* The pids a fake wrote to $KCMPM_TEST_PIDS; returns how many of them still run. */
static int still_running(const char *pid_file, int *total)
{
	char *text = read_file(pid_file, NULL), *p = text, *end;
	int running = 0;

	*total = 0;
	usleep(300 * 1000);	/* time for the kernel to deliver the last signals */
	for (long pid; p && (pid = strtol(p, &end, 10)) > 0; p = end) {
		(*total)++;
		running += alive(pid);
	}
	free(text);
	return running;
}

/* SIGINT between boots: the harness says how far it got and how to resume, QEMU is gone, and
 * the tables hold the finished cells alone, marked partial (no table of an earlier run stays
 * beside cells this one rewrote; no temporary file is left); run again, the finished cells
 * come from the cache and the table is that of an uninterrupted run. */
TEST(e2e_interrupt_then_resume)
{
	const char *only[] = { "--arch", "x86_64", "--only", FIVE, NULL };
	struct run whole = harness_run("resume-reference", only);
	char *pids = xasprintf("%s/qemu-slow.pids", scratch), *out, *json;
	/* a QEMU program of this test run's own, so boots cached by earlier runs do not count */
	char *qemu = xasprintf("%s/qemu-slow-x86_64", scratch);
	const char *slow[] = { "--arch", "x86_64", "--only", FIVE, "--qemu", qemu, NULL };
	struct run resumed;
	int finished = -1, total, cached = 0, written = -1;
	char *text, *partial;

	CHECK(copy_file("tests/fakes/qemu-slow-x86_64", qemu) == 0 && chmod(qemu, 0755) == 0);
	setenv("KCMPM_TEST_PIDS", pids, 1);
	out = interrupted_run("resume", slow, NULL, "[  2/5]", "INT");
	CHECK_CONTAINS(out, "exit=130");
	CHECK(out && strstr(out, "interrupted after ") &&
	      sscanf(strstr(out, "interrupted after "), "interrupted after %d of 5", &finished) == 1);
	CHECK(finished >= 2 && finished < 5);
	CHECK_CONTAINS(out, "Run the same command again to finish");
	CHECK(still_running(pids, &total) == 0);
	CHECK(total >= finished);	/* and any boot in flight was killed, not waited for */
	json = xasprintf("%s/resume/matrix.json", scratch);
	text = read_file(json, NULL);
	partial = text ? strstr(text, "\"partial\": \"stopped after ") : NULL;
	CHECK(partial && sscanf(partial, "\"partial\": \"stopped after %d of 5 cells", &written) == 1);
	/* a cell ending in the very moment of the signal may be in the note and not the table */
	CHECK(written >= 1 && (written == finished || written == finished - 1));
	CHECK_CONTAINS(text, "interrupted by SIGINT");
	CHECK(count_files_named(scratch, "*.tmp.*") == 0);
	resumed = harness_run("resume", slow);
	CHECK(resumed.status == 0);
	for (const char *p = resumed.out; p && (p = strstr(p, "build cached 0.0s boot cached")); p++)
		cached++;
	printf("# %d cells finished before the interrupt, %d boots reused after it\n", finished,
	       cached);
	CHECK(cached == finished);
	CHECK(whole.tsv && resumed.tsv && !strcmp(whole.tsv, resumed.tsv));
	{
		char *a = results_file(&whole, "matrix.md"), *b = results_file(&resumed, "matrix.md");

		CHECK(a && b && !strcmp(a, b));
		free(a);
		free(b);
	}
	unsetenv("KCMPM_TEST_PIDS");
	run_free(&resumed);
	run_free(&whole);
	free(text);
	free(json);
	free(out);
	free(qemu);
	free(pids);
}

/* make shell's QEMU belongs to the person at its console, not to a run: a later run on the same
 * cache sweeps what killed runs left behind (spawn_claim_children) and must leave it be. The
 * shell's boot (rdinit=/bin/sh) is a sleep in place of QEMU; the cell's own boot is real. */
TEST(e2e_shell_qemu_is_not_swept_by_a_later_run)
{
	char *pidfile = xasprintf("%s/shell-qemu.pid", scratch);
	char *qemu = xasprintf("%s/qemu-shell-x86_64", scratch);
	char *results = xasprintf("%s/shell-kept", scratch);
	const char *fake = "#!/bin/sh\n"
			   "case \"$*\" in *rdinit=/bin/sh*) echo $$ > \"$KCMPM_TEST_PIDS\"; "
			   "exec sleep 600 ;; esac\n"
			   "exec qemu-system-x86_64 \"$@\"\n";
	const char *argv[] = { harness, "--cache", cache, "--results", results, "--trees", "6.1",
			       "--variants", "v3", "--arch", "x86_64", "--only", OFF, "--shell",
			       "--qemu", qemu, NULL };
	char *line = spawn_format_argv(argv), *text = NULL, *start;
	struct run later;
	long pid = 0;
	int status;

	CHECK(write_file_atomic(qemu, fake, strlen(fake)) == 0 && chmod(qemu, 0755) == 0);
	setenv("KCMPM_TEST_PIDS", pidfile, 1);
	/* a session of its own: not in the group of the test's child, which dies with it */
	start = xasprintf("setsid %s > %s.log 2>&1 < /dev/null &", line, results);
	free(tool_run("shell-start", (const char *[]){ "sh", "-c", start, NULL }, &status));
	for (int i = 0; i < 6000 && !(text = read_file(pidfile, NULL)); i++)
		usleep(50 * 1000);
	CHECK(text && sscanf(text, "%ld", &pid) == 1 && pid > 0);
	later = harness_run("after-shell", (const char *[]){ "--arch", "x86_64", "--only", OFF,
							      NULL });
	CHECK(later.status == 0);
	CHECK(pid > 0 && alive(pid));	/* the later run's sweep left the shell running */
	if (pid > 0)
		kill((pid_t)pid, SIGKILL);
	unsetenv("KCMPM_TEST_PIDS");
	run_free(&later);
	free(text);
	free(start);
	free(line);
	free(results);
	free(qemu);
	free(pidfile);
}

/* SIGKILL mid-build: no handler runs, yet make and what it started die with the harness
 * within a second (each child's keeper kills its group when the harness dies: spawn.c); the
 * temporary files of interrupted writes are cleaned up by the next run, which then finishes
 * normally. */
TEST(e2e_sigkill_mid_build_is_cleaned_up_by_the_next_run)
{
	char *pids = xasprintf("%s/make-hang.pids", scratch), *out, *text;
	const char *hang[] = { "--arch", "x86_64", "--only", OFF, "--make", "tests/fakes/make-hang",
			       NULL };
	char *stale[2] = { xasprintf("%s/killed/matrix.json.tmp.4242", scratch),
			   xasprintf("%s/killed/cells/6.1/v3/x86_64/" OFF "/serial.log.tmp.77", scratch) };
	struct run next;
	long make_pid = 0, sleep_pid = 0;

	setenv("KCMPM_TEST_PIDS", pids, 1);
	/* killed once the fake make and its child run (they wrote their pids) */
	out = interrupted_run("killed", hang, pids, " ", "KILL");
	CHECK_CONTAINS(out, "exit=137");
	for (int i = 0; i < 100 && !path_exists(pids); i++)
		usleep(50 * 1000);
	usleep(300 * 1000);
	text = read_file(pids, NULL);
	CHECK(text && sscanf(text, "%ld %ld", &make_pid, &sleep_pid) == 2);
	CHECK(make_pid > 0 && !alive(make_pid));	/* died with the harness */
	CHECK(sleep_pid > 0 && !alive(sleep_pid));	/* and so did its child, by now */
	for (int i = 0; i < 2; i++) {
		char *dir = xstrdup(stale[i]);

		*strrchr(dir, '/') = 0;
		mkdir_p(dir);
		CHECK(write_file_atomic(stale[i], "partial", 7) == 0);
		free(dir);
	}
	next = harness_run("killed", (const char *[]){ "--arch", "x86_64", "--only", OFF, NULL });
	CHECK(next.status == 0);
	CHECK_CONTAINS(next.out, "an earlier run was killed: stopped 0 of its processes, removed 2 "
		       "partial files");
	usleep(300 * 1000);
	CHECK(sleep_pid > 0 && !alive(sleep_pid));
	CHECK(!path_exists(stale[0]) && !path_exists(stale[1]));
	expect_cell(&next, "x86_64", OFF, "PASS\tenosys\t");
	unsetenv("KCMPM_TEST_PIDS");
	run_free(&next);
	free(stale[0]);
	free(stale[1]);
	free(text);
	free(out);
	free(pids);
}

/* Two runs on one cache and results directory: the second waits for the first (a lock) and
 * says so, and never interleaves with it; both finish with complete results. The slow QEMU
 * writes each boot's pid to an events file, and the first run's end is written there too:
 * exactly the first run's five boots come before it. */
TEST(e2e_second_run_waits_for_the_first)
{
	char *results = xasprintf("%s/two-runs", scratch), *events = xasprintf("%s/two-runs.events", scratch);
	const char *argv[] = { harness, "--cache", cache, "--results", results, "--variants", "v3",
			       "--trees", "6.1", "--arch", "x86_64", "--only", FIVE, "--qemu",
			       "tests/fakes/qemu-slow-x86_64", "--force", "boot", NULL };
	char *line = spawn_format_argv(argv);
	char *script = xasprintf("%s > %s/first.log 2>&1 & first=$!\n"
				 "until grep -q booting %s/first.log 2>/dev/null; do sleep 0.05; done\n"
				 "{ %s > %s/second.log 2>&1; echo second=$? >> %s/second.log; } &\n"
				 "wait $first; echo first=$? >> %s/first.log; echo first-ended >> %s\n"
				 "wait; cat %s/first.log %s/second.log\n",
				 line, scratch, scratch, line, scratch, scratch, scratch, events, scratch,
				 scratch);
	char *out, *tsv, *path = xasprintf("%s/matrix.tsv", results), *ev, *end;
	int status, lines = 0, before = 0, after = 0;

	setenv("KCMPM_TEST_PIDS", events, 1);
	out = tool_run("two-runs", (const char *[]){ "sh", "-c", script, NULL }, &status);
	unsetenv("KCMPM_TEST_PIDS");
	CHECK_CONTAINS(out, "first=0");
	CHECK_CONTAINS(out, "second=0");
	CHECK_CONTAINS(out, "another kcmp-matrix run is using '");
	CHECK_CONTAINS(out, "'; waiting for it to finish");
	ev = read_file(events, NULL);
	end = ev ? strstr(ev, "first-ended\n") : NULL;
	CHECK(end != NULL);
	for (char *p = ev; end && *p; p++)
		if (*p == '\n' && p < end)
			before++;
		else if (*p == '\n')
			after++;
	printf("# boots before the first run ended: %d, after: %d\n", before, after - 1);
	CHECK(before == 5 && after - 1 == 5);
	tsv = read_file(path, NULL);
	for (char *p = tsv; p && *p; p++)
		lines += *p == '\n';
	CHECK(lines == 6);
	free(ev);
	free(tsv);
	free(path);
	free(out);
	free(script);
	free(line);
	free(events);
	free(results);
}

/* A full disk during a build is the machine's problem, not a kernel verdict: exit 2 with the
 * reason, and the results already there are kept. */
TEST(e2e_full_disk_exits_2_and_keeps_results)
{
	char *results = xasprintf("%s/disk-full", scratch), *json = xasprintf("%s/matrix.json", results);
	static const char earlier[] = "{\"schema\": 1, \"earlier\": true}\n";
	struct run r;
	char *after;

	mkdir_p(results);
	write_file_atomic(json, earlier, sizeof(earlier) - 1);
	r = harness_run("disk-full", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--make",
						       "tests/fakes/make-disk-full", NULL });
	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, "kcmp-matrix: the disk is full (No space left on device) while building");
	after = read_file(json, NULL);
	CHECK_STR(after, earlier);
	free(after);
	run_free(&r);
	free(json);
	free(results);
}


/* A run that the preflight stops: exit 2, the summary naming packages as its last line, and
 * no config made, no kernel built, no cell judged. */
static struct run expect_preflight_stop(const char *name, const char *const *args,
					const char *packages)
{
	struct run r = harness_run(name, args);
	char *want = xasprintf("found before any build; install what is missing: apt-get install %s",
			       packages);

	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, want);
	CHECK(r.out && !strstr(r.out, "base config") && !strstr(r.out, "distinct kernels") &&
	      !strstr(r.out, "building"));
	free(want);
	return r;
}

/* The machine a new user meets: the arm64 cross compiler is there, its C library is not (it is
 * only a Recommends). The run stops before any build of any arch, naming the package, instead
 * of failing after every x86_64 kernel. */
/* No temporary file of an atomic write (name.tmp.<pid>) under dir. */
static int temp_files_under(const char *dir)
{
	const char *argv[] = { "find", dir, "-name", "*.tmp.[0-9]*", NULL };
	int status;
	char *out = tool_run("find-temps", argv, &status);
	int n = out ? count(out, "\n") : 0;

	free(out);
	return n;
}

/* A real full disk: the results directory on a 1 MiB tmpfs. A one-cell run fits; a 48-cell
 * run (about 30 KiB of config per cell) does not, and must stop with exit 2 and a line saying
 * the disk is full, leaving the first run's results whole and no temporary file behind.
 * Mounting needs root (as in CI); where it is not permitted the test says so and skips. */
TEST(e2e_real_full_disk_on_a_tmpfs)
{
	char *mnt = xasprintf("%s/tmpfs", scratch), *json = xasprintf("%s/results/matrix.json", mnt);
	const char *mount_argv[] = { "mount", "-t", "tmpfs", "-o", "size=1m", "kcmpm-e2e", mnt, NULL };
	const char *umount_argv[] = { "umount", mnt, NULL };
	char *out, *before, *after;
	struct run first, full;
	int status;

	mkdir_p(mnt);
	out = tool_run("mount-tmpfs", mount_argv, &status);
	if (status != 0) {
		char why[300];

		snprintf(why, sizeof(why), "cannot mount a tmpfs here (%.200s)", out ? out : "");
		why[strcspn(why, "\n")] = 0;
		check_skip(why);
		free(out);
		free(json);
		free(mnt);
		return;
	}
	free(out);
	first = harness_run("tmpfs/results", (const char *[]){ "--config-only", "--arch", "x86_64",
							      "--only", OFF, NULL });
	CHECK(first.status == 0);
	before = read_file(json, NULL);
	CHECK(before != NULL);
	full = harness_run("tmpfs/results", (const char *[]){ "--config-only", "--arch", "x86_64",
							     NULL });
	CHECK(full.status == 2);
	CHECK_CONTAINS(full.out, "No space left on device; free space and run again: finished "
		       "cells are kept");
	after = read_file(json, NULL);
	CHECK(before && after && !strcmp(before, after));
	CHECK(temp_files_under(mnt) == 0);
	out = tool_run("umount-tmpfs", umount_argv, &status);
	CHECK(status == 0);
	free(out);
	free(before);
	free(after);
	run_free(&first);
	run_free(&full);
	free(json);
	free(mnt);
}

TEST(e2e_broken_arm64_compiler_stops_before_any_build)
{
	char *dir = scratch_copy("matrix", "matrix-no-arm64-libc"), *top = getcwd(NULL, 0);
	char *arches_conf = xasprintf("%s/arches.conf", dir);
	char *prefix = xasprintf("cross-compile %s/tests/fakes/aarch64-no-libc-", top);
	struct run r;

	edit_file(arches_conf, "cross-compile aarch64-linux-gnu-", prefix);
	r = expect_preflight_stop("no-arm64-libc", (const char *[]){ "--matrix", dir, "--only", OFF,
								     NULL },
				  "gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm");
	CHECK_CONTAINS(r.out, "kcmp-matrix: arch arm64: '");
	CHECK_CONTAINS(r.out, "aarch64-no-libc-gcc' cannot compile and statically link the guest "
		       "(");
	CHECK_CONTAINS(r.out, "guest-tests/kcmp_init.c:");
	CHECK_CONTAINS(r.out, "fatal error: ");
	CHECK_CONTAINS(r.out, "1 problem found before any build");
	CHECK(!strstr(r.out, "arch x86_64:"));
	run_free(&r);
	free(prefix);
	free(arches_conf);
	free(top);
	free(dir);
}

/* Every other thing the preflight checks, each missing at once: one line per problem naming
 * its package, then one line naming them all. */
TEST(e2e_preflight_names_each_missing_package)
{
	char *dir = scratch_copy("matrix", "matrix-bare-machine");
	char *host = xasprintf("%s/host.conf", dir), *arches_conf = xasprintf("%s/arches.conf", dir);
	char *conf = xasprintf("%s/matrix.conf", dir);
	struct run r;

	edit_file(host, "program flex flex", "program flex flex\nprogram kcmpm-no-such-tool kcmpm-tools");
	edit_file(host, "header gelf.h libelf-dev", "header gelf.h libelf-dev\n"
		  "header kcmpm/no-such.h libkcmpm-dev");
	edit_file(arches_conf, "-cpu qemu64", "-cpu kcmpm-no-such-cpu");
	edit_file(conf, "tree 6.12 linux-source-6.12 /usr/src/linux-source-6.12.tar.xz",
		  "tree 6.12 linux-source-9.9 /usr/src/linux-source-9.9.tar.xz");
	r = expect_preflight_stop("bare-machine", (const char *[]){ "--matrix", dir, "--only", OFF,
								    "--trees", "6.1,6.12", NULL },
				  "kcmpm-tools libkcmpm-dev linux-source-9.9 gcc libc6-dev "
				  "qemu-system-x86");
	CHECK_CONTAINS(r.out, "kcmp-matrix: program 'kcmpm-no-such-tool' not found; install: "
		       "apt-get install kcmpm-tools\n");
	CHECK_CONTAINS(r.out, "kcmp-matrix: header 'kcmpm/no-such.h' not found by cc (");
	CHECK_CONTAINS(r.out, "kcmpm/no-such.h: No such file or directory); install: apt-get "
		       "install libkcmpm-dev\n");
	/* a tree that cannot be had names its package, and how to run without it */
	CHECK_CONTAINS(r.out, "kcmp-matrix: tree 6.12: kernel tarball '/usr/src/linux-source-9.9.tar.xz' "
		       "not found; install it: apt-get install linux-source-9.9; or leave the tree "
		       "out: TREES=6.1\n");
	CHECK_CONTAINS(r.out, "kcmp-matrix: arch x86_64: QEMU 'qemu-system-x86_64' cannot set up the "
		       "arch's machine (qemu-system-x86_64: unable to find CPU model "
		       "'kcmpm-no-such-cpu'); install: apt-get install gcc libc6-dev qemu-system-x86");
	CHECK_CONTAINS(r.out, "4 problems found before any build");
	run_free(&r);
	free(conf);
	free(arches_conf);
	free(host);
	free(dir);
}

/* An error halfway through: the x86_64 cell finished, then arm64's cell directory cannot be
 * made. Exit 2 with the error, and the finished cell's table, JSON and page are there, marked
 * partial. */
TEST(e2e_error_midway_leaves_partial_results)
{
	char *results = xasprintf("%s/midway", scratch), *blocker, *md, *json, *html, *text;
	struct run r;

	blocker = xasprintf("%s/cells/6.1/v3/arm64", results);
	mkdir_p(blocker);
	remove_tree(blocker);
	write_file_atomic(blocker, "not a directory\n", 16);
	r = harness_run("midway", (const char *[]){ "--only", OFF, NULL });
	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, "kcmp-matrix: the 1 finished cells are in ");
	CHECK_CONTAINS(r.out, "kcmp-matrix: cannot create '");
	md = xasprintf("%s/matrix.md", results);
	text = read_file(md, NULL);
	CHECK(text && !strncmp(text, "PARTIAL RUN, stopped after 1 of 2 cells: cannot create '", 56));
	CHECK_CONTAINS(text, "| n | n | n | n | y | PASS kcmp=enosys |");
	CHECK_CONTAINS(text, "\n1 cells: 1 PASS\n");
	free(text);
	expect_cell(&r, "x86_64", OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
	CHECK(r.tsv && !strstr(r.tsv, "arm64"));
	json = xasprintf("%s/matrix.json", results);
	text = read_file(json, NULL);
	CHECK_CONTAINS(text, "\"partial\": \"stopped after 1 of 2 cells: cannot create '");
	free(text);
	html = xasprintf("%s/index.html", results);
	text = read_file(html, NULL);
	CHECK_CONTAINS(text, "<b>Partial run</b>, stopped after 1 of 2 cells");
	free(text);
	run_free(&r);
	free(html);
	free(json);
	free(md);
	free(blocker);
	free(results);
}

/* A boot that stalls once, as on a loaded CI runner: with no retries it is TIMEOUT; with the
 * default one retry the boot is tried again, and the cell is PASS marked FLAKY in every
 * report, the stalled attempt's console kept. make diff lists it apart from failures. Both
 * runs boot afresh (--force boot), so the test does not depend on what the cache holds. */
TEST(e2e_flaky_boot_passes_on_a_retry)
{
	char *state = xasprintf("%s/flaky.state", scratch);
	const char *base[] = { "--arch", "x86_64", "--only", OFF, "--qemu", "tests/fakes/qemu-flaky",
			       "--boot-timeout", "5", "--force", "boot", NULL, NULL, NULL };
	struct run once, retried, diff;
	char *attempt, *json_once, *json_retried, *text;

	setenv("KCMPM_FAKE_STATE", state, 1);
	setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
	base[10] = "--boot-retries";
	base[11] = "0";
	once = harness_run("flaky-once", base);
	base[10] = NULL;
	unlink(state);	/* the fake stalls once more */
	retried = harness_run("flaky-retried", base);
	unsetenv("KCMPM_FAKE_STATE");
	unsetenv("KCMPM_REAL_QEMU");
	CHECK(once.status == 1);
	expect_cell(&once, "x86_64", OFF, "TIMEOUT\t");
	CHECK(retried.status == 0);
	expect_cell(&retried, "x86_64", OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
	CHECK_CONTAINS(retried.out, "boot 1 timed out with no crash or warning");
	CHECK_CONTAINS(retried.out, "| n | n | n | n | y | PASS kcmp=enosys FLAKY |");
	attempt = xasprintf("%s/cells/6.1/v3/x86_64/" OFF "/serial.attempt-1.log", retried.results);
	text = read_file(attempt, NULL);
	CHECK_CONTAINS(text, "SeaBIOS (version fake, about to stall)");
	free(text);
	json_retried = xasprintf("%s/matrix.json", retried.results);
	text = read_file(json_retried, NULL);
	CHECK_CONTAINS(text, "\"flaky\": true");
	CHECK_CONTAINS(text, "\"boots\": 2, \"consoles\": [\"cells/6.1/v3/x86_64/" OFF
		       "/serial.attempt-1.log\", \"cells/6.1/v3/x86_64/" OFF "/serial.log\"]");
	free(text);
	/* the boot cache keeps both boots: a rerun that reuses it shows the same FLAKY */
	{
		const char *again[] = { "--arch", "x86_64", "--only", OFF, "--qemu",
					"tests/fakes/qemu-flaky", "--boot-timeout", "5", NULL };
		struct run rerun;

		setenv("KCMPM_FAKE_STATE", state, 1);
		setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
		rerun = harness_run("flaky-rerun", again);
		unsetenv("KCMPM_FAKE_STATE");
		unsetenv("KCMPM_REAL_QEMU");
		CHECK(rerun.status == 0);
		CHECK_CONTAINS(rerun.out, "| n | n | n | n | y | PASS kcmp=enosys FLAKY |");
		CHECK_CONTAINS(rerun.out, "boot cached");
		run_free(&rerun);
	}
	json_once = xasprintf("%s/matrix.json", once.results);
	diff = harness_run("flaky-diff", (const char *[]){ "diff", json_once, json_retried, NULL });
	CHECK(diff.status == 0);
	CHECK_CONTAINS(diff.out, "Flaky (passed on a retry of the boot; not failures) (1):\n"
		       "  6.1 x86_64 v3 " OFF ": PASS on a retry\n");
	run_free(&diff);
	run_free(&once);
	run_free(&retried);
	free(json_once);
	free(json_retried);
	free(attempt);
	free(state);
}

/* Rewrites the file named file of every cache entry under kind_dir whose content is from as
 * to; returns how many. Several requests can resolve to one config and several boots can
 * print one log, so corrupting every entry with a cell's content reaches the one its run
 * uses; the others are put back afterwards, so the shared cache is left as it was found. */
static int rewrite_entries(const char *kind_dir, const char *file, const char *from,
			   const char *to)
{
	DIR *d = opendir(kind_dir);
	struct dirent *e;
	int n = 0;

	while (d && from && to && (e = readdir(d))) {
		char *path = xasprintf("%s/%s/%s", kind_dir, e->d_name, file);
		char *have = e->d_name[0] != '.' ? read_file(path, NULL) : NULL;

		if (have && !strcmp(have, from)) {
			write_file_atomic(path, to, strlen(to));
			n++;
		}
		free(have);
		free(path);
	}
	if (d)
		closedir(d);
	return n;
}

/* A cache that lives for months on a CI runner: a kernel image, a resolved config and a
 * console log that changed after they were cached (a dying disk) are each found out before
 * use, thrown away and made again, and the summary counts them. The verdicts stay the same. */
TEST(e2e_corrupt_cache_entries_are_remade)
{
	const char *args[] = { "--arch", "x86_64", "--only", OFF, NULL };
	struct run first = harness_run("corrupt-1", args), again;
	char *cell = xasprintf("%s/cells/6.1/v3/x86_64/" OFF, first.results);
	char *config_path = xasprintf("%s/config", cell), *serial_path = xasprintf("%s/serial.log", cell);
	char *config = read_file(config_path, NULL), *serial = read_file(serial_path, NULL);
	char *line = variant_cell_line(&first, "v3", "x86_64", OFF), *tag = line ? strrchr(line, '\t') : NULL;
	char *resolved_dir = xasprintf("%s/resolved", cache), *boots_dir = xasprintf("%s/boots", cache);
	char *image = xasprintf("%s/kernels/linux-source-6.1/v3/x86_64/%s/image", cache, tag ? tag + 1 : "?");
	char *bad_config = xasprintf("%sCONFIG_KCMP=y\n", config ? config : "");
	char *bad_serial = xasprintf("%sok 99 forged\n", serial ? serial : "");

	CHECK(first.status == 0 && path_exists(image));
	if (path_exists(image))
		CHECK(truncate(image, 4096) == 0);	/* a truncated image */
	/* a config that says more, a console log that changed */
	CHECK(rewrite_entries(resolved_dir, "config", config, bad_config) > 0);
	CHECK(rewrite_entries(boots_dir, "serial.log", serial, bad_serial) > 0);
	again = harness_run("corrupt-2", args);
	CHECK(again.status == 0);
	CHECK_CONTAINS(again.out, "kernels built 1, ");
	CHECK_CONTAINS(again.out, "boots 1, ");
	CHECK_CONTAINS(again.out, "corrupt cache entries remade 3, ");
	CHECK_CONTAINS(again.out, "does not match its checksums");
	CHECK(first.tsv && again.tsv && !strcmp(first.tsv, again.tsv));
	rewrite_entries(resolved_dir, "config", bad_config, config);
	rewrite_entries(boots_dir, "serial.log", bad_serial, serial);
	run_free(&first);
	run_free(&again);
	free(bad_config);
	free(bad_serial);
	free(image);
	free(boots_dir);
	free(resolved_dir);
	free(line);
	free(serial);
	free(config);
	free(serial_path);
	free(config_path);
	free(cell);
}

/* A build that never ends (a stuck compiler or make) is killed at the arch's build timeout,
 * with everything it started: the cell is BUILD_TIMEOUT, and the run goes on to the next one. */
TEST(e2e_hung_build_is_build_timeout_and_killed)
{
	char *pids = xasprintf("%s/hung-build.pids", scratch);
	struct run r;
	int total = 0;

	setenv("KCMPM_TEST_PIDS", pids, 1);
	r = harness_run("hung-build", (const char *[]){ "--arch", "x86_64", "--only",
							OFF " " VIA_EXPERT, "--make",
							"tests/fakes/make-hang", "--build-timeout",
							"3", NULL });
	unsetenv("KCMPM_TEST_PIDS");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "BUILD_TIMEOUT\t");
	expect_cell(&r, "x86_64", VIA_EXPERT, "BUILD_TIMEOUT\t");
	CHECK_CONTAINS(r.out, "BUILD_TIMEOUT: the build did not finish within 3 s; its make was killed");
	CHECK_CONTAINS(r.out, "\n2 cells: 2 BUILD_TIMEOUT\n");
	CHECK(still_running(pids, &total) == 0);
	CHECK(total == 4);	/* two builds, each a make and the child it started */
	run_free(&r);
	free(pids);
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
	expect_harness_error("bad-tree", (const char *[]){ "--trees", "9.9", NULL },
			     "unknown tree '9.9' (matrix/matrix.conf lists the known ones)");
	/* one cell means one tree too: with both trees, make cell must be told which */
	expect_harness_error("two-trees-one-cell", (const char *[]){ "--trees", "6.1,6.12",
								     "--arch", "x86_64", "--only",
								     OFF, "--single", NULL },
			     "the filters select 2 cells, not one; name the arch, the variant and "
			     "all 5 symbols (say EXPERT=y,KCMP=n,...), and the tree if there are "
			     "several (TREES=)");
	expect_harness_error("bad-only", (const char *[]){ "--only", "KCMP=perhaps", NULL },
			     "ONLY: bad term 'KCMP=perhaps'");
	expect_harness_error("bad-shard", (const char *[]){ "--shard", "3/2", NULL },
			     "--shard: '3/2' is not K/N with 1 <= K <= N");
	expect_harness_error("bad-previous", (const char *[]){ "--previous", "tests/data", NULL },
			     "cannot read 'tests/data'");
	expect_harness_error("bad-ksrc", (const char *[]){ "--ksrc", "tests", NULL },
			     "KSRC 'tests' is not a kernel source tree");
	expect_harness_error("no-qemu", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--qemu",
							  "/nonexistent/qemu-system-x86_64", NULL },
			     "--qemu: '/nonexistent/qemu-system-x86_64' is not an executable program");
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

/* Values that used to slip through: each is one line naming what is wrong, and exit 2, before
 * anything is unpacked or built. */
TEST(e2e_bad_values_exit_2)
{
	char *dir = scratch_copy("matrix", "matrix-bad-values");
	char *conf = xasprintf("%s/matrix.conf", dir), *arch_conf = xasprintf("%s/arches.conf", dir);
	char *text = read_file(conf, NULL), *fresh_cache = xasprintf("%s/no-cell-cache", scratch);

	expect_harness_error("jobs-half", (const char *[]){ "--jobs", "0.5", NULL },
			     "--jobs: '0.5' is not a whole number from 1 to 1024");
	expect_harness_error("jobs-huge", (const char *[]){ "--jobs", "1e12", NULL },
			     "--jobs: '1e12' is not a whole number");
	expect_harness_error("timeout-nan", (const char *[]){ "--boot-timeout", "nan", NULL },
			     "--boot-timeout: 'nan' is not a positive number of seconds");
	expect_harness_error("timeout-inf", (const char *[]){ "--build-timeout", "inf", NULL },
			     "--build-timeout: 'inf' is not a positive number");
	expect_harness_error("unknown-option", (const char *[]){ "--colour", NULL },
			     "unknown option or missing value '--colour'; 'kcmp-matrix --help' "
			     "lists the options");
	/* the run would lock the one directory twice and wait on itself */
	expect_harness_error("cache-is-results", (const char *[]){ "--results", cache, NULL },
			     "--cache and --results name the same directory");
	/* a filter no cell can pass (EXPERT is bool) is said before the preflight and the unpack:
	 * the run never even makes its cache */
	expect_harness_error("no-cell", (const char *[]){ "--only", "EXPERT=m", "--cache",
							  fresh_cache, NULL },
			     "the filters select no cell; check TREES, ARCH, VARIANTS and ONLY");
	CHECK(access(fresh_cache, F_OK) != 0);
	CHECK(text != NULL);
	edit_file(conf, "symbols EXPERT KCMP", "symbols EXPERT KCMP KCMP");
	expect_harness_error("symbol-twice", (const char *[]){ "--matrix", dir, NULL },
			     "symbol 'KCMP' is listed twice");
	/* a NUL ends a C string: the rest of the file must not be silently dropped */
	write_file_atomic(conf, "format 1\n\0tree 6.1\n", 19);
	expect_harness_error("nul-byte", (const char *[]){ "--matrix", dir, NULL },
			     "matrix.conf:2: a NUL byte in a text file");
	write_file_atomic(conf, text ? text : "", text ? strlen(text) : 0);
	edit_file(arch_conf, "boot-timeout 60", "boot-timeout nan");
	expect_harness_error("arch-timeout-nan", (const char *[]){ "--matrix", dir, NULL },
			     "boot-timeout must be a positive number of seconds");
	free(text);
	free(fresh_cache);
	free(arch_conf);
	free(conf);
	free(dir);
}

/* The second question (questions/membarrier), asked of real kernels on both arches with no
 * harness C of its own. Expected values read by hand from init/Kconfig: MEMBARRIER and RSEQ
 * are "if EXPERT", default y, and RSEQ selects MEMBARRIER. Its cells where both are off are
 * judged at the config layer only: RSEQ=n changes struct task_struct, so their kernels would
 * be a heavy switch of each arch's build directory, a near-clean build, on a cold cache. */
#define MB_DEFAULTS "EXPERT=n,MEMBARRIER=n,RSEQ=n"	/* not honoured: both y */
#define MB_OFF "EXPERT=y,MEMBARRIER=n,RSEQ=n"		/* both off */
#define MB_BY_RSEQ "EXPERT=y,MEMBARRIER=n,RSEQ=y"	/* RSEQ selects MEMBARRIER */

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
