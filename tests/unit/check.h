/* check: the smallest test runner that does the job.
 *
 * A test is a function registered with TEST(name). CHECK(cond) records a failure with file and
 * line and goes on; a test passes when none of its checks failed. check_main() runs every test,
 * prints "ok N name" / "not ok N name" (KTAP style) and ends with "N passed, N failed".
 */
#ifndef KCMPM_CHECK_H
#define KCMPM_CHECK_H

#include <string.h>

typedef void (*test_fn)(void);

void check_register(const char *name, test_fn fn);
void check_fail(const char *file, int line, const char *what);
int check_main(int argc, char **argv);

#define TEST(name)                                                              \
	static void name(void);                                                 \
	__attribute__((constructor)) static void register_##name(void)         \
	{                                                                       \
		check_register(#name, name);                                    \
	}                                                                       \
	static void name(void)

#define CHECK(cond)                                                             \
	do {                                                                    \
		if (!(cond))                                                    \
			check_fail(__FILE__, __LINE__, #cond);                  \
	} while (0)

#define CHECK_STR(a, b)                                                         \
	do {                                                                    \
		const char *check_a_ = (a), *check_b_ = (b);                    \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_))       \
			check_str_fail(__FILE__, __LINE__, #a, check_a_, check_b_); \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                             \
	do {                                                                    \
		const char *check_h_ = (hay);                                   \
		if (!check_h_ || !strstr(check_h_, (needle)))                   \
			check_str_fail(__FILE__, __LINE__, #hay " contains", check_h_, (needle)); \
	} while (0)

/* The running test could not run here (say, mounting is not permitted): it is reported as
 * "ok N name # SKIP why" and counted apart, neither passed nor failed. A failed check in the
 * same test still fails it. */
void check_skip(const char *why);

void check_str_fail(const char *file, int line, const char *what, const char *got,
		    const char *want);

/* Path of a file under tests/data (tests run from the repository top). */
#define DATA(name) "tests/data/" name

/* The unit tests' own matrix (the kcmp question's shape, frozen), so a change to matrix/
 * never breaks a unit test; tests of the repository's own data load matrix/ itself. */
#define FIXTURE_MATRIX DATA("matrix")
#define FIXTURE_PATCHES DATA("kernel-patch")

#endif
