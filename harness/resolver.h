/* resolver: resolving a batch of cell configs in one process, with the tree's own Kconfig code.
 *
 * `make olddefconfig` costs seconds per config, almost all of it Kconfig parsing the tree and
 * running its $(shell) compiler probes again; the resolution itself takes milliseconds. So the
 * resolver links harness/resolver/kcmpm_resolve.c against the tree's scripts/kconfig objects
 * (built in the config directory by the base config's allnoconfig: the same C code conf runs,
 * never a reimplementation), parses once, and resolves the whole batch. It runs in the config
 * directory with the environment Kbuild gives conf: the variables Kconfig itself recorded as
 * its inputs in include/config/auto.conf.cmd. Its output is byte-identical to olddefconfig's;
 * an end-to-end test compares a whole group.
 *
 * A parse still runs some 750 compiler probes through Kconfig's $(shell), seconds of work. So
 * the resolver keeps a memo of what each $(shell) command printed, one per Kbuild environment
 * (see kcmpm_resolve.c), and a Kconfig kit (struct resolver_kit) is one config directory
 * whose allnoconfig built the Kconfig objects and recorded the environment, the resolver
 * linked there, and its memos: the variants of a tree and arch share it, so the probes run
 * about once per tree and arch. And a group's Kconfig work is one parse: its session (struct
 * resolver_session, kcmpm_resolve.c's --session) makes the base config with the tree's own
 * conf (conf.o linked in, its main renamed), in a fork of the parsed process, and then
 * resolves the cells.
 */
#ifndef KCMPM_RESOLVER_H
#define KCMPM_RESOLVER_H

#include "build_ctx.h"
#include "spawn.h"

#include <stddef.h>

/* A Kconfig kit (see above): made by build_kit_prepare. */
struct resolver_kit {
	char *dir;		/* its config directory, which holds the $(shell) memos */
	char *exe;		/* kcmpm-resolve, linked against the directory's Kconfig objects */
	char **env;		/* the environment its auto.conf.cmd records ("NAME=VALUE") */
	char *toolchain_memo;	/* the $(shell) memo its parses share with every tree's kit of
				 * the same compiler and arch (kcmpm_memo.c); NULL: none */
};

/* The kit of the config directory kb->build_dir, whose Kconfig objects and auto.conf.cmd must
 * be there (resolver_ready): links the resolver there unless it is. Returns 0, or -1 with why
 * in err. */
int resolver_kit_open(const struct build_ctx *kb, const char *source, struct resolver_kit *k,
		      char *err, size_t errlen);
void resolver_kit_free(struct resolver_kit *k);

/* The memo object (kcmpm_memo.c beside source, compiled into kb->build_dir) that the kit's own
 * make links into its conf, and the file that conf's parse records into (adopted as the kit's
 * memo by resolver_kit_open, once the environment that names it is known). Return NULL /
 * a path the caller frees; NULL with why in err when it does not compile. */
char *resolver_memo_object(const struct build_ctx *kb, const char *source, char *err,
			   size_t errlen);
char *resolver_kit_first_memo(const struct build_ctx *kb);

/* Links the resolver from source against the Kconfig objects in b->build_dir (a directory of a
 * tree's Kconfig host programs), as kcmpm-resolve there. The objects do not depend on the
 * arch, so the kits of the tree's arches can share it: resolver_kit_open links a kit's own
 * only when the kit has none. Returns its path (caller frees), or NULL with why in err. */
char *resolver_link(const struct build_ctx *b, const char *source, char *err, size_t errlen);

/* A group's Kconfig session: one resolver process, in the group's config directory and with
 * its kit, started at the first request (base or cells) and ended by resolver_session_end. */
struct resolver_session {
	struct spawn_server server;
	int state;		/* 0: not started; 1: running; -1: could not start, or ended */
	char *log;		/* its stderr: work_dir/kconfig.log */
};

/* allnoconfig for the tree b->src in the config directory b->build_dir, by the session
 * b->session of the kit b->kit (both needed): KCONFIG_ALLCONFIG=fragment_path, written to
 * base_path. Returns the config's text (caller frees), or NULL with why in err. */
char *resolver_base(const struct build_ctx *b, const char *fragment_path, const char *base_path,
		    char *err, size_t errlen);

/* Ends the session: at the end of its input it saves its $(shell) memo and exits (killed if it
 * does not within a minute). Safe on one never started. */
void resolver_session_end(struct resolver_session *s);

/* Has the config directory what the resolver is built from (the Kconfig objects and
 * auto.conf.cmd)? They appear with the directory's first config target. */
int resolver_ready(const struct build_ctx *b);

/* Resolves the n configs like build_resolve_all: in the session b->session of the kit b->kit
 * (srctree set to b->src, its memo used), or else in a session of a resolver built from source
 * in b->build_dir, for these configs only. Returns
 * -1 with a message in err when the resolver could not be built or started (the caller may
 * fall back to olddefconfig) or ended midway; 0 otherwise, each resolution's own outcome in
 * it. */
int resolver_run(const struct build_ctx *b, const char *source, struct build_resolution *r,
		 int n, char *err, size_t errlen);

/* The kernel build's syncconfig, in one process per source tree state: starts the resolver as
 * a server (kcmpm_resolve.c's --serve) in the kernel build directory b->build_dir, built
 * against that directory's own Kconfig objects and run with the environment its
 * include/config/auto.conf.cmd records, so the files it writes are the ones Kbuild's
 * syncconfig would write. It parses b->src's Kconfig once, when started: the tree must then
 * be in the state whose kernels it will serve. With memo_dir (a kit's directory), its parse
 * uses that directory's $(shell) memo for its environment. Returns -1 with a message in err
 * when the directory has no Kconfig objects or auto.conf.cmd yet (before its first build) or
 * the server cannot be built or started. */
int resolver_serve(const struct build_ctx *b, const char *source, const char *memo_dir,
		   struct spawn_server *s, char *err, size_t errlen);

/* Syncs the build directory's auto.conf, autoconf.h and include/config/ with its .config,
 * through the server. Returns 0, or -1 with why in err (the directory is then Kbuild's own
 * syncconfig's: auto.conf stays older than .config). */
int resolver_sync(struct spawn_server *s, const char *build_dir, char *err, size_t errlen);

/* A resolver server's answer to a request about subject (a path): 0 when it is
 * "<done> <subject>"; -1 otherwise, with in err its own reason ("failed <subject>: why") or,
 * for any other answer, "the Kconfig <who> answered '...'". */
int resolver_answer(const char *reply, const char *done, const char *subject, const char *who,
		    char *err, size_t errlen);

/* What resolves configs, for the cache key of resolved configs: "kcmpm-resolve <hash of the
 * source>", or "olddefconfig" when source is NULL; NULL when the source cannot be read.
 * Caller frees. */
char *resolver_identity(const char *source);

/* The variables of an auto.conf.cmd text ("ifneq "$(NAME)" "VALUE"" lines) as a
 * NULL-terminated array of "NAME=VALUE" strings, or NULL when it names none. Free with
 * free_strings. */
char **resolver_env_parse(const char *text);

#endif
