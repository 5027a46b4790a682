/* cache_layout: where everything a run keeps lives in the cache directory, in one place. Every
 * path under the cache is made here; the rest of the harness asks for it by name.
 *
 *   <cache>/
 *     .lock                         one run at a time on this cache (main.c)
 *     src/<tree>/                   a tree unpacked from its tarball (tree.c); beside it,
 *                                   <tree>.identity (the tarball it came from) and
 *                                   <tree>.symbols (which matrix symbols its Kconfig has)
 *     trees/<tree>/<variant>/       a variant's tree: hard links to src/ and its patched files
 *                                   (variant.c)
 *     worktree/<tree>/<arch>/       the tree an arch's kernels are built from, switched to
 *                                   each variant's files in turn (worktree.c)
 *     build/<tree>/<arch>           the arch's kernel build directory in use; the others wait
 *                                   beside it as <arch>.<SYM>-<v>... (build_dirs.c)
 *     kconfig/<tree>/<variant>/<arch>/   the small build directory a group's config targets
 *                                   run in (config_stage.c)
 *     work/<tree>/<variant>/<arch>/ a group's scratch (configs being resolved);
 *     work/<tree>/<arch>/           an arch's build scratch
 *     kconfig-kit/<tree>/<arch>[.<variant>]/  a Kconfig kit (resolver.h), a variant's own
 *                                   where its series changes how Kconfig runs;
 *     kconfig-kit/<tree>/host[.<variant>]/    the kits' Kconfig host programs;
 *     kconfig-kit/toolchain/        the $(shell) memos every tree's kits share
 *     base/ resolved/ kernels/<tree>/<variant>/<arch>/ boots/
 *                                   content-addressed cache entries (cache.h)
 *     guest/<arch>/                 the guest /init, its initramfs, the tools' versions
 *                                   (guest.c, preflight.c)
 *     preflight/                    the preflight probes' logs
 *     shell/<arch>/                 make shell's initramfs (shell.c)
 *     busybox/<arch>/               a static busybox fetched for make shell on arm64
 *                                   (scripts/fetch-busybox)
 *
 * <tree> is a tree's tag (struct tree), the tarball's stem for Debian's trees. Everything but
 * the cache entries is working state: a tree, a worktree and a build directory are kept up to
 * date by the harness and Kbuild, and a new tarball under a tree's name removes them all
 * (cache_layout_derived).
 */
#ifndef KCMPM_CACHE_LAYOUT_H
#define KCMPM_CACHE_LAYOUT_H

/* Each returns a path the caller frees. */
char *cache_src_dir(const char *cache);
char *cache_unpacked(const char *cache, const char *tree);
char *cache_variant_trees(const char *cache, const char *tree);
char *cache_worktrees(const char *cache, const char *tree);
char *cache_build_dir(const char *cache, const char *tree, const char *arch);
char *cache_kconfig_dir(const char *cache, const char *tree, const char *variant,
			const char *arch);
/* variant NULL: the arch's build scratch */
char *cache_work_dir(const char *cache, const char *tree, const char *variant, const char *arch);
/* own_variant NULL: the kit the tree's variants share */
char *cache_kit_dir(const char *cache, const char *tree, const char *arch,
		    const char *own_variant);
char *cache_kit_host_dir(const char *cache, const char *tree, const char *own_variant);
char *cache_toolchain_memo_dir(const char *cache);
/* The cache kind (cache.h) of the kernels of a tree, variant and arch. */
char *cache_kernels_kind(const char *tree, const char *variant, const char *arch);
char *cache_guest_dir(const char *cache, const char *arch);
char *cache_preflight_dir(const char *cache);
char *cache_shell_dir(const char *cache, const char *arch);

/* The directories that hold a tree's working state by its tag (src/ aside): what goes when
 * its tarball changes. NULL-terminated. */
extern const char *const cache_layout_derived[];
/* The directories where a killed run can leave partial files (name.tmp.<pid>). NULL-terminated. */
extern const char *const cache_layout_written[];

#endif
