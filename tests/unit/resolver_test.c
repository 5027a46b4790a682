/* The in-process Kconfig resolver's environment: read from the variables Kconfig recorded as
 * its inputs (include/config/auto.conf.cmd). A value it misreads would silently change every
 * resolved config (KERNELVERSION names the kernel in the config's heading). */
#define _GNU_SOURCE
#include "check.h"
#include "resolver.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(resolver_env_from_auto_conf_cmd)
{
	const char *text =
		"deps_config := \\\n\tinit/Kconfig \\\n\tKconfig\n\n"
		"include/config/auto.conf: $(deps_config)\n\n"
		"ifneq \"$(KERNELVERSION)\" \"6.1.192\"\ninclude/config/auto.conf: FORCE\nendif\n"
		"ifneq \"$(CC_VERSION_TEXT)\" \"gcc (Debian 12.2.0-14+deb12u1) 12.2.0\"\n"
		"include/config/auto.conf: FORCE\nendif\n"
		"ifneq \"$(CLANG_FLAGS)\" \"\"\ninclude/config/auto.conf: FORCE\nendif\n"
		"ifneq \"$(CC)\" \"ccache gcc\"";	/* the last line, without its newline */
	char **env = resolver_env_parse(text);
	int n = 0;

	CHECK(env != NULL);
	while (env && env[n])
		n++;
	CHECK(n == 4);
	if (n == 4) {
		CHECK_STR(env[0], "KERNELVERSION=6.1.192");
		CHECK_STR(env[1], "CC_VERSION_TEXT=gcc (Debian 12.2.0-14+deb12u1) 12.2.0");
		CHECK_STR(env[2], "CLANG_FLAGS=");
		CHECK_STR(env[3], "CC=ccache gcc");
	}
	free_strings(env);
	CHECK(resolver_env_parse("deps_config := \\\n\tKconfig\n") == NULL);
}

/* The resolver's identity names both of its sources: kcmpm_resolve.c and the memo beside it. */
TEST(resolver_identity_follows_the_source)
{
	char dir[] = "/tmp/kcmpm-resolver-XXXXXX";
	char *path, *memo, *a, *b, *c, *none;

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/kcmpm_resolve.c", dir);
	memo = xasprintf("%s/kcmpm_memo.c", dir);
	write_file_atomic(path, "int main;\n", 10);
	write_file_atomic(memo, "int memo;\n", 10);
	a = resolver_identity(path);
	write_file_atomic(path, "int main2;\n", 11);
	b = resolver_identity(path);
	write_file_atomic(memo, "int memo2;\n", 11);
	c = resolver_identity(path);
	CHECK(a && b && c && !strncmp(a, "kcmpm-resolve ", 14) && strcmp(a, b) && strcmp(b, c));
	unlink(memo);
	CHECK(resolver_identity(path) == NULL);	/* half a resolver */
	unlink(path);
	CHECK(resolver_identity(path) == NULL);
	none = resolver_identity(NULL);
	CHECK_STR(none, "olddefconfig");
	rmdir(dir);
	free(path);
	free(memo);
	free(a);
	free(b);
	free(c);
	free(none);
}

/* A driver of the $(shell) memo (harness/resolver/kcmpm_memo.c, linked as the harness links it):
 * popens each argument as do_shell does and prints what it read, then the memo's report. */
static const char memo_driver[] =
	"#include <stdio.h>\n"
	"void kcmpm_memo_report(void);\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	for (int i = 1; i < argc; i++) {\n"
	"		FILE *f = popen(argv[i], \"r\");\n"
	"		char buf[256];\n"
	"		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;\n"
	"		buf[n] = 0;\n"
	"		printf(\"[%s]\", buf);\n"
	"		if (f)\n"
	"			pclose(f);\n"
	"	}\n"
	"	printf(\"\\n\");\n"
	"	kcmpm_memo_report();\n"
	"	return 0;\n"
	"}\n";

/* One parse of "tree" (srctree) through the driver: its three commands are one that names
 * nothing but itself (and counts its runs in dir/runs), one that reads a file of the tree,
 * and one that reads a variable. memo: KCMPM_SHELL_MEMO; shared: KCMPM_SHELL_MEMO_SHARED or
 * NULL. Returns what the driver printed (caller frees). */
static char *memo_parse(const char *dir, const char *tree, const char *memo, const char *shared,
			const char *var)
{
	char *exe = xasprintf("%s/driver", dir), *log = xasprintf("%s/driver.log", dir);
	char *count = xasprintf("{ echo run >> %s/runs; } && echo 'gcc says y'", dir);
	char *script = xasprintf("cat %s/answer", tree);
	char *env[] = { xasprintf("srctree=%s", tree), xasprintf("KCMPM_SHELL_MEMO=%s", memo),
			xasprintf("KCMPM_TEST_VAR=%s", var),
			shared ? xasprintf("KCMPM_SHELL_MEMO_SHARED=%s", shared) : NULL, NULL };
	const char *argv[] = { exe, count, script, "echo \"$KCMPM_TEST_VAR\"", NULL };
	struct spawn_result res;
	char *out;

	unlink(log);
	spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 60,
				       .env = (const char *const *)env }, &res);
	out = read_file(log, NULL);
	for (int i = 0; env[i]; i++)
		free(env[i]);
	free(script);
	free(count);
	free(log);
	free(exe);
	return out;
}

/* The toolchain's memo, shared by the kits of every tree: a second tree's parse takes from it
 * only the answer of the command that names no tree and reads no variable (and copies it into
 * its own memo); the command reading its own tree and the one reading a variable run again
 * and answer for this tree. */
TEST(memo_shares_only_what_names_no_tree)
{
	char dir[] = "/tmp/kcmpm-memo-XXXXXX";
	char *src, *exe, *tree_a, *tree_b, *file, *memo_a, *memo_b, *shared, *runs_path;
	char *first, *second, *own_only, *runs = NULL;

	CHECK(mkdtemp(dir) != NULL);
	src = xasprintf("%s/driver.c", dir);
	exe = xasprintf("-o%s/driver", dir);
	write_file_atomic(src, memo_driver, strlen(memo_driver));
	{
		const char *argv[] = { "gcc", "-Wl,--wrap=popen,--wrap=pclose", exe, src,
				       "harness/resolver/kcmpm_memo.c", NULL };
		struct spawn_result res;

		CHECK(spawn_run(&(struct spawn_req){ .argv = argv, .timeout = 120 }, &res) == 0 &&
		      res.status == 0);
	}
	tree_a = xasprintf("%s/tree-a", dir);
	tree_b = xasprintf("%s/tree-b", dir);
	mkdir_p(tree_a);
	mkdir_p(tree_b);
	file = xasprintf("%s/answer", tree_a);
	write_file_atomic(file, "relr n", 6);
	free(file);
	file = xasprintf("%s/answer", tree_b);
	write_file_atomic(file, "relr y", 6);
	memo_a = xasprintf("%s/a.memo", dir);
	memo_b = xasprintf("%s/b.memo", dir);
	shared = xasprintf("%s/toolchain.memo", dir);
	runs_path = xasprintf("%s/runs", dir);

	first = memo_parse(dir, tree_a, memo_a, shared, "6.1");
	CHECK_CONTAINS(first, "[gcc says y\n][relr n][6.1\n]\n");
	CHECK_CONTAINS(first, "memo: 0 answered, 3 run\n");
	second = memo_parse(dir, tree_b, memo_b, shared, "6.12");
	CHECK_CONTAINS(second, "[gcc says y\n][relr y][6.12\n]\n");
	CHECK_CONTAINS(second, "memo: 1 answered, 2 run\n");
	CHECK_CONTAINS(second, "memo: 1 of those answered by the toolchain's\n");
	runs = read_file(runs_path, NULL);
	CHECK_STR(runs, "run\n");	/* the toolchain's command ran once, for tree a */
	/* tree b's own memo now answers all three, without the shared one */
	own_only = memo_parse(dir, tree_b, memo_b, NULL, "6.12");
	CHECK_CONTAINS(own_only, "[gcc says y\n][relr y][6.12\n]\n");
	CHECK_CONTAINS(own_only, "memo: 3 answered, 0 run\n");

	remove_tree(dir);
	free(runs);
	free(own_only);
	free(second);
	free(first);
	free(runs_path);
	free(shared);
	free(memo_b);
	free(memo_a);
	free(file);
	free(tree_b);
	free(tree_a);
	free(exe);
	free(src);
}

/* The servers' answers (syncconfig's "synced DIR", the session's "resolved OUT"...): only the
 * answer about this very subject is a success, and a failure keeps the server's own reason. */
TEST(resolver_answer_reads_only_its_subjects)
{
	char err[200];

	CHECK(resolver_answer("synced /b/x86_64", "synced", "/b/x86_64", "server", err,
			      sizeof(err)) == 0);
	CHECK(resolver_answer("resolved /w/c1/config", "resolved", "/w/c1/config", "session", err,
			      sizeof(err)) == 0);

	CHECK(resolver_answer("synced /b/x86_64.old", "synced", "/b/x86_64", "server", err,
			      sizeof(err)) == -1);
	CHECK_STR(err, "the Kconfig server answered 'synced /b/x86_64.old'");
	CHECK(resolver_answer("based /w/c1/config", "resolved", "/w/c1/config", "session", err,
			      sizeof(err)) == -1);
	CHECK_STR(err, "the Kconfig session answered 'based /w/c1/config'");

	CHECK(resolver_answer("failed /w/c1/config: cannot read /w/c1/config.in", "resolved",
			      "/w/c1/config", "session", err, sizeof(err)) == -1);
	CHECK_STR(err, "cannot read /w/c1/config.in");
	CHECK(resolver_answer("failed /b/x86_64", "synced", "/b/x86_64", "server", err,
			      sizeof(err)) == -1);
	CHECK_STR(err, "failed, and said no more");
	/* another subject's failure is not this one's */
	CHECK(resolver_answer("failed /b/x86_64.old: no", "synced", "/b/x86_64", "server", err,
			      sizeof(err)) == -1);
	CHECK_STR(err, "the Kconfig server answered 'failed /b/x86_64.old: no'");
}
