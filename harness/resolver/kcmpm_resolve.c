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
 * Usage: kcmpm-resolve --serve KCONFIG
 *   the kernel build's `make syncconfig`, for one source tree in one state, done once per
 *   build instead of a whole Kconfig parse per build. Started with the environment of the
 *   build directory's auto.conf.cmd; each line read from stdin names a kernel build directory
 *   of that tree whose .config is already resolved. There it does what conf.c's main does for
 *   --syncconfig: conf_read(NULL), conf_write(NULL), conf_write_autoconf(1), which writes
 *   include/config/auto.conf, auto.conf.cmd and include/generated/autoconf.h and touches
 *   include/config/<SYMBOL> for each symbol whose value changed since the last auto.conf, so
 *   Kbuild finds nothing left to sync and recompiles exactly what syncconfig would have made
 *   it recompile. Answers "synced DIR" or "failed DIR: why" per line; a directory it refuses
 *   is left to Kbuild's own syncconfig (auto.conf stays older than .config).
 *
 * Usage: kcmpm-resolve --conf CONF-ARGS...
 *   the tree's own conf program (conf.o, its main renamed kcmpm_conf_main when linked here),
 *   as `make allnoconfig` runs it, but with the $(shell) memo below.
 *
 * The $(shell) memo: when KCMPM_SHELL_MEMO names a file, every command Kconfig's $(shell)
 * runs (preprocess.c's do_shell, through popen) is looked up there first, and what a command
 * printed is recorded there when the process ends. Nearly all of a parse's time is those
 * commands, about 750 compiler launches whose answers depend only on the command and the
 * environment Kbuild gives conf; the harness keeps one memo per such environment (its srctree
 * aside: see kcmpm_memo.c's memo_key), so the variants of a tree and arch, whose parses run the same probes,
 * pay for them once. The memo is kcmpm_memo.c, linked in with -Wl,--wrap=popen,--wrap=pclose,
 * so only the Kconfig objects' calls go through it.
 *
 * Built against the tree's lkc.h, so the API it uses is the tree's own: a tree whose API
 * differs fails to compile here, and the harness falls back to olddefconfig.
 */
#include "lkc.h"
#if __has_include("preprocess.h")
#include "preprocess.h"	/* expand_dollar: in lkc_proto.h before 6.12, here since */
#endif

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kcmpm_conf_main(int argc, char **argv);	/* conf.o's main, renamed */
void kcmpm_memo_report(void);	/* kcmpm_memo.c */

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

/* The environment variables the Kconfig parse read. conf_write_autoconf names them in
 * auto.conf.cmd (so that make syncs again when one changes), but env_write_dep empties
 * Kconfig's list of them as it writes it: only the first sync of a process would name them. So
 * the names are read back from the first auto.conf.cmd written, and before every later sync
 * each is looked up again as the parse did (expand_dollar of "$(NAME)"), which puts it back in
 * the list, in the same order. */
enum { MAX_ENV_NAMES = 64 };
static char *env_names[MAX_ENV_NAMES];
static int n_env_names = -1;	/* -1: not read yet */

static void remember_env_names(void)
{
	static const char head[] = "ifneq \"$(";
	FILE *cmd = fopen("include/config/auto.conf.cmd", "r");
	char line[4096];

	n_env_names = 0;
	while (cmd && fgets(line, sizeof(line), cmd)) {
		char *close = strstr(line, ")\"");

		if (strncmp(line, head, strlen(head)) || !close || n_env_names == MAX_ENV_NAMES)
			continue;
		*close = 0;
		env_names[n_env_names++] = strdup(line + strlen(head));
	}
	if (cmd)
		fclose(cmd);
}

static void restore_env_names(void)
{
	for (int i = 0; i < n_env_names; i++) {
		char ref[512];
		const char *p = ref;

		snprintf(ref, sizeof(ref), "(%s)", env_names[i]);
		free(expand_dollar(&p));
	}
}

/* syncconfig in the build directory dir (see --serve above). Returns 0 on success. */
static int sync_one(const char *dir)
{
	int rc;

	/* conf_write_autoconf compares with the old auto.conf, read into the S_DEF_AUTO values;
	 * without the file those would stay from the last directory: refuse instead. */
	if (chdir(dir) || access("include/config/auto.conf", R_OK)) {
		printf("failed %s: no readable include/config/auto.conf there yet\n", dir);
		return 1;
	}
	if (conf_read(NULL) || conf_errors()) {
		printf("failed %s: cannot read its .config\n", dir);
		return 1;
	}
	/* syncconfig would prompt for what the config leaves open; a resolved config leaves
	 * nothing open, so anything else is Kbuild's to handle. */
	if (conf_get_changed() || sym_dep_errors()) {
		printf("failed %s: its .config is not resolved for this Kconfig\n", dir);
		return 1;
	}
	restore_env_names();
	rc = conf_write(NULL) || conf_write_autoconf(1);
	if (n_env_names < 0)
		remember_env_names();
	if (rc) {
		printf("failed %s: cannot write the config files\n", dir);
		return 1;
	}
	printf("synced %s\n", dir);
	return 0;
}

static int serve(const char *kconfig)
{
	char line[8192];

	conf_parse(kconfig);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (*line)
			sync_one(line);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char line[8192];
	FILE *list;
	int failed = 0;

	if (argc < 2 || strcmp(argv[1], "--serve"))
		atexit(kcmpm_memo_report);	/* not where stdout answers a server's caller */
	if (argc >= 2 && !strcmp(argv[1], "--conf")) {
		argv[1] = argv[0];
		return kcmpm_conf_main(argc - 1, argv + 1);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	conf_set_message_callback(NULL);
	if (argc == 3 && !strcmp(argv[1], "--serve"))
		return serve(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: %s KCONFIG LIST | --serve KCONFIG | --conf CONF-ARGS...\n",
			argv[0]);
		return 2;
	}
	list = fopen(argv[2], "r");
	if (!list) {
		perror(argv[2]);
		return 2;
	}
	conf_parse(argv[1]);
	while (fgets(line, sizeof(line), list)) {
		line[strcspn(line, "\n")] = 0;
		if (*line)
			failed |= resolve_one(line);
	}
	fclose(list);
	return failed;
}
