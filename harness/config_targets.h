/* config_targets: the kernel's make for configs: the base config (allnoconfig with the base
 * fragments), each cell's resolved config (olddefconfig, or the in-process resolver of
 * resolver.h), and the Kconfig kit and host programs they run with. They run in a small config
 * directory per (tree, variant, arch), apart from the kernels' build directories.
 */
#ifndef KCMPM_CONFIG_TARGETS_H
#define KCMPM_CONFIG_TARGETS_H

#include "build_ctx.h"
#include "resolver.h"

#include <stddef.h>

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

#endif
