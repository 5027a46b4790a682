/* spawn: the one module that starts, waits for and kills child processes.
 *
 * Lifecycle: fill a struct spawn_req (argv, where output goes, a time limit), call spawn_run(),
 * read the struct spawn_result. The child runs in its own process group with stdin from
 * /dev/null and stdout+stderr appended to one log file, so its output never interleaves with
 * ours. On timeout the whole group gets SIGTERM, then SIGKILL after a grace period; after any
 * end the group is killed once more so nothing it started outlives it.
 *
 * While a child runs, its group is registered here; spawn_kill_all() (safe in a signal handler)
 * kills every registered group. Children may be run from several threads at once (each
 * arch's builds run in one); each waits only for its own. A child gets SIGKILL when the
 * thread that started it ends (PR_SET_PDEATHSIG is per thread), so a thread waits for or stops
 * every child it starts before it ends. spawn_install_signal_handlers() makes SIGINT, SIGTERM and
 * SIGHUP do that and then end the harness with 128+signal.
 */
#ifndef KCMPM_SPAWN_H
#define KCMPM_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

struct spawn_req {
	const char *const *argv;	/* argv[0] is looked up in PATH */
	const char *log_path;		/* stdout and stderr go here (appended); NULL: /dev/null */
	double timeout;			/* seconds; 0 means none */
	double grace;			/* seconds between SIGTERM and SIGKILL; 0 means 2 */
	const char *cwd;		/* the child's working directory; NULL: ours */
	const char *const *env;		/* "NAME=VALUE" entries set in the child's environment
					 * on top of ours, NULL-terminated; NULL: none */
	const int *pass_fds;		/* npass_fds of our descriptors the child keeps open
					 * under the same numbers although they are
					 * close-on-exec here (a make's jobserver pipe) */
	int npass_fds;
};

/* The status of a child whose end could not be observed (waitpid failed): a failure. */
enum { SPAWN_LOST = 255 };

struct spawn_result {
	int status;		/* exit code, or 128+signal when killed by a signal, or SPAWN_LOST */
	int lost;		/* 1 when its end could not be observed: status is SPAWN_LOST */
	int timed_out;		/* 1 when the time limit ran out and the group was killed */
	double seconds;		/* wall time the child ran */
};

/* Marks every child from now on with KCMPM_OWNER=owner in its environment (inherited by
 * everything it starts), after killing any process that already carries that mark: it was
 * left by an earlier run that was killed with SIGKILL (which no handler sees; its direct
 * children die with it through PR_SET_PDEATHSIG, their children do not). Call while holding
 * the lock that makes this run the owner's only one. Returns how many it killed. */
int spawn_claim_children(const char *owner);

/* Runs one child to its end. Returns 0 when it ran (whatever its status), -1 when it could not
 * be started (errno set: ENOENT for a missing program). */
int spawn_run(const struct spawn_req *req, struct spawn_result *res);

/* The most children one spawn_run_all or spawn_fork_all runs at once (--jobs' upper bound). */
enum { SPAWN_MAX_JOBS = 1024 };

/* Runs n children, at most jobs of them at once, each as spawn_run would, into res[i]. Returns
 * -1 (errno set) when one could not be started: no more are started, those already running
 * are waited for. */
int spawn_run_all(const struct spawn_req *reqs, int n, int jobs, struct spawn_result *res);

/* Runs fn(i, arg) for i in 0..n-1, each in a fork of this process, at most jobs at once; fn's
 * return value (0 or not) is the fork's exit status (0 or 1) in res[i]. For independent work
 * that is mostly waiting for children (Kconfig parses): the forks share nothing with us but
 * what they inherit and write to files, and our signal handling kills them and what they
 * started. Only while this is the process's one thread: a fork runs our code, and a lock another
 * thread held at the fork would stay locked in it for good. Returns -1 (errno set) when a fork
 * failed: no more are started. */
int spawn_fork_all(int n, int jobs, int (*fn)(int i, void *arg), void *arg,
		   struct spawn_result *res);

/* A server: a child that keeps running and answers requests, one line in on its stdin, one
 * line out on its stdout (a socket; its stderr goes to req->log_path). Like any child it runs
 * in its own process group, is killed with the harness and by spawn_kill_all. req->timeout
 * is not used: each question has its own. */
struct spawn_server {
	pid_t pid;		/* -1 when none is running */
	int fd;			/* our end of the socket */
	char buf[4096];		/* what it wrote that no answer has taken yet */
	size_t have;
};

/* Starts the server. Returns 0, or -1 with errno set when it could not be started. */
int spawn_server_start(const struct spawn_req *req, struct spawn_server *s);

/* Sends line (a newline is added) and waits up to timeout seconds for one line of answer,
 * copied into reply without its newline. Returns 0, or -1 when the server has ended, does not
 * answer in time or was stopped already; it is then stopped for good. */
int spawn_server_ask(struct spawn_server *s, const char *line, double timeout, char *reply,
		     size_t len);

/* Ends the server (its group killed and reaped). Safe on a stopped one. */
void spawn_server_stop(struct spawn_server *s);

/* Lets the server end on its own: closes its input and waits up to timeout seconds for it to
 * exit, then stops it as spawn_server_stop does. For a server with work to do at the end of
 * its input (writing a file). Returns its wait status, or -1 when it had to be killed or was
 * stopped already. */
int spawn_server_finish(struct spawn_server *s, double timeout);

/* Kills every running child's process group with SIGKILL. Async-signal-safe. */
void spawn_kill_all(void);

/* SIGINT, SIGTERM, SIGHUP: kill children, run the stop hook, print the exit note (how far the
 * run got and how to resume: the caller's words), exit 128+signal. The signals are taken by a
 * thread of their own and blocked in the others, so call this before any thread is started.
 * From the stop on, no call of this module returns a child's end (the thread waits for the
 * exit instead), and no write_file_atomic() starts (util.h's exit guard). */
void spawn_install_signal_handlers(void);
/* What the run does with its finished work when a signal stops it (write it as a partial
 * run): hook(sig, arg), in the signal's thread, after every child is killed. NULL: nothing.
 * Setting it waits while a hook runs (then the process exits instead). */
void spawn_set_stop_hook(void (*hook)(int sig, void *arg), void *arg);
/* The text (ending in a newline) the handler prints; the caller keeps it current. */
void spawn_set_exit_note(const char *note);

/* While a child runs, tick(arg) is called about once a second (the live progress line); NULL
 * turns it off. One setting for the process, made by the run. */
void spawn_set_tick(void (*tick)(void *arg), void *arg);

/* Runs a short command (like "gcc --version") and returns the first line of its output, or
 * NULL when it cannot run or fails. log_path is scratch space for the output. */
char *spawn_first_line(const char *const *argv, const char *log_path);

/* Replaces this process with argv (an interactive program on our terminal, like make shell's
 * QEMU), without the KCMPM_OWNER mark, so no later run's sweep kills it. Returns only on
 * failure, with errno set. */
int spawn_exec(const char *const *argv);

/* Formats argv as one line for logs and reproducers (quoted where needed). Caller frees. */
char *spawn_format_argv(const char *const *argv);

#endif
