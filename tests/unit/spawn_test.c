/* The child-process module: exit codes, signals, timeouts that kill the whole group. */
#define _GNU_SOURCE
#include "check.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Gone, or a zombie waiting for its new parent to reap it: either way no longer running. */
static int process_gone(long pid)
{
	char *path = xasprintf("/proc/%ld/stat", pid), *stat = read_file(path, NULL);
	char *close_paren = stat ? strrchr(stat, ')') : NULL;
	int gone = !stat || (close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z');

	free(path);
	free(stat);
	return gone;
}

static struct spawn_result run_sh(const char *script, double timeout, const char *log)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct spawn_result res = { 0 };

	CHECK(spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = timeout,
					     .grace = 0.5 }, &res) == 0);
	return res;
}

TEST(spawn_exit_status_and_signal)
{
	struct spawn_result r = run_sh("exit 7", 10, NULL);

	CHECK(r.status == 7 && !r.timed_out);
	r = run_sh("kill -SEGV $$", 10, NULL);
	CHECK(r.status == 128 + SIGSEGV);
}

TEST(spawn_output_goes_to_log)
{
	char log[] = "/tmp/kcmpm-spawn-XXXXXX";
	int fd = mkstemp(log);
	char *text;

	close(fd);
	run_sh("echo out; echo err >&2", 10, log);
	text = read_file(log, NULL);
	CHECK_STR(text, "out\nerr\n");
	free(text);
	unlink(log);
}

TEST(spawn_timeout_kills_the_group)
{
	char pidfile[] = "/tmp/kcmpm-spawn-XXXXXX";
	int fd = mkstemp(pidfile);
	char *script, *text;
	double t0 = now_seconds();
	struct spawn_result r;
	long grandchild = 0;

	close(fd);
	/* A grandchild that ignores TERM, and a leader that waits forever. */
	script = xasprintf("sh -c 'trap \"\" TERM; sleep 100' & echo $! > %s; wait", pidfile);
	r = run_sh(script, 0.5, NULL);
	CHECK(r.timed_out);
	CHECK(now_seconds() - t0 < 5);
	text = read_file(pidfile, NULL);
	if (text)
		grandchild = strtol(text, NULL, 10);
	CHECK(grandchild > 0);
	usleep(100000);
	CHECK(grandchild > 0 && process_gone(grandchild));
	free(text);
	free(script);
	unlink(pidfile);
}

TEST(spawn_missing_program)
{
	const char *argv[] = { "/nonexistent/kcmpm-program", NULL };
	struct spawn_result res;

	CHECK(spawn_run(&(struct spawn_req){ .argv = argv }, &res) == -1);
	CHECK(errno == ENOENT);
}

TEST(spawn_format_argv_quotes)
{
	const char *argv[] = { "qemu", "-append", "console=ttyS0 panic=-1", "it's", NULL };
	char *s = spawn_format_argv(argv);

	CHECK_STR(s, "qemu -append 'console=ttyS0 panic=-1' 'it'\\''s'");
	free(s);
}
