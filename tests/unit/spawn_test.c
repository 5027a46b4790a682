/* The child-process module: exit codes, signals, timeouts that kill the whole group. */
#define _GNU_SOURCE
#include "check.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* The resolver runs in the config directory with Kbuild's variables: cwd and env must reach
 * the child, and an entry must replace our own value of the same name, not sit beside it. */
TEST(spawn_sets_cwd_and_environment)
{
	char log[] = "/tmp/kcmpm-spawn-XXXXXX";
	int fd = mkstemp(log);
	const char *argv[] = { "sh", "-c", "pwd; echo \"$KCMPM_T1 $KCMPM_T2\"; env | grep -c ^KCMPM_T1=",
			       NULL };
	const char *env[] = { "KCMPM_T1=new", "KCMPM_T2=added value", NULL };
	struct spawn_result r = { 0 };
	char *text;

	close(fd);
	setenv("KCMPM_T1", "old", 1);
	CHECK(spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .cwd = "/",
					     .env = env }, &r) == 0);
	CHECK(r.status == 0);
	text = read_file(log, NULL);
	CHECK_STR(text, "/\nnew added value\n1\n");
	free(text);
	CHECK_STR(getenv("KCMPM_T1"), "old");
	unsetenv("KCMPM_T1");
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
	/* A grandchild that ignores TERM, and a leader that waits forever. The timeout leaves the
	 * leader time to name its grandchild on a loaded machine (0.5 s did not, under a build). */
	script = xasprintf("sh -c 'trap \"\" TERM; sleep 100' & echo $! > %s; wait", pidfile);
	r = run_sh(script, 2, NULL);
	CHECK(r.timed_out);
	CHECK(now_seconds() - t0 < 7);
	text = read_file(pidfile, NULL);
	if (text)
		grandchild = strtol(text, NULL, 10);
	CHECK(grandchild > 0);
	/* killed, it is gone as soon as it is reaped; alive, it sleeps 100 s */
	for (int i = 0; i < 50 && grandchild > 0 && !process_gone(grandchild); i++)
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

/* A child whose end cannot be observed is a failure, never a success: with SIGCHLD ignored the
 * kernel reaps children itself, so waitpid() fails with ECHILD for a child that exited 0. */
TEST(spawn_lost_child_is_a_failure)
{
	const char *argv[] = { "true", NULL };
	struct spawn_result res;
	void (*old)(int) = signal(SIGCHLD, SIG_IGN);

	CHECK(spawn_run(&(struct spawn_req){ .argv = argv }, &res) == 0);
	signal(SIGCHLD, old);
	CHECK(res.lost == 1);
	CHECK(res.status == SPAWN_LOST);
	CHECK(spawn_run(&(struct spawn_req){ .argv = argv }, &res) == 0);
	CHECK(res.lost == 0 && res.status == 0);
}

TEST(spawn_format_argv_quotes)
{
	const char *argv[] = { "qemu", "-append", "console=ttyS0 panic=-1", "it's", NULL };
	char *s = spawn_format_argv(argv);

	CHECK_STR(s, "qemu -append 'console=ttyS0 panic=-1' 'it'\\''s'");
	free(s);
}

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/kcmpm-spawn-XXXXXX";

	return xstrdup(mkdtemp(tmpl) ? tmpl : "/nonexistent");
}

/* Each child announces itself, then waits up to 5 s for its partner's announcement: both
 * exit 0 only if they ran at the same time. */
TEST(spawn_run_all_runs_jobs_at_once)
{
	char *dir = temp_dir();
	char *a = xasprintf("touch %s/a; for i in $(seq 50); do [ -e %s/b ] && exit 0; sleep 0.1; "
			    "done; exit 1", dir, dir);
	char *b = xasprintf("touch %s/b; for i in $(seq 50); do [ -e %s/a ] && exit 0; sleep 0.1; "
			    "done; exit 1", dir, dir);
	const char *argv_a[] = { "sh", "-c", a, NULL }, *argv_b[] = { "sh", "-c", b, NULL };
	struct spawn_req reqs[] = { { .argv = argv_a, .timeout = 20 }, { .argv = argv_b, .timeout = 20 } };
	struct spawn_result res[2];

	CHECK(spawn_run_all(reqs, 2, 2, res) == 0);
	CHECK(res[0].status == 0 && res[1].status == 0);
	remove_tree(dir);
	free(a);
	free(b);
	free(dir);
}

/* With one job, children never overlap (each holds a mkdir lock while it runs), and every
 * result lands at its request's index. */
TEST(spawn_run_all_keeps_the_job_limit_and_order)
{
	char *dir = temp_dir();
	char *scripts[3];
	const char *argv[3][4];
	struct spawn_req reqs[3];
	struct spawn_result res[3];

	for (int i = 0; i < 3; i++) {
		scripts[i] = xasprintf("mkdir %s/lock || exit 100; sleep 0.2; rmdir %s/lock; exit %d",
				       dir, dir, i + 3);
		argv[i][0] = "sh";
		argv[i][1] = "-c";
		argv[i][2] = scripts[i];
		argv[i][3] = NULL;
		reqs[i] = (struct spawn_req){ .argv = argv[i], .timeout = 20 };
	}
	CHECK(spawn_run_all(reqs, 3, 1, res) == 0);
	for (int i = 0; i < 3; i++) {
		CHECK(res[i].status == i + 3);
		free(scripts[i]);
	}
	remove_tree(dir);
	free(dir);
}

/* One child past its limit is killed; its neighbour runs to its end untouched. */
TEST(spawn_run_all_times_out_one_child)
{
	const char *hang[] = { "sh", "-c", "sleep 100", NULL };
	const char *quick[] = { "sh", "-c", "sleep 0.3; exit 5", NULL };
	struct spawn_req reqs[] = { { .argv = hang, .timeout = 0.5, .grace = 0.5 },
				    { .argv = quick, .timeout = 20 } };
	struct spawn_result res[2];

	CHECK(spawn_run_all(reqs, 2, 2, res) == 0);
	CHECK(res[0].timed_out && res[0].status == 128 + SIGTERM);
	CHECK(!res[1].timed_out && res[1].status == 5);
}

TEST(spawn_run_all_stops_at_a_missing_program)
{
	const char *ok[] = { "true", NULL }, *missing[] = { "/nonexistent/kcmpm-program", NULL };
	struct spawn_req reqs[] = { { .argv = ok }, { .argv = missing }, { .argv = ok } };
	struct spawn_result res[3];

	CHECK(spawn_run_all(reqs, 3, 1, res) == -1);
	CHECK(errno == ENOENT);
	CHECK(res[0].status == 0 && res[0].seconds > 0);
	CHECK(res[2].seconds == 0);
}

/* spawn_fork_all's work: fork i marks itself in dir, waits up to 5 s for fork 1 - i's mark
 * (so 0 and 1 pass only when they run at the same time), runs a program of its own, and
 * fails on purpose when it is fork 2. */
static int fork_work(int i, void *arg)
{
	const char *dir = arg;
	char *mark = xasprintf("%s/fork-%d", dir, i), *other = xasprintf("%s/fork-%d", dir, 1 - i);
	char *script = xasprintf("echo ran > %s/program-%d", dir, i);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct spawn_result res;
	int seen = i > 1;

	write_file_atomic(mark, "", 0);
	for (int k = 0; k < 50 && !seen; k++) {
		seen = access(other, F_OK) == 0;
		usleep(100000);
	}
	if (spawn_run(&(struct spawn_req){ .argv = argv, .timeout = 20 }, &res) || res.status)
		seen = 0;
	free(mark);
	free(other);
	free(script);
	return seen && i != 2 ? 0 : 1;
}

TEST(spawn_fork_all_runs_functions_at_once_with_their_own_children)
{
	char *dir = temp_dir();
	struct spawn_result res[3];

	CHECK(spawn_fork_all(3, 2, fork_work, dir, res) == 0);
	CHECK(res[0].status == 0 && res[1].status == 0);
	CHECK(res[2].status == 1);
	for (int i = 0; i < 3; i++) {
		char *path = xasprintf("%s/program-%d", dir, i), *text = read_file(path, NULL);

		CHECK(text && !strcmp(text, "ran\n"));
		free(text);
		free(path);
	}
	remove_tree(dir);
	free(dir);
}

static int fork_writes_nothing(int i, void *arg)
{
	(void)i;
	(void)arg;
	return 0;
}

/* What our stdio holds unwritten at the fork is written once, by us, not again by each fork. */
TEST(spawn_fork_all_does_not_write_our_buffers_twice)
{
	char *dir = temp_dir(), *path = xasprintf("%s/out", dir), *text;
	FILE *f = fopen(path, "w");
	struct spawn_result res[2];

	CHECK(f != NULL);
	fputs("once", f);
	CHECK(spawn_fork_all(2, 2, fork_writes_nothing, NULL, res) == 0);
	fclose(f);
	text = read_file(path, NULL);
	CHECK(text && !strcmp(text, "once"));
	CHECK(res[0].status == 0 && res[1].status == 0);
	free(text);
	free(path);
	remove_tree(dir);
	free(dir);
}

static int start_server(const char *script, struct spawn_server *s, const char *log)
{
	const char *argv[] = { "sh", "-c", script, NULL };

	return spawn_server_start(&(struct spawn_req){ .argv = argv, .log_path = log }, s);
}

/* A server answers one line per question, in order, with its stderr in the log; stopping it
 * ends its whole group. */
TEST(spawn_server_answers_each_line)
{
	char log[] = "/tmp/kcmpm-spawn-XXXXXX", reply[64], *text;
	int fd = mkstemp(log);
	struct spawn_server s;
	long pid;

	close(fd);
	CHECK(start_server("echo started >&2; while read -r l; do echo \"got $l\"; done", &s,
			   log) == 0);
	pid = s.pid;
	CHECK(spawn_server_ask(&s, "one", 10, reply, sizeof(reply)) == 0);
	CHECK_STR(reply, "got one");
	CHECK(spawn_server_ask(&s, "two", 10, reply, sizeof(reply)) == 0);
	CHECK_STR(reply, "got two");
	spawn_server_stop(&s);
	CHECK(s.pid == -1 && process_gone(pid));
	text = read_file(log, NULL);
	CHECK_STR(text, "started\n");
	free(text);
	unlink(log);
}

/* A server that ends, or stays silent past the time limit, is a failed question, and it is
 * stopped: a later question fails at once instead of writing to a dead socket (no SIGPIPE). */
TEST(spawn_server_that_ends_or_hangs_fails_the_question)
{
	struct spawn_server s;
	char reply[64];
	double start;
	long pid;

	CHECK(start_server("read -r l; exit 3", &s, NULL) == 0);
	CHECK(spawn_server_ask(&s, "one", 10, reply, sizeof(reply)) == -1);
	CHECK(s.pid == -1);
	CHECK(spawn_server_ask(&s, "two", 10, reply, sizeof(reply)) == -1);
	CHECK(start_server("sleep 100", &s, NULL) == 0);
	pid = s.pid;
	start = now_seconds();
	CHECK(spawn_server_ask(&s, "one", 0.5, reply, sizeof(reply)) == -1);
	CHECK(now_seconds() - start < 5);
	CHECK(s.pid == -1 && process_gone(pid));
	spawn_server_stop(&s);	/* safe on a stopped one */
}

/* Finishing a server lets it do its work at the end of its input (the Kconfig session saves its
 * memo then) and gives its exit status; one that does not end in time is killed, group and
 * all, and one already stopped is left alone. */
TEST(spawn_server_finish_lets_it_end_then_kills)
{
	char log[] = "/tmp/kcmpm-spawn-XXXXXX", reply[64], *text;
	int fd = mkstemp(log), status;
	struct spawn_server s;
	double start;
	long pid;

	close(fd);
	CHECK(start_server("while read -r l; do echo \"got $l\"; done; sleep 0.3; "
			   "echo saved >&2; exit 4", &s, log) == 0);
	CHECK(spawn_server_ask(&s, "one", 10, reply, sizeof(reply)) == 0);
	status = spawn_server_finish(&s, 10);
	CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 4);
	CHECK(s.pid == -1 && s.fd == -1);
	text = read_file(log, NULL);
	CHECK_STR(text, "saved\n");
	free(text);
	CHECK(start_server("trap '' TERM; while :; do sleep 0.1; done", &s, NULL) == 0);
	pid = s.pid;
	start = now_seconds();
	CHECK(spawn_server_finish(&s, 0.5) == -1);
	CHECK(now_seconds() - start < 5);
	CHECK(s.pid == -1 && process_gone(pid));
	CHECK(spawn_server_finish(&s, 1) == -1);	/* stopped already */
	unlink(log);
}

/* The children of a spawn_run_all with many jobs (here 100 at once, past the 64 groups it once
 * had room for) are all listed, so a signal's spawn_kill_all reaches every one: the run ends
 * at once, not when the last unlisted child ends by itself. */
struct many_children {
	struct spawn_req reqs[100];
	struct spawn_result res[100];
	int rc;
};

static void *run_many(void *arg)
{
	struct many_children *m = arg;

	m->rc = spawn_run_all(m->reqs, 100, 100, m->res);
	return NULL;
}

TEST(spawn_kill_all_reaches_every_child_of_many_jobs)
{
	char *dir = temp_dir(), *script = xasprintf("touch %s/$$; exec sleep 30", dir);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct many_children *m = xcalloc(1, sizeof(*m));
	double start = now_seconds();
	pthread_t t;
	int killed = 0;

	for (int i = 0; i < 100; i++)
		m->reqs[i] = (struct spawn_req){ .argv = argv, .timeout = 60 };
	CHECK(pthread_create(&t, NULL, run_many, m) == 0);
	/* until every child runs (a fork of this sanitized process is slow on a loaded machine) */
	for (int waited = 0; waited < 400; waited++) {
		char *list = xasprintf("%s/*", dir);
		glob_t g;
		size_t n = glob(list, 0, NULL, &g) == 0 ? g.gl_pathc : 0;

		if (n)
			globfree(&g);
		free(list);
		if (n == 100)
			break;
		usleep(50000);
	}
	start = now_seconds();
	spawn_kill_all();
	CHECK(pthread_join(t, NULL) == 0);
	for (int i = 0; i < 100; i++)
		killed += m->res[i].status == 128 + SIGKILL;
	if (killed != 100)
		printf("# %d of 100 killed; spawn_run_all gave %d, the first status %d\n", killed,
		       m->rc, m->res[0].status);
	CHECK(killed == 100);
	CHECK(now_seconds() - start < 20);
	remove_tree(dir);
	free(script);
	free(dir);
	free(m);
}
