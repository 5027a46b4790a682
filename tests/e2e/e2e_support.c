/* e2e_support: the helpers the end-to-end tests share (e2e.h), and main. */
#include "e2e.h"

const char *harness = "build/kcmp-matrix-san";
char scratch[] = "/tmp/kcmpm-e2e-XXXXXX";
char *cache;

/* Runs the harness with extra arguments into a fresh results directory. */
struct run harness_run(const char *name, const char *const *args)
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

void run_free(struct run *r)
{
	free(r->out);
	free(r->tsv);
	free(r->results);
}

/* The TSV line of a cell of tree tree (NULL: of the run's only tree) without its tree column
 * ("arch\tvariant\tcombo\t..."), copied; NULL if absent. */
char *tree_cell_line(const struct run *r, const char *tree, const char *variant,
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

char *variant_cell_line(const struct run *r, const char *variant, const char *arch,
			       const char *combo)
{
	return tree_cell_line(r, NULL, variant, arch, combo);
}

char *cell_line(const struct run *r, const char *arch, const char *combo)
{
	return variant_cell_line(r, "v3", arch, combo);
}

/* Checks one cell of a variant: status, observed kcmp/epoll/epoll_tfd, resolved, reason. */
void expect_variant_cell(const struct run *r, const char *variant, const char *arch,
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

void expect_cell(const struct run *r, const char *arch, const char *combo,
			const char *status_and_observed)
{
	expect_variant_cell(r, "v3", arch, combo, status_and_observed);
}

const char *const arches[] = { "x86_64", "arm64" };

/* Runs a tool; its output (stdout and stderr) goes to scratch/<name>.out and is returned. */
char *tool_run(const char *name, const char *const *argv, int *status)
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
void expect_valid_junit(const struct run *r, int failures)
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
int edit_file_once(const char *path, const char *from, const char *to)
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

void edit_file(const char *path, const char *from, const char *to)
{
	CHECK(edit_file_once(path, from, to));
}

/* A scratch copy of a repository folder (matrix/ or kernel-patch/) to break on purpose. */
char *scratch_copy(const char *folder, const char *name)
{
	char *dir = xasprintf("%s/%s", scratch, name), *conf = xasprintf("%s/matrix.conf", dir);
	const char *cmd[] = { "cp", "-r", folder, dir, NULL };
	struct spawn_result res;

	/* afresh: cp -r into an existing directory would copy the folder inside it, and leave
	 * what an earlier call edited there (a mutant series listed twice) */
	remove_tree(dir);
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

int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* How many files under dir find's -name pattern part matches. */
int count_files_named(const char *dir, const char *part)
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

/* The harness's default cache (see main.c), so tests reuse the kernels `make matrix` built;
 * KCMPM_TEST_CACHE overrides it. */
char *default_cache(void)
{
	const char *forced = getenv("KCMPM_TEST_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (forced && *forced)
		return xstrdup(forced);
	if (xdg && *xdg)
		return xasprintf("%s/kcmp-matrix", xdg);
	return xasprintf("%s/.cache/kcmp-matrix", home && *home ? home : "/tmp");
}

/* The pristine file with the edits that name it applied; NULL (a failed check) when an edit's
 * text is not found. */
char *edited(const char *pristine, const char *file, const struct edit *edits)
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
char *mutant_series(const char *folder, const char *name, const char *variant,
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

/* A copy of a fake make at a path of the test's own: the kernel cache is keyed by the make
 * program, so no other run's entries answer for it. Returns the path (free it). */
char *own_make(const char *name, const char *fake)
{
	char *path = xasprintf("%s/%s.make", scratch, name);
	char *text = read_file(fake, NULL);

	CHECK(text && write_file_atomic(path, text, strlen(text)) == 0 && chmod(path, 0755) == 0);
	free(text);
	return path;
}

/* kcmp() always says ENOSYS: a patch series in scratch/<name>. */
char *broken_series_named(const char *name)
{
	static const struct edit edits[] = {
		{ "kernel/kcmp.c", "unsigned long, idx1, unsigned long, idx2)\n{\n",
		  "unsigned long, idx1, unsigned long, idx2)\n{\n"
		  "\treturn -ENOSYS; /* kcmp-matrix e2e test: a broken kcmp() */\n" },
		{ 0 } };

	return mutant_series("kernel-patch", name, "v3", edits);
}

char *broken_series(void)
{
	return broken_series_named("patches-broken");
}

/* Does the variant tree hold exactly the pristine tree's files? Compares every regular file
 * (hard links to the same inode are equal by construction) and the file count. */
int same_trees(const char *a, const char *b, char *diff, size_t difflen)
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

char *results_file(const struct run *r, const char *name)
{
	char *path = xasprintf("%s/%s", r->results, name), *text = read_file(path, NULL);

	free(path);
	return text;
}

/* A kcmp() that answers right but, as its command line says (kcmpm_mutant=WORD), does at its
 * first call (or every KCMP_FILE call: warn) one thing each detector and crash mark of
 * arches.conf is there to notice, or none of them; with no word it tosses a coin once per
 * boot (about half of its boots panic), which the test forces through tests/fakes/qemu-append:
 * each side is seen every run. The detectors (lockdep, atomic sleep, list debugging, UBSAN,
 * hung task, soft lockup) are the debug flavour's (matrix/base/debug.config). */
const struct edit health_edits[] = {
	{ "kernel/kcmp.c", "SYSCALL_DEFINE5(kcmp, pid_t, pid1, pid_t, pid2, int, type,\n",
	  "/* kcmp-matrix e2e test: a kcmp() that crashes, warns or trips a detector */\n"
	  "#include <linux/jiffies.h>\n#include <linux/mutex.h>\n#include <linux/sched.h>\n\n"
	  "static const char *const kcmpm_faults[] = { \"none\", \"panic\", \"warn\", \"hang\",\n"
	  "\t\"oops\", \"bug\", \"gpf\", \"divide\", \"atomic\", \"lockdep\", \"list\", \"ubsan\",\n"
	  "\t\"hung\", \"softlockup\" };\n"
	  "static int kcmpm_mutant = -1;\n"
	  "static int __init kcmpm_mutant_setup(char *s)\n{\n"
	  "\tkcmpm_mutant = 0;\n"
	  "\tfor (int i = 0; i < ARRAY_SIZE(kcmpm_faults); i++)\n"
	  "\t\tif (!strcmp(s, kcmpm_faults[i]))\n\t\t\tkcmpm_mutant = i;\n"
	  "\treturn 1;\n}\n__setup(\"kcmpm_mutant=\", kcmpm_mutant_setup);\n\n"
	  "static DEFINE_MUTEX(kcmpm_a);\nstatic DEFINE_MUTEX(kcmpm_b);\n"
	  "static LIST_HEAD(kcmpm_list);\nstatic struct list_head kcmpm_entry;\n"
	  "static int kcmpm_array[4];\nstatic volatile int kcmpm_index = 4, kcmpm_zero;\n"
	  "static int *volatile kcmpm_null;\n\n"
	  "/* spins for seconds of the kernel's own clock: a delay loop under TCG is no measure of\n"
	  " * the time the soft lockup watchdog reads */\n"
	  "static noinline void kcmpm_spin(unsigned int seconds)\n{\n"
	  "\tunsigned long end = jiffies + seconds * HZ;\n\n"
	  "\twhile (time_before(jiffies, end))\n\t\tcpu_relax();\n}\n\n"
	  "/* the fault, once per boot */\nstatic noinline void kcmpm_fault(int fault)\n{\n"
	  "\tswitch (fault) {\n"
	  "\tcase 1: panic(\"kcmp-matrix e2e mutant: a bad boot\");\n"
	  "\tcase 4: *kcmpm_null = 1; break;\n"
	  "\tcase 5: BUG();\n"
	  "\tcase 6: *(volatile int *)0xdead000000000000UL = 1; break;\n"
	  "\tcase 7: pr_info(\"kcmpm %d\\n\", kcmpm_index / kcmpm_zero); break;\n"
	  "\tcase 8: preempt_disable(); might_sleep(); preempt_enable(); break;\n"
	  "\tcase 9: mutex_lock(&kcmpm_a); mutex_lock(&kcmpm_b); mutex_unlock(&kcmpm_b);\n"
	  "\t\tmutex_unlock(&kcmpm_a); mutex_lock(&kcmpm_b); mutex_lock(&kcmpm_a);\n"
	  "\t\tmutex_unlock(&kcmpm_a); mutex_unlock(&kcmpm_b); break;\n"
	  "\tcase 10: list_add(&kcmpm_entry, &kcmpm_list); list_add(&kcmpm_entry, &kcmpm_list);\n"
	  "\t\tbreak;\n"
	  "\tcase 11: pr_info(\"kcmpm %d\\n\", kcmpm_array[kcmpm_index]); break;\n"
	  "\tcase 12: schedule_timeout_uninterruptible(25 * HZ); break;\n"
	  "\tcase 13: kcmpm_spin(30); break;\n"
	  "\t}\n}\n\n"
	  "SYSCALL_DEFINE5(kcmp, pid_t, pid1, pid_t, pid2, int, type,\n" },
	{ "kernel/kcmp.c", "\tstruct task_struct *task1, *task2;\n\tint ret;\n\n",
	  "\tstruct task_struct *task1, *task2;\n\tint ret;\n\n"
	  "\tif (kcmpm_mutant < 0)\n\t\tkcmpm_mutant = get_random_u32() & 1;\n"
	  "\tif (kcmpm_mutant != 2 && kcmpm_mutant != 3) {\n"
	  "\t\tint fault = kcmpm_mutant;\n\n"
	  "\t\tkcmpm_mutant = 0;\n\t\tkcmpm_fault(fault);\n\t}\n"
	  "\tWARN(kcmpm_mutant == 2 && type == KCMP_FILE, \"kcmp-matrix e2e mutant\");\n"
	  "\twhile (kcmpm_mutant == 3)\n\t\tschedule_timeout_uninterruptible(HZ);\n" },
	{ 0 } };

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
