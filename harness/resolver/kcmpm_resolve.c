/* kcmpm-resolve: `make olddefconfig` for many configs in one process.
 *
 * The harness links this file against one tree's own scripts/kconfig objects (everything the
 * tree's conf program is made of but conf.o), so each config is resolved by the very code
 * olddefconfig runs: conf_read() of the config, then conf_write(), as conf.c's main does for
 * --olddefconfig. What changes is that the Kconfig tree is parsed once for the whole batch;
 * the parse is what costs (hundreds of $(shell) compiler probes), each config after it takes
 * milliseconds.
 *
 * Usage: kcmpm-resolve KCONFIG LIST
 *   run in the config build directory, with the environment Kbuild gives conf (the variables
 *   named in include/config/auto.conf.cmd). Each line of LIST is "IN<TAB>OUT": IN is read as
 *   olddefconfig reads KCONFIG_CONFIG, and the resolved config is written to OUT. Prints
 *   "resolved OUT" or "failed OUT: why" per line; exits 1 when any failed.
 *
 * Built against the tree's lkc.h, so the API it uses is the tree's own: a tree whose API
 * differs fails to compile here, and the harness falls back to olddefconfig.
 */
#include "lkc.h"

#include <string.h>

/* One "IN<TAB>OUT" line of the list: resolves IN into OUT. Returns 0 on success. */
static int resolve_one(char *line)
{
	char *tab = strchr(line, '\t');

	if (!tab) {
		printf("failed %s: list line without a tab\n", line);
		return 1;
	}
	*tab = 0;
	if (conf_read(line)) {
		printf("failed %s: cannot read %s\n", tab + 1, line);
		return 1;
	}
	if (conf_errors()) {
		printf("failed %s: Kconfig reported errors reading %s (KCONFIG_WERROR)\n", tab + 1,
		       line);
		return 1;
	}
	if (conf_write(tab + 1)) {
		printf("failed %s: cannot write it\n", tab + 1);
		return 1;
	}
	printf("resolved %s\n", tab + 1);
	return 0;
}

int main(int argc, char **argv)
{
	char line[8192];
	FILE *list;
	int failed = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s KCONFIG LIST\n", argv[0]);
		return 2;
	}
	list = fopen(argv[2], "r");
	if (!list) {
		perror(argv[2]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	conf_set_message_callback(NULL);
	conf_parse(argv[1]);
	while (fgets(line, sizeof(line), list)) {
		line[strcspn(line, "\n")] = 0;
		if (*line)
			failed |= resolve_one(line);
	}
	fclose(list);
	return failed;
}
