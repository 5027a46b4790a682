/* The builds' jobserver: a pool of slots in a pipe, and a kernel build's make (here a real GNU
 * make running a two-job makefile behind a stand-in for the kernel's make) that takes its jobs
 * from it: in a slot the harness takes for it, plus one more per free slot. */
#define _GNU_SOURCE
#include "build.h"
#include "check.h"
#include "jobserver.h"
#include "util.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sys/stat.h>

static int free_slots(const struct jobserver *js)
{
	int n = -1;

	return ioctl(js->fd[0], FIONREAD, &n) ? -1 : n;
}

/* A make killed while it held two slots (read from the pipe, never written back) loses them
 * only until the harness holds no slot: the last give tops the pool up again. */
TEST(jobserver_slots_of_a_killed_make_come_back)
{
	struct jobserver js;
	char err[256] = "", stolen[2];

	CHECK(jobserver_open(&js, 3) == 0);
	CHECK(jobserver_take(&js, err, sizeof(err)) == 0);	/* the harness starts a make */
	CHECK(jobserver_take(&js, err, sizeof(err)) == 0);	/* and a boot */
	CHECK(read(js.fd[0], stolen, 1) == 1);			/* the make takes its one more */
	CHECK(free_slots(&js) == 0);
	jobserver_give(&js);					/* the make is killed */
	CHECK(free_slots(&js) == 1);				/* its own slot is lost yet */
	jobserver_give(&js);					/* the boot ends: all quiet */
	CHECK(free_slots(&js) == 3);
	jobserver_close(&js);
}

TEST(jobserver_pool_holds_its_slots)
{
	struct jobserver js;
	char want[96], err[256] = "";

	CHECK(jobserver_open(&js, 3) == 0);
	CHECK(free_slots(&js) == 3);
	snprintf(want, sizeof(want), "MAKEFLAGS=-j3 --jobserver-auth=%d,%d", js.fd[0], js.fd[1]);
	CHECK_STR(js.makeflags, want);
	CHECK(jobserver_take(&js, err, sizeof(err)) == 0 && jobserver_take(&js, err, sizeof(err)) == 0);
	CHECK(free_slots(&js) == 1);
	jobserver_give(&js);
	CHECK(free_slots(&js) == 2);
	jobserver_close(&js);
	CHECK(js.fd[0] == -1 && js.fd[1] == -1);
	jobserver_close(&js);	/* twice is harmless */
	CHECK(jobserver_open(&js, 0) == 0 && js.slots == 1 && free_slots(&js) == 1);
	jobserver_close(&js);
	CHECK(jobserver_take(NULL, err, sizeof(err)) == 0);	/* no pool: nothing to wait for */
	/* a pipe nobody can give back to: an error that says so, not a wait for ever */
	CHECK(jobserver_open(&js, 1) == 0 && jobserver_take(&js, err, sizeof(err)) == 0);
	close(js.fd[1]);
	js.fd[1] = -1;
	CHECK(jobserver_take(&js, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "cannot take a job slot from the jobserver's pipe");
	jobserver_close(&js);
	jobserver_give(NULL);
}

static void *give_back_later(void *arg)
{
	usleep(100 * 1000);
	jobserver_give(arg);
	return NULL;
}

/* A make (4.3) makes the pipe's read end non-blocking: taking a slot when none is free still
 * waits for one to be given back, rather than failing with EAGAIN. */
TEST(jobserver_take_waits_on_a_non_blocking_pipe)
{
	struct jobserver js;
	pthread_t t;
	char err[256] = "";

	CHECK(jobserver_open(&js, 1) == 0);
	CHECK(fcntl(js.fd[0], F_SETFL, fcntl(js.fd[0], F_GETFL) | O_NONBLOCK) == 0);
	CHECK(jobserver_take(&js, err, sizeof(err)) == 0);
	CHECK(pthread_create(&t, NULL, give_back_later, &js) == 0);
	CHECK(jobserver_take(&js, err, sizeof(err)) == 0);	/* the slot the thread gave back */
	pthread_join(t, NULL);
	CHECK(free_slots(&js) == 0);
	jobserver_give(&js);
	jobserver_close(&js);
}

/* Two jobs that each wait (up to a second) for the other to be running too, and write how many
 * were running at once. */
static const char two_jobs_mk[] =
	"all: a b\n"
	"a b:\n"
	"\t@touch $@.running; n=0; while [ $$(ls *.running | wc -l) -lt 2 ] && [ $$n -lt 20 ]; "
	"do sleep 0.05; n=$$((n+1)); done; ls *.running | wc -l > $@.seen; rm $@.running\n";

/* Stands in for the kernel's make: keeps its arguments, then runs the two jobs with a real
 * make, which finds the jobserver in MAKEFLAGS. */
static const char kernel_make[] =
	"#!/bin/sh\n"
	"dir=$(dirname \"$0\")\n"
	"echo \"$@\" > \"$dir/args\"\n"
	"exec make -f \"$dir/two-jobs.mk\" -C \"$dir/jobs\"\n";

/* How many of the two jobs ran at once in a kernel build with a pool of slots. */
static int jobs_at_once(int slots, char **args_out)
{
	char dir[] = "/tmp/kcmpm-pool-XXXXXX";
	struct arch arch = { .name = "x86_64", .kernel_arch = "x86_64", .cross_compile = "",
			     .make_target = "bzImage", .image = "arch/x86/boot/bzImage" };
	struct jobserver js;
	struct build_ctx b = { .arch = &arch, .jobs = 2, .jobserver = &js };
	struct build_outcome bo;
	char err[512] = "", *seen_a, *seen_b, *path;
	int at_once;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(jobserver_open(&js, slots) == 0);
	char *make = xasprintf("%s/make", dir), *mk = xasprintf("%s/two-jobs.mk", dir);
	char *jobs = xasprintf("%s/jobs", dir), *config = xasprintf("%s/config", dir);
	char *log = xasprintf("%s/build.log", dir), *image = xasprintf("%s/image", dir);

	CHECK(write_file_atomic(make, kernel_make, sizeof(kernel_make) - 1) == 0);
	CHECK(chmod(make, 0755) == 0);
	CHECK(write_file_atomic(mk, two_jobs_mk, sizeof(two_jobs_mk) - 1) == 0);
	CHECK(mkdir_p(jobs) == 0);
	CHECK(write_file_atomic(config, "CONFIG_X=y\n", 11) == 0);
	b.make = make;
	b.src = dir;
	b.build_dir = xasprintf("%s/o", dir);
	b.work_dir = xasprintf("%s/w", dir);
	CHECK(build_kernel(&b, config, "tag", log, image, &bo, err, sizeof(err)) == 0);
	CHECK(!bo.ok);	/* it made no image, and says so */
	char *text = read_file(log, NULL);

	CHECK(text && !strstr(text, "jobserver unavailable") && !strstr(text, "disabling jobserver"));
	free(text);
	path = xasprintf("%s/a.seen", jobs);
	seen_a = read_file(path, NULL);
	free(path);
	path = xasprintf("%s/b.seen", jobs);
	seen_b = read_file(path, NULL);
	free(path);
	CHECK(seen_a && seen_b);
	at_once = seen_a && seen_b ? (atoi(seen_a) > atoi(seen_b) ? atoi(seen_a) : atoi(seen_b)) : -1;
	CHECK(free_slots(&js) == slots);	/* every slot is back */
	path = xasprintf("%s/args", dir);
	*args_out = read_file(path, NULL);
	free(path);
	jobserver_close(&js);
	remove_tree(dir);
	free(seen_a);
	free(seen_b);
	free(make);
	free(mk);
	free(jobs);
	free(config);
	free(log);
	free(image);
	free(b.build_dir);
	free(b.work_dir);
	return at_once;
}

/* With one slot the harness takes it for make, which then runs its jobs one at a time; with
 * two, make takes the second from the pool and runs both at once. Make's command line has no
 * -j, which would make it ignore the pool. */
TEST(jobserver_kernel_make_runs_as_many_jobs_as_the_pool_has_slots)
{
	char *args = NULL;

	CHECK(jobs_at_once(1, &args) == 1);
	CHECK(args && strncmp(args, "-j", 2) && !strstr(args, " -j"));
	CHECK_CONTAINS(args, "KBUILD_BUILD_TIMESTAMP=kcmpm-tag");
	free(args);
	CHECK(jobs_at_once(2, &args) == 2);
	free(args);
}

/* Two jobs that outlast any build timeout here. */
static const char slow_jobs_mk[] = "all: a b\na b:\n\tsleep 30\n";

static const char slow_kernel_make[] =
	"#!/bin/sh\n"
	"exec make -s -f \"$(dirname \"$0\")/slow-jobs.mk\"\n";

/* A build timeout stops the make with SIGTERM first (spawn.h), and GNU make answers SIGTERM by
 * reaping its jobs and writing their slots back: the slot the make read for its second job is
 * in the pipe again while the other arch still holds its own, not lost until a quiet moment.
 * (Only a make killed outright, SIGKILL from outside, loses them; the top-up above is for
 * that.) */
TEST(jobserver_timed_out_make_gives_its_slots_back_at_once)
{
	char dir[] = "/tmp/kcmpm-pool-XXXXXX";
	struct arch arch = { .name = "x86_64", .kernel_arch = "x86_64", .cross_compile = "",
			     .make_target = "bzImage", .image = "arch/x86/boot/bzImage" };
	struct jobserver js;
	struct build_ctx b = { .arch = &arch, .jobs = 3, .jobserver = &js, .timeout = 1.5 };
	struct build_outcome bo;
	char err[512] = "";

	CHECK(mkdtemp(dir) != NULL);
	CHECK(jobserver_open(&js, 3) == 0);
	char *make = xasprintf("%s/make", dir), *mk = xasprintf("%s/slow-jobs.mk", dir);
	char *config = xasprintf("%s/config", dir), *log = xasprintf("%s/build.log", dir);
	char *image = xasprintf("%s/image", dir);

	CHECK(write_file_atomic(make, slow_kernel_make, sizeof(slow_kernel_make) - 1) == 0);
	CHECK(chmod(make, 0755) == 0);
	CHECK(write_file_atomic(mk, slow_jobs_mk, sizeof(slow_jobs_mk) - 1) == 0);
	CHECK(write_file_atomic(config, "CONFIG_X=y\n", 11) == 0);
	b.make = make;
	b.src = dir;
	b.build_dir = xasprintf("%s/o", dir);
	b.work_dir = xasprintf("%s/w", dir);
	CHECK(jobserver_take(&js, err, sizeof(err)) == 0);	/* the other arch's boot */
	CHECK(build_kernel(&b, config, "tag", log, image, &bo, err, sizeof(err)) == 0);
	CHECK(!bo.ok && bo.timed_out);
	CHECK(free_slots(&js) == 2);	/* the make's own slot and the one it read */
	jobserver_give(&js);
	CHECK(free_slots(&js) == 3);
	jobserver_close(&js);
	remove_tree(dir);
	free(make);
	free(mk);
	free(config);
	free(log);
	free(image);
	free(b.build_dir);
	free(b.work_dir);
}
