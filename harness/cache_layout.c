/* cache_layout: see cache_layout.h. */
#define _GNU_SOURCE
#include "cache_layout.h"
#include "util.h"

const char *const cache_layout_derived[] = { "trees", "worktree", "build", "kconfig", "work",
					     NULL };
const char *const cache_layout_written[] = { "base", "resolved", "kernels", "boots", "guest",
					     "shell", NULL };

char *cache_src_dir(const char *cache)
{
	return xasprintf("%s/src", cache);
}

char *cache_unpacked(const char *cache, const char *tree)
{
	return xasprintf("%s/src/%s", cache, tree);
}

char *cache_variant_trees(const char *cache, const char *tree)
{
	return xasprintf("%s/trees/%s", cache, tree);
}

char *cache_worktrees(const char *cache, const char *tree)
{
	return xasprintf("%s/worktree/%s", cache, tree);
}

char *cache_build_dir(const char *cache, const char *tree, const char *arch)
{
	return xasprintf("%s/build/%s/%s", cache, tree, arch);
}

char *cache_kconfig_dir(const char *cache, const char *tree, const char *variant,
			const char *arch)
{
	return xasprintf("%s/kconfig/%s/%s/%s", cache, tree, variant, arch);
}

char *cache_work_dir(const char *cache, const char *tree, const char *variant, const char *arch)
{
	if (!variant)
		return xasprintf("%s/work/%s/%s", cache, tree, arch);
	return xasprintf("%s/work/%s/%s/%s", cache, tree, variant, arch);
}

char *cache_kit_dir(const char *cache, const char *tree, const char *arch,
		    const char *own_variant)
{
	if (own_variant)
		return xasprintf("%s/kconfig-kit/%s/%s.%s", cache, tree, arch, own_variant);
	return xasprintf("%s/kconfig-kit/%s/%s", cache, tree, arch);
}

char *cache_kit_host_dir(const char *cache, const char *tree, const char *own_variant)
{
	if (own_variant)
		return xasprintf("%s/kconfig-kit/%s/host.%s", cache, tree, own_variant);
	return xasprintf("%s/kconfig-kit/%s/host", cache, tree);
}

char *cache_toolchain_memo_dir(const char *cache)
{
	return xasprintf("%s/kconfig-kit/toolchain", cache);
}

char *cache_kernels_kind(const char *tree, const char *variant, const char *arch)
{
	return xasprintf("kernels/%s/%s/%s", tree, variant, arch);
}

char *cache_guest_dir(const char *cache, const char *arch)
{
	return xasprintf("%s/guest/%s", cache, arch);
}

char *cache_preflight_dir(const char *cache)
{
	return xasprintf("%s/preflight", cache);
}

char *cache_shell_dir(const char *cache, const char *arch)
{
	return xasprintf("%s/shell/%s", cache, arch);
}
