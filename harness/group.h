/* group: what the stages of a run (config_stage, build_stage, boot_stage; run.c calls them in
 * that order) share. A group is one (variant, arch) pair of a tree: its cells, its base config
 * and how its configs are made (the config stage fills it in), and the arch's build state
 * (struct arch_build), which every variant of the arch shares because its kernels are built
 * one after another through one worktree. A judged cell is recorded by record.h.
 */
#ifndef KCMPM_GROUP_H
#define KCMPM_GROUP_H

#include "build_ctx.h"
#include "build_dirs.h"
#include "cache.h"
#include "matrix.h"
#include "plan.h"
#include "resolver.h"
#include "run_opts.h"
#include "tree.h"
#include "variant.h"
#include "worktree.h"

struct arch_tools;
struct progress;
struct spawn_server;

/* What one (variant, arch) group shares while its cells run. */
struct group {
	const struct run_opts *o;
	const struct matrix *m;
	const struct tree *t;
	const struct variant_tree *vt;	/* the variant's source tree */
	const char *exists;		/* exists[s]: the variant's tree defines matrix symbol s */
	int variant, arch;
	struct build_ctx b;
	char *base;			/* full base config text */
	const struct arch_tools *tools;	/* the arch's guest and tool hashes */
	const char *identity;		/* the tree's identity; NULL: mutable, nothing cached */
	struct cache_use cache;		/* what it may do with the cache */
	char *resolver_id;		/* what resolves its configs (resolver_identity) */
	char *memo_dir;			/* its kit's directory, whose $(shell) memo the
					 * builds' sync server shares; NULL: nothing cached */
	char *kernel_kind;		/* cache kind of this group's kernels */
	int modules;			/* the base has MODULES: kernels are built with modules */
	struct progress *pg;		/* the run's progress display */
	struct arch_build *ab;		/* the arch's worktree and build directory */
	struct cell **cells;		/* this group's cells */
	int ncell;
	char **config_error;		/* [i]: why cells[i]'s config could not be resolved,
					 * for the judge (run.c); NULL where it was */
	int prefetch;			/* only filling the cache (see prefetch_configs) */
	struct resolver_kit kit;	/* its Kconfig kit once made (use_kit); b.kit points here */
	struct resolver_session session; /* the kit's Kconfig session for its base and cells,
					  * started at the first of them; b.session points here */
	int kit_failed;			/* use_kit could not make it: make's own ways instead */
};

/* What every variant of one arch shares while its kernels build: the worktree (switched to
 * each kernel's variant) and the one build directory, and how far the builds are. */
struct arch_build {
	struct worktree wt;
	struct build_dirs dirs;		/* which build directory each kernel is built in */
	struct build_ctx b;		/* b.build_dir: the one of the kernel being built */
	int nbuild, built;
	char *initramfs;		/* what its kernels boot: the arch's guest, with the tree's
					 * selftest beside it when the question has one */
	char guest_hash[17];		/* of that initramfs: boots are keyed by it */
	struct spawn_server *syncconfig;	/* per variant: its resolver server, once started */
	char *syncconfig_off;			/* per variant: it could not start; Kbuild syncs */
};

/* One tree's share of a run: its cells (a slice of the plan, which keeps each tree's cells
 * together) and its variants' trees. */
struct tree_run {
	const struct tree *t;
	struct plan p;
	struct variant_tree *vts;	/* [variant]; .path NULL: not made */
	char (*exists)[MAX_SYMBOLS];	/* [variant]: which matrix symbols its tree has */
	char **series_dir;		/* [variant] */
};

/* Does the plan hold a cell of this variant and arch? -1 for either: of any. */
int plan_has_cells(const struct plan *p, int variant, int arch);
/* A group before its configs (group_of's comment); free with group_free once config_group
 * has filled it in. */
struct group group_of(const struct run_opts *o, const struct matrix *m, const struct tree *t,
		      const struct variant_tree *vts, char (*exists)[MAX_SYMBOLS],
		      const struct arch_tools *arch_tools, int v, int a);
void group_free(struct group *g);
/* The (variant, arch) pairs of the tree's groups, as group[k] = { v, a }; returns how many. */
int group_pairs(const struct matrix *m, const struct plan *p, const struct variant_tree *vts,
		int (*group)[2]);
/* The cell's directory under the results. Caller frees. */
char *cell_dir(const struct group *g, const struct cell *c);
/* The cache kind of a group's kernels: kernels/<tree>/<variant>/<arch>. Caller frees. */
char *kernel_kind(const struct tree *t, const struct matrix *m, int variant, int arch);

#endif
