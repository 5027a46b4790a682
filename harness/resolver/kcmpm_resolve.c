/* kcmpm-resolve: `make olddefconfig` for many configs in one process.
 *
 * The harness links this file against one tree's own scripts/kconfig objects (everything the
 * tree's conf program is made of but conf.o), so each config is resolved by the very code
 * olddefconfig runs: conf_read() of the config, then conf_write(), as conf.c's main does for
 * --olddefconfig. What changes is that the Kconfig tree is parsed once for the whole batch;
 * the parse is what costs (hundreds of $(shell) compiler probes), each config after it takes
 * milliseconds.
 *
 * Usage: kcmpm-resolve --session KCONFIG
 *   one group's Kconfig work, in one parse: its base config, then its cells. Run in the config
 *   build directory, with the environment Kbuild gives conf (the variables named in
 *   include/config/auto.conf.cmd). It parses KCONFIG once, then reads requests from stdin and
 *   answers each with one line on stdout:
 *     "base FRAGMENT<TAB>OUT": `make allnoconfig` with KCONFIG_ALLCONFIG=FRAGMENT, written to
 *       OUT, by the tree's own conf (conf.o linked in, its main renamed kcmpm_conf_main), run
 *       in a fork of the parsed process: conf's main calls conf_parse, which is wrapped to do
 *       nothing once the tree is parsed (-Wl,--wrap=conf_parse). Whatever conf's main leaves
 *       in Kconfig's state stays in the fork, so the cells below start from the state of a
 *       fresh parse, as olddefconfig's do. Answers "based OUT" or "failed OUT: why".
 *     "IN<TAB>OUT": olddefconfig of IN, written to OUT. Answers "resolved OUT" or
 *       "failed OUT: why".
 *   Each answer is also written to stderr, the run's log.
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

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int kcmpm_conf_main(int argc, char **argv);	/* conf.o's main, renamed */
void kcmpm_memo_report(void);	/* kcmpm_memo.c */
void __real_conf_parse(const char *name);

/* conf's main parses the tree itself; in a session the tree is parsed already, and a second
 * parse would cost as much as the first (see base_one). */
void __wrap_conf_parse(const char *name)
{
	static int parsed;

	if (!parsed) {
		parsed = 1;
		__real_conf_parse(name);
	}
}

/* One answer to the session's caller (stdout), and the same line in its log (stderr).
 * Returns 1 for a failure, 0 otherwise. */
static int answer(int failed, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	fputs("kcmpm-resolve: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	return failed;
}

/* An "IN<TAB>OUT" request: olddefconfig of IN into OUT, as conf's main does it (conf_read of
 * the config, then conf_write). Returns 0 on success. */
static int resolve_one(char *line)
{
	char *tab = strchr(line, '\t');

	if (!tab)
		return answer(1, "failed %s: a request without a tab\n", line);
	*tab = 0;
	if (conf_read(line))
		return answer(1, "failed %s: cannot read %s\n", tab + 1, line);
	if (conf_errors())
		return answer(1, "failed %s: Kconfig reported errors reading %s (KCONFIG_WERROR)\n",
			      tab + 1, line);
	if (conf_write(tab + 1))
		return answer(1, "failed %s: cannot write it\n", tab + 1);
	return answer(0, "resolved %s\n", tab + 1);
}

/* A "base FRAGMENT<TAB>OUT" request: the tree's conf --allnoconfig KCONFIG, KCONFIG_ALLCONFIG=FRAGMENT,
 * written to OUT, in a fork of this parsed process (its conf_parse does nothing there). conf's
 * main sets symbols' user values, reorders choices and flags symbols as it goes; none of that
 * may reach the cells this session resolves next, which start, like olddefconfig's, from a
 * freshly parsed tree. Returns 0 on success. */
static int base_one(char *request, const char *kconfig)
{
	char *fragment = request + strlen("base "), *tab = strchr(fragment, '\t');
	char *argv[] = { "conf", "--allnoconfig", (char *)kconfig, NULL };
	int status;
	pid_t pid;

	if (!tab)
		return answer(1, "failed %s: a request without a tab\n", request);
	*tab = 0;
	unlink(tab + 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return answer(1, "failed %s: cannot fork: %s\n", tab + 1, strerror(errno));
	if (pid == 0) {
		/* stdout answers the caller: conf's messages go to the log */
		dup2(2, 1);
		setenv("KCONFIG_ALLCONFIG", fragment, 1);
		setenv("KCONFIG_CONFIG", tab + 1, 1);
		status = kcmpm_conf_main(3, argv);
		fflush(NULL);
		_exit(status);	/* not exit: the memo is saved once, by the session */
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return answer(1, "failed %s: cannot wait for conf: %s\n", tab + 1,
				      strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return answer(1, "failed %s: conf --allnoconfig ended with status 0x%x\n", tab + 1,
			      status);
	if (access(tab + 1, R_OK))
		return answer(1, "failed %s: conf --allnoconfig wrote nothing\n", tab + 1);
	return answer(0, "based %s\n", tab + 1);
}

/* --session: parses once, then answers each request until stdin ends. */
static int session(const char *kconfig)
{
	char line[8192];

	conf_parse(kconfig);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "base ", 5))
			base_one(line, kconfig);
		else if (*line)
			resolve_one(line);
	}
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
	if (argc != 3 || (strcmp(argv[1], "--session") && strcmp(argv[1], "--serve"))) {
		fprintf(stderr, "usage: %s --session KCONFIG | --serve KCONFIG\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	conf_set_message_callback(NULL);
	if (!strcmp(argv[1], "--serve"))
		return serve(argv[2]);
	atexit(kcmpm_memo_report);	/* on stderr, the session's log */
	return session(argv[2]);
}
