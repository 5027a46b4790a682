/* build: see build.h. */
#define _GNU_SOURCE
#include "build.h"
#include "build_dirs.h"
#include "jobserver.h"
#include "dotconfig.h"
#include "make_cmd.h"
#include "resolver.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Does the config at path have loadable modules? */
static int config_has_modules(const char *path)
{
	char *text = read_file(path, NULL);
	int yes = text && dotconfig_bool(text, "MODULES", 1) == 'y';

	free(text);
	return yes;
}

/* The modules this build made: modules.order (which Kbuild writes anew for every build, so a
 * module of an earlier cell's config is never listed) as "dir/name.ko" words, each checked to
 * exist. Returns 0, or -1 when a listed module file is missing (its name in buf). */
static int list_modules(const struct build_ctx *b, char *buf, size_t len)
{
	char *path = xasprintf("%s/modules.order", b->build_dir);
	char *text = read_file(path, NULL), *save = NULL;
	size_t used = 0;
	int rc = 0;

	buf[0] = 0;
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && rc == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dot = strrchr(line, '.'), *ko;

		if (dot && (!strcmp(dot, ".o") || !strcmp(dot, ".ko")))
			*dot = 0;
		ko = xasprintf("%s/%s.ko", b->build_dir, line);
		if (!path_exists(ko)) {
			snprintf(buf, len, "%s.ko", line);
			rc = -1;
		} else if (used + strlen(line) + 5 < len) {
			used += (size_t)snprintf(buf + used, len - used, "%s%s.ko", used ? " " : "",
						 line);
		}
		free(ko);
	}
	free(text);
	free(path);
	return rc;
}

/* Did make run its own syncconfig (a "SYNC include/config/..." line in the log)? */
static int kbuild_synced(const char *log_path)
{
	char *log = read_file(log_path, NULL);
	int yes = log && strstr(log, "  SYNC    include/config/") != NULL;

	free(log);
	return yes;
}

/* Runs a kernel's make: alone with its own -j, or as a client of b->jobserver in a slot taken
 * for it (jobserver.h). Returns 0 when it ran, or -1 with why in err. */
static int run_make_in_slot(const struct build_ctx *b, const char *const *argv,
			    const char *log_path, struct spawn_result *res, char *err,
			    size_t errlen)
{
	struct spawn_req req = { .argv = argv, .log_path = log_path, .timeout = b->timeout };
	const char *env[] = { b->jobserver ? b->jobserver->makeflags : NULL, NULL };
	int rc;

	if (b->jobserver) {
		req.env = env;
		req.pass_fds = b->jobserver->fd;
		req.npass_fds = 2;
	}
	if (jobserver_take(b->jobserver, err, errlen))
		return -1;
	rc = spawn_run(&req, res);
	if (rc)
		make_cmd_cannot_run(b, err, errlen);
	jobserver_give(b->jobserver);
	return rc;
}

/* Why a failed make failed, from its log: the disk was full (the machine's problem, no
 * verdict: -1 with why in err), a program of the build was killed (the machine's fault), or
 * the kernel's first error. Returns 0 or -1. */
static int failed_make(const struct build_ctx *b, int status, const char *log_path,
		       struct build_outcome *out, char *err, size_t errlen)
{
	char *log = read_file(log_path, NULL);
	int rc = 0;

	if ((!log && errno == ENOSPC) || (log && strstr(log, "No space left on device"))) {
		snprintf(err, errlen, "the disk is full (No space left on device) while building in "
			 "'%s'; see %s. Free space and run again: finished cells are kept",
			 b->build_dir, log_path);
		rc = -1;
	} else if (status == 0) {
		snprintf(out->first_error, sizeof(out->first_error), "make succeeded but left no %s",
			 b->arch->image);
	} else if (build_log_killed(log ? log : "", out->first_error, sizeof(out->first_error))) {
		out->machine_fault = 1;
	} else {
		build_first_error(log ? log : "", b->src, out->first_error,
				  sizeof(out->first_error));
	}
	free(log);
	return rc;
}

/* What a kernel's make came to, into out: built (its image copied to image_out, its modules
 * listed), out of time, the machine's fault (make killed by a signal not ours, or its end
 * lost), or the kernel's failure with its first error. Returns -1 with why in err only when
 * no verdict can be given (the image cannot be copied, the disk is full). */
static int classify_make_end(const struct build_ctx *b, const struct spawn_result *res,
			     const char *log_path, const char *image, const char *image_out,
			     struct build_outcome *out, char *err, size_t errlen)
{
	if (res->timed_out) {
		out->timed_out = 1;
		snprintf(out->first_error, sizeof(out->first_error), "the build did not finish within "
			 "%.0f s; its make was killed (see %s)", b->timeout, log_path);
	} else if (res->lost) {
		out->machine_fault = 1;
		snprintf(out->first_error, sizeof(out->first_error), "make's end could not be observed "
			 "(its status was lost; see %s)", log_path);
	} else if (res->status >= 128) {
		out->machine_fault = 1;
		snprintf(out->first_error, sizeof(out->first_error), "make was killed by signal %d, "
			 "not by the harness (the OOM killer sends 9; see %s)", res->status - 128,
			 log_path);
	} else if (res->status == 0 && list_modules(b, out->modules, sizeof(out->modules))) {
		snprintf(out->first_error, sizeof(out->first_error), "make succeeded but left no "
			 "%.400s, which modules.order lists", out->modules);
		out->modules[0] = 0;
	} else if (res->status == 0 && copy_file(image, image_out) == 0) {
		out->ok = 1;
	} else if (res->status == 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot copy '%s' to '%s': %s", image, image_out,
			 strerror(errno));
		return -1;
	} else {
		return failed_make(b, res->status, log_path, out, err, errlen);
	}
	return 0;
}

int build_kernel(const struct build_ctx *b, const char *config_path, const char *tag,
		 const char *log_path, const char *image_out, struct build_outcome *out, char *err,
		 size_t errlen)
{
	char *extra[6];
	const char *argv[MAKE_MAX_ARGS];
	char *own[MAKE_MAX_ARGS];
	char *image = xasprintf("%s/%s", b->build_dir, b->arch->image), *mark = NULL;
	int modules = config_has_modules(config_path), rc = 0;
	struct spawn_result res;

	*out = (struct build_outcome){ 0 };
	err[0] = 0;
	make_cmd(b, argv, own, make_cmd_kernel_words(b, tag, modules, b->jobserver == NULL, extra),
		 extra);
	unlink(log_path);
	mark = build_dirs_building_mark(b->build_dir);
	/* after the mark (build_dirs_enter): an interrupted sync is undone like an interrupted
	 * build */
	if (b->syncconfig && b->syncconfig->pid > 0) {
		char why[600];

		if (resolver_sync(b->syncconfig, b->build_dir, why, sizeof(why)) == 0)
			out->synced = 1;
		else
			warn("%s: the in-process syncconfig did not sync (%s); Kbuild syncs it",
			     b->build_dir, why);
	}
	if (run_make_in_slot(b, argv, log_path, &res, err, errlen)) {
		rc = -1;
		goto out;
	}
	/* make that ended by itself deleted what it left half-made (.DELETE_ON_ERROR) */
	if (!res.timed_out && !res.lost && res.status < 128)
		unlink(mark);
	out->seconds = res.seconds;
	if (out->synced && kbuild_synced(log_path)) {
		warn("%s: Kbuild ran syncconfig again after the in-process one (see %s); the "
		     "in-process sync saved nothing", b->build_dir, log_path);
		out->synced = 0;
	}
	rc = classify_make_end(b, &res, log_path, image, image_out, out, err, errlen);
out:
	make_cmd_free(own);
	free(image);
	free(mark);
	return rc;
}

/* Is this make's report of a recipe that died by a signal? make says "*** [target] Killed"
 * (strsignal) when its own child was killed, and "*** [target] Error 137" when the recipe's
 * shell was the parent of the killed program (128 + the signal). A compile error is
 * "Error 1" or "Error 2". */
static int make_reports_a_signal(const char *s, size_t n)
{
	const char *star = memmem(s, n, "*** [", 5), *end, *after;
	long code;

	if (!star || !(end = memmem(star, n - (size_t)(star - s), "] ", 2)))
		return 0;
	after = end + 2;
	if ((size_t)(after - s) >= n)
		return 0;
	if (strncmp(after, "Error ", 6))
		return 1;	/* a signal's name: Killed, Terminated, Segmentation fault ... */
	code = strtol(after + 6, NULL, 10);
	return code > 128 && code < 128 + 65;
}

int build_log_killed(const char *log, char *why, size_t len)
{
	/* what the compiler driver and the allocators print when the machine took the memory
	 * or a signal took the program; never a verdict on the code being compiled */
	static const char *const marks[] = { "signal terminated program",
					     "internal compiler error: Killed",
					     "virtual memory exhausted", "out of memory allocating" };

	for (const char *p = log; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int found = make_reports_a_signal(p, n);

		for (size_t i = 0; !found && i < sizeof(marks) / sizeof(marks[0]); i++)
			found = memmem(p, n, marks[i], strlen(marks[i])) != NULL;
		if (found) {
			snprintf(why, len, "a program of the build died by a signal or ran out of "
				 "memory, the machine's fault, not the kernel's: %.*s",
				 (int)(n > 300 ? 300 : n), p);
			return 1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static int is_error_line(const char *s, size_t n)
{
	static const char *const marks[] = { ": error: ", ": fatal error: ", "undefined reference to",
					     "multiple definition of", "Error: " };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (memmem(s, n, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

void build_first_error(const char *log, const char *tree_path, char *buf, size_t len)
{
	const char *make_line = NULL, *last = NULL, *found = NULL;
	size_t make_len = 0, last_len = 0, found_len = 0, tlen = strlen(tree_path);

	for (const char *p = log; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n) {
			last = p;
			last_len = n;
		}
		if (!found && is_error_line(p, n)) {
			found = p;
			found_len = n;
		}
		if (!make_line && memmem(p, n, "*** ", 4)) {
			make_line = p;
			make_len = n;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!found) {
		found = make_line ? make_line : last;
		found_len = make_line ? make_len : last_len;
	}
	if (!found) {
		snprintf(buf, len, "build failed with an empty log");
		return;
	}
	if (tlen && found_len > tlen + 1 && !strncmp(found, tree_path, tlen) && found[tlen] == '/') {
		found += tlen + 1;
		found_len -= tlen + 1;
	}
	snprintf(buf, len, "%.*s", (int)found_len, found);
}
