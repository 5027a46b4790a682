/* build_ctx: what one kernel build directory is built with: the tree, the arch, make and its
 * jobs, how configs are resolved. A header of its own because both the build stage (build.h)
 * and the Kconfig resolver (resolver.h) take it, and neither includes the other for it.
 */
#ifndef KCMPM_BUILD_CTX_H
#define KCMPM_BUILD_CTX_H

struct arch;
struct spawn_server;
struct resolver_kit;
struct resolver_session;
struct jobserver;

struct build_ctx {
	const char *src;	/* the source tree (a variant's tree) */
	const struct arch *arch;
	const char *make;	/* the make program */
	double timeout;		/* seconds a kernel build may take; 0: no limit */
	const char *cc_wrapper;	/* ccache, distcc...: CC="<wrapper> <cross>gcc"; NULL: none */
	int jobs;
	struct jobserver *jobserver;	/* the kernel builds' make takes its jobs from this pool
					 * (jobserver.h), shared with other builds; NULL: -j jobs */
	const char *resolver_src; /* kcmpm_resolve.c: resolve configs in one process (resolver.h);
				   * NULL: one `make olddefconfig` per config */
	const struct resolver_kit *kit;	/* the Kconfig kit its base and configs are made with
					 * (resolver.h); NULL: make's allnoconfig, and a
					 * resolver linked in build_dir */
	struct resolver_session *session; /* with kit: the group's Kconfig session, which
					   * makes both in one parse (resolver.h) */
	const char *toolchain_memo; /* for a Kconfig kit: the $(shell) memo of its compiler and
				     * arch, shared with every tree's kit (kcmpm_memo.c); NULL:
				     * none */
	struct spawn_server *syncconfig; /* a resolver serving the source tree's present state
					  * (resolver_serve): it syncs auto.conf before make,
					  * so Kbuild's syncconfig has nothing to do; NULL: Kbuild
					  * syncs */
	char *build_dir;	/* O= */
	char *work_dir;		/* configs and logs of this (tree, variant, arch) */
};


/* One cell's config to resolve: requested in, resolved out. */
struct build_resolution {
	const char *requested;	/* the config asked for (base with the cell's symbols set) */
	const char *out_path;	/* where olddefconfig reads it and writes the result */
	char *text;		/* out: the resolved config, or NULL with err set */
	char *log_path;		/* out: olddefconfig's output (out_path.log) */
	char err[512];
};

#endif
