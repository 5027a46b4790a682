/* The guest's test list, which the harness requires every boot to report by count and name. */
#define _GNU_SOURCE
#include "check.h"
#include "guest.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A guest's list beside its source, read in order, comments and blank lines skipped (the
 * repository's own guest is read by every end-to-end run, which requires its results). */
TEST(guest_tests_reads_a_list_beside_the_source)
{
	char err[512] = "";
	char **tests = guest_tests(DATA("guest/demo_init.c"), err, sizeof(err));
	int n = 0;

	CHECK_STR(err, "");
	while (tests && tests[n])
		n++;
	CHECK(n == 3);
	CHECK(tests && !strcmp(tests[0], "kernel_identity"));
	CHECK(tests && !strcmp(tests[2], "demo_works"));
	free_strings(tests);
}

/* Writes a list beside a fake source in a scratch directory; returns the source path. */
static char *fake_guest(const char *dir, const char *list)
{
	char *list_path = xasprintf("%s/g_tests.h", dir);

	CHECK(write_file_atomic(list_path, list, strlen(list)) == 0);
	free(list_path);
	return xasprintf("%s/g.c", dir);
}

TEST(guest_tests_rejects_a_bad_list)
{
	char dir[] = "/tmp/kcmpm-guest-XXXXXX", err[512];
	char *src, **tests;

	CHECK(mkdtemp(dir) != NULL);
	src = fake_guest(dir, "/* a comment\n * over lines */\nKCMPM_TEST(a) // one\n\nKCMPM_TEST(b_2)\n");
	tests = guest_tests(src, err, sizeof(err));
	CHECK(tests && tests[0] && !strcmp(tests[0], "a") && tests[1] && !strcmp(tests[1], "b_2") &&
	      !tests[2]);
	free_strings(tests);
	free(src);
	src = fake_guest(dir, "KCMPM_TEST(a)\nKCMPM_TEST(b c)\n");
	CHECK(guest_tests(src, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "g_tests.h:2: expected one KCMPM_TEST(name) per line");
	free(src);
	src = fake_guest(dir, "/* nothing */\n");
	CHECK(guest_tests(src, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "lists no test");
	free(src);
	src = xasprintf("%s/missing.c", dir);
	CHECK(guest_tests(src, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "cannot read the guest's test list");
	free(src);
	src = xasprintf("%s/g_tests.h", dir);
	unlink(src);
	free(src);
	rmdir(dir);
}

/* How many times the fake compiler in dir ran. */
static int compiles(const char *dir)
{
	char *path = xasprintf("%s/bin/compiles", dir), *text = read_file(path, NULL);
	int n = 0;

	for (const char *p = text; p && *p; p++)
		n += *p == '\n';
	free(text);
	free(path);
	return n;
}

/* A warm run must not link the guest again (seconds per arch on a slow machine), and anything
 * the guest is made from must: a file beside its source, the compiler's version, the program
 * itself gone. The compiler is a fake that counts its compiles and writes a stand-in program;
 * it lives in a folder of its own, since every file beside the source is an input. */
TEST(guest_prepare_compiles_again_only_when_an_input_changes)
{
	char dir[] = "/tmp/kcmpm-guest-XXXXXX", err[512] = "";
	struct arch a = { .name = "fakearch", .packages = (char *[]){ "fake-gcc", NULL } };
	char *bin, *fake, *src_dir, *src, *out, *header, *init, *cpio;

	CHECK(mkdtemp(dir) != NULL);
	bin = xasprintf("%s/bin", dir);
	src_dir = xasprintf("%s/src", dir);
	CHECK(mkdir_p(bin) == 0 && mkdir_p(src_dir) == 0);
	fake = xasprintf("%s/fake-gcc", bin);
	src = fake_guest(src_dir, "KCMPM_TEST(a)\n");
	header = xasprintf("%s/g_tests.h", src_dir);
	out = xasprintf("%s/out", dir);
	init = xasprintf("%s/init", out);
	{
		char *script = xasprintf("#!/bin/sh\n"
					 "case \"$1\" in -print-file-name=*) echo libc.a; exit 0;; esac\n"
					 "echo compiled >> %s/compiles\n"
					 "while [ $# -gt 1 ]; do\n"
					 "  [ \"$1\" = -o ] && echo guest > \"$2\"; shift\n"
					 "done\n", bin);

		CHECK(write_file_atomic(fake, script, strlen(script)) == 0);
		CHECK(chmod(fake, 0755) == 0);
		free(script);
	}
	CHECK(write_file_atomic(src, "int main(void) { return 0; }\n", 29) == 0);
	a.cross_compile = xasprintf("%s/fake-", bin);

	cpio = guest_prepare(&a, src, "fake-gcc 1.0", out, err, sizeof(err));
	CHECK_STR(err, "");
	CHECK(cpio && path_exists(cpio) && compiles(dir) == 1);
	free(cpio);
	cpio = guest_prepare(&a, src, "fake-gcc 1.0", out, err, sizeof(err));
	CHECK(cpio && compiles(dir) == 1);	/* the same inputs: no compile */
	free(cpio);
	CHECK(write_file_atomic(header, "KCMPM_TEST(a)\nKCMPM_TEST(b)\n", 28) == 0);
	cpio = guest_prepare(&a, src, "fake-gcc 1.0", out, err, sizeof(err));
	CHECK(cpio && compiles(dir) == 2);	/* a header beside the source changed */
	free(cpio);
	cpio = guest_prepare(&a, src, "fake-gcc 2.0", out, err, sizeof(err));
	CHECK(cpio && compiles(dir) == 3);	/* another compiler version */
	free(cpio);
	CHECK(unlink(init) == 0);		/* the program gone, its key left */
	cpio = guest_prepare(&a, src, "fake-gcc 2.0", out, err, sizeof(err));
	CHECK(cpio && compiles(dir) == 4 && path_exists(init));
	free(cpio);
	CHECK_STR(err, "");
	CHECK(remove_tree(dir) == 0);
	free(a.cross_compile);
	free(bin);
	free(fake);
	free(src_dir);
	free(src);
	free(header);
	free(out);
	free(init);
}
