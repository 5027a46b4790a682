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
