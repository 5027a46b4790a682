/* e2e_reliability: a run interrupted, killed, locked out, out of disk, without its tools, on a slow machine,
 * with corrupt cache entries, or given bad input. See e2e.h. */
#include "e2e.h"
#include "cache.h"

#include <time.h>

/* Starts the harness in the background with args, waits until wait_file (NULL: its output)
 * holds wait_for, sends it the signal sig (a name, like INT), and waits for it to end. Returns
 * its output, followed by a line "exit=N". */
static char *interrupted_run(const char *name, const char *const *args, const char *wait_file,
			     const char *wait_for, const char *sig)
{
	const char *argv[32] = { harness, "--cache", cache, "--results" };
	char *results = xasprintf("%s/%s", scratch, name), *log = xasprintf("%s.log", results);
	char *line, *script, *out;
	int n = 4, status;

	argv[n++] = results;
	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n++] = "--variants";
	argv[n++] = "v3";
	argv[n++] = "--trees";
	argv[n++] = "6.1";
	argv[n] = NULL;
	line = spawn_format_argv(argv);
	/* the pids a fake wrote ($KCMPM_TEST_PIDS) that still run half a second after the
	 * harness ended, seen while this script runs: once it ends, this test's own keeper
	 * (spawn.c) kills what it left, and would hide what the harness's keepers missed */
	script = xasprintf("%s > %s 2>&1 & pid=$!; n=0\n"
			   "until grep -q -F -e '%s' %s; do sleep 0.05; n=$((n+1)); "
			   "[ $n -lt 3000 ] || break; done\n"
			   "kill -%s $pid; wait $pid; echo exit=$? >> %s\n"
			   "sleep 0.5; s=''; for p in $(cat \"${KCMPM_TEST_PIDS:-/dev/null}\"); do "
			   "st=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1); "
			   "[ -n \"$st\" ] && [ \"$st\" != Z ] && s=\"$s $p\"; done; "
			   "echo \"survivors=$s\" >> %s\n",
			   line, log, wait_for, wait_file ? wait_file : log, sig, log, log);
	free(tool_run(name, (const char *[]){ "sh", "-c", script, NULL }, &status));
	out = read_file(log, NULL);
	printf("# %s: %s", name, out && strstr(out, "exit=") ? strstr(out, "exit=") : "no exit\n");
	free(script);
	free(line);
	free(log);
	free(results);
	return out;
}

/* Is the process running? A zombie is not: it has ended, and waits for whoever adopted it to
 * reap it. */
static int alive(long pid)
{
	char *path = xasprintf("/proc/%ld/stat", pid), *stat = read_file(path, NULL);
	char *paren = stat ? strrchr(stat, ')') : NULL;
	int running = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';

	free(stat);
	free(path);
	return running;
}

/* The pids a fake wrote to $KCMPM_TEST_PIDS; returns how many of them still run. */
static int still_running(const char *pid_file, int *total)
{
	char *text = read_file(pid_file, NULL), *p = text, *end;
	int running = 0;

	*total = 0;
	usleep(300 * 1000);	/* time for the kernel to deliver the last signals */
	for (long pid; p && (pid = strtol(p, &end, 10)) > 0; p = end) {
		(*total)++;
		running += alive(pid);
	}
	free(text);
	return running;
}

/* A run that the preflight stops: exit 2, the summary naming packages as its last line, and
 * no config made, no kernel built, no cell judged. */
static struct run expect_preflight_stop(const char *name, const char *const *args,
					const char *packages)
{
	struct run r = harness_run(name, args);
	char *want = xasprintf("found before any build; install what is missing: apt-get install %s",
			       packages);

	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, want);
	CHECK(r.out && !strstr(r.out, "base config") && !strstr(r.out, "distinct kernels") &&
	      !strstr(r.out, "building"));
	free(want);
	return r;
}

/* The machine a new user meets: the arm64 cross compiler is there, its C library is not (it is
 * only a Recommends). The run stops before any build of any arch, naming the package, instead
 * of failing after every x86_64 kernel. */
/* No temporary file of an atomic write (name.tmp.<pid>) under dir. */
static int temp_files_under(const char *dir)
{
	const char *argv[] = { "find", dir, "-name", "*.tmp.[0-9]*", NULL };
	int status;
	char *out = tool_run("find-temps", argv, &status);
	int n = out ? count(out, "\n") : 0;

	free(out);
	return n;
}

/* Rewrites the file named file of every cache entry under kind_dir whose content is from as
 * to; returns how many. Several requests can resolve to one config and several boots can
 * print one log, so corrupting every entry with a cell's content reaches the one its run
 * uses; the others are put back afterwards, so the shared cache is left as it was found. */
static int rewrite_entries(const char *kind_dir, const char *file, const char *from,
			   const char *to)
{
	DIR *d = opendir(kind_dir);
	struct dirent *e;
	int n = 0;

	while (d && from && to && (e = readdir(d))) {
		char *path = xasprintf("%s/%s/%s", kind_dir, e->d_name, file);
		char *have = e->d_name[0] != '.' ? read_file(path, NULL) : NULL;

		if (have && !strcmp(have, from)) {
			write_file_atomic(path, to, strlen(to));
			n++;
		}
		free(have);
		free(path);
	}
	if (d)
		closedir(d);
	return n;
}

/* Bad input: one clear line on stderr, exit 2. */
static void expect_harness_error(const char *name, const char *const *args, const char *msg)
{
	struct run r = harness_run(name, args);
	const char *last = r.out ? r.out + strlen(r.out) : NULL;

	CHECK(r.status == 2);
	if (last) {
		while (last > r.out && last[-1] == '\n')
			last--;
		while (last > r.out && last[-1] != '\n')
			last--;
	}
	CHECK(last && !strncmp(last, "kcmp-matrix: ", 13));
	CHECK_CONTAINS(last, msg);
	run_free(&r);
}

/* SIGINT between boots: the harness says how far it got and how to resume, QEMU is gone, and
 * the tables hold the finished cells alone, marked partial (no table of an earlier run stays
 * beside cells this one rewrote; no temporary file is left); run again, the finished cells
 * come from the cache and the table is that of an uninterrupted run. */
TEST(e2e_interrupt_then_resume)
{
	const char *only[] = { "--arch", "x86_64", "--only", FIVE, NULL };
	struct run whole = harness_run("resume-reference", only);
	char *pids = xasprintf("%s/qemu-slow.pids", scratch), *out, *json;
	/* a QEMU program of this test run's own, so boots cached by earlier runs do not count */
	char *qemu = xasprintf("%s/qemu-slow-x86_64", scratch);
	const char *slow[] = { "--arch", "x86_64", "--only", FIVE, "--qemu", qemu, NULL };
	struct run resumed;
	int finished = -1, total, cached = 0, written = -1;
	char *text, *partial;

	CHECK(copy_file("tests/fakes/qemu-slow-x86_64", qemu) == 0 && chmod(qemu, 0755) == 0);
	setenv("KCMPM_TEST_PIDS", pids, 1);
	out = interrupted_run("resume", slow, NULL, "[  2/5]", "INT");
	CHECK_CONTAINS(out, "exit=130");
	CHECK(out && strstr(out, "interrupted after ") &&
	      sscanf(strstr(out, "interrupted after "), "interrupted after %d of 5", &finished) == 1);
	CHECK(finished >= 2 && finished < 5);
	CHECK_CONTAINS(out, "Run the same command again to finish");
	CHECK(still_running(pids, &total) == 0);
	CHECK(total >= finished);	/* and any boot in flight was killed, not waited for */
	json = xasprintf("%s/resume/matrix.json", scratch);
	text = read_file(json, NULL);
	partial = text ? strstr(text, "\"partial\": \"stopped after ") : NULL;
	CHECK(partial && sscanf(partial, "\"partial\": \"stopped after %d of 5 cells", &written) == 1);
	/* a cell ending in the very moment of the signal may be in the note and not the table */
	CHECK(written >= 1 && (written == finished || written == finished - 1));
	CHECK_CONTAINS(text, "interrupted by SIGINT");
	CHECK(count_files_named(scratch, "*.tmp.*") == 0);
	resumed = harness_run("resume", slow);
	CHECK(resumed.status == 0);
	for (const char *p = resumed.out; p && (p = strstr(p, "build cached 0.0s boot cached")); p++)
		cached++;
	printf("# %d cells finished before the interrupt, %d boots reused after it\n", finished,
	       cached);
	CHECK(cached == finished);
	CHECK(whole.tsv && resumed.tsv && !strcmp(whole.tsv, resumed.tsv));
	{
		char *a = results_file(&whole, "matrix.md"), *b = results_file(&resumed, "matrix.md");

		CHECK(a && b && !strcmp(a, b));
		free(a);
		free(b);
	}
	unsetenv("KCMPM_TEST_PIDS");
	run_free(&resumed);
	run_free(&whole);
	free(text);
	free(json);
	free(out);
	free(qemu);
	free(pids);
}

/* make shell's QEMU belongs to the person at its console, not to a run: a later run on the same
 * cache sweeps what killed runs left behind (spawn_claim_children) and must leave it be. The
 * shell's boot (rdinit=/bin/sh) is a sleep in place of QEMU; the cell's own boot is real. */
TEST(e2e_shell_qemu_is_not_swept_by_a_later_run)
{
	char *pidfile = xasprintf("%s/shell-qemu.pid", scratch);
	char *qemu = xasprintf("%s/qemu-shell-x86_64", scratch);
	char *results = xasprintf("%s/shell-kept", scratch);
	const char *fake = "#!/bin/sh\n"
			   "case \"$*\" in *rdinit=/bin/sh*) echo $$ > \"$KCMPM_TEST_PIDS\"; "
			   "exec sleep 600 ;; esac\n"
			   "exec qemu-system-x86_64 \"$@\"\n";
	const char *argv[] = { harness, "--cache", cache, "--results", results, "--trees", "6.1",
			       "--variants", "v3", "--arch", "x86_64", "--only", OFF, "--shell",
			       "--qemu", qemu, NULL };
	char *log = xasprintf("%s.log", results), *text = NULL;
	struct run later;
	long pid = 0;
	pid_t shell;

	CHECK(write_file_atomic(qemu, fake, strlen(fake)) == 0 && chmod(qemu, 0755) == 0);
	setenv("KCMPM_TEST_PIDS", pidfile, 1);
	/* started as a person starts it: a process of its own, in a session of its own, so that
	 * nothing of this test's own children's clean-up reaches it */
	shell = fork();
	if (shell == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);

		setsid();
		if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(127);
		execv(harness, (char *const *)argv);
		_exit(127);
	}
	CHECK(shell > 0);
	/* the fake writes its pid once the shell's boot starts (the cell's own boot is first) */
	for (int i = 0; i < 6000 && shell > 0 && pid <= 0; i++) {
		free(text);
		text = read_file(pidfile, NULL);
		if (!text || sscanf(text, "%ld", &pid) != 1)
			usleep(50 * 1000);
	}
	CHECK(pid > 0);
	CHECK(pid == (long)shell);	/* make shell's harness became its QEMU: exec, no child */
	later = harness_run("after-shell", (const char *[]){ "--arch", "x86_64", "--only", OFF,
							      NULL });
	CHECK(later.status == 0);
	CHECK(pid > 0 && alive(pid));	/* the later run's sweep left the shell running */
	if (shell > 0) {	/* the harness became the fake QEMU: one process, one pid */
		kill(shell, SIGKILL);
		waitpid(shell, NULL, 0);
	}
	unsetenv("KCMPM_TEST_PIDS");
	run_free(&later);
	free(text);
	free(log);
	free(results);
	free(qemu);
	free(pidfile);
}

/* SIGKILL mid-build: no handler runs, yet make and what it started die with the harness
 * within a second (each child's keeper kills its group when the harness dies: spawn.c); the
 * temporary files of interrupted writes are cleaned up by the next run, which then finishes
 * normally. */
TEST(e2e_sigkill_mid_build_is_cleaned_up_by_the_next_run)
{
	char *pids = xasprintf("%s/make-hang.pids", scratch), *out, *text;
	const char *hang[] = { "--arch", "x86_64", "--only", OFF, "--make", "tests/fakes/make-hang",
			       NULL };
	char *stale[2] = { xasprintf("%s/killed/matrix.json.tmp.4242", scratch),
			   xasprintf("%s/killed/cells/6.1/v3/x86_64/" OFF "/serial.log.tmp.77", scratch) };
	struct run next;
	long make_pid = 0, sleep_pid = 0, escaped_pid = 0;

	setenv("KCMPM_TEST_PIDS", pids, 1);
	/* killed once the fake make and its child run (they wrote their pids) */
	out = interrupted_run("killed", hang, pids, " ", "KILL");
	CHECK_CONTAINS(out, "exit=137");
	for (int i = 0; i < 100 && !path_exists(pids); i++)
		usleep(50 * 1000);
	usleep(300 * 1000);
	text = read_file(pids, NULL);
	CHECK(text && sscanf(text, "%ld %ld %ld", &make_pid, &sleep_pid, &escaped_pid) == 3);
	CHECK(make_pid > 0 && !alive(make_pid));	/* died with the harness */
	CHECK(sleep_pid > 0 && !alive(sleep_pid));	/* and so did its child, by now */
	/* and the one in a session of its own, out of the group's reach: the keeper's; seen
	 * before this test's own keeper could kill it */
	CHECK(escaped_pid > 0 && !alive(escaped_pid));
	CHECK_CONTAINS(out, "\nsurvivors=\n");
	for (int i = 0; i < 2; i++) {
		char *dir = xstrdup(stale[i]);

		*strrchr(dir, '/') = 0;
		mkdir_p(dir);
		CHECK(write_file_atomic(stale[i], "partial", 7) == 0);
		free(dir);
	}
	next = harness_run("killed", (const char *[]){ "--arch", "x86_64", "--only", OFF, NULL });
	CHECK(next.status == 0);
	CHECK_CONTAINS(next.out, "an earlier run was killed: stopped 0 of its processes, removed 2 "
		       "partial files");
	usleep(300 * 1000);
	CHECK(sleep_pid > 0 && !alive(sleep_pid));
	CHECK(!path_exists(stale[0]) && !path_exists(stale[1]));
	expect_cell(&next, "x86_64", OFF, "PASS\tenosys\t");
	unsetenv("KCMPM_TEST_PIDS");
	run_free(&next);
	free(stale[0]);
	free(stale[1]);
	free(text);
	free(out);
	free(pids);
}

/* Two runs on one cache and results directory: the second waits for the first (a lock) and
 * says so, and never interleaves with it; both finish with complete results. The slow QEMU
 * writes each boot's pid to an events file, and the first run's end is written there too:
 * exactly the first run's five boots come before it. */
TEST(e2e_second_run_waits_for_the_first)
{
	char *results = xasprintf("%s/two-runs", scratch), *events = xasprintf("%s/two-runs.events", scratch);
	const char *argv[] = { harness, "--cache", cache, "--results", results, "--variants", "v3",
			       "--trees", "6.1", "--arch", "x86_64", "--only", FIVE, "--qemu",
			       "tests/fakes/qemu-slow-x86_64", "--force", "boot", NULL };
	char *line = spawn_format_argv(argv);
	char *script = xasprintf("%s > %s/first.log 2>&1 & first=$!\n"
				 "until grep -q booting %s/first.log 2>/dev/null; do sleep 0.05; done\n"
				 "{ %s > %s/second.log 2>&1; echo second=$? >> %s/second.log; } &\n"
				 "wait $first; echo first=$? >> %s/first.log; echo first-ended >> %s\n"
				 "wait; cat %s/first.log %s/second.log\n",
				 line, scratch, scratch, line, scratch, scratch, scratch, events, scratch,
				 scratch);
	char *out, *tsv, *path = xasprintf("%s/matrix.tsv", results), *ev, *end;
	int status, lines = 0, before = 0, after = 0;

	setenv("KCMPM_TEST_PIDS", events, 1);
	out = tool_run("two-runs", (const char *[]){ "sh", "-c", script, NULL }, &status);
	unsetenv("KCMPM_TEST_PIDS");
	CHECK_CONTAINS(out, "first=0");
	CHECK_CONTAINS(out, "second=0");
	CHECK_CONTAINS(out, "another kcmp-matrix run is using '");
	CHECK_CONTAINS(out, "'; waiting for it to finish");
	ev = read_file(events, NULL);
	end = ev ? strstr(ev, "first-ended\n") : NULL;
	CHECK(end != NULL);
	for (char *p = ev; end && *p; p++)
		if (*p == '\n' && p < end)
			before++;
		else if (*p == '\n')
			after++;
	printf("# boots before the first run ended: %d, after: %d\n", before, after - 1);
	CHECK(before == 5 && after - 1 == 5);
	tsv = read_file(path, NULL);
	for (char *p = tsv; p && *p; p++)
		lines += *p == '\n';
	CHECK(lines == 6);
	free(ev);
	free(tsv);
	free(path);
	free(out);
	free(script);
	free(line);
	free(events);
	free(results);
}

/* A full disk during a build is the machine's problem, not a kernel verdict: exit 2 with the
 * reason, and the results already there are kept. */
TEST(e2e_full_disk_exits_2_and_keeps_results)
{
	char *results = xasprintf("%s/disk-full", scratch), *json = xasprintf("%s/matrix.json", results);
	static const char earlier[] = "{\"schema\": 1, \"earlier\": true}\n";
	struct run r;
	char *after;

	mkdir_p(results);
	write_file_atomic(json, earlier, sizeof(earlier) - 1);
	r = harness_run("disk-full", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--make",
						       "tests/fakes/make-disk-full", NULL });
	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, "kcmp-matrix: the disk is full (No space left on device) while building");
	after = read_file(json, NULL);
	CHECK_STR(after, earlier);
	free(after);
	run_free(&r);
	free(json);
	free(results);
}

/* A real full disk: the results directory on a 1 MiB tmpfs. A one-cell run fits; a 48-cell
 * run (about 30 KiB of config per cell) does not, and must stop with exit 2 and a line saying
 * the disk is full, leaving the first run's results whole and no temporary file behind.
 * Mounting needs root (as in CI); where it is not permitted the test says so and skips. */
TEST(e2e_real_full_disk_on_a_tmpfs)
{
	char *mnt = xasprintf("%s/tmpfs", scratch), *json = xasprintf("%s/results/matrix.json", mnt);
	const char *mount_argv[] = { "mount", "-t", "tmpfs", "-o", "size=1m", "kcmpm-e2e", mnt, NULL };
	const char *umount_argv[] = { "umount", mnt, NULL };
	char *out, *before, *after;
	struct run first, full;
	int status;

	mkdir_p(mnt);
	out = tool_run("mount-tmpfs", mount_argv, &status);
	if (status != 0) {
		char why[300];

		snprintf(why, sizeof(why), "cannot mount a tmpfs here (%.200s)", out ? out : "");
		why[strcspn(why, "\n")] = 0;
		check_skip(why);
		free(out);
		free(json);
		free(mnt);
		return;
	}
	free(out);
	first = harness_run("tmpfs/results", (const char *[]){ "--config-only", "--arch", "x86_64",
							      "--only", OFF, NULL });
	CHECK(first.status == 0);
	before = read_file(json, NULL);
	CHECK(before != NULL);
	full = harness_run("tmpfs/results", (const char *[]){ "--config-only", "--arch", "x86_64",
							     NULL });
	CHECK(full.status == 2);
	CHECK_CONTAINS(full.out, "No space left on device; free space and run again: finished "
		       "cells are kept");
	after = read_file(json, NULL);
	CHECK(before && after && !strcmp(before, after));
	CHECK(temp_files_under(mnt) == 0);
	out = tool_run("umount-tmpfs", umount_argv, &status);
	CHECK(status == 0);
	free(out);
	free(before);
	free(after);
	run_free(&first);
	run_free(&full);
	free(json);
	free(mnt);
}

TEST(e2e_broken_arm64_compiler_stops_before_any_build)
{
	char *dir = scratch_copy("matrix", "matrix-no-arm64-libc"), *top = getcwd(NULL, 0);
	char *arches_conf = xasprintf("%s/arches.conf", dir);
	char *prefix = xasprintf("cross-compile %s/tests/fakes/aarch64-no-libc-", top);
	struct run r;

	edit_file(arches_conf, "cross-compile aarch64-linux-gnu-", prefix);
	r = expect_preflight_stop("no-arm64-libc", (const char *[]){ "--matrix", dir, "--only", OFF,
								     NULL },
				  "gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm");
	CHECK_CONTAINS(r.out, "kcmp-matrix: arch arm64: '");
	CHECK_CONTAINS(r.out, "aarch64-no-libc-gcc' cannot compile and statically link the guest "
		       "(");
	CHECK_CONTAINS(r.out, "guest-tests/kcmp_init.c:");
	CHECK_CONTAINS(r.out, "fatal error: ");
	CHECK_CONTAINS(r.out, "1 problem found before any build");
	CHECK(!strstr(r.out, "arch x86_64:"));
	run_free(&r);
	free(prefix);
	free(arches_conf);
	free(top);
	free(dir);
}

/* A guest that would call another system call: x86_64 told that its kernel numbers its calls
 * as i386's does (syscall_32.tbl), so the C library's SYS_kcmp (312) is not the tree's (349).
 * The run stops before any config or build, naming the arch, the call, both numbers and the
 * file; exit 2. */
TEST(e2e_wrong_syscall_numbers_stop_before_any_build)
{
	char *dir = scratch_copy("matrix", "matrix-wrong-syscalls");
	char *arches_conf = xasprintf("%s/arches.conf", dir);
	struct run r;

	edit_file(arches_conf, "syscall-table arch/x86/entry/syscalls/syscall_64.tbl common 64",
		  "syscall-table arch/x86/entry/syscalls/syscall_32.tbl i386");
	r = harness_run("wrong-syscalls", (const char *[]){ "--matrix", dir, "--arch", "x86_64",
							     "--only", OFF, NULL });
	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, "kcmp-matrix: arch x86_64: SYS_kcmp is 312 in the C library's "
		       "headers but 349 in linux-source-6.1's arch/x86/entry/syscalls/"
		       "syscall_32.tbl (arches.conf's syscall-table); the guest would call another "
		       "system call\n");
	CHECK(!strstr(r.out, "building") && !strstr(r.out, "configs of"));
	run_free(&r);
	free(arches_conf);
	free(dir);
}

/* Every other thing the preflight checks, each missing at once: one line per problem naming
 * its package, then one line naming them all. */
TEST(e2e_preflight_names_each_missing_package)
{
	char *dir = scratch_copy("matrix", "matrix-bare-machine");
	char *host = xasprintf("%s/host.conf", dir), *arches_conf = xasprintf("%s/arches.conf", dir);
	char *conf = xasprintf("%s/matrix.conf", dir);
	struct run r;

	edit_file(host, "program flex flex", "program flex flex\nprogram kcmpm-no-such-tool kcmpm-tools");
	edit_file(host, "header gelf.h libelf-dev", "header gelf.h libelf-dev\n"
		  "header kcmpm/no-such.h libkcmpm-dev");
	edit_file(arches_conf, "-cpu qemu64", "-cpu kcmpm-no-such-cpu");
	edit_file(conf, "tree 6.12 linux-source-6.12 /usr/src/linux-source-6.12.tar.xz",
		  "tree 6.12 linux-source-9.9 /usr/src/linux-source-9.9.tar.xz");
	r = expect_preflight_stop("bare-machine", (const char *[]){ "--matrix", dir, "--only", OFF,
								    "--trees", "6.1,6.12", NULL },
				  "kcmpm-tools libkcmpm-dev linux-source-9.9 gcc libc6-dev "
				  "qemu-system-x86");
	CHECK_CONTAINS(r.out, "kcmp-matrix: program 'kcmpm-no-such-tool' not found; install: "
		       "apt-get install kcmpm-tools\n");
	CHECK_CONTAINS(r.out, "kcmp-matrix: header 'kcmpm/no-such.h' not found by cc (");
	CHECK_CONTAINS(r.out, "kcmpm/no-such.h: No such file or directory); install: apt-get "
		       "install libkcmpm-dev\n");
	/* a tree that cannot be had names its package, and how to run without it */
	CHECK_CONTAINS(r.out, "kcmp-matrix: tree 6.12: kernel tarball '/usr/src/linux-source-9.9.tar.xz' "
		       "not found; install it: apt-get install linux-source-9.9; or leave the tree "
		       "out: TREES=6.1\n");
	CHECK_CONTAINS(r.out, "kcmp-matrix: arch x86_64: QEMU 'qemu-system-x86_64' cannot set up the "
		       "arch's machine (qemu-system-x86_64: unable to find CPU model "
		       "'kcmpm-no-such-cpu'); install: apt-get install gcc libc6-dev qemu-system-x86");
	CHECK_CONTAINS(r.out, "4 problems found before any build");
	run_free(&r);
	free(conf);
	free(arches_conf);
	free(host);
	free(dir);
}

/* An error halfway through: the x86_64 cell finished, then arm64's cell directory cannot be
 * made. Exit 2 with the error, and the finished cell's table, JSON and page are there, marked
 * partial. */
TEST(e2e_error_midway_leaves_partial_results)
{
	char *results = xasprintf("%s/midway", scratch), *blocker, *md, *json, *html, *text;
	struct run r;

	blocker = xasprintf("%s/cells/6.1/v3/arm64", results);
	mkdir_p(blocker);
	remove_tree(blocker);
	write_file_atomic(blocker, "not a directory\n", 16);
	r = harness_run("midway", (const char *[]){ "--only", OFF, NULL });
	CHECK(r.status == 2);
	CHECK_CONTAINS(r.out, "kcmp-matrix: the 1 finished cells are in ");
	CHECK_CONTAINS(r.out, "kcmp-matrix: cannot create '");
	md = xasprintf("%s/matrix.md", results);
	text = read_file(md, NULL);
	CHECK(text && !strncmp(text, "PARTIAL RUN, stopped after 1 of 2 cells: cannot create '", 56));
	CHECK_CONTAINS(text, "| n | n | n | n | y | PASS kcmp=enosys |");
	CHECK_CONTAINS(text, "\n1 cells: 1 PASS\n");
	free(text);
	expect_cell(&r, "x86_64", OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
	CHECK(r.tsv && !strstr(r.tsv, "arm64"));
	json = xasprintf("%s/matrix.json", results);
	text = read_file(json, NULL);
	CHECK_CONTAINS(text, "\"partial\": \"stopped after 1 of 2 cells: cannot create '");
	free(text);
	html = xasprintf("%s/index.html", results);
	text = read_file(html, NULL);
	CHECK_CONTAINS(text, "<b>Partial run</b>, stopped after 1 of 2 cells");
	free(text);
	run_free(&r);
	free(html);
	free(json);
	free(md);
	free(blocker);
	free(results);
}

/* A boot that stalls once, as on a loaded CI runner: with no retries it is TIMEOUT; with the
 * default one retry the boot is tried again, and the cell is PASS marked FLAKY in every
 * report, the stalled attempt's console kept. make diff lists it apart from failures. Both
 * runs boot afresh (--force boot), so the test does not depend on what the cache holds. */
TEST(e2e_flaky_boot_passes_on_a_retry)
{
	char *state = xasprintf("%s/flaky.state", scratch);
	const char *base[] = { "--arch", "x86_64", "--only", OFF, "--qemu", "tests/fakes/qemu-flaky",
			       "--boot-timeout", "5", "--force", "boot", NULL, NULL, NULL };
	struct run once, retried, diff;
	char *attempt, *json_once, *json_retried, *text;

	setenv("KCMPM_FAKE_STATE", state, 1);
	setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
	base[10] = "--boot-retries";
	base[11] = "0";
	once = harness_run("flaky-once", base);
	base[10] = NULL;
	unlink(state);	/* the fake stalls once more */
	retried = harness_run("flaky-retried", base);
	unsetenv("KCMPM_FAKE_STATE");
	unsetenv("KCMPM_REAL_QEMU");
	CHECK(once.status == 1);
	expect_cell(&once, "x86_64", OFF, "TIMEOUT\t");
	/* a pass that needed a retry is not a pass the exit status may hide */
	CHECK(retried.status == 1);
	expect_cell(&retried, "x86_64", OFF, "PASS\tenosys\tworks\tenosys\tnnnny\t");
	CHECK_CONTAINS(retried.out, "boot 1 timed out before the guest started, with no crash or warning");
	CHECK_CONTAINS(retried.out, "| n | n | n | n | y | PASS kcmp=enosys FLAKY |");
	attempt = xasprintf("%s/cells/6.1/v3/x86_64/" OFF "/serial.attempt-1.log", retried.results);
	text = read_file(attempt, NULL);
	CHECK_CONTAINS(text, "SeaBIOS (version fake, about to stall)");
	free(text);
	json_retried = xasprintf("%s/matrix.json", retried.results);
	text = read_file(json_retried, NULL);
	CHECK_CONTAINS(text, "\"flaky\": true");
	CHECK_CONTAINS(text, "\"boots\": 2, \"consoles\": [\"cells/6.1/v3/x86_64/" OFF
		       "/serial.attempt-1.log\", \"cells/6.1/v3/x86_64/" OFF "/serial.log\"]");
	free(text);
	/* the boot cache keeps both boots: a rerun that reuses it shows the same FLAKY */
	{
		const char *again[] = { "--arch", "x86_64", "--only", OFF, "--qemu",
					"tests/fakes/qemu-flaky", "--boot-timeout", "5", NULL };
		struct run rerun;

		setenv("KCMPM_FAKE_STATE", state, 1);
		setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
		rerun = harness_run("flaky-rerun", again);
		unsetenv("KCMPM_FAKE_STATE");
		unsetenv("KCMPM_REAL_QEMU");
		CHECK(rerun.status == 1);
		CHECK_CONTAINS(rerun.out, "| n | n | n | n | y | PASS kcmp=enosys FLAKY |");
		CHECK_CONTAINS(rerun.out, "boot cached");
		run_free(&rerun);
	}
	json_once = xasprintf("%s/matrix.json", once.results);
	diff = harness_run("flaky-diff", (const char *[]){ "diff", json_once, json_retried, NULL });
	CHECK(diff.status == 0);
	CHECK_CONTAINS(diff.out, "Flaky (passed only on a retry of the boot; the run counts them as failures) (1):\n"
		       "  6.1 x86_64 v3 " OFF ": PASS on a retry\n");
	run_free(&diff);
	run_free(&once);
	run_free(&retried);
	free(json_once);
	free(json_retried);
	free(attempt);
	free(state);
}

/* A cache that lives for months on a CI runner: a kernel image, a resolved config and a
 * console log that changed after they were cached (a dying disk) are each found out before
 * use, thrown away and made again, and the summary counts them. The verdicts stay the same. */
TEST(e2e_corrupt_cache_entries_are_remade)
{
	const char *args[] = { "--arch", "x86_64", "--only", OFF, NULL };
	struct run first = harness_run("corrupt-1", args), again;
	char *cell = xasprintf("%s/cells/6.1/v3/x86_64/" OFF, first.results);
	char *config_path = xasprintf("%s/config", cell), *serial_path = xasprintf("%s/guest.log", cell);
	char *config = read_file(config_path, NULL), *serial = read_file(serial_path, NULL);
	char *line = variant_cell_line(&first, "v3", "x86_64", OFF), *tag = line ? strrchr(line, '\t') : NULL;
	char *resolved_dir = xasprintf("%s/resolved", cache), *boots_dir = xasprintf("%s/boots", cache);
	char *image = xasprintf("%s/kernels/linux-source-6.1/v3/x86_64/%s/image", cache, tag ? tag + 1 : "?");
	char *bad_config = xasprintf("%sCONFIG_KCMP=y\n", config ? config : "");
	char *bad_serial = xasprintf("%sok 99 forged\n", serial ? serial : "");

	CHECK(first.status == 0 && path_exists(image));
	if (path_exists(image))
		CHECK(truncate(image, 4096) == 0);	/* a truncated image */
	/* a config that says more, a guest channel's log that changed (a forged result) */
	CHECK(rewrite_entries(resolved_dir, "config", config, bad_config) > 0);
	CHECK(rewrite_entries(boots_dir, "guest.log", serial, bad_serial) > 0);
	again = harness_run("corrupt-2", args);
	CHECK(again.status == 0);
	CHECK_CONTAINS(again.out, "kernels built 1, ");
	CHECK_CONTAINS(again.out, "boots 1, ");
	CHECK_CONTAINS(again.out, "corrupt cache entries remade 3, ");
	CHECK_CONTAINS(again.out, "does not match its checksums");
	CHECK(first.tsv && again.tsv && !strcmp(first.tsv, again.tsv));
	rewrite_entries(resolved_dir, "config", bad_config, config);
	rewrite_entries(boots_dir, "guest.log", bad_serial, serial);
	run_free(&first);
	run_free(&again);
	free(bad_config);
	free(bad_serial);
	free(image);
	free(boots_dir);
	free(resolved_dir);
	free(line);
	free(serial);
	free(config);
	free(serial_path);
	free(config_path);
	free(cell);
}

/* Sets a file's times to days ago. */
static int age_file(const char *path, int days)
{
	struct timespec when[2] = { { .tv_sec = time(NULL) - (time_t)days * 24 * 3600 } };

	when[1] = when[0];
	return utimensat(AT_FDCWD, path, when, 0);
}

/* prune-cache keeps what runs use: a real run that reuses its kernel stamps the kernel's entry
 * (here made to look 60 days unused first), and prune-cache, on a cache holding that entry and
 * one unused for 60 days, removes only the latter. */
TEST(e2e_prune_cache_keeps_what_runs_use)
{
	const char *args[] = { "--arch", "x86_64", "--only", OFF, NULL };
	struct run first = harness_run("prune-1", args), again;
	char *line = variant_cell_line(&first, "v3", "x86_64", OFF);
	const char *tag = line && strrchr(line, '\t') ? strrchr(line, '\t') + 1 : "?";
	const char *kind = "kernels/linux-source-6.1/v3/x86_64";
	char *entry = xasprintf("%s/%s/%s", cache, kind, tag), *mark = xasprintf("%s/complete", entry);
	char *copy = xasprintf("%s/prune-cache", scratch);
	char *kept = xasprintf("%s/%s/%s", copy, kind, tag);
	char *unused = xasprintf("%s/boots/0123456789abcdef", copy);
	char *unused_mark = xasprintf("%s/complete", unused), *out;
	const char *prune[] = { harness, "prune-cache", "--cache", copy, "--unused-days", "30",
				NULL };
	const char *bad[] = { harness, "prune-cache", "--cache", copy, "--unused-days", "-1", NULL };
	time_t start;
	struct stat st;
	int status;

	CHECK(first.status == 0 && path_exists(mark));
	CHECK(age_file(mark, 60) == 0);
	start = time(NULL);
	again = harness_run("prune-2", args);
	CHECK(again.status == 0);
	CHECK_CONTAINS(again.out, "kernels built 0, ");
	CHECK(stat(mark, &st) == 0 && st.st_mtime >= start);	/* the reuse stamped it */

	CHECK(mkdir_p(kept) == 0 && mkdir_p(unused) == 0);
	out = tool_run("prune-copy", (const char *[]){ "cp", "-a", "-T", entry, kept, NULL },
		       &status);
	CHECK(status == 0);
	free(out);
	CHECK(write_file_atomic(unused_mark, "format 3\n", 9) == 0 && age_file(unused_mark, 60) == 0);
	out = tool_run("prune", prune, &status);
	CHECK(status == 0);
	CHECK_CONTAINS(out, "prune-cache: 1 entries unused for 30 days removed");
	CHECK_CONTAINS(out, ", 1 kept ");
	CHECK(!path_exists(unused));
	CHECK(cache_complete(copy, kind, tag));	/* the kernel, whole */
	free(out);
	out = tool_run("prune-bad", bad, &status);
	CHECK(status == 2);
	CHECK_CONTAINS(out, "--unused-days: '-1' is not a whole number from 0 to 36500");
	free(out);
	/* a directory that is no cache is refused before its lock file is made there */
	{
		char *plain = xasprintf("%s/not-a-cache", scratch), *lock;
		const char *not_cache[] = { harness, "prune-cache", "--cache", plain, NULL };
		const char *verify[] = { harness, "verify-cache", "--cache", plain, NULL };

		CHECK(mkdir_p(plain) == 0);
		lock = xasprintf("%s/.lock", plain);
		out = tool_run("prune-not-a-cache", not_cache, &status);
		CHECK(status == 2);
		CHECK_CONTAINS(out, "prune-cache: '");
		CHECK_CONTAINS(out, "' is no kcmp-matrix cache");
		free(out);
		out = tool_run("verify-not-a-cache", verify, &status);
		CHECK(status == 2);
		free(out);
		CHECK(!path_exists(lock));
		free(lock);
		free(plain);
	}
	remove_tree(copy);
	run_free(&first);
	run_free(&again);
	free(unused_mark);
	free(unused);
	free(kept);
	free(copy);
	free(mark);
	free(entry);
	free(line);
}

/* A build that never ends (a stuck compiler or make) is killed at the arch's build timeout,
 * with everything it started: the cell is BUILD_TIMEOUT, and the run goes on to the next one. */
TEST(e2e_hung_build_is_build_timeout_and_killed)
{
	char *pids = xasprintf("%s/hung-build.pids", scratch);
	struct run r;
	int total = 0;

	setenv("KCMPM_TEST_PIDS", pids, 1);
	r = harness_run("hung-build", (const char *[]){ "--arch", "x86_64", "--only",
							OFF " " VIA_EXPERT, "--make",
							"tests/fakes/make-hang", "--build-timeout",
							"3", NULL });
	unsetenv("KCMPM_TEST_PIDS");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "BUILD_TIMEOUT\t");
	expect_cell(&r, "x86_64", VIA_EXPERT, "BUILD_TIMEOUT\t");
	CHECK_CONTAINS(r.out, "BUILD_TIMEOUT: the build did not finish within 3 s; its make was killed");
	CHECK_CONTAINS(r.out, "\n2 cells: 2 BUILD_TIMEOUT\n");
	CHECK(still_running(pids, &total) == 0);
	/* two builds, each a make, its child and its child in a session of its own */
	CHECK(total == 6);
	run_free(&r);
	free(pids);
}

TEST(e2e_bad_input_exits_2)
{
	char *dir = scratch_copy("matrix", "matrix-bad");
	char *rules = xasprintf("%s/rules/v3.rules", dir), *text;

	expect_harness_error("bad-arch", (const char *[]){ "--arch", "riscv", NULL },
			     "unknown arch 'riscv'");
	expect_harness_error("bad-tree", (const char *[]){ "--trees", "9.9", NULL },
			     "unknown tree '9.9' (matrix/matrix.conf lists the known ones)");
	/* one cell means one tree too: with both trees, make cell must be told which */
	expect_harness_error("two-trees-one-cell", (const char *[]){ "--trees", "6.1,6.12",
								     "--arch", "x86_64", "--only",
								     OFF, "--single", NULL },
			     "the filters select 2 cells, not one; name the arch, the variant and "
			     "all 5 symbols (say EXPERT=y,KCMP=n,...), and the tree if there are "
			     "several (TREES=)");
	expect_harness_error("bad-only", (const char *[]){ "--only", "KCMP=perhaps", NULL },
			     "ONLY: bad term 'KCMP=perhaps'");
	expect_harness_error("bad-shard", (const char *[]){ "--shard", "3/2", NULL },
			     "--shard: '3/2' is not K/N with 1 <= K <= N");
	expect_harness_error("bad-previous", (const char *[]){ "--previous", "tests/data", NULL },
			     "cannot read 'tests/data'");
	expect_harness_error("bad-ksrc", (const char *[]){ "--ksrc", "tests", NULL },
			     "KSRC 'tests' is not a kernel source tree");
	expect_harness_error("no-qemu", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--qemu",
							  "/nonexistent/qemu-system-x86_64", NULL },
			     "--qemu: '/nonexistent/qemu-system-x86_64' is not an executable program");
	text = read_file(rules, NULL);
	if (text) {
		char *bad = xasprintf("%s\nconfig KCMP\n\tprompt if EXPERT &&\n", text);

		write_file_atomic(rules, bad, strlen(bad));
		free(bad);
	}
	expect_harness_error("bad-rules", (const char *[]){ "--matrix", dir, NULL },
			     "rules/v3.rules:");
	free(text);
	free(rules);
	free(dir);
}

/* Values that used to slip through: each is one line naming what is wrong, and exit 2, before
 * anything is unpacked or built. */
TEST(e2e_bad_values_exit_2)
{
	char *dir = scratch_copy("matrix", "matrix-bad-values");
	char *conf = xasprintf("%s/matrix.conf", dir), *arch_conf = xasprintf("%s/arches.conf", dir);
	char *text = read_file(conf, NULL), *fresh_cache = xasprintf("%s/no-cell-cache", scratch);

	expect_harness_error("jobs-half", (const char *[]){ "--jobs", "0.5", NULL },
			     "--jobs: '0.5' is not a whole number from 1 to 1024");
	expect_harness_error("jobs-huge", (const char *[]){ "--jobs", "1e12", NULL },
			     "--jobs: '1e12' is not a whole number");
	expect_harness_error("timeout-nan", (const char *[]){ "--boot-timeout", "nan", NULL },
			     "--boot-timeout: 'nan' is not a number of seconds from 0 to 86400");
	expect_harness_error("timeout-inf", (const char *[]){ "--build-timeout", "inf", NULL },
			     "--build-timeout: 'inf' is not a number of seconds");
	/* finite, and no limit at all */
	expect_harness_error("timeout-huge", (const char *[]){ "--boot-timeout", "1e300", NULL },
			     "--boot-timeout: '1e300' is not a number of seconds from 0 to 86400 "
			     "(a day)");
	expect_harness_error("build-timeout-huge",
			     (const char *[]){ "--build-timeout", "1e308", NULL },
			     "--build-timeout: '1e308' is not a number of seconds");
	expect_harness_error("unknown-option", (const char *[]){ "--colour", NULL },
			     "unknown option or missing value '--colour'; 'kcmp-matrix --help' "
			     "lists the options");
	/* the run would lock the one directory twice and wait on itself */
	expect_harness_error("cache-is-results", (const char *[]){ "--results", cache, NULL },
			     "--cache and --results name the same directory");
	/* a filter no cell can pass (EXPERT is bool) is said before the preflight and the unpack:
	 * the run never even makes its cache */
	expect_harness_error("no-cell", (const char *[]){ "--only", "EXPERT=m", "--cache",
							  fresh_cache, NULL },
			     "the filters select no cell; check TREES, ARCH, VARIANTS and ONLY");
	CHECK(access(fresh_cache, F_OK) != 0);
	CHECK(text != NULL);
	edit_file(conf, "symbols EXPERT KCMP", "symbols EXPERT KCMP KCMP");
	expect_harness_error("symbol-twice", (const char *[]){ "--matrix", dir, NULL },
			     "symbol 'KCMP' is listed twice");
	/* a NUL ends a C string: the rest of the file must not be silently dropped */
	write_file_atomic(conf, "format 1\n\0tree 6.1\n", 19);
	expect_harness_error("nul-byte", (const char *[]){ "--matrix", dir, NULL },
			     "matrix.conf:2: a NUL byte in a text file");
	write_file_atomic(conf, text ? text : "", text ? strlen(text) : 0);
	edit_file(arch_conf, "boot-timeout 60", "boot-timeout nan");
	expect_harness_error("arch-timeout-nan", (const char *[]){ "--matrix", dir, NULL },
			     "boot-timeout must be a number of seconds from 0 to 86400");
	edit_file(arch_conf, "boot-timeout nan", "boot-timeout 1e300");
	expect_harness_error("arch-timeout-huge", (const char *[]){ "--matrix", dir, NULL },
			     "boot-timeout must be a number of seconds from 0 to 86400");
	edit_file(arch_conf, "boot-timeout 1e300", "boot-timeout 60");
	/* a NUL in a rules file: the rest of the line (and file) would be dropped, "works\0 when
	 * EPOLL" loading as an unconditional works */
	{
		char *rules = xasprintf("%s/rules/v3.rules", dir), *rtext = read_file(rules, NULL);
		char *nul = rtext ? strstr(rtext, "\n") : NULL;

		CHECK(nul != NULL);
		if (nul) {
			*nul = 0;	/* the end of the first line becomes a NUL */
			write_file_atomic(rules, rtext, strlen(rtext) + 1 + strlen(nul + 1));
			expect_harness_error("rules-nul", (const char *[]){ "--matrix", dir, NULL },
					     "v3.rules:1: a NUL byte in a text file");
			*nul = '\n';
			write_file_atomic(rules, rtext, strlen(rtext));
		}
		free(rtext);
		free(rules);
	}
	free(text);
	free(fresh_cache);
	free(arch_conf);
	free(conf);
	free(dir);
}

/* A closed stdout (make matrix | head, a tee killed beside it) never stops the harness before
 * its results are written: the table's write fails with EPIPE, no SIGPIPE ends the run. The
 * pipe's read end is closed before the harness starts, so its first write meets it closed;
 * config-only, the tree of the cells the other tests use. */
TEST(e2e_closed_stdout_keeps_the_results)
{
	char *results = xasprintf("%s/closed-stdout", scratch);
	char *json = xasprintf("%s/matrix.json", results), *log = xasprintf("%s.log", results);
	const char *argv[] = { harness, "--cache", cache, "--results", results, "--trees", "6.1",
			       "--variants", "v3", "--arch", "x86_64", "--only", OFF,
			       "--config-only", NULL };
	int fds[2], status = -1;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	close(fds[0]);
	pid = fork();
	if (pid == 0) {
		int err = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		signal(SIGPIPE, SIG_DFL);	/* as a shell's pipeline gives it */
		dup2(fds[1], 1);
		dup2(err, 2);
		execv(harness, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	printf("# closed stdout: %s %d\n", WIFSIGNALED(status) ? "killed by signal" : "exit",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(path_exists(json));
	free(log);
	free(json);
	free(results);
}

/* With neither HOME nor XDG_CACHE_HOME set, the cache is not made under /tmp/.cache (a name
 * any user could have made first): one line asking for --cache, exit 2. */
TEST(e2e_no_home_asks_for_a_cache)
{
	char *log = xasprintf("%s/no-home.log", scratch), *out;
	const char *argv[] = { harness, "--config-only", "--only", OFF, NULL };
	struct spawn_result res;
	/* spawn's children get our environment with these on top: empty is unset to the
	 * harness (options_default_cache reads an empty one as none) */
	const char *env[] = { "HOME=", "XDG_CACHE_HOME=", NULL };

	CHECK(spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 60,
					      .env = env }, &res) == 0);
	out = read_file(log, NULL);
	CHECK(res.status == 2);
	CHECK_CONTAINS(out, "kcmp-matrix: no cache directory: neither XDG_CACHE_HOME nor HOME is "
		       "set; pass --cache DIR");
	CHECK(!path_exists("/tmp/.cache/kcmp-matrix/.lock"));
	free(out);
	free(log);
}
