/* build: everything that runs the kernel's make: the base config, each cell's resolved config,
 * and the kernel itself. Config targets run in a small directory per (tree, variant, arch);
 * kernels in one build directory per (tree, arch), reused for every cell of every variant, so
 * Kbuild recompiles only what a cell's config or variant changes.
 *
 * Each kernel is built with KBUILD_BUILD_TIMESTAMP=kcmpm-<config tag>, so its version string
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

/* Has a kernel build directory been made and built in (its .kcmpm-srctree mark, which names
 * the source tree it belongs to)? */
int build_dir_in_use(const char *build_dir);

/* Makes or reuses the Kconfig kit (resolver.h) of the config directory kb->build_dir, built
 * from kb->src with kb->resolver_src: its allnoconfig run once, the resolver linked there.
 * key names everything the kit is made from (tree, compiler, make, resolver): a directory
 * holding another key is emptied first. Concurrent callers for one directory take turns.
 *
 * With host_dir, a new kit starts with a copy of the tree's Kconfig host programs made there
 * once (for host_key: the tree, make and resolver), linked as the kit links them (with the
 * $(shell) memo), and with the resolver linked there, rather than compiling and linking its
 * own. Kbuild compiles them with the same command for every ARCH, so the kits of a tree's
 * arches can share them; and it still compares each program's command with the one its .cmd
 * file records, and remakes what differs, so the copy saves work and changes nothing that is
 * built. If it cannot be made, the kit compiles its own (with a warning).
 *
 * Returns 0 with the kit in k (resolver_kit_free), or -1 with why in err. */
int build_kit_prepare(const struct build_ctx *kb, const char *key, const char *host_dir,
		      const char *host_key, struct resolver_kit *k, char *err, size_t errlen);

/* Makes the tree kb->src's Kconfig host programs in host_dir for host_key, as the first kit
 * of the tree would (build_kit_prepare), so that a run can make them before its kits need
 * them. Concurrent callers take turns; a directory that has them already is left as it is.
 * Returns 0, or -1 with why in err. */
int build_host_programs(const struct build_ctx *kb, const char *host_dir, const char *host_key,
			char *err, size_t errlen);

/* Makes the full base config from the fragments' text (allnoconfig + KCONFIG_ALLCONFIG), with
 * b->kit's conf in b->session when it has a kit (make's allnoconfig if that fails, with a
 * warning). Returns
 * the config text (caller frees) or NULL with a message in err. */
char *build_base_config(const struct build_ctx *b, const char *fragments, char *err,
			size_t errlen);

/* Resolves n requested configs as olddefconfig does: with the in-process resolver when
 * b->resolver_src is set (the first config with olddefconfig when the config directory has not
 * yet built Kconfig; all of them when the resolver cannot be built, with a warning), else with
 * olddefconfig, b->jobs at a time. Returns -1 only when make could not be started (err says
 * why); a resolution's own failure is in its err. Release each with build_resolution_free. */
int build_resolve_all(const struct build_ctx *b, struct build_resolution *r, int n, char *err,
		      size_t errlen);
void build_resolution_free(struct build_resolution *r);

/* Builds the kernel for the config at config_path into image_out, and its modules when the
 * config has MODULES=y. The log goes to log_path. Returns -1 only when make could not be
 * started at all (err says why). */
int build_kernel(const struct build_ctx *b, const char *config_path, const char *tag,
		 const char *log_path, const char *image_out, struct build_outcome *out, char *err,
		 size_t errlen);

/* A kernel build marks its build directory (.kcmpm-building) while make runs, and clears the
 * mark only when make ended by itself. A mark found at the next build means that build was
 * killed (a SIGKILLed harness, a timeout): make could not delete what it was writing, and a
 * truncated object newer than its source would pass for up to date. So every file written
 * since the mark (no older than it) is removed, and Kbuild makes them again; but not those in
 * include/config/, which syncconfig writes whole (and so the in-process sync): they record
 * which objects the config change still leaves to recompile. Returns how many were removed
 * (0 without a mark), or -1 with errno set. */
int build_recover_interrupted(const char *build_dir);

/* The two make commands that rebuild this kernel by hand into out_dir (whose .config is the
 * cell's final config), as shell lines: olddefconfig, then the image (and the modules, when
 * modules is set) with the same timestamp tag. Caller frees. */
char *build_reproducer(const struct build_ctx *b, const char *tag, int modules,
		       const char *out_dir);

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
