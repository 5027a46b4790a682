/* The guest's test list, which the harness requires every boot to report by count and name. */
#define _GNU_SOURCE
#include "check.h"
#include "guest.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The real list: the one kcmp_init.c includes. */
TEST(guest_tests_reads_the_real_list)
{
	char err[512] = "";
	char **tests = guest_tests("guest-tests/kcmp_init.c", err, sizeof(err));
	int n = 0;

	CHECK_STR(err, "");
	while (tests && tests[n])
		n++;
	CHECK(n == 41);
	CHECK(tests && !strcmp(tests[0], "kernel_identity"));
	CHECK(tests && !strcmp(tests[n - 1], "kcmp_eperm_pid2_unprivileged"));
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
