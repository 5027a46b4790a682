/* e2e_verdicts: each wrong kernel fails at its layer: another kernel booted, a hang, a panic, a short
 * KTAP plan, a build error, a killed make, a broken or mutant kcmp(), a crash or a warning. See e2e.h. */
#include "e2e.h"
#include "matrix.h"

#include <glob.h>

/* The first kernel image in the cache for x86_64 whose tag differs from the cell's. */
static char *other_kernel(const char *not_tag)
{
	char *dir = xasprintf("%s/kernels/linux-source-6.1/v3/x86_64", cache), *found = NULL;
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) && !found) {
		char *img = xasprintf("%s/%s/image", dir, e->d_name);

		if (e->d_name[0] != '.' && strcmp(e->d_name, not_tag) && path_exists(img))
			found = img;
		else
			free(img);
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

/* How a run with the fake make-meets-other-arch went on both arches: *met is 1 when each
 * arch's make saw the other's start before it ended, *alone 1 when one of them waited for
 * the other in vain. The fake make is copied to a path of the run's own, so the cache (keyed
 * by the make program) never answers for it and each run really builds. */
static void meet_run(const char *name, const char *const *extra, int *met, int *alone)
{
	char *meet = xasprintf("%s/%s-meet", scratch, name), *make = xasprintf("%s/%s-make", scratch, name);
	const char *cp[] = { "cp", "tests/fakes/make-meets-other-arch", make, NULL };
	const char *args[16] = { "--only", OFF, "--make", make };
	struct spawn_result res;
	struct run r;
	int n = 4;

	while (*extra)
		args[n++] = *extra++;
	args[n] = NULL;
	CHECK(mkdir_p(meet) == 0);
	CHECK(spawn_run(&(struct spawn_req){ .argv = cp }, &res) == 0 && res.status == 0);
	setenv("KCMPM_TEST_MEET", meet, 1);
	r = harness_run(name, args);
	unsetenv("KCMPM_TEST_MEET");
	CHECK(r.status == 1);
	CHECK_CONTAINS(r.out, "2 cells: 2 BUILD_FAIL");
	*met = *alone = 0;
	for (int a = 0; a < 2; a++) {
		char *path = xasprintf("%s/cells/6.1/v3/%s/" OFF "/build.log", r.results, arches[a]);
		char *log = read_file(path, NULL);

		CHECK_CONTAINS(log, "fake make: the jobserver's pipe is open");
		CHECK(log && !strstr(log, "fake make: MAKEFLAGS=\n"));
		*met += log && strstr(log, "fake make: 2 kernel builds had started") != NULL;
		*alone |= log && strstr(log, "fake make: 1 kernel builds had started") != NULL;
		free(log);
		free(path);
	}
	*met = *met == 2;
	run_free(&r);
	free(meet);
	free(make);
}

TEST(e2e_mixed_up_kernel_fails_identity)
{
	const char *args[] = { "--arch", "x86_64", "--only", OFF, "--qemu",
			       "tests/fakes/qemu-other-kernel", "--force", "boot", NULL };
	char *tag_line, *tag, *img;
	struct run first, r;

	/* Find this cell's kernel tag from a normal run, then boot another kernel instead. */
	first = harness_run("identity-first", (const char *[]){ "--arch", "x86_64", "--only", OFF,
							       NULL });
	tag_line = cell_line(&first, "x86_64", OFF);
	tag = tag_line ? strrchr(tag_line, '\t') + 1 : NULL;
	img = tag ? other_kernel(tag) : NULL;
	CHECK(img != NULL);
	if (img) {
		setenv("KCMPM_FAKE_KERNEL", img, 1);
		setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
		r = harness_run("identity", args);
		CHECK(r.status == 1);
		expect_cell(&r, "x86_64", OFF, "FAIL\t");
		CHECK_CONTAINS(r.tsv, "identity: the guest booted");
		run_free(&r);
	}
	free(img);
	free(tag_line);
	run_free(&first);
}

TEST(e2e_hung_guest_is_timeout_and_killed)
{
	char *pidfile = xasprintf("%s/hang.pid", scratch), *pid;
	const char *args[] = { "--arch", "x86_64", "--only", OFF, "--qemu", "tests/fakes/qemu-hang",
			       "--boot-timeout", "2", "--force", "boot", NULL };
	struct run r;

	setenv("KCMPM_FAKE_PIDFILE", pidfile, 1);
	r = harness_run("hang", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "TIMEOUT\t-\t-\t-\tnnnny\tguest did not power off within the "
		    "boot timeout (no KTAP output) after 2 s");
	pid = read_file(pidfile, NULL);
	CHECK(pid != NULL);
	if (pid) {
		char *proc = xasprintf("/proc/%ld/stat", strtol(pid, NULL, 10));
		char *stat = read_file(proc, NULL);

		/* gone, or a zombie whose new parent has not reaped it yet */
		CHECK(!stat || strstr(stat, ") Z "));
		free(stat);
		free(proc);
	}
	free(pid);
	run_free(&r);
	/* a timeout with no crash is the machine's fault: not cached, the next run boots again */
	unlink(pidfile);
	r = harness_run("hang-again", (const char *[]){ "--arch", "x86_64", "--only", OFF, "--qemu",
						       "tests/fakes/qemu-hang", "--boot-timeout", "2",
						       NULL });
	CHECK(r.status == 1);
	CHECK(path_exists(pidfile));
	CHECK(!strstr(r.out, "boot cached"));
	expect_cell(&r, "x86_64", OFF, "TIMEOUT\t");
	free(pidfile);
	run_free(&r);
}

TEST(e2e_panic_and_truncated_ktap_are_boot_fail)
{
	const char *panic[] = { "--arch", "x86_64", "--only", OFF, "--qemu", "tests/fakes/qemu-panic",
				"--force", "boot", NULL };
	const char *trunc[] = { "--arch", "x86_64", "--only", OFF, "--qemu",
				"tests/fakes/qemu-truncated", "--force", "boot", NULL };
	struct run r = harness_run("panic", panic);

	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "BOOT_FAIL\t-\t-\t-\tnnnny\tkernel crashed: Kernel panic - not "
		    "syncing: Attempted to kill init! exitcode=0x0000000b");
	run_free(&r);
	r = harness_run("truncated", trunc);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "BOOT_FAIL\t-\t-\t-\tnnnny\tKTAP plan 1..23 but 3 results");
	run_free(&r);
}

TEST(e2e_compile_error_is_build_fail)
{
	const char *args[] = { "--arch", "arm64", "--only", OFF " " VIA_DRM, "--make",
			       "tests/fakes/make-compile-error", NULL };
	struct run r = harness_run("build-fail", args);

	CHECK(r.status == 1);
	expect_cell(&r, "arm64", OFF, "BUILD_FAIL\t-\t-\t-\tnnnny\t/src/linux/kernel/kcmp.c:140:9: "
		    "error: 'task3' undeclared");
	expect_cell(&r, "arm64", VIA_DRM, "BUILD_FAIL\t");
	CHECK_CONTAINS(r.out, "2 cells: 2 BUILD_FAIL");
	run_free(&r);
}

/* A cell that passed, rerun into the same results with a kernel that no longer builds, shows
 * only this run: BUILD_FAIL with its build log, and none of the last run's boot files. */
TEST(e2e_build_fail_on_a_rerun_keeps_no_old_boot)
{
	struct run passed = harness_run("rerun-build-fail", (const char *[]){ "--arch", "x86_64",
									      "--only", OFF, NULL });
	char *cell = xasprintf("%s/cells/6.1/v3/x86_64/" OFF, passed.results);
	const char *files[] = { "serial.log", "guest.log", "qemu.cmd" };
	struct run failed;

	expect_cell(&passed, "x86_64", OFF, "PASS\t");
	for (int i = 0; i < 3; i++) {
		char *path = xasprintf("%s/%s", cell, files[i]);

		CHECK(path_exists(path));
		free(path);
	}
	failed = harness_run("rerun-build-fail-2", (const char *[]){
		"--arch", "x86_64", "--only", OFF, "--make", "tests/fakes/make-compile-error",
		"--results", passed.results, NULL });
	CHECK(failed.status == 1);
	CHECK_CONTAINS(failed.out, "1 cells: 1 BUILD_FAIL");
	for (int i = 0; i < 3; i++) {
		char *path = xasprintf("%s/%s", cell, files[i]);

		if (path_exists(path))
			printf("# %s is the last run's\n", path);
		CHECK(!path_exists(path));
		free(path);
	}
	free(cell);
	run_free(&failed);
	run_free(&passed);
}

/* Two runs of the OFF cell on x86_64 with a fake that the machine's fault hits every time
 * (each hit a line "<hit>" in $KCMPM_FAKE_STATE): both ERROR with the reason want, the first
 * saying it tried again (retried), and at least 4 hits, which no cached result could give:
 * two runs, each with its retry. */
static void machine_fault_twice(const char *name, const char *option, const char *fake,
				const char *want, const char *retried, const char *hit)
{
	char *state = xasprintf("%s/%s.state", scratch, name), *again = xasprintf("%s-again", name);
	char *hits, *first = xasprintf("ERROR\t-\t-\t-\tnnnny\t%s", want);
	const char *args[] = { "--arch", "x86_64", "--only", OFF, option, fake, NULL };
	struct run r;

	unlink(state);
	setenv("KCMPM_FAKE_STATE", state, 1);
	r = harness_run(name, args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, first);
	CHECK_CONTAINS(r.out, retried);
	run_free(&r);
	r = harness_run(again, args);
	unsetenv("KCMPM_FAKE_STATE");
	expect_cell(&r, "x86_64", OFF, "ERROR\t");
	hits = read_file(state, NULL);
	CHECK(hits && count(hits, hit) >= 4);
	run_free(&r);
	free(hits);
	free(first);
	free(again);
	free(state);
}

/* A make that the machine killed (SIGKILL, as the OOM killer does) says nothing about the
 * kernel: the cell is ERROR, the build was tried once more, and nothing was cached, so the
 * next run builds again. */
TEST(e2e_killed_make_is_error_and_not_cached)
{
	char *make = own_make("make-killed", "tests/fakes/make-killed");

	machine_fault_twice("make-killed", "--make", make, "make was killed by signal 9, not by "
			    "the harness", "building it again", "build");
	free(make);
}

/* A real make and compiler whose cc1 the machine kills (tests/fakes/make-cc1-killed): make
 * fails as on a compile error, but the log says a signal ended cc1, so the cell is ERROR, not
 * a cached BUILD_FAIL. Only a compiler's own error message makes BUILD_FAIL
 * (e2e_compile_error_is_build_fail). make -j may have had two compilers going at once. */
TEST(e2e_killed_compiler_is_error_and_not_cached)
{
	char *make = own_make("make-cc1-killed", "tests/fakes/make-cc1-killed");

	machine_fault_twice("cc1-killed", "--make", make, "a program of the build died by a "
			    "signal or ran out of memory, the machine's fault, not the kernel's: "
			    "gcc: fatal error: Killed signal terminated program",
			    "building it again", "cc1 killed");
	free(make);
}

/* A QEMU killed by a signal the harness did not send is the machine's fault: ERROR, booted
 * once more, and never kept, so the next run boots again (tests/fakes/qemu-killed). */
TEST(e2e_killed_qemu_is_error_and_not_cached)
{
	machine_fault_twice("qemu-killed", "--qemu", "tests/fakes/qemu-killed", "QEMU was killed "
			    "by signal 9, not by the harness", "ended with QEMU killed by a signal "
			    "not ours", "boot");
}

/* Both arches' kernels build at once, each make a client of one jobserver. With --jobs 2 the
 * two makes run side by side; with --jobs 1, or --arch-by-arch, one waits for the other. */
TEST(e2e_arches_build_at_once_within_the_jobs)
{
	int met, alone;

	meet_run("meet-jobs2", (const char *[]){ "--jobs", "2", NULL }, &met, &alone);
	CHECK(met && !alone);
	meet_run("meet-jobs1", (const char *[]){ "--jobs", "1", NULL }, &met, &alone);
	CHECK(!met && alone);
	meet_run("meet-arch-by-arch", (const char *[]){ "--jobs", "2", "--arch-by-arch", NULL },
		 &met, &alone);
	CHECK(!met && alone);
}

/* The x86_64 v3 VIA_EXPERT cell of a v3 kernel with edits (a series in scratch/patches-<name>):
 * its run in *r, which must fail, and its matrix.tsv line (free it). */
static char *mutant_cell(const char *name, const struct edit *edits, struct run *r)
{
	char *series = xasprintf("patches-%s", name);
	char *patches = mutant_series("kernel-patch", series, "v3", edits);
	const char *args[] = { "--patches", patches, "--arch", "x86_64", "--only", VIA_EXPERT, NULL };
	char *line;

	*r = harness_run(name, args);
	line = cell_line(r, "x86_64", VIA_EXPERT);
	CHECK(r->status == 1);
	free(patches);
	free(series);
	return line;
}

/* A mutant's reason (its matrix.tsv line) names each check of named (" name") and none of
 * spared (" name" then ';', ':' or a tab). */
static void expect_names(const char *line, const char *const *named, size_t nnamed,
			 const char *const *spared, size_t nspared)
{
	for (size_t i = 0; i < nnamed; i++) {
		char *want = xasprintf(" %s", named[i]);

		if (!line || !strstr(line, want))
			printf("# the mutant's reason does not name %s\n", named[i]);
		CHECK(line && strstr(line, want));
		free(want);
	}
	for (size_t i = 0; i < nspared; i++) {
		static const char after[] = ";:\t";
		int named_it = 0;

		for (int k = 0; k < 3 && line; k++) {
			char *want = xasprintf(" %s%c", spared[i], after[k]);

			named_it |= strstr(line, want) != NULL;
			free(want);
		}
		if (named_it)
			printf("# the mutant's reason names %s, which it should spare\n", spared[i]);
		CHECK(!named_it);
	}
}

TEST(e2e_broken_kernel_fails_observed_layer)
{
	char *patches = broken_series();
	const char *args[] = { "--patches", patches, "--arch", "x86_64", "--only", OFF " " VIA_EXPERT,
			       NULL };
	char *pristine = xasprintf("%s/src/linux-source-6.1/kernel/kcmp.c", cache);
	char *text = read_file(pristine, NULL);
	struct run r;

	CHECK(text && !strstr(text, "kcmp-matrix e2e test"));	/* the pristine tree is untouched */
	r = harness_run("broken-kernel", args);
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", OFF, "PASS\tenosys\t");
	expect_cell(&r, "x86_64", VIA_EXPERT, "FAIL\tenosys\tworks\tenosys\tyynny\tobserved: "
		    "kcmp=enosys, but the resolved config implies kcmp=works");
	/* the tree's own selftest, run where kcmp is predicted to work, fails on it too */
	CHECK_CONTAINS(r.tsv, "selftest: tools/testing/selftests/kcmp/kcmp_test.c says fail, "
		       "expected pass\t");
	expect_valid_junit(&r, 1);
	run_free(&r);
	free(text);
	free(pristine);
	free(patches);
}

/* A kcmp() that is wrong for every resource type in a way the guest used to miss: each type
 * answers by comparing another type's pointer, SYSVSEM by the io_context, EPOLL_TFD says "same"
 * for any registered target, only the second task's access is checked, KCMP_FILE looks idx2 up
 * in the first task's fd table, and every inequality is 1 (no order). The kcmp, epoll
 * and epoll_tfd presence is right, so only the guest's checks can tell; the cell must FAIL
 * with each of them named. (One kernel for all of them, so make test builds one, not eight;
 * each wrongness sits in its own branch of kcmp(), so none hides another.) */
TEST(e2e_mutant_kernel_fails_each_resource_check)
{
	static const struct edit edits[] = {
		{ "kernel/kcmp.c", "kcmp_ptr(task1->mm, task2->mm, KCMP_VM)",
		  "kcmp_ptr(task1->sighand, task2->sighand, KCMP_VM)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->files, task2->files, KCMP_FILES)",
		  "kcmp_ptr(task1->fs, task2->fs, KCMP_FILES)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->fs, task2->fs, KCMP_FS)",
		  "kcmp_ptr(task1->files, task2->files, KCMP_FS)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->sighand, task2->sighand, KCMP_SIGHAND)",
		  "kcmp_ptr(task1->mm, task2->mm, KCMP_SIGHAND)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->io_context, task2->io_context, KCMP_IO)",
		  "kcmp_ptr(task1->files, task2->files, KCMP_IO)" },
		{ "kernel/kcmp.c", "kcmp_ptr(task1->sysvsem.undo_list,\n\t\t\t       task2->sysvsem.undo_list,",
		  "kcmp_ptr(task1->io_context,\n\t\t\t       task2->io_context," },
		{ "kernel/kcmp.c", "return kcmp_ptr(filp, filp_tgt, KCMP_FILE);",
		  "return filp ? 0 : -EBADF;" },
		{ "kernel/kcmp.c", "if (!ptrace_may_access(task1, PTRACE_MODE_READ_REALCREDS) ||\n\t    ",
		  "if (" },
		{ "kernel/kcmp.c", "filp2 = get_file_raw_ptr(task2, idx2);",
		  "filp2 = get_file_raw_ptr(task1, idx2);" },
		{ "kernel/kcmp.c", "return (t1 < t2) | ((t1 > t2) << 1);", "return t1 != t2;" },
		{ 0 } };
	/* the first check each wrongness fails, in the guest's order */
	static const char *const named[] = {
		"kcmp_vm_clone_vm_child", "kcmp_files_clone_files_child", "kcmp_files_clone_fs_child",
		"kcmp_fs_clone_fs_child", "kcmp_fs_clone_files_child", "kcmp_sighand_clone_vm_child",
		"kcmp_io_clone_io_child", "kcmp_io_clone_files_child",
		"kcmp_sysvsem_clone_sysvsem_child", "kcmp_epoll_tfd_other_file",
		"kcmp_eperm_pid1_unprivileged", "kcmp_file_across_dup2", "kcmp_file_across_received",
		"kcmp_file_across_ebadf_idx2", "kcmp_order_file", "kcmp_epoll_tfd_across_other_file" };
	struct run r;
	char *line = mutant_cell("mutant-kernel", edits, &r);

	/* presence is right: the observed layer agrees, only the guest's checks fail */
	expect_cell(&r, "x86_64", VIA_EXPERT, "FAIL\tworks\tworks\tworks\tyynny\tguest: not ok ");
	expect_names(line, named, sizeof(named) / sizeof(named[0]), NULL, 0);
	CHECK(line && !strstr(line, "kcmp_vm_forked_child") && !strstr(line, "kcmp_file_dup"));
	if (line)
		printf("# %s\n", line);
	free(line);
	run_free(&r);
}

/* Runs the health mutant's cell (arch, combo; its kcmp()'s fault named by the command line words:
 * first on the first boot, later on every other), booting afresh, with more arguments
 * (--flavour, --boot-timeout) if any. */
static struct run health_run_on(const char *name, const char *patches, const char *arch,
				const char *combo, const char *first, const char *later,
				const char *const *more)
{
	char *state = xasprintf("%s/%s.state", scratch, name);
	const char *args[24] = { "--patches", patches, "--arch", arch, "--only", combo,
				 "--qemu", "tests/fakes/qemu-append", "--force", "boot" };
	int n = 10;
	struct run r;

	for (int i = 0; more && more[i]; i++)
		args[n++] = more[i];
	args[n] = NULL;
	unlink(state);
	setenv("KCMPM_FAKE_STATE", state, 1);
	setenv("KCMPM_FAKE_APPEND_1", first, 1);
	setenv("KCMPM_FAKE_APPEND_2", later, 1);
	setenv("KCMPM_REAL_QEMU", strcmp(arch, "arm64") ? "qemu-system-x86_64"
						       : "qemu-system-aarch64", 1);
	r = harness_run(name, args);
	unsetenv("KCMPM_FAKE_STATE");
	unsetenv("KCMPM_FAKE_APPEND_1");
	unsetenv("KCMPM_FAKE_APPEND_2");
	unsetenv("KCMPM_REAL_QEMU");
	free(state);
	return r;
}

/* The same on x86_64 with the default flavour; 15 s a boot: a boot of this cell takes one or
 * two (six on a slow machine), and a hung one must not cost the default 60. */
static struct run health_run(const char *name, const char *patches, const char *first,
			     const char *later)
{
	const char *more[] = { "--boot-timeout", "15", NULL };

	return health_run_on(name, patches, "x86_64", VIA_EXPERT, first, later, more);
}

/* A kernel that crashes, warns or hangs never passes: a panic on the first boot is BOOT_FAIL
 * even though the retry (the default one) would pass, and is not booted again; so is a hang
 * after the guest started (TIMEOUT); a WARNING with every
 * answer right is KERNEL_WARN naming the line; the same kernel with neither passes (so the
 * two failures are the kernel's faults, not the test's). A known warning declared in xfail is
 * XFAIL, and covers nothing else: the panic stays BOOT_FAIL. */
TEST(e2e_kernel_that_crashes_or_warns_never_passes)
{
	char *patches = mutant_series("kernel-patch", "patches-health", "v3", health_edits);
	char *xfail = xasprintf("%s/v3/xfail", patches);
	static const char decl[] = "format 1\nxfail ARCH=x86_64,KCMP=y warning:kernel/kcmp.c "
				   "the e2e mutant warns on purpose\n";
	struct run r;

	r = health_run("health-none", patches, "kcmpm_mutant=none", "kcmpm_mutant=none");
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", VIA_EXPERT, "PASS\tworks\tworks\tworks\tyynny\t");
	run_free(&r);

	r = health_run("health-warn", patches, "kcmpm_mutant=warn", "kcmpm_mutant=warn");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "KERNEL_WARN\tworks\tworks\tworks\tyynny\tkernel "
		    "warning: WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:");
	CHECK(!strstr(r.out, "booting again"));
	run_free(&r);

	r = health_run("health-coin", patches, "kcmpm_mutant=panic", "kcmpm_mutant=none");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "BOOT_FAIL\t-\t-\t-\tyynny\tkernel crashed: Kernel "
		    "panic - not syncing: kcmp-matrix e2e mutant: a bad boot");
	CHECK(!strstr(r.out, "booting again") && !strstr(r.out, "FLAKY"));
	run_free(&r);

	/* a first kcmp() that never returns on one boot: the guest had started, so the hang is
	 * the kernel's, TIMEOUT on that boot, not retried into a flaky pass */
	r = health_run("health-hang", patches, "kcmpm_mutant=hang", "kcmpm_mutant=none");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "TIMEOUT\t-\t-\t-\tyynny\tthe kernel hung the guest "
		    "after ok 1 kernel_identity: it started, then did not power off within the boot "
		    "timeout after 15 s");
	CHECK(!strstr(r.out, "booting again") && !strstr(r.out, "FLAKY"));
	run_free(&r);

	CHECK(write_file_atomic(xfail, decl, sizeof(decl) - 1) == 0);
	r = health_run("health-warn-known", patches, "kcmpm_mutant=warn", "kcmpm_mutant=warn");
	CHECK(r.status == 0);
	expect_cell(&r, "x86_64", VIA_EXPERT, "XFAIL\tworks\tworks\tworks\tyynny\tknown: the e2e "
		    "mutant warns on purpose; kernel warning: WARNING:");
	run_free(&r);
	r = health_run("health-coin-known", patches, "kcmpm_mutant=panic", "kcmpm_mutant=none");
	CHECK(r.status == 1);
	expect_cell(&r, "x86_64", VIA_EXPERT, "BOOT_FAIL\t");
	CHECK_CONTAINS(r.tsv, "not the failure");
	run_free(&r);
	free(xfail);
	free(patches);
}

/* Every console under a run's results (each boot's serial*.log), appended to all. */
static void add_consoles(struct strbuf *all, const struct run *r)
{
	char *pattern = xasprintf("%s/cells/*/*/*/*/serial*.log", r->results);
	glob_t g;

	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *text = read_file(g.gl_pathv[i], NULL);

			if (text)
				sb_printf(all, "%s\n", text);
			free(text);
		}
		globfree(&g);
	}
	free(pattern);
}

/* Is the mark one of every arch's (a line of arches.conf outside any arch block)? */
static int mark_of_every_arch(const struct matrix *m, const char *mark, int crash)
{
	for (int a = 0; a < m->narch; a++) {
		char **list = crash ? m->arch[a].marks.crash : m->arch[a].marks.warning;
		int found = 0;

		for (int i = 0; list && list[i] && !found; i++)
			found = !strcmp(list[i], mark);
		if (!found)
			return 0;
	}
	return 1;
}

/* Each mark of arches.conf shows in a console the health mutant printed: one of every arch in
 * any console, an arch's own in that arch's. A mark that no kernel we build can print is not a
 * check; this is where one that cannot fire is noticed. The marks named in elsewhere are left
 * to the test that fires them (NULL-terminated; NULL for none). */
static void expect_every_mark_fired(const char *const arch[], const char *const consoles[], int n,
				    const char *const *elsewhere)
{
	struct matrix m;
	char err[512];

	CHECK(matrix_load("matrix", "kernel-patch", &m, err, sizeof(err)) == 0);
	for (int a = 0; a < m.narch; a++)
		for (int crash = 0; crash < 2; crash++) {
			char **list = crash ? m.arch[a].marks.crash : m.arch[a].marks.warning;

			for (int i = 0; list && list[i]; i++) {
				int every = mark_of_every_arch(&m, list[i], crash), fired = 0;

				for (int k = 0; elsewhere && elsewhere[k] && !fired; k++)
					fired = !strcmp(elsewhere[k], list[i]);
				for (int k = 0; k < n && !fired; k++)
					fired = (every || !strcmp(arch[k], m.arch[a].name)) &&
						consoles[k] && strstr(consoles[k], list[i]);
				if (!fired)
					printf("# %s mark '%s' of %s fired in no mutant's console\n",
					       crash ? "crash" : "warning", list[i], m.arch[a].name);
				CHECK(fired);
			}
		}
	matrix_free(&m);
}

/* One fault of the health mutant (its kcmpm_mutant= word), the cell's verdict and what its
 * reason must hold. */
struct fault {
	const char *word, *status, *reason;
};

/* Where the health mutant's faults are fired: an arch, a cell, a flavour (NULL: the
 * default), and the faults, ending with a NULL word. */
struct fault_run {
	const char *arch, *combo, *flavour;
	const struct fault *faults;
};

/* Boots the health mutant (series patches) once per fault of run, each cell failing as the
 * fault says and naming its line; the consoles of all the boots are added to consoles. */
static void fire_each_fault(const struct fault_run *run, const char *patches,
			    struct strbuf *consoles)
{
	for (const struct fault *f = run->faults; f->word; f++) {
		char *name = xasprintf("marks-%s-%s", run->arch, f->word);
		char *word = xasprintf("kcmpm_mutant=%s", f->word);
		/* the hung task and the soft lockup take 25 and 30 s of a boot (51 s in all on a
		 * loaded machine): room for a slow one */
		const char *more[] = { "--boot-timeout", "120", "--boot-retries", "0",
				       run->flavour ? "--flavour" : NULL, run->flavour, NULL };
		char *want = xasprintf("\t%s\t", f->status), *line;
		struct run r = health_run_on(name, patches, run->arch, run->combo, word, word, more);

		line = cell_line(&r, run->arch, run->combo);
		CHECK(line && strstr(line, want));
		CHECK(line && strstr(line, f->reason));
		CHECK(r.status == !!strcmp(f->status, "PASS"));
		printf("# %s %s: %s\n", run->arch, f->word, line ? line : "(no cell)");
		add_consoles(consoles, &r);
		free(line);
		free(want);
		free(word);
		free(name);
		run_free(&r);
	}
}

/* The marks only the debug flavour's detectors print: heavy_debug_flavour_detectors_fire
 * (make debug-check, and the nightly's debug job) fires them. */
static const char *const debug_flavour_marks[] = { "UBSAN:", "blocked for more than", NULL };

/* Every crash mark, and every warning mark a kernel of the default flavour can print, fires on
 * a real kernel, and the harness says so: the health mutant on x86_64 (a WARN, the oops
 * headers with and without "Oops") and on arm64 (its oops headers); each fault's cell fails
 * naming its line, and the same kernel with no fault passes (the guest's checks included).
 * x86_64's cell is the health tests' (e2e_kernel_that_crashes_or_warns_never_passes) and
 * arm64's a real cell's, so each kernel here is a light rebuild. */
TEST(e2e_every_health_mark_fires)
{
	static const struct fault x86[] = {
		{ "none", "PASS", "" },
		{ "warn", "KERNEL_WARN", "kernel warning: WARNING: CPU: 0 PID: 1 at kernel/kcmp.c:" },
		{ "oops", "BOOT_FAIL", "kernel crashed: Oops: 0002 [#1]" },
		{ "bug", "BOOT_FAIL", "kernel crashed: kernel BUG at kernel/kcmp.c:" },
		{ "gpf", "BOOT_FAIL", "kernel crashed: general protection fault, probably for "
				      "non-canonical address 0xdead000000000000" },
		{ "divide", "BOOT_FAIL", "kernel crashed: divide error: 0000 [#1]" },
		{ 0 } };
	static const struct fault arm64[] = {
		{ "oops", "BOOT_FAIL", "kernel crashed: Unable to handle kernel NULL pointer "
				       "dereference" },
		{ "bug", "BOOT_FAIL", "kernel crashed: kernel BUG at kernel/kcmp.c:" },
		{ 0 } };
	static const struct fault_run runs[] = { { "x86_64", VIA_EXPERT, NULL, x86 },
						 { "arm64", VIA_EXPERT, NULL, arm64 } };
	char *patches = mutant_series("kernel-patch", "patches-marks", "v3", health_edits);
	struct strbuf consoles[2] = { 0 };
	const char *texts[2], *arch[2];

	for (int k = 0; k < 2; k++) {
		fire_each_fault(&runs[k], patches, &consoles[k]);
		texts[k] = consoles[k].s;
		arch[k] = runs[k].arch;
	}
	expect_every_mark_fired(arch, texts, 2, debug_flavour_marks);
	sb_free(&consoles[0]);
	sb_free(&consoles[1]);
	free(patches);
}

/* The debug flavour's detectors fire, each on its own fault, and stay quiet on a good kernel:
 * the real CHECKPOINT_RESTORE=y,EPOLL=n cell of the debug flavour passes (the one real cell
 * with kcmp() by CHECKPOINT_RESTORE's select and no epoll: a near-clean build of its own
 * in any flavour, so it is here, not in make test), then the health
 * mutant on it trips lockdep, a sleep in atomic context, list corruption, UBSAN, a hung task
 * and a soft lockup. Its first kernel is a clean heavy build (lockdep and the preempt count
 * are in headers every object includes), too long for make test's budget: make debug-check
 * runs it, and the nightly's debug job, whose cache holds that kernel already. */
TEST(heavy_debug_flavour_detectors_fire)
{
	static const struct fault x86[] = {
		{ "none", "PASS", "" },
		{ "atomic", "KERNEL_WARN", "kernel warning: BUG: sleeping function called from "
					   "invalid context at kernel/kcmp.c:" },
		{ "lockdep", "KERNEL_WARN", "kernel warning: WARNING: possible circular locking "
					    "dependency detected" },
		{ "list", "KERNEL_WARN", "kernel warning: WARNING: CPU: 0 PID: 1 at lib/list_debug.c" },
		/* the path is the build's: the tree's absolute one */
		{ "ubsan", "KERNEL_WARN", "kernel warning: UBSAN: array-index-out-of-bounds in /" },
		{ "hung", "KERNEL_WARN", "kernel warning: INFO: task init:1 blocked for more than 10 "
					 "seconds." },
		{ "softlockup", "KERNEL_WARN", "kernel warning: watchdog: BUG: soft lockup - CPU#0 "
					       "stuck for" },
		{ 0 } };
	static const struct fault_run run = { "x86_64", CR_NO_EPOLL, "debug", x86 };
	struct run real = harness_run("debug-real-cr", (const char *[]){ "--arch", "x86_64", "--only",
									  CR_NO_EPOLL, "--flavour",
									  "debug", NULL });
	char *patches = mutant_series("kernel-patch", "patches-detectors", "v3", health_edits);
	struct strbuf consoles = { 0 };

	CHECK(real.status == 0);
	expect_cell(&real, "x86_64", CR_NO_EPOLL, "PASS\tworks\tenosys\teopnotsupp\tyyynn\t");
	/* the table marks KCMP, which CHECKPOINT_RESTORE selected; the observables of a cell
	 * with no epoll, predicted and seen */
	CHECK_CONTAINS(real.out, "| y | n | y | n | n | PASS kcmp=works KCMP→y |");
	{
		char *json = results_file(&real, "matrix.json");

		CHECK_CONTAINS(json, "\"predicted_observed\": {\"kcmp\": \"works\", \"epoll\": "
			       "\"enosys\", \"epoll_tfd\": \"eopnotsupp\"}");
		CHECK_CONTAINS(json, "\"observed\": {\"kcmp\": \"works\", \"epoll\": "
			       "\"enosys\", \"epoll_tfd\": \"eopnotsupp\"}");
		CHECK_CONTAINS(json, "\"flavour\": \"debug\"");
		free(json);
	}
	fire_each_fault(&run, patches, &consoles);
	for (int i = 0; debug_flavour_marks[i]; i++)
		CHECK_CONTAINS(consoles.s, debug_flavour_marks[i]);
	sb_free(&consoles);
	free(patches);
	run_free(&real);
}

/* A kcmp() wrong on the paths its users take, each wrongness in a branch of its own so none
 * hides another (one kernel, so make test builds one): KCMP_FILE refused to callers without
 * CAP_SYS_ADMIN (what Mesa and systemd are), a missing pid1 taken for the caller, a thread's
 * tid refused as pid2, the EPERM path leaving both tasks' exec locks held, the ptrace check on
 * the fs uid instead of the real one, KCMP_FILE keeping a reference to the file it compared,
 * any file taken for an epoll instance (ENOENT instead of EINVAL), and epoll delivering no
 * event for a pipe that became readable. Root's calls all answer right, so the old guest passed
 * this kernel; the cell must FAIL naming each check, and only those. */
TEST(e2e_mutant_kernel_fails_each_user_path_check)
{
	static const struct edit edits[] = {
		{ "kernel/kcmp.c", "\ttask1 = find_task_by_vpid(pid1);\n\ttask2 = find_task_by_vpid(pid2);\n",
		  "\ttask1 = find_task_by_vpid(pid1) ?: current;\n\ttask2 = find_task_by_vpid(pid2);\n"
		  "\tif (task2 && !thread_group_leader(task2))\n\t\ttask2 = NULL;\n" },
		{ "kernel/kcmp.c", "if (!ptrace_may_access(task1, PTRACE_MODE_READ_REALCREDS) ||\n"
		  "\t    !ptrace_may_access(task2, PTRACE_MODE_READ_REALCREDS)) {\n"
		  "\t\tret = -EPERM;\n\t\tgoto err_unlock;",
		  "if (!ptrace_may_access(task1, PTRACE_MODE_READ_FSCREDS) ||\n"
		  "\t    !ptrace_may_access(task2, PTRACE_MODE_READ_FSCREDS)) {\n"
		  "\t\tret = -EPERM;\n\t\tgoto err;" },
		{ "kernel/kcmp.c", "\t\tstruct file *filp1, *filp2;\n\n",
		  "\t\tstruct file *filp1, *filp2;\n\n"
		  "\t\tif (!capable(CAP_SYS_ADMIN)) {\n\t\t\tret = -EPERM;\n\t\t\tbreak;\n\t\t}\n" },
		{ "kernel/kcmp.c", "\t\tif (filp1 && filp2)\n\t\t\tret = kcmp_ptr(filp1, filp2, KCMP_FILE);",
		  "\t\tif (filp1 && filp2)\n\t\t\tret = kcmp_ptr(get_file(filp1), filp2, KCMP_FILE);" },
		{ "fs/eventpoll.c", "\tif (!is_file_epoll(file))\n\t\treturn ERR_PTR(-EINVAL);",
		  "\tif (!is_file_epoll(file))\n\t\treturn ERR_PTR(-ENOENT);" },
		{ "fs/eventpoll.c", "\tif (pollflags && !(pollflags & epi->event.events))\n",
		  "\tif (pollflags && (pollflags & epi->event.events))\n" },
		{ 0 } };
	/* the checks each wrongness fails */
	static const char *const named[] = {
		"epoll_present", "kcmp_esrch_pid1_missing", "kcmp_thread_id_as_pid2",
		"kcmp_epoll_tfd_einval_efd_regular_file", "kcmp_epoll_tfd_einval_efd_pipe",
		"kcmp_user_file_dup", "kcmp_user_file_other_open", "kcmp_user_file_across_child_dup2",
		"kcmp_user_file_across_received", "kcmp_realuid_same_real_uid",
		"kcmp_realuid_other_uid_eperm", "kcmp_exec_after_eperm", "kcmp_file_released" };
	/* and the checks they must leave alone */
	static const char *const spared[] = {
		"kcmp_file_dup", "kcmp_esrch_pid2_missing", "kcmp_esrch_both_missing",
		"kcmp_thread_id_as_pid1", "kcmp_exec_after_esrch", "kcmp_exec_after_ebadf",
		"kcmp_exec_after_einval", "kcmp_exec_after_efault", "kcmp_epoll_tfd_file_released",
		"kcmp_user_vm_sharing_child", "kcmp_user_epoll_tfd", "kcmp_eperm_pid1_unprivileged" };
	struct run r;
	char *line = mutant_cell("user-path-mutant", edits, &r);

	/* kcmp and epoll_tfd as predicted; epoll observed as what it is: there, but deaf */
	expect_cell(&r, "x86_64", VIA_EXPERT, "FAIL\tworks\tno-event\tworks\tyynny\tobserved: "
		    "epoll=no-event, but the resolved config implies epoll=works");
	expect_names(line, named, sizeof(named) / sizeof(named[0]), spared,
		     sizeof(spared) / sizeof(spared[0]));
	/* the tree's own selftest checks less: it passes, and the reason says they disagree */
	CHECK(line && strstr(line, "selftest: tools/testing/selftests/kcmp/kcmp_test.c passed "
			     "where the guest's checks failed: the two disagree\t"));
	if (line)
		printf("# %s\n", line);
	free(line);
	run_free(&r);
}
