/* config_targets: see config_targets.h. */
#define _GNU_SOURCE
#include "config_targets.h"
#include "build_dirs.h"
#include "dotconfig.h"
#include "make_cmd.h"
#include "resolver.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void config_target_failed(const struct build_ctx *b, const char *target, int status,
				 const char *log, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%s %s' failed for %s with status %d; see %s", b->make, target,
		 b->arch->name, status, log);
}

/* Runs a config target; its output is appended to work_dir/kconfig.log. */
static int run_config(const struct build_ctx *b, int nextra, char **extra, char *err,
		      size_t errlen)
{
	const char *argv[MAKE_MAX_ARGS];
	char *own[MAKE_MAX_ARGS];
	char *log = xasprintf("%s/kconfig.log", b->work_dir);
	struct spawn_result res;
	int rc = 0;

	make_cmd(b, argv, own, nextra, extra);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 600 }, &res)) {
		make_cmd_cannot_run(b, err, errlen);
		rc = -1;
	} else if (res.status) {
		config_target_failed(b, extra[nextra - 1], res.status, log, err, errlen);
		rc = -1;
	}
	make_cmd_free(own);
	free(log);
	return rc;
}

char *build_base_config(const struct build_ctx *b, const char *fragments, char *err,
			size_t errlen)
{
	char *frag_path = xasprintf("%s/base.fragment", b->work_dir);
	char *base_path = xasprintf("%s/base.config", b->work_dir);
	char *text = NULL;

	if (build_dirs_prepare(b, err, errlen))
		goto out;
	if (write_file_atomic(frag_path, fragments, strlen(fragments))) {
		snprintf(err, errlen, "cannot write '%s': %s", frag_path, strerror(errno));
		goto out;
	}
	if (b->kit) {
		char why[600];

		text = resolver_base(b, frag_path, base_path, why, sizeof(why));
		if (text)
			goto out;
		warn("%s; making the base config with make allnoconfig instead", why);
	}
	{
		char *extra[] = { xasprintf("KCONFIG_ALLCONFIG=%s", frag_path),
				  xasprintf("KCONFIG_CONFIG=%s", base_path), xstrdup("allnoconfig") };

		if (run_config(b, 3, extra, err, errlen))
			goto out;
	}
	text = read_file(base_path, NULL);
	if (!text)
		snprintf(err, errlen, "allnoconfig wrote no '%s'", base_path);
out:
	free(frag_path);
	free(base_path);
	return text;
}

/* Serializes the forks that want the same kit: the first makes it, the others wait. */
static int lock_kit(const struct build_ctx *kb, char *err, size_t errlen)
{
	char *path = xasprintf("%s.lock", kb->build_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		snprintf(err, errlen, "cannot lock '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

/* make's words that link the Kconfig programs Kbuild makes (HOSTLDFLAGS and HOSTLDLIBS are
 * its knobs for host programs) with the $(shell) memo object memo: popen and pclose wrapped, so
 * conf's parse answers and records its probes there (kcmpm_memo.c). Returns how many. */
static int memo_link_words(const char *memo, char **extra)
{
	extra[0] = xstrdup("HOSTLDFLAGS=-Wl,--wrap=popen,--wrap=pclose");
	extra[1] = xasprintf("HOSTLDLIBS=%s", memo);
	return 2;
}

/* The memo object of a directory of host programs (resolver_memo_object), or NULL when it has
 * none. Caller frees. */
static char *host_memo_object(const char *host_dir)
{
	char *path = xasprintf("%s/kcmpm-memo.o", host_dir);

	if (!path_exists(path)) {
		free(path);
		path = NULL;
	}
	return path;
}

/* Makes hb->build_dir hold the tree's Kconfig host programs for key: an allnoconfig of an
 * empty Kconfig (KBUILD_KCONFIG), which makes Kbuild compile fixdep and conf with its objects
 * and runs no compiler probe. They are linked as a kit links them, with the $(shell) memo
 * object compiled there, so that a kit started from a copy finds nothing to relink; and the
 * resolver is linked there once for the kits of every arch. (Without a memo object, the kits
 * link their own conf and resolver.) Called with the directory's lock held. Returns 0 when
 * the programs are there. */
static int make_host_programs(const struct build_ctx *hb, const char *key, char *err,
			      size_t errlen)
{
	char *key_path = xasprintf("%s/host.key", hb->build_dir), *have = read_file(key_path, NULL);
	char *empty = xasprintf("%s/empty.Kconfig", hb->build_dir), *memo = NULL, *exe = NULL;
	char why[600];
	int rc = 0;

	if (!have || strcmp(have, key)) {
		remove_tree(hb->build_dir);
		rc = build_dirs_prepare(hb, err, errlen);
		if (rc == 0 && write_file_atomic(empty, "", 0)) {
			snprintf(err, errlen, "cannot write '%s': %s", empty, strerror(errno));
			rc = -1;
		}
		if (rc == 0) {
			char *extra[6];
			int n = 0;

			if (hb->resolver_src)
				memo = resolver_memo_object(hb, hb->resolver_src, why, sizeof(why));
			extra[n++] = xasprintf("-j%d", hb->jobs > 0 ? hb->jobs : 1);
			extra[n++] = xasprintf("KBUILD_KCONFIG=%s", empty);
			extra[n++] = xasprintf("KCONFIG_CONFIG=%s/host.config", hb->build_dir);
			if (memo)
				n += memo_link_words(memo, extra + n);
			extra[n++] = xstrdup("allnoconfig");
			rc = run_config(hb, n, extra, err, errlen);
		}
		if (rc == 0 && memo && !(exe = resolver_link(hb, hb->resolver_src, why, sizeof(why))))
			warn("%s; each Kconfig kit of %s links its own", why, hb->src);
		if (rc == 0 && write_file_atomic(key_path, key, strlen(key))) {
			snprintf(err, errlen, "cannot write '%s': %s", key_path, strerror(errno));
			rc = -1;
		}
	}
	free(exe);
	free(memo);
	free(have);
	free(empty);
	free(key_path);
	return rc;
}

/* Takes host_dir's lock and makes the tree kb->src's host programs there for host_key.
 * Returns the lock (close it to give it back), or -1 with why in err. */
static int lock_host_programs(const struct build_ctx *kb, const char *host_dir,
			      const char *host_key, char *err, size_t errlen)
{
	struct build_ctx hb = *kb;
	int fd;

	hb.build_dir = hb.work_dir = (char *)host_dir;
	if (mkdir_p(host_dir)) {	/* its lock is beside it */
		snprintf(err, errlen, "cannot create '%s': %s", host_dir, strerror(errno));
		return -1;
	}
	if ((fd = lock_kit(&hb, err, errlen)) >= 0 &&
	    make_host_programs(&hb, host_key, err, errlen)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int build_host_programs(const struct build_ctx *kb, const char *host_dir, const char *host_key,
			char *err, size_t errlen)
{
	int fd = lock_host_programs(kb, host_dir, host_key, err, errlen);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Starts the kit kb->build_dir with a copy of the tree's Kconfig host programs from host_dir,
 * timestamps kept, making them there first if no kit of the tree has (see build.h). Returns 0
 * when the kit has the copy. */
static int seed_host_programs(const struct build_ctx *kb, const char *host_dir,
			      const char *host_key)
{
	char err[1024] = "", *scripts = xasprintf("%s/scripts", host_dir);
	int fd = lock_host_programs(kb, host_dir, host_key, err, sizeof(err));

	if (fd >= 0) {
		const char *argv[] = { "cp", "-a", scripts, kb->build_dir, NULL };
		char *log = xasprintf("%s/seed.log", kb->work_dir);
		struct spawn_result res;

		if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 60 },
			      &res) || res.status)
			snprintf(err, sizeof(err), "cannot copy '%s' into '%s'; see %s", scripts,
				 kb->build_dir, log);
		free(log);
		close(fd);
	}
	if (err[0])
		warn("%s; the Kconfig kit compiles its own host programs", err);
	free(scripts);
	return err[0] ? -1 : 0;
}

/* Gives the kit the resolver linked in host_dir, whose Kconfig objects its own are copies of
 * (a hard link; without one, resolver_kit_open links the kit's own). */
static void share_resolver(const struct build_ctx *kb, const char *host_dir)
{
	char *from = xasprintf("%s/kcmpm-resolve", host_dir);
	char *to = xasprintf("%s/kcmpm-resolve", kb->build_dir);

	if (path_exists(from))
		link(from, to);
	free(from);
	free(to);
}

int build_kit_prepare(const struct build_ctx *kb, const char *key, const char *host_dir,
		      const char *host_key, struct resolver_kit *k, char *err, size_t errlen)
{
	char *key_path = xasprintf("%s/kit.key", kb->build_dir), *have = NULL;
	int fd, rc = -1;

	*k = (struct resolver_kit){ 0 };
	err[0] = 0;
	if (mkdir_p(kb->work_dir) || (fd = lock_kit(kb, err, errlen)) < 0) {
		if (!err[0])
			snprintf(err, errlen, "cannot create '%s': %s", kb->work_dir,
				 strerror(errno));
		free(key_path);
		return -1;
	}
	have = read_file(key_path, NULL);
	if (!have || strcmp(have, key)) {
		/* another tree, compiler, make or resolver: nothing in it may be kept */
		remove_tree(kb->build_dir);
	}
	if (build_dirs_prepare(kb, err, errlen) == 0 && !resolver_ready(kb)) {
		char why[600], *memo = NULL, *extra[7];
		int n = 0, seeded = host_dir && seed_host_programs(kb, host_dir, host_key) == 0;

		/* the copy's fixdep and conf were linked with the host directory's memo object:
		 * named here too, their commands are unchanged and Kbuild relinks nothing */
		if (seeded)
			memo = host_memo_object(host_dir);
		if (!memo)
			memo = resolver_memo_object(kb, kb->resolver_src, why, sizeof(why));
		extra[n++] = xasprintf("KCONFIG_CONFIG=%s/kit.config", kb->work_dir);
		/* Kbuild's conf here is linked with the memo, so this parse's probes are the kit's
		 * first answers; a memo that does not compile leaves it the plain conf */
		if (memo) {
			char *first = resolver_kit_first_memo(kb);

			n += memo_link_words(memo, extra + n);
			extra[n++] = xasprintf("KCMPM_SHELL_MEMO=%s", first);
			extra[n++] = xstrdup("KCMPM_SHELL_MEMO_REPORT=1");
			if (kb->toolchain_memo)
				extra[n++] = xasprintf("KCMPM_SHELL_MEMO_SHARED=%s",
						       kb->toolchain_memo);
			free(first);
		} else {
			warn("%s; the Kconfig kit's first parse runs every probe", why);
		}
		extra[n++] = xstrdup("allnoconfig");
		if (run_config(kb, n, extra, err, errlen) == 0 && seeded)
			share_resolver(kb, host_dir);
		free(memo);
	}
	if (resolver_ready(kb) && resolver_kit_open(kb, kb->resolver_src, k, err, errlen) == 0 &&
	    write_file_atomic(key_path, key, strlen(key)) == 0)
		rc = 0;
	else if (!err[0])
		snprintf(err, errlen, "no Kconfig kit in '%s'", kb->build_dir);
	if (rc)
		resolver_kit_free(k);
	close(fd);
	free(have);
	free(key_path);
	return rc;
}

/* The olddefconfig command of one resolution, its config written where conf will read it. */
static int resolution_start(const struct build_ctx *b, struct build_resolution *r,
			    const char **argv, char **own)
{
	char *extra[] = { xasprintf("KCONFIG_CONFIG=%s", r->out_path), xstrdup("olddefconfig") };

	make_cmd(b, argv, own, 2, extra);
	r->log_path = xasprintf("%s.log", r->out_path);
	unlink(r->log_path);
	if (write_file_atomic(r->out_path, r->requested, strlen(r->requested))) {
		snprintf(r->err, sizeof(r->err), "cannot write '%s': %s", r->out_path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void resolution_finish(const struct build_ctx *b, struct build_resolution *r,
			      const struct spawn_result *res)
{
	if (res->status) {
		config_target_failed(b, "olddefconfig", res->status, r->log_path, r->err,
				     sizeof(r->err));
		return;
	}
	r->text = read_file(r->out_path, NULL);
	if (!r->text)
		snprintf(r->err, sizeof(r->err), "olddefconfig left no '%s'", r->out_path);
}

/* The resolutions run b->jobs at once: each is a short, single-threaded make, and a matrix
 * has hundreds of them. They share the config directory, which after the base config holds
 * everything they need built, so they only read it. */
static int resolve_with_make(const struct build_ctx *b, struct build_resolution *r, int n,
			     char *err, size_t errlen)
{
	struct spawn_req *reqs = xcalloc((size_t)n, sizeof(*reqs));
	struct spawn_result *res = xcalloc((size_t)n, sizeof(*res));
	const char *(*argv)[MAKE_MAX_ARGS] = xcalloc((size_t)n, sizeof(*argv));
	char *(*own)[MAKE_MAX_ARGS] = xcalloc((size_t)n, sizeof(*own));
	int nreq = 0, rc = 0;
	int *index = xcalloc((size_t)n, sizeof(*index));

	for (int i = 0; i < n; i++) {
		r[i].text = NULL;
		r[i].err[0] = 0;
		if (resolution_start(b, &r[i], argv[nreq], own[nreq])) {
			make_cmd_free(own[nreq]);
			continue;
		}
		reqs[nreq] = (struct spawn_req){ .argv = argv[nreq], .log_path = r[i].log_path,
						 .timeout = 600 };
		index[nreq++] = i;
	}
	if (spawn_run_all(reqs, nreq, b->jobs, res)) {
		make_cmd_cannot_run(b, err, errlen);
		rc = -1;
	}
	for (int k = 0; k < nreq; k++) {
		if (!rc)
			resolution_finish(b, &r[index[k]], &res[k]);
		make_cmd_free(own[k]);
	}
	free(reqs);
	free(res);
	free(argv);
	free(own);
	free(index);
	return rc;
}

int build_resolve_all(const struct build_ctx *b, struct build_resolution *r, int n, char *err,
		      size_t errlen)
{
	char why[600];

	if (!b->resolver_src || n == 0)
		return resolve_with_make(b, r, n, err, errlen);
	/* Kconfig's objects and its list of inputs appear with the directory's first config
	 * target; a cached base config means none may have run here yet. A kit has its own. */
	if (!b->kit && !resolver_ready(b)) {
		if (resolve_with_make(b, r, 1, err, errlen))
			return -1;
		r++;
		n--;
	}
	if (n == 0 || resolver_run(b, b->resolver_src, r, n, why, sizeof(why)) == 0)
		return 0;
	warn("%s; resolving %d configs with make olddefconfig instead", why, n);
	return resolve_with_make(b, r, n, err, errlen);
}

void build_resolution_free(struct build_resolution *r)
{
	free(r->text);
	free(r->log_path);
	r->text = r->log_path = NULL;
}
