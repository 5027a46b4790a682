/* run_opts: how a run was asked to go (the command line's options), which every stage of it
 * reads. A header of its own so that the stages (group.h) need not include the orchestrator
 * that calls them (run.h).
 */
#ifndef KCMPM_RUN_OPTS_H
#define KCMPM_RUN_OPTS_H

/* What a run may not reuse from the cache. */
enum force {
	FORCE_NONE,
	FORCE_BOOT,	/* boot every kernel again */
	FORCE_ALL,	/* start cold: build directories emptied, nothing reused */
};

struct run_opts {
	const char *matrix_dir;
	const char *patch_dir;		/* kernel-patch/ */
	const char *guest_src;
	const char *resolver_src;	/* kcmpm_resolve.c (resolver.h); NULL: make olddefconfig */
	const char *results_dir;
	const char *cache_dir;
	const char *make;		/* make program */
	const char *cc_wrapper;		/* compiler wrapper (ccache, distcc), or NULL */
	const char *qemu;		/* overrides every arch's QEMU program (tests) */
	int jobs;
	double boot_timeout;		/* overrides the arches' boot-timeout when > 0 */
	double build_timeout;		/* overrides the arches' build-timeout when > 0 */
	int boot_retries;		/* boots again after a timeout with no crash or warning
					 * (judge_boot_retryable), this often */
	int config_only;		/* resolve and judge configs only: no build, no boot */
	int arch_by_arch;		/* one arch's builds after the other's, not at once */
	enum force force;
};

#endif
