/* check: see check.h. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAX_TESTS = 512 };

static struct {
	const char *name;
	test_fn fn;
} tests[MAX_TESTS];
static int ntests;
static int current_failed;
static char current_skip[256];	/* why the running test skipped itself; "" when it did not */

void check_register(const char *name, test_fn fn)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "check: too many tests\n");
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests++].fn = fn;
}

void check_fail(const char *file, int line, const char *what)
{
	printf("# %s:%d: check failed: %s\n", file, line, what);
	current_failed = 1;
}

void check_str_fail(const char *file, int line, const char *what, const char *got,
		    const char *want)
{
	printf("# %s:%d: %s: got '%s', want '%s'\n", file, line, what, got ? got : "(null)",
	       want ? want : "(null)");
	current_failed = 1;
}

void check_skip(const char *why)
{
	snprintf(current_skip, sizeof(current_skip), "%s", why);
}

/* A test runs when no name is given, or when its name contains one of the arguments; a heavy
 * one (its name starts with "heavy_": a check beside make test, too long for its budget) only
 * when named. */
static int wanted(int i, int argc, char **argv)
{
	int yes = argc <= 1 && strncmp(tests[i].name, "heavy_", 6);

	for (int a = 1; a < argc; a++)
		yes |= strstr(tests[i].name, argv[a]) != NULL;
	return yes;
}

int check_main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0, planned = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < ntests; i++)
		planned += wanted(i, argc, argv);
	printf("KTAP version 1\n1..%d\n", planned);
	for (int i = 0; i < ntests; i++) {
		if (!wanted(i, argc, argv))
			continue;
		current_failed = 0;
		current_skip[0] = 0;
		tests[i].fn();
		if (current_skip[0] && !current_failed) {
			printf("ok %d %s # SKIP %s\n", passed + failed + skipped + 1, tests[i].name,
			       current_skip);
			skipped++;
			continue;
		}
		printf("%s %d %s\n", current_failed ? "not ok" : "ok", passed + failed + skipped + 1,
		       tests[i].name);
		if (current_failed)
			failed++;
		else
			passed++;
	}
	if (skipped)
		printf("# %d skipped (neither passed nor failed; see their SKIP lines)\n", skipped);
	printf("%d passed, %d failed\n", passed, failed);
	return failed || passed == 0;
}
