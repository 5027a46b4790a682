/* spawn: see spawn.h. */
#define _GNU_SOURCE
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Process groups of the children running now, of every thread (each arch's builds run in one,
 * see run.c). A slot is claimed with an atomic exchange, so two threads never take the same
 * one; the signal handler only reads. Signals are blocked meanwhile, so a handler in this
 * thread never sees a child started but not yet listed. */
/* Room for every child at once: each arch's thread may run SPAWN_MAX_JOBS resolutions, beside
 * the makes, QEMUs and servers; a child that found no slot would escape spawn_kill_all, so
 * one that finds none is killed at once instead (live_set fails). */
enum { MAX_LIVE = 4 * SPAWN_MAX_JOBS };
static volatile sig_atomic_t live_pgid[MAX_LIVE];

static int live_set(pid_t pgid, int add)
{
	sigset_t all, old;
	int rc = -1;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < MAX_LIVE && rc; i++) {
		sig_atomic_t want = add ? 0 : pgid;

		if (__atomic_compare_exchange_n(&live_pgid[i], &want, add ? pgid : 0, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			rc = 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Lists a child's group, or, when no slot is left, kills and reaps it: a child the harness
 * could not kill on a signal must not run. 0, or -1 with errno EAGAIN. */
static int live_add(pid_t pid)
{
	if (live_set(pid, 1) == 0)
		return 0;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	errno = EAGAIN;
	return -1;
}

void spawn_kill_all(void)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live_pgid[i] > 0)
			kill(-live_pgid[i], SIGKILL);
}

/* What the handler prints before it exits. Two buffers, so that setting a new note never
 * changes the one a signal may be printing at that moment; the lock keeps two threads from
 * writing the same one. */
static char exit_note[2][512];
static volatile sig_atomic_t exit_note_current;
static pthread_mutex_t exit_note_lock = PTHREAD_MUTEX_INITIALIZER;

void spawn_set_exit_note(const char *note)
{
	int next;

	pthread_mutex_lock(&exit_note_lock);
	next = !exit_note_current;
	snprintf(exit_note[next], sizeof(exit_note[next]), "%s", note);
	exit_note_current = next;
	pthread_mutex_unlock(&exit_note_lock);
}

/* The way out of a fatal signal: the note, then 128+sig. */
static void exit_on_signal(int sig)
{
	const char *note = exit_note[exit_note_current];

	spawn_kill_all();
	if (*note && (write(STDERR_FILENO, "\n", 1) < 0 ||
		      write(STDERR_FILENO, note, strlen(note)) < 0)) {
		/* nothing more can be done from a signal handler */
	}
	_exit(128 + sig);
}

/* In a fork of the harness (spawn_fork_all), which has no thread to take signals: children
 * die at once; a file being written is finished first (util.h's exit guard), then the write's
 * end takes the way out. */
static void on_fatal_signal(int sig)
{
	spawn_kill_all();
	if (exit_guard_defer(sig))
		return;
	exit_on_signal(sig);
}

/* SIGINT, SIGTERM and SIGHUP (spawn_install_signal_handlers fills it in). */
static sigset_t fatal_signals;

static void handle_fatal_signals_here(void)
{
	/* SA_RESTART: the write a deferred signal interrupted goes on to its end */
	struct sigaction sa = { .sa_handler = on_fatal_signal, .sa_flags = SA_RESTART };

	sigfillset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	exit_guard_set(exit_on_signal);
	pthread_sigmask(SIG_UNBLOCK, &fatal_signals, NULL);
}

/* Once a signal has stopped the run, no call of this module returns a child's end: a thread
 * that would see one (its child was killed by the stop) waits here for the process's exit,
 * so nothing a killed make or QEMU "did" is ever judged, cached or written. */
static volatile sig_atomic_t stopping;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*stop_hook)(int sig, void *arg);
static void *stop_arg;

static void park_if_stopping(void)
{
	if (__atomic_load_n(&stopping, __ATOMIC_SEQ_CST))
		for (;;)
			pause();	/* the signals are blocked: only the exit ends this */
}

void spawn_set_stop_hook(void (*hook)(int sig, void *arg), void *arg)
{
	pthread_mutex_lock(&stop_lock);	/* a hook running now holds it until the exit */
	stop_hook = hook;
	stop_arg = arg;
	pthread_mutex_unlock(&stop_lock);
}

/* The thread that takes SIGINT, SIGTERM and SIGHUP (blocked in every other thread): it stops
 * the children, lets the run write what it finished (the stop hook), waits for the files being
 * written to be whole, and exits. */
static void *take_fatal_signals(void *unused)
{
	int sig;

	(void)unused;
	while (sigwait(&fatal_signals, &sig) != 0)
		;
	pthread_mutex_lock(&stop_lock);
	__atomic_store_n(&stopping, 1, __ATOMIC_SEQ_CST);
	spawn_kill_all();
	if (stop_hook)
		stop_hook(sig, stop_arg);
	exit_guard_close();
	exit_on_signal(sig);
	return NULL;
}

void spawn_install_signal_handlers(void)
{
	pthread_t taker;

	sigemptyset(&fatal_signals);
	sigaddset(&fatal_signals, SIGINT);
	sigaddset(&fatal_signals, SIGTERM);
	sigaddset(&fatal_signals, SIGHUP);
	/* blocked here, so in every thread started from now on */
	pthread_sigmask(SIG_BLOCK, &fatal_signals, NULL);
	if (pthread_create(&taker, NULL, take_fatal_signals, NULL) == 0) {
		pthread_detach(taker);
	} else {
		/* no thread: the handler kills the children and exits without the tables */
		handle_fatal_signals_here();
	}
}

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void (*tick_fn)(void *);
static void *tick_arg;

void spawn_set_tick(void (*tick)(void *arg), void *arg)
{
	tick_fn = tick;
	tick_arg = arg;
}

/* The keeper: the process the harness started, leader of the child's process group, parent
 * of the program it runs. Only async-signal-safe calls (it is a fork of a threaded process
 * and never execs). It waits for the program and ends as it ended (its exit code, or killed
 * by the same signal), so the harness sees the program's end. When the harness dies, even by
 * SIGKILL, the kernel sends the keeper SIGUSR1 (PR_SET_PDEATHSIG) and it kills every
 * descendant (kill_descendants: those in sessions of their own too), then its whole group,
 * itself last: no make, cc1 or QEMU the program started outlives the harness. It is a child
 * subreaper, so what leaves the group still comes back to it, to be reaped or killed; and what
 * the program leaves running when it ends is killed then. */
/* Kills every descendant of the keeper, those that left its group too (a setsid grandchild
 * has a session of its own, which a group kill misses): each child it has is killed and
 * reaped, and what that child had comes back to the keeper, a subreaper, for the next round,
 * until it has none. Reads /proc/self/task/<pid>/children (Linux 3.5, CONFIG_PROC_CHILDREN);
 * without it only the group kill is left. Async-signal-safe: raw calls, no stdio, no malloc. */
static void kill_descendants(void)
{
	char path[64] = "/proc/self/task/", digits[16], buf[4096];
	int len = 16, nd = 0;

	for (pid_t self = getpid(); self > 0; self /= 10)
		digits[nd++] = (char)('0' + self % 10);
	while (nd)
		path[len++] = digits[--nd];
	memcpy(path + len, "/children", 10);
	for (int round = 0; round < 1000; round++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		pid_t pid = 0;

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return;
		for (ssize_t i = 0; i <= n; i++) {
			if (i < n && buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				continue;
			}
			if (pid > 0) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
				found++;
			}
			pid = 0;
		}
		if (!found)
			return;
	}
}

static void keep(pid_t parent, pid_t program, const sigset_t *wake)
{
	for (;;) {
		struct timespec second = { 1, 0 };
		int sig = sigtimedwait(wake, NULL, &second), wstatus;
		pid_t got;

		if (sig == SIGUSR1 || getppid() != parent) {
			/* the harness is gone: every descendant, then the whole group, us too */
			kill_descendants();
			kill(0, SIGKILL);
		}
		while ((got = waitpid(-1, &wstatus, WNOHANG)) > 0) {
			sigset_t all;

			if (got != program)
				continue;	/* an orphan of the program's, reaped */
			/* what the program left running (a daemon, a setsid grandchild) ends with it */
			kill_descendants();
			if (WIFEXITED(wstatus))
				_exit(WEXITSTATUS(wstatus));
			signal(WTERMSIG(wstatus), SIG_DFL);
			sigfillset(&all);
			sigprocmask(SIG_UNBLOCK, &all, NULL);
			raise(WTERMSIG(wstatus));
			_exit(128 + WTERMSIG(wstatus));
		}
	}
}

/* In the child, between fork and exec: only async-signal-safe calls. The child gets default
 * signal handling, its own process group, stdin from /dev/null, stdout and stderr into the
 * log, and a keeper (see keep) between the harness and the program. A server child (talk >=
 * 0) has stdin and stdout on the socket talk instead, stderr still in the log. An exec
 * failure is reported through the pipe. */
static void child(const struct spawn_req *req, char *const *envp, pid_t parent, int report,
		  int talk)
{
	sigset_t none, wake;
	int in, out, e;
	pid_t keeper, program;

	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR1);
	sigaddset(&wake, SIGCHLD);
	sigprocmask(SIG_SETMASK, &wake, NULL);	/* the keeper takes them with sigtimedwait */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (getppid() != parent)
		_exit(127);	/* the harness is already gone */
	keeper = getpid();
	program = fork();
	if (program < 0) {
		e = errno;
		if (write(report, &e, sizeof(e)) < 0) {
			/* the parent sees a short read and carries on */
		}
		_exit(127);
	}
	if (program > 0) {
		/* The program holds what it needs. The keeper lets go of every file: the report
		 * pipe (else the harness would wait for its end forever), and the harness's own
		 * pipes and sockets, which a server would otherwise never see closed. Signals that
		 * end a program (a timeout's SIGTERM to the group) are held, so the program gets
		 * its grace and the keeper ends with it. */
		sigset_t held = wake;

		if (syscall(SYS_close_range, 0U, ~0U, 0U))
			for (int fd = 0; fd < 65536; fd++)
				close(fd);
		sigaddset(&held, SIGTERM);
		sigaddset(&held, SIGINT);
		sigaddset(&held, SIGHUP);
		sigaddset(&held, SIGQUIT);
		sigprocmask(SIG_SETMASK, &held, NULL);
		keep(parent, program, &wake);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);	/* ignored by the harness; an ignored signal survives exec */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != keeper)
		_exit(127);
	in = open("/dev/null", O_RDONLY);
	out = req->log_path ? open(req->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644)
			    : open("/dev/null", O_WRONLY);
	if (talk >= 0)
		in = talk;
	for (int i = 0; i < req->npass_fds; i++)
		fcntl(req->pass_fds[i], F_SETFD, 0);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(talk >= 0 ? talk : out, 1) < 0 ||
	    dup2(out, 2) < 0 || (req->cwd && chdir(req->cwd))) {
		e = errno;
	} else {
		execvpe(req->argv[0], (char *const *)req->argv, envp);
		e = errno;
	}
	if (write(report, &e, sizeof(e)) < 0) {
		/* the parent sees a short read and carries on */
	}
	_exit(127);
}

/* Our environment with req->env's entries replacing or adding theirs, made before fork (the
 * child may only make async-signal-safe calls). Free with free() alone: the strings are
 * environ's and the request's. */
static char **child_environment(const struct spawn_req *req)
{
	size_t n = 0, k = 0, extra = 0;
	char **envp;

	while (environ[n])
		n++;
	while (req->env && req->env[extra])
		extra++;
	envp = xcalloc(n + extra + 1, sizeof(*envp));
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;

		for (size_t j = 0; j < extra && !replaced; j++) {
			size_t len = strcspn(req->env[j], "=");

			replaced = !strncmp(environ[i], req->env[j], len) && environ[i][len] == '=';
		}
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (size_t j = 0; j < extra; j++)
		envp[k++] = (char *)req->env[j];
	return envp;
}

static int start_child(const struct spawn_req *req, pid_t *pid, int talk)
{
	pid_t parent = getpid();
	char **envp;
	int report[2], e;
	ssize_t n;

	park_if_stopping();
	if (pipe2(report, O_CLOEXEC))
		return -1;
	envp = child_environment(req);
	*pid = fork();
	if (*pid < 0) {
		e = errno;
		close(report[0]);
		close(report[1]);
		free(envp);
		errno = e;
		return -1;
	}
	if (*pid == 0)
		child(req, envp, parent, report[1], talk);
	free(envp);
	close(report[1]);
	setpgid(*pid, *pid);	/* also here, so the group exists before we might signal it */
	do
		n = read(report[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == sizeof(e)) {	/* exec failed: reap the child, report why */
		waitpid(*pid, NULL, 0);
		errno = e;
		return -1;
	}
	return 0;
}

/* One child of spawn_run_all that has not ended yet. */
struct running {
	pid_t pid;
	int index;		/* into the requests */
	double start;
	double kill_at;		/* when SIGKILL follows the SIGTERM of a timeout; 0: no timeout yet */
};

static void decode_status(int wstatus, struct spawn_result *res)
{
	if (WIFEXITED(wstatus))
		res->status = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		res->status = 128 + WTERMSIG(wstatus);
	else
		res->status = 255;
}

/* Has this child ended? Then its group is killed (nothing it started may outlive it), its
 * result filled in, and it is forgotten. */
static int reap(struct running *r, struct spawn_result *res)
{
	int wstatus = 0;
	pid_t got = waitpid(r->pid, &wstatus, WNOHANG);
	int wait_errno = errno;

	if (got == 0 || (got < 0 && wait_errno == EINTR))
		return 0;
	kill(-r->pid, SIGKILL);
	live_set(r->pid, 0);
	res->seconds = now_seconds() - r->start;
	if (got == r->pid) {
		decode_status(wstatus, res);
	} else {
		/* Not our child any more (someone else reaped it): how it ended is unknown, and
		 * status starts at fail, so it failed. */
		warn("lost track of child %ld (%s): its end cannot be observed; counted as failed",
		     (long)r->pid, got < 0 ? strerror(wait_errno) : "waitpid answered another process");
		res->lost = 1;
		res->status = SPAWN_LOST;
	}
	return 1;
}

/* A child past its time limit gets SIGTERM on its group, then SIGKILL after the grace. */
static void enforce_limit(const struct spawn_req *req, struct running *r, struct spawn_result *res)
{
	double now = now_seconds();

	if (!r->kill_at && req->timeout > 0 && now >= r->start + req->timeout) {
		res->timed_out = 1;
		kill(-r->pid, SIGTERM);
		r->kill_at = now + (req->grace > 0 ? req->grace : 2.0);
	} else if (r->kill_at && now >= r->kill_at) {
		kill(-r->pid, SIGKILL);
	}
}

/* How run_all starts its i-th child: a program (spawn_run_all) or a function in a fork of
 * this process (spawn_fork_all). */
struct starter {
	const struct spawn_req *reqs;	/* the programs; NULL: fn instead */
	int (*fn)(int i, void *arg);
	void *arg;
};

/* In a fork running fn: its own process group (so the harness can kill it), SIGTERM when the
 * harness dies, our signal handlers (they kill what it starts) but no children of ours in its
 * table, no exit note and no progress ticks (the run's terminal is ours). stdio is flushed
 * before the fork, and the fork ends with _exit, so nothing buffered is written twice. */
static void forked(const struct starter *st, int i, pid_t parent)
{
	int rc;

	for (int k = 0; k < MAX_LIVE; k++)
		live_pgid[k] = 0;
	spawn_set_exit_note("");
	tick_fn = NULL;
	stop_hook = NULL;	/* the fork writes no tables: the harness does */
	handle_fatal_signals_here();	/* the thread that takes them is not in the fork */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	rc = st->fn(i, st->arg);
	fflush(NULL);
	_exit(rc ? 1 : 0);
}

static int start_one(const struct starter *st, int i, pid_t *pid)
{
	pid_t parent = getpid();

	if (st->reqs)
		return start_child(&st->reqs[i], pid, -1);
	fflush(NULL);
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0)
		forked(st, i, parent);
	setpgid(*pid, *pid);
	return 0;
}

static int run_all(const struct starter *st, int n, int jobs, struct spawn_result *res)
{
	static const struct spawn_req no_limit;
	struct running run[SPAWN_MAX_JOBS];
	int next = 0, nrun = 0, start_errno = 0;
	double step = 0.002, next_tick = now_seconds() + 1;

	jobs = jobs < 1 ? 1 : jobs > SPAWN_MAX_JOBS ? SPAWN_MAX_JOBS : jobs;
	for (int i = 0; i < n; i++)
		res[i] = (struct spawn_result){ 0 };
	for (;;) {
		park_if_stopping();
		while (!start_errno && next < n && nrun < jobs) {
			struct running *r = &run[nrun];

			*r = (struct running){ .index = next, .start = now_seconds() };
			if (start_one(st, next, &r->pid) || live_add(r->pid)) {
				start_errno = errno;
				break;
			}
			nrun++;
			next++;
		}
		if (nrun == 0)
			break;
		for (int i = 0; i < nrun; i++) {
			const struct spawn_req *req = st->reqs ? &st->reqs[run[i].index] : &no_limit;

			if (reap(&run[i], &res[run[i].index])) {
				run[i--] = run[--nrun];
				step = 0.002;
			} else {
				enforce_limit(req, &run[i], &res[run[i].index]);
			}
		}
		if (tick_fn && now_seconds() >= next_tick) {
			tick_fn(tick_arg);
			next_tick = now_seconds() + 1;
		}
		sleep_seconds(step);
		if (step < 0.05)
			step *= 2;
	}
	park_if_stopping();
	errno = start_errno;
	return start_errno ? -1 : 0;
}

int spawn_run_all(const struct spawn_req *reqs, int n, int jobs, struct spawn_result *res)
{
	return run_all(&(struct starter){ .reqs = reqs }, n, jobs, res);
}

int spawn_fork_all(int n, int jobs, int (*fn)(int i, void *arg), void *arg,
		   struct spawn_result *res)
{
	return run_all(&(struct starter){ .fn = fn, .arg = arg }, n, jobs, res);
}

int spawn_run(const struct spawn_req *req, struct spawn_result *res)
{
	return spawn_run_all(req, 1, 1, res);
}

int spawn_server_start(const struct spawn_req *req, struct spawn_server *s)
{
	int pair[2], e;

	*s = (struct spawn_server){ .pid = -1, .fd = -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair))
		return -1;
	if (start_child(req, &s->pid, pair[1])) {
		e = errno;
		close(pair[0]);
		close(pair[1]);
		errno = e;
		return -1;
	}
	close(pair[1]);
	if (live_add(s->pid)) {
		close(pair[0]);
		return -1;
	}
	s->fd = pair[0];
	return 0;
}

/* Reads until a whole line is in s->buf or the deadline passes; ticks the progress line. */
static int server_read_line(struct spawn_server *s, double deadline)
{
	double next_tick = now_seconds() + 1;

	while (!memchr(s->buf, '\n', s->have)) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		double left = deadline - now_seconds();
		ssize_t n;

		park_if_stopping();
		if (left <= 0)
			return -1;
		if (poll(&p, 1, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return -1;
		if (tick_fn && now_seconds() >= next_tick) {
			tick_fn(tick_arg);
			next_tick = now_seconds() + 1;
		}
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (s->have == sizeof(s->buf) - 1)
			return -1;	/* a line longer than any answer: not ours to parse */
		n = read(s->fd, s->buf + s->have, sizeof(s->buf) - 1 - s->have);
		if (n <= 0 && !(n < 0 && errno == EINTR))
			return -1;	/* it ended */
		if (n > 0)
			s->have += (size_t)n;
	}
	return 0;
}

int spawn_server_ask(struct spawn_server *s, const char *line, double timeout, char *reply,
		     size_t len)
{
	size_t want = strlen(line), sent = 0;
	char *nl;

	if (s->fd < 0)
		return -1;
	while (sent < want) {
		ssize_t n = send(s->fd, line + sent, want - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto broken;
		sent += (size_t)n;
	}
	if (send(s->fd, "\n", 1, MSG_NOSIGNAL) != 1 ||
	    server_read_line(s, now_seconds() + timeout))
		goto broken;
	park_if_stopping();
	nl = memchr(s->buf, '\n', s->have);
	*nl = 0;
	snprintf(reply, len, "%s", s->buf);
	s->have -= (size_t)(nl + 1 - s->buf);
	memmove(s->buf, nl + 1, s->have);
	return 0;
broken:
	park_if_stopping();
	spawn_server_stop(s);
	return -1;
}

void spawn_server_stop(struct spawn_server *s)
{
	if (s->fd >= 0)
		close(s->fd);	/* a server reading its stdin sees the end and exits */
	if (s->pid > 0) {
		kill(-s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
		live_set(s->pid, 0);
	}
	*s = (struct spawn_server){ .pid = -1, .fd = -1 };
}

int spawn_server_finish(struct spawn_server *s, double timeout)
{
	double deadline = now_seconds() + timeout;
	int wstatus = -1;

	if (s->pid <= 0)
		return -1;
	close(s->fd);
	s->fd = -1;
	for (;;) {
		pid_t got = waitpid(s->pid, &wstatus, WNOHANG);

		park_if_stopping();
		if (got == s->pid) {
			live_set(s->pid, 0);
			*s = (struct spawn_server){ .pid = -1, .fd = -1 };
			return wstatus;
		}
		if ((got < 0 && errno != EINTR) || now_seconds() >= deadline)
			break;
		usleep(10000);
	}
	spawn_server_stop(s);
	return -1;
}

int spawn_exec(const char *const *argv)
{
	sigset_t none;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);	/* the mask survives exec: the program takes ^C itself */
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	/* the program that replaces us is the user's (make shell's QEMU), not a child a killed
	 * run left: without the mark, a later run's sweep (spawn_claim_children) leaves it be */
	unsetenv("KCMPM_OWNER");
	execvp(argv[0], (char *const *)argv);
	return -1;
}

char *spawn_first_line(const char *const *argv, const char *log_path)
{
	struct spawn_result res;
	char *text, *nl;

	unlink(log_path);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log_path, .timeout = 60 }, &res) ||
	    res.status)
		return NULL;
	text = read_file(log_path, NULL);
	if (text && (nl = strchr(text, '\n')))
		*nl = 0;
	return text;
}

static int needs_quotes(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "-_./=:,+@%", *s))
			return 1;
	return 0;
}

char *spawn_format_argv(const char *const *argv)
{
	struct strbuf sb = { 0 };

	for (int i = 0; argv[i]; i++) {
		if (i)
			sb_add(&sb, " ", 1);
		if (!needs_quotes(argv[i])) {
			sb_add(&sb, argv[i], strlen(argv[i]));
			continue;
		}
		sb_add(&sb, "'", 1);
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				sb_add(&sb, "'\\''", 4);
			else
				sb_add(&sb, p, 1);
		}
		sb_add(&sb, "'", 1);
	}
	sb_add(&sb, "", 0);
	return sb.s;
}

/* Does /proc/<pid>/environ hold the word want ("KCMPM_OWNER=...")? */
static int has_env_word(const char *pid, const char *want)
{
	char *path = xasprintf("/proc/%s/environ", pid);
	size_t len, wlen = strlen(want);
	char *env = read_file(path, &len);
	int found = 0;

	for (size_t i = 0; env && i < len && !found; i += strlen(env + i) + 1)
		found = strlen(env + i) == wlen && !memcmp(env + i, want, wlen);
	free(env);
	free(path);
	return found;
}

int spawn_claim_children(const char *owner)
{
	char *word = xasprintf("KCMPM_OWNER=%s", owner);
	DIR *proc = opendir("/proc");
	struct dirent *e;
	int killed = 0;

	while (proc && (e = readdir(proc))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		if (has_env_word(e->d_name, word) && kill((pid_t)pid, SIGKILL) == 0)
			killed++;
	}
	if (proc)
		closedir(proc);
	setenv("KCMPM_OWNER", owner, 1);
	free(word);
	return killed;
}
