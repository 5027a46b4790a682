/* build: see build.h. */
#define _GNU_SOURCE
#include "build.h"
#include "jobserver.h"
#include "kconfig.h"
#include "resolver.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_ARGS = 16 };

/* make -C <tree> O=<build> ARCH=.. CROSS_COMPILE=.. plus extra words. Strings are owned by
 * the caller's vector "own" and freed with free_args. */
static int make_args(const struct build_ctx *b, const char **argv, char **own, int nextra,
		     char **extra)
{
	int n = 0, k = 0;

	argv[n++] = b->make;
	argv[n++] = "-C";
	argv[n++] = b->src;
	argv[n++] = own[k++] = xasprintf("O=%s", b->build_dir);
	argv[n++] = own[k++] = xasprintf("ARCH=%s", b->arch->kernel_arch);
	argv[n++] = own[k++] = xasprintf("CROSS_COMPILE=%s", b->arch->cross_compile);
	if (b->cc_wrapper)
		argv[n++] = own[k++] = xasprintf("CC=%s %sgcc", b->cc_wrapper, b->arch->cross_compile);
	for (int i = 0; i < nextra; i++)
		argv[n++] = own[k++] = extra[i];
	argv[n] = NULL;
	own[k] = NULL;
	return n;
}

static void free_args(char **own)
{
	for (int i = 0; own[i]; i++)
		free(own[i]);
}

/* Why make did not run (errno from spawn), and what to install. */
static void make_cannot_run(const struct build_ctx *b, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot run '%s': %s; install make (apt-get install make)", b->make,
		 strerror(errno));
}

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
	const char *argv[MAX_ARGS];
	char *own[MAX_ARGS];
	char *log = xasprintf("%s/kconfig.log", b->work_dir);
	struct spawn_result res;
	int rc = 0;

	make_args(b, argv, own, nextra, extra);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 600 }, &res)) {
		make_cannot_run(b, err, errlen);
		rc = -1;
	} else if (res.status) {
		config_target_failed(b, extra[nextra - 1], res.status, log, err, errlen);
		rc = -1;
	}
	free_args(own);
	free(log);
	return rc;
}

static char *srctree_mark(const char *build_dir)
{
	return xasprintf("%s/.kcmpm-srctree", build_dir);
}

int build_dir_in_use(const char *build_dir)
{
	char *mark = srctree_mark(build_dir);
	int yes = path_exists(mark);

	free(mark);
	return yes;
}

/* Did Kbuild ever run in the directory (the Makefile an O= build writes first, or a .config)? */
static int kbuild_was_here(const char *build_dir)
{
	char *makefile = xasprintf("%s/Makefile", build_dir);
	char *config = xasprintf("%s/.config", build_dir);
	int yes = path_exists(makefile) || path_exists(config);

	free(makefile);
	free(config);
	return yes;
}

/* A build directory belongs to one source tree (Kbuild records absolute source paths in it),
 * named in its .kcmpm-srctree; one found holding another tree's objects, or objects of no
 * tree it names, is emptied. (A directory build_dirs made, holding only its key, is not.) */
static int ensure_dirs(const struct build_ctx *b, char *err, size_t errlen)
{
	char *mark = srctree_mark(b->build_dir), *have = read_file(mark, NULL);
	int fresh = !have || strcmp(have, b->src), rc = 0;

	if (have ? fresh : kbuild_was_here(b->build_dir)) {
		fprintf(stderr, "kcmp-matrix: %s was built from another tree; starting it afresh\n",
			b->build_dir);
		remove_tree(b->build_dir);
	}
	if (mkdir_p(b->build_dir) || mkdir_p(b->work_dir) ||
	    (fresh && write_file_atomic(mark, b->src, strlen(b->src)))) {
		snprintf(err, errlen, "cannot create build directories under '%s': %s",
			 b->work_dir, strerror(errno));
		rc = -1;
	}
	free(mark);
	free(have);
	return rc;
}

char *build_base_config(const struct build_ctx *b, const char *fragments, char *err,
			size_t errlen)
{
	char *frag_path = xasprintf("%s/base.fragment", b->work_dir);
	char *base_path = xasprintf("%s/base.config", b->work_dir);
	char *text = NULL;

	if (ensure_dirs(b, err, errlen))
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
		rc = ensure_dirs(hb, err, errlen);
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
	if (ensure_dirs(kb, err, errlen) == 0 && !resolver_ready(kb)) {
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

	make_args(b, argv, own, 2, extra);
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
	const char *(*argv)[MAX_ARGS] = xcalloc((size_t)n, sizeof(*argv));
	char *(*own)[MAX_ARGS] = xcalloc((size_t)n, sizeof(*own));
	int nreq = 0, rc = 0;
	int *index = xcalloc((size_t)n, sizeof(*index));

	for (int i = 0; i < n; i++) {
		r[i].text = NULL;
		r[i].err[0] = 0;
		if (resolution_start(b, &r[i], argv[nreq], own[nreq])) {
			free_args(own[nreq]);
			continue;
		}
		reqs[nreq] = (struct spawn_req){ .argv = argv[nreq], .log_path = r[i].log_path,
						 .timeout = 600 };
		index[nreq++] = i;
	}
	if (spawn_run_all(reqs, nreq, b->jobs, res)) {
		make_cannot_run(b, err, errlen);
		rc = -1;
	}
	for (int k = 0; k < nreq; k++) {
		if (!rc)
			resolution_finish(b, &r[index[k]], &res[k]);
		free_args(own[k]);
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

/* Copies the config into the build directory unless it is already there byte for byte. */
static int install_config(const struct build_ctx *b, const char *config_path)
{
	char *dot = xasprintf("%s/.config", b->build_dir);
	char *want = read_file(config_path, NULL), *have = read_file(dot, NULL);
	int rc = 0;

	if (!want)
		rc = -1;
	else if (!have || strcmp(want, have))
		rc = write_file_atomic(dot, want, strlen(want));
	free(dot);
	free(want);
	free(have);
	return rc;
}

static char *building_mark(const char *build_dir)
{
	return xasprintf("%s/.kcmpm-building", build_dir);
}

/* nftw has no argument for its callback: the walk's root, the mark's time, the count and the
 * first failure live here, for the one walk build_recover_interrupted makes at a time (the
 * lock: each arch's thread may recover its own build directory). */
static pthread_mutex_t recover_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *recover_root;
static struct timespec recover_since;
static int recover_removed, recover_errno;

static int remove_if_recent(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	/* include/config/ holds what syncconfig writes: auto.conf and auto.conf.cmd, renamed into
	 * place whole, and empty files touched for each symbol that changed. None can be half
	 * written, and together they say which objects the config change leaves to recompile:
	 * removing the touched files would lose that, and removing auto.conf would make the next
	 * sync touch every symbol, a full rebuild. */
	if (type == FTW_D && !strncmp(path, recover_root, strlen(recover_root)) &&
	    !strcmp(path + strlen(recover_root), "/include/config"))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F && type != FTW_SL)
		return FTW_CONTINUE;
	if (st->st_mtim.tv_sec > recover_since.tv_sec ||
	    (st->st_mtim.tv_sec == recover_since.tv_sec &&
	     st->st_mtim.tv_nsec >= recover_since.tv_nsec)) {
		if (unlink(path)) {
			recover_errno = errno;
			return FTW_STOP;
		}
		recover_removed++;
	}
	return FTW_CONTINUE;
}

int build_recover_interrupted(const char *build_dir)
{
	char *mark = building_mark(build_dir);
	struct stat st;
	int rc, e;

	if (lstat(mark, &st)) {
		free(mark);
		return errno == ENOENT ? 0 : -1;
	}
	pthread_mutex_lock(&recover_lock);
	recover_root = build_dir;
	recover_since = st.st_mtim;
	recover_removed = recover_errno = 0;
	rc = nftw(build_dir, remove_if_recent, 32, FTW_PHYS | FTW_ACTIONRETVAL); /* the mark too */
	rc = rc || recover_errno ? -1 : recover_removed;
	e = recover_errno;
	pthread_mutex_unlock(&recover_lock);
	free(mark);
	if (e)
		errno = e;
	return rc;
}

/* build_recover_interrupted, said out loud. Returns 0, or -1 with errno set. */
static int recover_build_dir(const struct build_ctx *b)
{
	int removed = build_recover_interrupted(b->build_dir);

	if (removed > 0)
		fprintf(stderr, "kcmp-matrix: the last kernel build in %s was interrupted; removed "
			"the %d files written since it started, so Kbuild makes them again\n",
			b->build_dir, removed);
	return removed < 0 ? -1 : 0;
}

/* Does the config at path have loadable modules? */
static int config_has_modules(const char *path)
{
	char *text = read_file(path, NULL);
	int yes = text && kconfig_bool(text, "MODULES", 1) == 'y';

	free(text);
	return yes;
}

/* The -j (unless jobs come from a jobserver: a -j on make's command line would make it ignore
 * MAKEFLAGS' one), timestamp and target words of a kernel build (with "modules" when the
 * config has them, so an m symbol is really built as a module); free each. Returns how many. */
static int kernel_words(const struct build_ctx *b, const char *tag, int modules, int own_jobs,
			char *words[6])
{
	int n = 0;

	if (own_jobs)
		words[n++] = xasprintf("-j%d", b->jobs);
	words[n++] = xasprintf("KBUILD_BUILD_TIMESTAMP=kcmpm-%s", tag);
	words[n++] = xstrdup("KBUILD_BUILD_USER=kcmp-matrix");
	words[n++] = xstrdup("KBUILD_BUILD_HOST=kcmp-matrix");
	words[n++] = xstrdup(b->arch->make_target);
	if (modules)
		words[n++] = xstrdup("modules");
	return n;
}

/* The modules this build made: modules.order (which Kbuild writes anew for every build, so a
 * module of an earlier cell's config is never listed) as "dir/name.ko" words, each checked to
 * exist. Returns 0, or -1 when a listed module file is missing (its name in buf). */
static int list_modules(const struct build_ctx *b, char *buf, size_t len)
{
	char *path = xasprintf("%s/modules.order", b->build_dir);
	char *text = read_file(path, NULL), *save = NULL;
	size_t used = 0;
	int rc = 0;

	buf[0] = 0;
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line && rc == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *dot = strrchr(line, '.'), *ko;

		if (dot && (!strcmp(dot, ".o") || !strcmp(dot, ".ko")))
			*dot = 0;
		ko = xasprintf("%s/%s.ko", b->build_dir, line);
		if (!path_exists(ko)) {
			snprintf(buf, len, "%s.ko", line);
			rc = -1;
		} else if (used + strlen(line) + 5 < len) {
			used += (size_t)snprintf(buf + used, len - used, "%s%s.ko", used ? " " : "",
						 line);
		}
		free(ko);
	}
	free(text);
	free(path);
	return rc;
}

/* Did make run its own syncconfig (a "SYNC include/config/..." line in the log)? */
static int kbuild_synced(const char *log_path)
{
	char *log = read_file(log_path, NULL);
	int yes = log && strstr(log, "  SYNC    include/config/") != NULL;

	free(log);
	return yes;
}

char *build_reproducer(const struct build_ctx *b, const char *tag, int modules,
		       const char *out_dir)
{
	struct build_ctx there = *b;
	char *config[] = { xstrdup("olddefconfig") }, *kernel[6];
	const char *argv[MAX_ARGS];
	char *own[MAX_ARGS], *lines[2];
	int nword;

	there.build_dir = (char *)out_dir;
	nword = kernel_words(b, tag, modules, 1, kernel);
	make_args(&there, argv, own, 1, config);
	lines[0] = spawn_format_argv(argv);
	free_args(own);
	make_args(&there, argv, own, nword, kernel);
	lines[1] = spawn_format_argv(argv);
	free_args(own);
	char *text = xasprintf("%s\n%s\n", lines[0], lines[1]);

	free(lines[0]);
	free(lines[1]);
	return text;
}

/* Runs a kernel's make: alone with its own -j, or as a client of b->jobserver in a slot taken
 * for it (jobserver.h). Returns 0 when it ran, or -1 with why in err. */
static int run_make_in_slot(const struct build_ctx *b, const char *const *argv,
			    const char *log_path, struct spawn_result *res, char *err,
			    size_t errlen)
{
	struct spawn_req req = { .argv = argv, .log_path = log_path, .timeout = b->timeout };
	const char *env[] = { b->jobserver ? b->jobserver->makeflags : NULL, NULL };
	int rc;

	if (b->jobserver) {
		req.env = env;
		req.pass_fds = b->jobserver->fd;
		req.npass_fds = 2;
	}
	if (jobserver_take(b->jobserver, err, errlen))
		return -1;
	rc = spawn_run(&req, res);
	if (rc)
		make_cannot_run(b, err, errlen);
	jobserver_give(b->jobserver);
	return rc;
}

int build_kernel(const struct build_ctx *b, const char *config_path, const char *tag,
		 const char *log_path, const char *image_out, struct build_outcome *out, char *err,
		 size_t errlen)
{
	char *extra[6];
	const char *argv[MAX_ARGS];
	char *own[MAX_ARGS];
	char *image = xasprintf("%s/%s", b->build_dir, b->arch->image), *mark = NULL;
	struct spawn_result res;
	int rc = 0;

	*out = (struct build_outcome){ 0 };
	err[0] = 0;
	make_args(b, argv, own, kernel_words(b, tag, config_has_modules(config_path),
					     b->jobserver == NULL, extra), extra);
	unlink(log_path);
	if (ensure_dirs(b, err, errlen) || recover_build_dir(b) || install_config(b, config_path)) {
		if (!*err)
			snprintf(err, errlen, "cannot install '%s' in '%s': %s", config_path,
				 b->build_dir, strerror(errno));
		rc = -1;
		goto out;
	}
	/* A stale image from an earlier cell must never stand in for this one. */
	unlink(image);
	mark = building_mark(b->build_dir);
	if (write_file_atomic(mark, tag, strlen(tag))) {
		snprintf(err, errlen, "cannot write '%s': %s", mark, strerror(errno));
		rc = -1;
		goto out;
	}
	/* after the mark: an interrupted sync is undone like an interrupted build */
	if (b->syncconfig && b->syncconfig->pid > 0) {
		char why[600];

		if (resolver_sync(b->syncconfig, b->build_dir, why, sizeof(why)) == 0)
			out->synced = 1;
		else
			warn("%s: the in-process syncconfig did not sync (%s); Kbuild syncs it",
			     b->build_dir, why);
	}
	if (run_make_in_slot(b, argv, log_path, &res, err, errlen)) {
		rc = -1;
		goto out;
	}
	/* make that ended by itself deleted what it left half-made (.DELETE_ON_ERROR) */
	if (!res.timed_out && !res.lost && res.status < 128)
		unlink(mark);
	out->seconds = res.seconds;
	if (out->synced && kbuild_synced(log_path)) {
		warn("%s: Kbuild ran syncconfig again after the in-process one (see %s); the "
		     "in-process sync saved nothing", b->build_dir, log_path);
		out->synced = 0;
	}
	if (res.timed_out) {
		out->timed_out = 1;
		snprintf(out->first_error, sizeof(out->first_error), "the build did not finish within "
			 "%.0f s; its make was killed (see %s)", b->timeout, log_path);
	} else if (res.lost || res.status >= 128) {
		out->machine_fault = 1;
		if (res.lost)
			snprintf(out->first_error, sizeof(out->first_error), "make's end could not be "
				 "observed (its status was lost; see %s)", log_path);
		else
			snprintf(out->first_error, sizeof(out->first_error), "make was killed by signal "
				 "%d, not by the harness (the OOM killer sends 9; see %s)",
				 res.status - 128, log_path);
	} else if (res.status == 0 && list_modules(b, out->modules, sizeof(out->modules))) {
		snprintf(out->first_error, sizeof(out->first_error), "make succeeded but left no %.400s, "
			 "which modules.order lists", out->modules);
		out->modules[0] = 0;
	} else if (res.status == 0 && copy_file(image, image_out) == 0) {
		out->ok = 1;
	} else if (res.status == 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot copy '%s' to '%s': %s", image, image_out,
			 strerror(errno));
		rc = -1;
	} else {
		char *log = read_file(log_path, NULL);

		/* A full disk is this machine's problem, not the kernel's: no verdict. */
		if ((!log && errno == ENOSPC) || (log && strstr(log, "No space left on device"))) {
			snprintf(err, errlen, "the disk is full (No space left on device) while "
				 "building in '%s'; see %s. Free space and run again: finished cells "
				 "are kept", b->build_dir, log_path);
			free(log);
			rc = -1;
			goto out;
		}
		if (res.status == 0)
			snprintf(out->first_error, sizeof(out->first_error),
				 "make succeeded but left no %s", b->arch->image);
		else if (build_log_killed(log ? log : "", out->first_error,
					  sizeof(out->first_error)))
			out->machine_fault = 1;
		else
			build_first_error(log ? log : "", b->src, out->first_error,
					  sizeof(out->first_error));
		free(log);
	}
out:
	free_args(own);
	free(image);
	free(mark);
	return rc;
}

/* Is this make's report of a recipe that died by a signal? make says "*** [target] Killed"
 * (strsignal) when its own child was killed, and "*** [target] Error 137" when the recipe's
 * shell was the parent of the killed program (128 + the signal). A compile error is
 * "Error 1" or "Error 2". */
static int make_reports_a_signal(const char *s, size_t n)
{
	const char *star = memmem(s, n, "*** [", 5), *end, *after;
	long code;

	if (!star || !(end = memmem(star, n - (size_t)(star - s), "] ", 2)))
		return 0;
	after = end + 2;
	if ((size_t)(after - s) >= n)
		return 0;
	if (strncmp(after, "Error ", 6))
		return 1;	/* a signal's name: Killed, Terminated, Segmentation fault ... */
	code = strtol(after + 6, NULL, 10);
	return code > 128 && code < 128 + 65;
}

int build_log_killed(const char *log, char *why, size_t len)
{
	/* what the compiler driver and the allocators print when the machine took the memory
	 * or a signal took the program; never a verdict on the code being compiled */
	static const char *const marks[] = { "signal terminated program",
					     "internal compiler error: Killed",
					     "virtual memory exhausted", "out of memory allocating" };

	for (const char *p = log; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int found = make_reports_a_signal(p, n);

		for (size_t i = 0; !found && i < sizeof(marks) / sizeof(marks[0]); i++)
			found = memmem(p, n, marks[i], strlen(marks[i])) != NULL;
		if (found) {
			snprintf(why, len, "a program of the build died by a signal or ran out of "
				 "memory, the machine's fault, not the kernel's: %.*s",
				 (int)(n > 300 ? 300 : n), p);
			return 1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static int is_error_line(const char *s, size_t n)
{
	static const char *const marks[] = { ": error: ", ": fatal error: ", "undefined reference to",
					     "multiple definition of", "Error: " };

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (memmem(s, n, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}

void build_first_error(const char *log, const char *tree_path, char *buf, size_t len)
{
	const char *make_line = NULL, *last = NULL, *found = NULL;
	size_t make_len = 0, last_len = 0, found_len = 0, tlen = strlen(tree_path);

	for (const char *p = log; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n) {
			last = p;
			last_len = n;
		}
		if (!found && is_error_line(p, n)) {
			found = p;
			found_len = n;
		}
		if (!make_line && memmem(p, n, "*** ", 4)) {
			make_line = p;
			make_len = n;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!found) {
		found = make_line ? make_line : last;
		found_len = make_line ? make_len : last_len;
	}
	if (!found) {
		snprintf(buf, len, "build failed with an empty log");
		return;
	}
	if (tlen && found_len > tlen + 1 && !strncmp(found, tree_path, tlen) && found[tlen] == '/') {
		found += tlen + 1;
		found_len -= tlen + 1;
	}
	snprintf(buf, len, "%.*s", (int)found_len, found);
}
