/* Build helpers that need no kernel: the first error of a build log, and config resolutions
 * run in parallel (through a stand-in make). */
#define _GNU_SOURCE
#include "build.h"
#include "build_dirs.h"
#include "config_targets.h"
#include "check.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

TEST(build_first_error_prefers_compiler_errors)
{
	char buf[256];

	build_first_error("  CC      kernel/fork.o\n"
			  "/src/linux/kernel/kcmp.c:12:5: warning: unused variable 'x'\n"
			  "/src/linux/kernel/kcmp.c:140:9: error: 'foo' undeclared (first use)\n"
			  "make[2]: *** [scripts/Makefile.build:250: kernel/kcmp.o] Error 1\n"
			  "make: *** [Makefile:2012: .] Error 2\n", "/src/linux", buf, sizeof(buf));
	CHECK_STR(buf, "kernel/kcmp.c:140:9: error: 'foo' undeclared (first use)");
}

TEST(build_first_error_linker_and_fallbacks)
{
	char buf[256];

	build_first_error("  LD      vmlinux.o\nld: fs/eventpoll.o: in function `x':\n"
			  "eventpoll.c:(.text+0x1): undefined reference to `get_epoll_tfile_raw_ptr'\n"
			  "make: *** [Makefile:1] Error 2\n", "/t", buf, sizeof(buf));
	CHECK_STR(buf, "eventpoll.c:(.text+0x1): undefined reference to `get_epoll_tfile_raw_ptr'");
	build_first_error("something\nmake: *** No rule to make target 'x'.  Stop.\n", "/t", buf,
			  sizeof(buf));
	CHECK_STR(buf, "make: *** No rule to make target 'x'.  Stop.");
	build_first_error("just a line\nkilled\n", "/t", buf, sizeof(buf));
	CHECK_STR(buf, "killed");
	build_first_error("", "/t", buf, sizeof(buf));
	CHECK_STR(buf, "build failed with an empty log");
}

/* What a killed compiler leaves in a build log is the machine's, not a compile error: gcc's
 * and make's own words for it, as this machine's gcc 12 and make 4.3 print them. */
TEST(build_log_killed_tells_signals_from_errors)
{
	char why[512];

	CHECK(build_log_killed("  CC      kernel/fork.o\ngcc: fatal error: Killed signal "
			       "terminated program cc1\ncompilation terminated.\nmake[3]: *** "
			       "[scripts/Makefile.build:250: kernel/fork.o] Error 1\n", why,
			       sizeof(why)));
	CHECK_CONTAINS(why, "gcc: fatal error: Killed signal terminated program cc1");
	CHECK(build_log_killed("make[3]: *** [scripts/Makefile.build:250: kernel/fork.o] Killed\n",
			       why, sizeof(why)));
	CHECK(build_log_killed("make: *** [mk:2: all] Error 137\n", why, sizeof(why)));
	CHECK(build_log_killed("make[2]: *** [x.o] Segmentation fault (core dumped)\n", why,
			       sizeof(why)));
	CHECK(build_log_killed("cc1: out of memory allocating 65536 bytes after a total of 1 "
			       "bytes\n", why, sizeof(why)));
	/* a compile error, make's own reasons and its Error 1 and 2 are the kernel's */
	CHECK(!build_log_killed("/src/linux/kernel/kcmp.c:140:9: error: 'task3' undeclared\n"
				"make[3]: *** [scripts/Makefile.build:250: kernel/kcmp.o] Error 1\n"
				"make[2]: *** [scripts/Makefile.build:500: kernel] Error 2\n"
				"make: *** No rule to make target 'x'.  Stop.\n"
				"make[1]: *** Waiting for unfinished jobs....\n"
				"make: *** [Makefile:2012: .] Error 2\n", why, sizeof(why)));
	CHECK(!build_log_killed("make: *** [Makefile:1] Error 128\n", why, sizeof(why)));
	CHECK(!build_log_killed("", why, sizeof(why)));
}

/* A stand-in for make's olddefconfig: appends a line to the KCONFIG_CONFIG it is given, or
 * fails when that config asks it to. */
static const char fake_make[] =
	"#!/bin/sh\n"
	"for a; do case $a in KCONFIG_CONFIG=*) cfg=${a#KCONFIG_CONFIG=};; esac; done\n"
	"grep -q FAIL \"$cfg\" && { echo 'no way' >&2; exit 3; }\n"
	"echo '# resolved' >> \"$cfg\"\n";

TEST(build_resolve_all_resolves_each_and_reports_failures)
{
	char dir[] = "/tmp/kcmpm-resolve-XXXXXX";
	struct arch arch = { .name = "x86_64", .kernel_arch = "x86_64", .cross_compile = "" };
	struct build_ctx b = { .src = "/nonexistent", .arch = &arch, .jobs = 2 };
	struct build_resolution r[3] = { { .requested = "CONFIG_A=y\n" },
					 { .requested = "CONFIG_FAIL=y\n" },
					 { .requested = "CONFIG_B=y\n" } };
	char err[256] = "";

	CHECK(mkdtemp(dir) != NULL);
	char *make = xasprintf("%s/make", dir);

	CHECK(write_file_atomic(make, fake_make, sizeof(fake_make) - 1) == 0);
	CHECK(chmod(make, 0755) == 0);
	b.make = make;
	b.build_dir = xasprintf("%s/o", dir);
	for (int i = 0; i < 3; i++)
		r[i].out_path = xasprintf("%s/%d.config", dir, i);
	CHECK(build_resolve_all(&b, r, 3, err, sizeof(err)) == 0);
	CHECK_STR(r[0].text, "CONFIG_A=y\n# resolved\n");
	CHECK_STR(r[2].text, "CONFIG_B=y\n# resolved\n");
	CHECK(r[1].text == NULL);
	CHECK_CONTAINS(r[1].err, "olddefconfig' failed for x86_64 with status 3");
	char *log = read_file(r[1].log_path, NULL);

	CHECK_STR(log, "no way\n");
	free(log);
	for (int i = 0; i < 3; i++) {
		free((char *)r[i].out_path);
		build_resolution_free(&r[i]);
	}
	b.make = "/nonexistent/make";
	char *missing_path = xasprintf("%s/missing.config", dir);
	struct build_resolution missing = { .requested = "", .out_path = missing_path };

	CHECK(build_resolve_all(&b, &missing, 1, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "install make");
	build_resolution_free(&missing);
	free(missing_path);
	remove_tree(dir);
	free(make);
	free(b.build_dir);
}

/* Sets path's modification time to now + offset seconds. */
static void set_mtime(const char *path, long offset)
{
	struct timespec now, t[2];

	clock_gettime(CLOCK_REALTIME, &now);
	t[0] = t[1] = (struct timespec){ .tv_sec = now.tv_sec + offset, .tv_nsec = now.tv_nsec };
	CHECK(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW) == 0);
}

/* A build killed mid-way left its mark: what it wrote since (a truncated object that looks up
 * to date) is removed, what was there before it stays; without a mark nothing is touched. */
TEST(build_recovers_from_an_interrupted_build)
{
	char dir[] = "/tmp/kcmpm-build-XXXXXX";
	char *old_obj, *new_obj, *mark, *sub;

	CHECK(mkdtemp(dir) != NULL);
	sub = xasprintf("%s/kernel", dir);
	CHECK(mkdir_p(sub) == 0);
	old_obj = xasprintf("%s/kernel/fork.o", dir);
	new_obj = xasprintf("%s/kernel/kcmp.o", dir);
	mark = xasprintf("%s/.kcmpm-building", dir);
	CHECK(write_file_atomic(old_obj, "complete", 8) == 0);
	CHECK(write_file_atomic(new_obj, "trunc", 5) == 0);
	CHECK(build_recover_interrupted(dir) == 0);	/* no mark: the last build ended well */
	CHECK(path_exists(old_obj) && path_exists(new_obj));
	CHECK(write_file_atomic(mark, "tag", 3) == 0);
	set_mtime(old_obj, -60);
	set_mtime(mark, -10);
	set_mtime(new_obj, -5);
	CHECK(build_recover_interrupted(dir) == 2);	/* kcmp.o and the mark itself */
	CHECK(path_exists(old_obj));
	CHECK(!path_exists(new_obj) && !path_exists(mark));
	CHECK(build_recover_interrupted(dir) == 0);
	/* what syncconfig wrote since the mark stays: the touched symbol files say which objects
	 * the new config still has to recompile, and auto.conf what it was synced from */
	{
		char *cfg = xasprintf("%s/include/config", dir);
		char *touched = xasprintf("%s/KCMP", cfg), *autoconf = xasprintf("%s/auto.conf", cfg);
		char *header = xasprintf("%s/include/generated/autoconf.h", dir);
		char *gen = xasprintf("%s/include/generated", dir);

		CHECK(mkdir_p(cfg) == 0 && mkdir_p(gen) == 0);
		CHECK(write_file_atomic(mark, "tag", 3) == 0);
		set_mtime(mark, -10);
		CHECK(write_file_atomic(touched, "", 0) == 0);
		CHECK(write_file_atomic(autoconf, "CONFIG_KCMP=y\n", 14) == 0);
		CHECK(write_file_atomic(header, "#define CONFIG_KCMP 1\n", 22) == 0);
		CHECK(write_file_atomic(new_obj, "trunc", 5) == 0);
		CHECK(build_recover_interrupted(dir) == 3);	/* kcmp.o, autoconf.h, the mark */
		CHECK(path_exists(touched) && path_exists(autoconf));
		CHECK(!path_exists(header) && !path_exists(new_obj));
		free(cfg);
		free(touched);
		free(autoconf);
		free(header);
		free(gen);
	}
	remove_tree(dir);
	free(sub);
	free(old_obj);
	free(new_obj);
	free(mark);
}

/* What a build finds in its directory as it is made ready for a make (build_dirs_enter, then
 * build_kernel, as the build stage calls them): a directory build_dirs made for a key (its key
 * file and nothing of Kbuild's) is kept as it is; one with Kbuild's files but no mark naming
 * the tree is emptied, its objects being of no known tree. */
TEST(build_keeps_a_new_directory_and_empties_an_unknown_one)
{
	char dir[] = "/tmp/kcmpm-build-XXXXXX";
	struct arch arch = { .name = "x86_64", .kernel_arch = "x86_64", .cross_compile = "",
			     .make_target = "bzImage", .image = "arch/x86/boot/bzImage" };
	struct build_ctx b = { .arch = &arch, .jobs = 1, .make = "/bin/true", .timeout = 30 };
	struct build_outcome bo;
	char err[512] = "";

	CHECK(mkdtemp(dir) != NULL);
	b.src = dir;
	b.build_dir = xasprintf("%s/o", dir);
	b.work_dir = xasprintf("%s/w", dir);
	char *key = xasprintf("%s/.kcmpm-dir-key", b.build_dir);
	char *makefile = xasprintf("%s/Makefile", b.build_dir);
	char *stray = xasprintf("%s/kernel.o", b.build_dir);
	char *config = xasprintf("%s/config", dir), *log = xasprintf("%s/build.log", dir);
	char *image = xasprintf("%s/image", dir);

	CHECK(write_file_atomic(config, "CONFIG_X=y\n", 11) == 0);
	CHECK(mkdir_p(b.build_dir) == 0);
	CHECK(write_file_atomic(key, "K-y", 3) == 0);
	CHECK(build_dirs_enter(&b, config, "tag", err, sizeof(err)) == 0 &&
	      build_kernel(&b, config, "tag", log, image, &bo, err, sizeof(err)) == 0);
	CHECK(path_exists(key));
	CHECK(build_dir_in_use(b.build_dir));
	remove_tree(b.build_dir);
	CHECK(mkdir_p(b.build_dir) == 0);
	CHECK(write_file_atomic(makefile, "# O=\n", 5) == 0);
	CHECK(write_file_atomic(stray, "obj", 3) == 0);
	CHECK(build_dirs_enter(&b, config, "tag", err, sizeof(err)) == 0 &&
	      build_kernel(&b, config, "tag", log, image, &bo, err, sizeof(err)) == 0);
	CHECK(!path_exists(stray) && build_dir_in_use(b.build_dir));
	remove_tree(dir);
	free(key);
	free(makefile);
	free(stray);
	free(config);
	free(log);
	free(image);
	free(b.build_dir);
	free(b.work_dir);
}
