/* build: the kernel's make for one kernel: its image (and modules), and what its end says
 * (built, a kernel's error, a timeout, or the machine's fault). Kernels build in the build
 * directories of build_dirs.h, reused for every cell of every variant, so Kbuild recompiles
 * only what a cell's config or variant changes. (The config targets, allnoconfig and
 * olddefconfig, are config_targets.h's.)
 *
 * Each kernel is built with KBUILD_BUILD_TIMESTAMP=kcmpm-<kernel tag>, so its version string
 * (uname -v, the "Linux version" banner) names the configuration it was built from, and a
 * guest can tell the harness which kernel it really booted.
 */
#ifndef KCMPM_BUILD_H
#define KCMPM_BUILD_H

#include "build_ctx.h"
#include "matrix.h"
#include "spawn.h"

#include <stddef.h>

struct build_outcome {
	int ok;
	int timed_out;		/* !ok because the build ran out of time (its group was killed) */
	int machine_fault;	/* !ok because make was killed by a signal not ours (the OOM
				 * killer) or its end was lost: the machine's fault, not the
				 * kernel's, so nothing is cached and the build is tried again */
	int synced;		/* b->syncconfig synced the configuration before make ran */
	double seconds;
	char first_error[512];	/* when !ok: the first compiler/linker error line */
	char modules[1024];	/* when ok: the modules it made ("drivers/gpu/drm/drm.ko ..."),
				 * from modules.order; "" for none */
};

/* Builds the kernel for the config at config_path into image_out, and its modules when the
 * config has MODULES=y, in b->build_dir made ready for it (build_dirs_enter), after the
 * in-process sync when b has one; clears the building mark when make ended by itself. The
 * log goes to log_path. Returns -1 only when make could not be started at all (err says
 * why). */
int build_kernel(const struct build_ctx *b, const char *config_path, const char *tag,
		 const char *log_path, const char *image_out, struct build_outcome *out, char *err,
		 size_t errlen);

/* Does a failed build's log say that a program of the build died by a signal (make's
 * "*** [x.o] Killed" or "Error 137", gcc's "Killed signal terminated program cc1") or ran out
 * of memory? That is the machine's fault (the OOM killer), never a BUILD_FAIL: the cell is
 * ERROR and the build is tried again. If so, why gets the line and 1 is returned. */
int build_log_killed(const char *log, char *why, size_t len);

/* The first line of a build log that says what went wrong: a compiler or linker error if there
 * is one, else make's first "***" line, else the last line. The tree's path prefix is dropped
 * (tree_path "" drops nothing).
 * Writes into buf. */
void build_first_error(const char *log, const char *tree_path, char *buf, size_t len);

#endif
