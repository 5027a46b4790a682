/* kcmpm_memo: the $(shell) memo of Kconfig's parses (see kcmpm_resolve.c).
 *
 * Linked with -Wl,--wrap=popen,--wrap=pclose into a program made of a tree's Kconfig objects,
 * it answers their popen (preprocess.c's do_shell, the one caller) from the memo file named in
 * KCMPM_SHELL_MEMO when it knows the command, and runs and records it otherwise. Two programs
 * are linked with it: kcmpm-resolve, and the conf that Kbuild links in a Kconfig kit's
 * directory (the harness passes HOSTLDFLAGS and HOSTLDLIBS to that one make), so the kit's own
 * first parse fills the memo. Without KCMPM_SHELL_MEMO, popen and pclose are the C library's.
 *
 * KCMPM_SHELL_MEMO_SHARED may name a second file: the toolchain's memo, shared by the kits of
 * every tree built with one compiler for one arch. It holds only the answers of commands that
 * name no tree and read no variable (toolchain_command), which are most of a parse's probes
 * ($(cc-option), $(as-instr), $(ld-option)...), so a second tree's kit runs only the commands
 * that are its own.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

FILE *__real_popen(const char *command, const char *type);
int __real_pclose(FILE *stream);

/* What one command printed; do_shell reads at most 4096 bytes, so no more is kept. */
struct shell_answer {
	char *command;
	char *out;
	size_t len;
};

/* The answers of one memo file, and whether some are not in the file yet. */
struct memo_table {
	struct shell_answer *answer;
	size_t n, cap;
	int grew;
};

enum { SHELL_OUT_MAX = 4096 };
static const char memo_magic[] = "kcmpm-shell-memo 1\n";
static struct memo_table own;		/* KCMPM_SHELL_MEMO's: this environment's */
static struct memo_table toolchain;	/* KCMPM_SHELL_MEMO_SHARED's */

static struct shell_answer *memo_find(const struct memo_table *t, const char *command)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->answer[i].command, command))
			return &t->answer[i];
	return NULL;
}

static struct shell_answer *memo_add(struct memo_table *t, const char *command, size_t cmdlen,
				     const char *out, size_t len)
{
	struct shell_answer *a;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->answer = realloc(t->answer, t->cap * sizeof(*t->answer));
		if (!t->answer) {
			perror("kcmpm-resolve");
			exit(1);
		}
	}
	a = &t->answer[t->n++];
	a->command = strndup(command, cmdlen);
	a->out = malloc(len + 1);
	if (!a->command || !a->out) {
		perror("kcmpm-resolve");
		exit(1);
	}
	memcpy(a->out, out, len);
	a->len = len;
	return a;
}

/* Adds the answers of the memo file that are not known yet. The file is entries of
 * "<command length> <output length>\n<command><output>\n" after a magic line; a file that
 * does not parse is ignored whole (it only costs the commands being run again). */
static void memo_merge_file(struct memo_table *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, at;

	if (!f)
		return;
	for (;;) {
		char buf[65536];
		size_t n = fread(buf, 1, sizeof(buf), f);
		char *grown;

		if (n == 0)
			break;
		grown = realloc(text, len + n + 1);
		if (!grown)
			break;
		text = grown;
		memcpy(text + len, buf, n);
		len += n;
	}
	fclose(f);
	if (!text || len < strlen(memo_magic) || memcmp(text, memo_magic, strlen(memo_magic))) {
		free(text);
		return;
	}
	text[len] = 0;
	for (int pass = 0; pass < 2; pass++) {	/* first check the whole file, then take it */
		for (at = strlen(memo_magic); at < len;) {
			char *end;
			unsigned long cmdlen = strtoul(text + at, &end, 10), outlen;

			if (*end != ' ')
				goto bad;
			outlen = strtoul(end + 1, &end, 10);
			if (*end != '\n' || outlen > SHELL_OUT_MAX ||
			    (size_t)(end + 1 - text) + cmdlen + outlen + 1 > len ||
			    end[1 + cmdlen + outlen] != '\n' || memchr(end + 1, 0, cmdlen))
				goto bad;
			if (pass == 1) {
				char *command = strndup(end + 1, cmdlen);

				if (command && !memo_find(t, command))
					memo_add(t, command, cmdlen, end + 1 + cmdlen, outlen);
				free(command);
			}
			at = (size_t)(end + 1 - text) + cmdlen + outlen + 1;
		}
	}
bad:
	free(text);
}

/* Writes a table back to its file, merged with what other processes wrote meanwhile,
 * atomically. */
static void memo_save_table(struct memo_table *t, const char *path)
{
	char tmp[4096];
	FILE *f;

	if (!t->grew || !path)
		return;
	memo_merge_file(t, path);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return;
	fputs(memo_magic, f);
	for (size_t i = 0; i < t->n; i++) {
		fprintf(f, "%zu %zu\n", strlen(t->answer[i].command), t->answer[i].len);
		fputs(t->answer[i].command, f);
		fwrite(t->answer[i].out, 1, t->answer[i].len, f);
		fputc('\n', f);
	}
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

/* At exit: both memos written back. */
static void memo_save(void)
{
	memo_save_table(&own, getenv("KCMPM_SHELL_MEMO"));
	memo_save_table(&toolchain, getenv("KCMPM_SHELL_MEMO_SHARED"));
}

/* May a command's answer (its key, below) be shared by every tree's kit of one compiler and
 * arch? Only if its text names no tree and reads no variable: then it runs the toolchain's
 * programs (gcc, ld, as...) on nothing but its own text, and the answer is the toolchain's.
 * A command naming the tree has "$(srctree)" in its key, and trees' scripts differ (6.1's
 * tools-support-relr.sh answers n where 6.12's answers y); one reading a variable ($CC...)
 * depends on the environment, which differs between trees (KERNELVERSION...). "$$", the
 * shell's pid that Kconfig.include's probes name scratch directories after, reads nothing.
 * Kbuild runs conf in the build directory, never the tree, so a relative path names nothing
 * of the tree either. */
static int toolchain_command(const char *key)
{
	if (strstr(key, "$(srctree)"))
		return 0;
	for (const char *dollar = strchr(key, '$'); dollar; dollar = strchr(dollar + 2, '$'))
		if (dollar[1] != '$')
			return 0;
	return 1;
}

/* The memo's key of a command: the command, with the tree's path (srctree) written
 * "$(srctree)". The trees that share a memo are copies of one tree that differ only where a
 * series patched them, and the harness gives a series that patches what commands run
 * (scripts/, tools, the top Makefile) a memo of its own; so `$(srctree)/scripts/cc-version.sh
 * gcc` answers the same in each. Caller frees. */
static char *memo_key(const char *command)
{
	const char *srctree = getenv("srctree"), *at;
	size_t n = srctree ? strlen(srctree) : 0;
	size_t len = strlen(command);
	char *key = malloc(len + (n > 1 ? len / n + 1 : 0) * strlen("$(srctree)") + 1), *out = key;

	if (!key) {
		perror("kcmpm-resolve");
		exit(1);
	}
	/* only an absolute path is unlikely to appear in a command but as the tree */
	while (n > 1 && srctree[0] == '/' && (at = strstr(command, srctree))) {
		memcpy(out, command, (size_t)(at - command));
		out += at - command;
		out += sprintf(out, "$(srctree)");
		command = at + n;
	}
	strcpy(out, command);
	return key;
}

static unsigned long memo_answered, memo_shared, memo_run;

/* The streams __wrap_popen answered from the memo (fmemopen): only those are closed here;
 * any other is a real pipe, the C library's to close and wait for. do_shell has one open at
 * a time. */
static FILE **answers;
static size_t n_answers, answers_cap;

static FILE *remember_answer(FILE *f)
{
	if (f && n_answers == answers_cap) {
		answers_cap = answers_cap ? 2 * answers_cap : 8;
		answers = realloc(answers, answers_cap * sizeof(*answers));
		if (!answers) {
			perror("kcmpm-resolve");
			exit(1);
		}
	}
	if (f)
		answers[n_answers++] = f;
	return f;
}

/* Forgets f if it is an answer; returns whether it was. */
static int forget_answer(FILE *f)
{
	for (size_t i = 0; i < n_answers; i++)
		if (answers[i] == f) {
			answers[i] = answers[--n_answers];
			return 1;
		}
	return 0;
}

/* What the command printed (its first SHELL_OUT_MAX bytes), run now and recorded under key,
 * in the toolchain's memo too when it may be shared; NULL when it could not be started. */
static struct shell_answer *run_command(const char *command, const char *key)
{
	FILE *p = __real_popen(command, "r");
	char out[SHELL_OUT_MAX];
	size_t len;

	if (!p)
		return NULL;
	len = fread(out, 1, sizeof(out), p);
	while (getc(p) != EOF)
		;	/* the rest unread, as do_shell leaves it, but let the command finish */
	__real_pclose(p);
	if (getenv("KCMPM_SHELL_MEMO_SHARED") && toolchain_command(key)) {
		memo_add(&toolchain, key, strlen(key), out, len);
		toolchain.grew = 1;
	}
	own.grew = 1;
	memo_run++;
	return memo_add(&own, key, strlen(key), out, len);
}

/* The answer of key from the toolchain's memo, copied into this environment's (so its file
 * is whole for the next parse); NULL when it has none or may not share it. */
static struct shell_answer *toolchain_answer(const char *key)
{
	struct shell_answer *a = toolchain_command(key) ? memo_find(&toolchain, key) : NULL;

	if (!a)
		return NULL;
	own.grew = 1;
	memo_shared++;
	return memo_add(&own, a->command, strlen(a->command), a->out, a->len);
}

/* How much the memo saved, on stderr (the harness keeps it in the run's log). */
void kcmpm_memo_report(void)
{
	fprintf(stderr, "kcmpm-resolve: $(shell) memo: %lu answered, %lu run\n", memo_answered,
		memo_run);
	if (getenv("KCMPM_SHELL_MEMO_SHARED"))
		fprintf(stderr, "kcmpm-resolve: $(shell) memo: %lu of those answered by the "
			"toolchain's\n", memo_shared);
}

FILE *__wrap_popen(const char *command, const char *type)
{
	static int loaded;
	struct shell_answer *a;
	char *key;

	if (!getenv("KCMPM_SHELL_MEMO") || strcmp(type, "r"))
		return __real_popen(command, type);
	if (!loaded) {
		const char *shared = getenv("KCMPM_SHELL_MEMO_SHARED");

		loaded = 1;
		memo_merge_file(&own, getenv("KCMPM_SHELL_MEMO"));
		if (shared)
			memo_merge_file(&toolchain, shared);
		atexit(memo_save);
		/* for a program that does not report by itself: the kit's conf */
		if (getenv("KCMPM_SHELL_MEMO_REPORT"))
			atexit(kcmpm_memo_report);
	}
	key = memo_key(command);
	a = memo_find(&own, key);
	if (!a)
		a = toolchain_answer(key);
	if (a)
		memo_answered++;
	else
		a = run_command(command, key);
	free(key);
	return a ? remember_answer(fmemopen(a->out, a->len, "r")) : NULL;
}

int __wrap_pclose(FILE *stream)
{
	if (!forget_answer(stream))
		return __real_pclose(stream);
	return fclose(stream) ? -1 : 0;	/* do_shell only tells -1 from the rest */
}
