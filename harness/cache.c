/* cache: see cache.h. */
#define _GNU_SOURCE
#include "cache.h"
#include "digest.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries found corrupt and thrown away in this process (see cache_discarded); counted by
 * both arches' threads, atomically. */
static int discarded;
/* Entries of an older manifest format found and thrown away (cache_obsolete). */
static int obsolete;

static char *entry_dir(const char *cache_dir, const char *kind, const char *key)
{
	return xasprintf("%s/%s/%s", cache_dir, kind, key);
}

char *cache_file(const char *cache_dir, const char *kind, const char *key, const char *file)
{
	char *dir = entry_dir(cache_dir, kind, key), *path = xasprintf("%s/%s", dir, file);

	mkdir_p(dir);
	free(dir);
	return path;
}

/* The manifest's format: 3, each file's SHA-256 (digest.h). Formats 1 and 2 (home-made 64-bit
 * hashes) belonged to entries under keys of those hashes, which no run asks for any more; an
 * entry whose manifest is not this format never matches, so it is never misread. */
enum { MANIFEST_FORMAT = 3 };

/* "NAME SIZE SHA256" for one file of an entry; NULL when it cannot be read. */
static char *manifest_line(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), hex[65], *line = NULL;
	size_t len;
	char *data = read_file(path, &len);

	if (data) {
		struct digest d;

		digest_init(&d);
		digest_add(&d, data, len);
		digest_hex(&d, hex);
		line = xasprintf("%s %zu %s\n", name, len, hex);
	}
	free(data);
	free(path);
	return line;
}

/* The manifest of an entry as it is now: every file but the manifest itself and temporary
 * files, sorted by name. NULL when a file cannot be read. */
static char *manifest(const char *dir)
{
	struct dirent **names;
	struct strbuf sb = { 0 };
	int n = scandir(dir, &names, NULL, alphasort), ok = n >= 0;

	sb_printf(&sb, "format %d\n", MANIFEST_FORMAT);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (ok && name[0] != '.' && strcmp(name, "complete") && !strstr(name, ".tmp.")) {
			char *line = manifest_line(dir, name);

			ok = line != NULL;
			if (line)
				sb_add(&sb, line, strlen(line));
			free(line);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (!ok)
		sb_free(&sb);
	return ok ? sb.s : NULL;
}

int cache_complete(const char *cache_dir, const char *kind, const char *key)
{
	char *dir = entry_dir(cache_dir, kind, key), *mark = xasprintf("%s/complete", dir);
	char *recorded = read_file(mark, NULL), *now = NULL;
	int hit = 0;

	if (!recorded)
		goto out;	/* no entry, or one cut off before it was complete */
	now = manifest(dir);
	hit = now && !strcmp(now, recorded);
	if (!hit && now && strncmp(recorded, now, strcspn(now, "\n") + 1)) {
		/* another format's manifest says nothing of the files: obsolete, not corrupt */
		remove_tree(dir);
		mkdir_p(dir);
		__atomic_add_fetch(&obsolete, 1, __ATOMIC_RELAXED);
	} else if (!hit) {
		warn("cache entry '%s' does not match its checksums (a file changed, shrank or went "
		     "missing): thrown away and made again", dir);
		remove_tree(dir);
		mkdir_p(dir);	/* empty, so paths a caller made in it stay valid: a miss */
		__atomic_add_fetch(&discarded, 1, __ATOMIC_RELAXED);
	}
out:
	free(now);
	free(recorded);
	free(mark);
	free(dir);
	return hit;
}

int cache_finish(const char *cache_dir, const char *kind, const char *key)
{
	char *dir = entry_dir(cache_dir, kind, key), *path = cache_file(cache_dir, kind, key, "complete");
	char *text = manifest(dir);
	int rc = text ? write_file_atomic(path, text, strlen(text)) : -1;

	free(text);
	free(path);
	free(dir);
	return rc;
}

int cache_discarded(void)
{
	return __atomic_load_n(&discarded, __ATOMIC_RELAXED);
}

int cache_obsolete(void)
{
	return __atomic_load_n(&obsolete, __ATOMIC_RELAXED);
}

void cache_key(char out[17], const char *const *parts)
{
	struct digest h;

	digest_init(&h);
	for (int i = 0; parts[i]; i++)
		digest_add_string(&h, parts[i]);
	digest_tag(&h, out);
}

/* Stamps an entry as used now (its manifest's time), for cache_prune. A cache this process
 * cannot write keeps its old stamp: harmless. */
static void mark_used(const char *cache_dir, const char *kind, const char *key)
{
	char *mark = xasprintf("%s/%s/%s/complete", cache_dir, kind, key);

	utimensat(AT_FDCWD, mark, NULL, 0);
	free(mark);
}

int cache_reusable(const struct cache_use *u, const char *kind, const char *key)
{
	if (!u->reuse || !cache_complete(u->dir, kind, key))
		return 0;
	mark_used(u->dir, kind, key);
	return 1;
}

char *cache_get_text(const struct cache_use *u, const char *kind, const char *key,
		     const char *file)
{
	char *path, *text;

	if (!cache_reusable(u, kind, key))
		return NULL;
	path = cache_file(u->dir, kind, key, file);
	text = read_file(path, NULL);
	free(path);
	return text;
}

void cache_put_text(const struct cache_use *u, const char *kind, const char *key,
		    const char *file, const char *text)
{
	char *path;

	if (!u->store)
		return;
	path = cache_file(u->dir, kind, key, file);
	if (write_file_atomic(path, text, strlen(text)) == 0)
		cache_finish(u->dir, kind, key);
	free(path);
}

void cache_begin(const struct cache_use *u, const char *kind, const char *key)
{
	char *dir;

	if (!u->store)
		return;
	dir = entry_dir(u->dir, kind, key);
	remove_tree(dir);
	mkdir_p(dir);	/* for the paths cache_file() gave out before */
	free(dir);
}

/* The walks below collect the entries first (checking or pruning one changes the tree, which a
 * walk in progress must not see); nftw gives no argument to its callback, so one walk at a
 * time. */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t walk_root;		/* strlen of "<cache>/" */
static struct strbuf walk_found;	/* "kind.../key\n" per entry */

/* A key as cache_key() makes it: 16 lowercase hex digits. No tree, variant or arch name in a
 * kind's path is one. */
static int is_key(const char *name)
{
	size_t n = strspn(name, "0123456789abcdef");

	return n == 16 && !name[n];
}

/* Each key directory is an entry, complete or not: <cache>/<kind...>/<key>/. */
static int found_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type != FTW_D || !is_key(path + ftw->base))
		return FTW_CONTINUE;
	sb_printf(&walk_found, "%s\n", path + walk_root);
	return FTW_SKIP_SUBTREE;
}

/* Every entry directory of the cache's entry kinds, as "kind.../key\n" lines (caller frees);
 * NULL when the cache cannot be read. */
static char *list_entries(const char *cache_dir)
{
	static const char *const kinds[] = { "base", "resolved", "kernels", "boots", NULL };
	int rc = 0;

	pthread_mutex_lock(&walk_lock);
	walk_root = strlen(cache_dir) + 1;
	walk_found = (struct strbuf){ 0 };
	sb_add(&walk_found, "", 0);
	for (int i = 0; kinds[i] && rc == 0; i++) {
		char *dir = xasprintf("%s/%s", cache_dir, kinds[i]);

		if (path_exists(dir) && nftw(dir, found_entry, 16, FTW_PHYS | FTW_ACTIONRETVAL))
			rc = -1;
		free(dir);
	}
	pthread_mutex_unlock(&walk_lock);
	if (rc)
		sb_free(&walk_found);
	return walk_found.s;
}

/* The bytes of the regular files directly in dir. */
static long long dir_bytes(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long long n = 0;

	while (d && (e = readdir(d))) {
		char *f = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;

		if (e->d_name[0] != '.' && stat(f, &st) == 0 && S_ISREG(st.st_mode))
			n += st.st_size;
		free(f);
	}
	if (d)
		closedir(d);
	return n;
}

int cache_verify_all(const char *cache_dir, struct cache_verify *v)
{
	char *list = list_entries(cache_dir), *save = NULL;
	int rc;

	*v = (struct cache_verify){ 0 };
	for (char *e = strtok_r(list, "\n", &save); e; e = strtok_r(NULL, "\n", &save)) {
		char *slash = strrchr(e, '/'), *dir = xasprintf("%s/%s", cache_dir, e);
		char *mark = xasprintf("%s/complete", dir);
		int before = cache_discarded(), old_before = cache_obsolete();

		if (path_exists(mark)) {
			v->bytes += dir_bytes(dir);
			*slash = 0;
			v->entries++;
			cache_complete(cache_dir, e, slash + 1);
			v->corrupt += cache_discarded() - before;
			v->obsolete += cache_obsolete() - old_before;
		}
		free(mark);
		free(dir);
	}
	rc = list ? 0 : -1;
	free(list);
	return rc;
}

/* An entry's last use: its manifest's time (written when the entry was made, touched at each
 * reuse); for an entry never completed, its directory's. -1 when it has neither. */
static time_t last_used(const char *dir)
{
	char *mark = xasprintf("%s/complete", dir);
	struct stat st;
	time_t t = stat(mark, &st) == 0 || stat(dir, &st) == 0 ? st.st_mtime : -1;

	free(mark);
	return t;
}

/* Removes the directories between an entry and its kind that the entry's removal left empty
 * (kernels/<tree>/<variant>/<arch>/ of a tree no run asks for any more). */
static void remove_empty_parents(const char *cache_dir, char *rel)
{
	for (char *slash = strrchr(rel, '/'); slash; slash = strrchr(rel, '/')) {
		char *dir;
		int gone;

		*slash = 0;
		if (!strchr(rel, '/'))
			break;	/* the kind itself stays */
		dir = xasprintf("%s/%s", cache_dir, rel);
		gone = rmdir(dir) == 0;
		free(dir);
		if (!gone)
			break;
	}
}

int cache_prune(const char *cache_dir, time_t older_than, struct cache_prune *pr)
{
	char *list = list_entries(cache_dir), *save = NULL;
	int rc;

	*pr = (struct cache_prune){ 0 };
	for (char *e = strtok_r(list, "\n", &save); e; e = strtok_r(NULL, "\n", &save)) {
		char *dir = xasprintf("%s/%s", cache_dir, e);
		time_t used = last_used(dir);
		long long bytes = dir_bytes(dir);

		if (used >= 0 && used < older_than && remove_tree(dir) == 0) {
			pr->removed++;
			pr->removed_bytes += bytes;
			remove_empty_parents(cache_dir, e);
		} else {
			pr->kept++;
			pr->kept_bytes += bytes;
		}
		free(dir);
	}
	rc = list ? 0 : -1;
	free(list);
	return rc;
}
