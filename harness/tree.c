/* tree: see tree.h. */
#define _GNU_SOURCE
#include "tree.h"
#include "digest.h"
#include "cache_layout.h"
#include "spawn.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int looks_like_kernel(const char *path)
{
	static const char *const needed[] = { "Makefile", "Kconfig", "scripts/kconfig/Makefile",
					      "init/Kconfig" };

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		char *p = xasprintf("%s/%s", path, needed[i]);
		int ok = path_exists(p);

		free(p);
		if (!ok)
			return 0;
	}
	return 1;
}

static char *field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v, *e;

		if (strncmp(p, key, n))
			continue;
		v = p + n;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		e = v;
		while (*e && *e != '\n' && !isspace((unsigned char)*e))
			e++;
		return strndup(v, (size_t)(e - v));
	}
	return NULL;
}

char *tree_version_from_makefile(const char *text)
{
	char *v = field(text, "VERSION"), *p = field(text, "PATCHLEVEL");
	char *s = field(text, "SUBLEVEL"), *e = field(text, "EXTRAVERSION");
	char *out = NULL;

	if (v && p && s && *v && *p)
		out = xasprintf("%s.%s.%s%s", v, p, *s ? s : "0", e ? e : "");
	free(v);
	free(p);
	free(s);
	free(e);
	return out;
}

static int fill_version(struct tree *t, char *err, size_t errlen)
{
	char *mk = xasprintf("%s/Makefile", t->path);
	char *text = read_file(mk, NULL);

	t->version = text ? tree_version_from_makefile(text) : NULL;
	free(text);
	if (!t->version) {
		snprintf(err, errlen, "'%s' has no VERSION/PATCHLEVEL/SUBLEVEL: not a kernel "
			 "Makefile", mk);
		free(mk);
		return -1;
	}
	free(mk);
	return 0;
}

int tree_from_path(const char *path, struct tree *t, char *err, size_t errlen)
{
	char real[PATH_MAX];
	char hex[17];

	*t = (struct tree){ 0 };
	if (!realpath(path, real) || !looks_like_kernel(real)) {
		snprintf(err, errlen, "KSRC '%s' is not a kernel source tree (needs Makefile, Kconfig, "
			 "init/Kconfig, scripts/kconfig/); point KSRC at the top of a Linux tree",
			 path);
		return -1;
	}
	t->path = xstrdup(real);
	digest_tag_of(real, strlen(real), hex);
	t->tag = xasprintf("ksrc-%.12s", hex);
	return fill_version(t, err, errlen);
}

/* "linux-source-6.1.tar.xz" -> "linux-source-6.1" */
static char *tarball_stem(const char *tarball)
{
	char *copy = xstrdup(tarball), *base = xstrdup(basename(copy)), *dot = strstr(base, ".tar");

	free(copy);
	if (dot)
		*dot = 0;
	return base;
}

/* The single directory an unpack produced inside dir, or NULL. */
static char *only_subdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *found = NULL;
	int n = 0;

	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			n++;
			free(found);
			found = xasprintf("%s/%s", dir, e->d_name);
		}
	closedir(d);
	if (n != 1) {
		free(found);
		return NULL;
	}
	return found;
}

/* An unpack a killed run left (.unpack.<pid>, about 1 GB): the cache is locked by this run,
 * so none of them is anyone's work in progress. Returns how many were removed. */
static int remove_stale_unpacks(const char *src_dir)
{
	DIR *d = opendir(src_dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, ".unpack.", 8) && strcmp(e->d_name, ".unpack.log")) {
			char *path = xasprintf("%s/%s", src_dir, e->d_name);

			warn("removing '%s', an unpack an interrupted run left", path);
			remove_tree(path);
			free(path);
			n++;
		}
	if (d)
		closedir(d);
	return n;
}

int tree_remove_stale_unpacks(const char *cache_dir)
{
	char *src_dir = cache_src_dir(cache_dir);
	int n = remove_stale_unpacks(src_dir);

	free(src_dir);
	return n;
}

/* The unpack's time limit: 15 s on this machine, a minute on a slow one; a tar that takes
 * half an hour is stuck. */
enum { UNPACK_TIMEOUT = 1800 };

static int unpack(const char *tarball, const char *src_dir, const char *final, char *err,
		  size_t errlen)
{
	char *tmp = xasprintf("%s/.unpack.%ld", src_dir, (long)getpid());
	char *log = xasprintf("%s/.unpack.log", src_dir);
	const char *argv[] = { "tar", "-xf", tarball, "-C", tmp, NULL };
	struct spawn_result res = { 0 };
	char *top = NULL;
	int rc = -1;

	fprintf(stderr, "kcmp-matrix: unpacking %s into %s (once; about 15 s)\n", tarball, final);
	remove_stale_unpacks(src_dir);
	if (mkdir_p(tmp)) {
		snprintf(err, errlen, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	unlink(log);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log,
					   .timeout = UNPACK_TIMEOUT }, &res) || res.status) {
		snprintf(err, errlen, "unpacking '%s' %s (see %s); is the disk full?", tarball,
			 res.timed_out ? "did not finish within its time limit" : "failed", log);
		goto out;
	}
	top = only_subdir(tmp);
	if (!top || rename(top, final)) {
		snprintf(err, errlen, "'%s' did not unpack to a single directory", tarball);
		goto out;
	}
	rc = 0;
out:
	remove_tree(tmp);
	free(top);
	free(tmp);
	free(log);
	return rc;
}

/* Where a tarball is unpacked in the cache. Caller frees. */
static char *unpacked_path(const char *tarball, const char *cache_dir)
{
	char *stem = tarball_stem(tarball), *path = cache_unpacked(cache_dir, stem);

	free(stem);
	return path;
}

int tree_check_tarball(const char *tarball, const char *package, const char *cache_dir,
		       char *err, size_t errlen)
{
	char *final = unpacked_path(tarball, cache_dir);
	int unpacked = path_exists(final);
	struct statvfs fs;

	free(final);
	if (unpacked)
		return 0;
	if (access(tarball, R_OK)) {
		if (package)
			snprintf(err, errlen, "kernel tarball '%s' not found; install it: apt-get "
				 "install %s", tarball, package);
		else
			snprintf(err, errlen, "kernel tarball '%s' not found or unreadable; give "
				 "another tarball or KSRC=/path/to/tree", tarball);
		return -1;
	}
	if (statvfs(cache_dir, &fs) == 0 &&
	    (double)fs.f_bavail * (double)fs.f_frsize < TREE_UNPACK_BYTES) {
		snprintf(err, errlen, "unpacking '%s' into '%s' needs %.1f GiB, and only %.1f GiB are "
			 "free; free space or give CACHE= on a larger disk", tarball, cache_dir,
			 TREE_UNPACK_BYTES / 1073741824.0,
			 (double)fs.f_bavail * (double)fs.f_frsize / 1073741824.0);
		return -1;
	}
	return 0;
}

/* What names a tarball's content: its path, size and mtime (a new Debian package of the same
 * name changes at least the mtime). NULL when it cannot be read. */
static char *tarball_identity(const char *tarball)
{
	struct stat st;

	if (stat(tarball, &st))
		return NULL;
	return xasprintf("tarball %s %lld %lld", tarball, (long long)st.st_size,
			 (long long)st.st_mtime);
}

/* The unpacked tree came from another tarball than the one there now (a new point release):
 * it goes, with everything made from it (variant trees, worktrees, build and config
 * directories), so the new tree is unpacked and its kernels built afresh. Kernels and boots in
 * the cache are keyed by the identity, so the old ones are never taken for the new tree's. */
static void forget_old_tree(const char *cache_dir, const char *stem, const char *final)
{

	fprintf(stderr, "kcmp-matrix: %s changed since it was unpacked; unpacking it again and "
		"building its kernels afresh\n", stem);
	remove_tree(final);
	for (int i = 0; cache_layout_derived[i]; i++) {
		char *dir = xasprintf("%s/%s/%s", cache_dir, cache_layout_derived[i], stem);

		remove_tree(dir);
		free(dir);
	}
}

int tree_from_tarball(const char *tarball, const char *package, const char *cache_dir,
		      struct tree *t, char *err, size_t errlen)
{
	char *stem = tarball_stem(tarball);
	char *src_dir = cache_src_dir(cache_dir);
	char *final = unpacked_path(tarball, cache_dir);
	char *record = xasprintf("%s.identity", final), *identity = tarball_identity(tarball);
	char *recorded = read_file(record, NULL);
	int rc = -1;

	*t = (struct tree){ 0 };
	if (identity && recorded && strcmp(identity, recorded) && path_exists(final))
		forget_old_tree(cache_dir, stem, final);
	if (!path_exists(final)) {
		if (tree_check_tarball(tarball, package, cache_dir, err, errlen))
			goto out;
		if (mkdir_p(src_dir)) {
			snprintf(err, errlen, "cannot create cache directory '%s': %s", src_dir,
				 strerror(errno));
			goto out;
		}
		if (unpack(tarball, src_dir, final, err, errlen))
			goto out;
	}
	if (!looks_like_kernel(final)) {
		snprintf(err, errlen, "'%s' is not a kernel tree; remove it and run again to "
			 "re-unpack %s", final, tarball);
		goto out;
	}
	/* A tree unpacked before identities were recorded came from this tarball as far as
	 * anyone can tell: it is recorded as such. */
	if (identity && (!recorded || strcmp(identity, recorded)) &&
	    write_file_atomic(record, identity, strlen(identity))) {
		snprintf(err, errlen, "cannot write '%s': %s", record, strerror(errno));
		goto out;
	}
	t->path = final;
	final = NULL;
	t->tag = xstrdup(stem);
	/* unpacked earlier, tarball gone since: the identity it was unpacked from */
	t->identity = identity ? identity : recorded ? xstrdup(recorded)
						     : xasprintf("unpacked %s", t->path);
	identity = NULL;
	rc = fill_version(t, err, errlen);
out:
	free(identity);
	free(recorded);
	free(record);
	free(stem);
	free(src_dir);
	free(final);
	return rc;
}

void tree_free(struct tree *t)
{
	free(t->path);
	free(t->tag);
	free(t->version);
	free(t->identity);
	*t = (struct tree){ 0 };
}

/* nftw has no user pointer: the scan's state lives here for the duration of one call. */
static struct symbol_scan {
	int n;
	const char *const *names;
	char *type;
} scan;

/* The type an entry declares in its indented lines after "config NAME" ('t' tristate, 'b' bool,
 * '?' none seen: another definition of the symbol may give it). */
static char entry_type(const char *p)
{
	for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		const char *s = p + 1;

		if (*s != ' ' && *s != '\t' && *s != '\n')
			break;	/* the next entry */
		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "tristate", 8) || !strncmp(s, "def_tristate", 12))
			return 't';
		if (!strncmp(s, "bool", 4) || !strncmp(s, "def_bool", 8))
			return 'b';
	}
	return '?';
}

static void scan_text(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *s = p;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "menuconfig ", 11))
			s += 11;
		else if (!strncmp(s, "config ", 7))
			s += 7;
		else
			continue;
		while (*s == ' ')
			s++;
		for (int i = 0; i < scan.n; i++) {
			size_t len = strlen(scan.names[i]);

			if (!strncmp(s, scan.names[i], len) &&
			    (s[len] == '\n' || s[len] == 0 || isspace((unsigned char)s[len])) &&
			    (!scan.type[i] || scan.type[i] == '?'))
				scan.type[i] = entry_type(s);
		}
	}
}

static int scan_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type == FTW_D && !strcmp(path + ftw->base, ".git"))
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F && !strncmp(path + ftw->base, "Kconfig", 7)) {
		char *text = read_file(path, NULL);

		if (text)
			scan_text(text);
		free(text);
	}
	return FTW_CONTINUE;
}

/* The memo of an earlier scan of this tree: its first line the identity it was made for, then
 * "NAME TYPE" lines ('-' for not defined). Returns 0 when it answers for every name. */
static int read_symbol_memo(const char *memo, const char *identity, int n,
			    const char *const *names, char *type)
{
	char *text = read_file(memo, NULL), *nl = text ? strchr(text, '\n') : NULL;
	int found = 0;

	if (!nl || strncmp(text, identity, (size_t)(nl - text)) || strlen(identity) !=
	    (size_t)(nl - text)) {
		free(text);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *want = xasprintf("\n%s ", names[i]), *at = strstr(nl, want);

		if (at && strchr("tb?-", at[strlen(want)]) && at[strlen(want)]) {
			type[i] = at[strlen(want)] == '-' ? 0 : at[strlen(want)];
			found++;
		}
		free(want);
	}
	free(text);
	return found == n ? 0 : -1;
}

static void write_symbol_memo(const char *memo, const char *identity, int n,
			      const char *const *names, const char *type)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "%s\n", identity);
	for (int i = 0; i < n; i++)
		sb_printf(&sb, "%s %c\n", names[i], type[i] ? type[i] : '-');
	write_file_atomic(memo, sb.s, sb.len);	/* only a memo: a failure costs a scan */
	sb_free(&sb);
}

void tree_find_symbols(const char *path, const char *identity, int n, const char *const *names,
		       char *type)
{
	char *memo;

	if (n <= 0)
		return;
	memo = identity ? xasprintf("%s.symbols", path) : NULL;
	if (memo && read_symbol_memo(memo, identity, n, names, type) == 0) {
		free(memo);
		return;
	}
	memset(type, 0, (size_t)n);
	scan.n = n;
	scan.names = names;
	scan.type = type;
	nftw(path, scan_file, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	scan = (struct symbol_scan){ 0 };
	if (memo)
		write_symbol_memo(memo, identity, n, names, type);
	free(memo);
}
