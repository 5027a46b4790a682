/* The cache trusts nothing it can check: an entry whose files changed after it was finished is
 * thrown away and is a miss. */
#define _GNU_SOURCE
#include "cache.h"
#include "check.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* keys as cache_key() makes them: the walks of verify-cache and prune-cache know entries by them */
#define KEY_A "0123456789abcdef"
#define KEY_B "fedcba9876543210"

static void put(const char *dir, const char *key, const char *file, const char *text)
{
	char *path = cache_file(dir, "kernels", key, file);

	CHECK(write_file_atomic(path, text, strlen(text)) == 0);
	free(path);
}

TEST(cache_entries_are_checked_before_use)
{
	char dir[] = "/tmp/kcmpm-cache-XXXXXX", *path;
	int before = cache_discarded();

	CHECK(mkdtemp(dir) != NULL);
	CHECK(!cache_complete(dir, "kernels", "k1"));		/* no entry */
	put(dir, "k1", "image", "IMAGE");
	CHECK(!cache_complete(dir, "kernels", "k1"));		/* not finished */
	put(dir, "k1", "build.log", "log\n");
	CHECK(cache_finish(dir, "kernels", "k1") == 0);
	CHECK(cache_complete(dir, "kernels", "k1"));
	CHECK(cache_discarded() == before);

	put(dir, "k1", "image", "IMAGF");			/* same size, other bytes */
	CHECK(!cache_complete(dir, "kernels", "k1"));
	CHECK(cache_discarded() == before + 1);
	path = xasprintf("%s/kernels/k1/image", dir);
	CHECK(!path_exists(path));				/* thrown away */
	free(path);

	put(dir, "k2", "image", "IMAGE");
	CHECK(cache_finish(dir, "kernels", "k2") == 0);
	path = cache_file(dir, "kernels", "k2", "image");
	CHECK(truncate(path, 2) == 0);				/* a truncated image */
	free(path);
	CHECK(!cache_complete(dir, "kernels", "k2"));
	put(dir, "k3", "image", "IMAGE");
	CHECK(cache_finish(dir, "kernels", "k3") == 0);
	path = cache_file(dir, "kernels", "k3", "image");
	CHECK(unlink(path) == 0);				/* a file gone */
	free(path);
	CHECK(!cache_complete(dir, "kernels", "k3"));
	CHECK(cache_discarded() == before + 3);

	/* an entry from before manifests ("1") is never taken: its files cannot be checked */
	put(dir, "k4", "image", "IMAGE");
	put(dir, "k4", "complete", "1\n");
	CHECK(!cache_complete(dir, "kernels", "k4"));
	remove_tree(dir);
}

/* A changed byte deep in a large file is seen; the manifest holds each file's SHA-256 (the
 * known digest of a known text, so the hash is SHA-256 and not merely some hash); an entry
 * whose manifest is in an old format (home-made 64-bit hashes) is never taken, even where its
 * files are whole: a miss, made again. */
TEST(cache_manifests_are_sha256_and_old_formats_are_misses)
{
	char dir[] = "/tmp/kcmpm-cache-XXXXXX", *big = xcalloc(1, 1 << 20), *path, *mark;
	char key[17];

	CHECK(mkdtemp(dir) != NULL);
	memset(big, 'x', (1 << 20) - 1);
	put(dir, "k1", "image", big);
	CHECK(cache_finish(dir, "kernels", "k1") == 0);
	CHECK(cache_complete(dir, "kernels", "k1"));
	big[123459] = 'y';
	put(dir, "k1", "image", big);
	CHECK(!cache_complete(dir, "kernels", "k1"));

	put(dir, "k2", "image", "abc");
	CHECK(cache_finish(dir, "kernels", "k2") == 0);
	path = cache_file(dir, "kernels", "k2", "complete");
	mark = read_file(path, NULL);
	/* SHA-256("abc"), FIPS 180-2's first example */
	CHECK_STR(mark, "format 3\nimage 3 "
		  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n");
	free(mark);
	put(dir, "k2", "complete", "format 2\nimage 3 b1ebf6f6b3e1a0a4\n");
	{
		int corrupt = cache_discarded(), obsolete = cache_obsolete();

		/* an older harness's entry is a miss, but obsolete, not corrupt */
		CHECK(!cache_complete(dir, "kernels", "k2"));
		CHECK(cache_discarded() == corrupt && cache_obsolete() == obsolete + 1);
	}
	free(path);

	/* keys are the first 64 bits of the SHA-256 of the parts, each with its NUL */
	cache_key(key, (const char *const[]){ "ab", NULL });
	CHECK(strlen(key) == 16);
	{
		char other[17];

		cache_key(other, (const char *const[]){ "a", "b", NULL });
		CHECK(strcmp(key, other) != 0);
	}
	free(big);
	remove_tree(dir);
}

/* The cache policy in one place: a KSRC tree neither reuses nor stores; --force all stores but
 * never reuses. */
TEST(cache_use_policy)
{
	char dir[] = "/tmp/kcmpm-cache-XXXXXX";
	struct cache_use none, store_only, both;
	char *text;

	CHECK(mkdtemp(dir) != NULL);
	none = (struct cache_use){ .dir = dir };
	store_only = (struct cache_use){ .dir = dir, .store = 1 };
	both = (struct cache_use){ .dir = dir, .reuse = 1, .store = 1 };
	cache_put_text(&none, "resolved", "k1", "config", "CONFIG_A=y\n");
	CHECK(!cache_reusable(&both, "resolved", "k1"));	/* nothing was stored */
	cache_put_text(&store_only, "resolved", "k1", "config", "CONFIG_A=y\n");
	CHECK(cache_get_text(&store_only, "resolved", "k1", "config") == NULL);
	text = cache_get_text(&both, "resolved", "k1", "config");
	CHECK_STR(text, "CONFIG_A=y\n");
	free(text);
	remove_tree(dir);
}

/* verify-cache: every complete entry of every kind, nested kinds (kernels/<tree>/<variant>/
 * <arch>/) included, checked as a run checks it; a corrupt one counted and thrown away; an
 * unfinished one (no manifest) is no entry. */
TEST(cache_verify_all_checks_every_entry)
{
	char dir[] = "/tmp/kcmpm-cache-XXXXXX", *path;
	struct cache_verify v;
	const char *kinds[] = { "kernels/linux-source-6.1/v3/x86_64", "boots", "base" };

	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < 3; i++) {
		path = cache_file(dir, kinds[i], KEY_A, "data");
		CHECK(write_file_atomic(path, "0123456789", 10) == 0);
		free(path);
		CHECK(cache_finish(dir, kinds[i], KEY_A) == 0);
	}
	path = cache_file(dir, "resolved", KEY_B, "config");	/* unfinished */
	CHECK(write_file_atomic(path, "x", 1) == 0);
	free(path);
	path = cache_file(dir, "boots", KEY_A, "data");
	CHECK(write_file_atomic(path, "0123456788", 10) == 0);	/* changed after it was sealed */
	free(path);
	/* an older harness's manifest: obsolete, thrown away, not counted corrupt */
	path = cache_file(dir, "base", KEY_A, "complete");
	CHECK(write_file_atomic(path, "format 2\ndata 10 b1ebf6f6b3e1a0a4\n", 33) == 0);
	free(path);
	CHECK(cache_verify_all(dir, &v) == 0);
	CHECK(v.entries == 3);
	CHECK(v.corrupt == 1 && v.obsolete == 1);
	CHECK(v.bytes >= 30);
	CHECK(cache_verify_all(dir, &v) == 0);
	/* the corrupt one and the obsolete one are gone */
	CHECK(v.entries == 1 && v.corrupt == 0 && v.obsolete == 0);
	remove_tree(dir);
}

/* An entry of kind and key, finished, its last use set days ago (0: now). */
static void entry_used(const char *dir, const char *kind, const char *key, int days_ago)
{
	char *path = cache_file(dir, kind, key, "image");
	struct timespec when[2] = { { .tv_sec = time(NULL) - days_ago * 24 * 3600 } };

	CHECK(write_file_atomic(path, "IMAGE", 5) == 0);
	CHECK(cache_finish(dir, kind, key) == 0);
	free(path);
	path = cache_file(dir, kind, key, "complete");
	when[1] = when[0];
	CHECK(utimensat(AT_FDCWD, path, when, 0) == 0);
	free(path);
}

static int entry_exists(const char *dir, const char *kind, const char *key)
{
	char *path = xasprintf("%s/%s/%s", dir, kind, key);
	int there = path_exists(path);

	free(path);
	return there;
}

/* prune-cache: what no run used for the given days goes, whatever its kind; a reuse counts as a
 * use (cache_reusable stamps it); an entry a killed run left unfinished goes by its directory's
 * age, and a recent one (a run may be writing it) stays; working state is not touched, and a
 * kind's directories that emptied go with the last entry. */
TEST(cache_prune_removes_what_no_run_used)
{
	char dir[] = "/tmp/kcmpm-cache-XXXXXX", *path;
	const char *old_tree = "kernels/linux-source-6.1.190/v3/x86_64";
	const char *tree = "kernels/linux-source-6.1/v3/x86_64";
	struct cache_use use = { .reuse = 1, .reuse_boots = 1, .store = 1 };
	struct cache_prune pr;
	struct timespec long_ago[2] = { { .tv_sec = time(NULL) - 90 * 24 * 3600 } };

	CHECK(mkdtemp(dir) != NULL);
	use.dir = dir;
	entry_used(dir, old_tree, KEY_A, 60);	/* a tarball that is gone */
	entry_used(dir, tree, KEY_A, 1);
	entry_used(dir, tree, KEY_B, 45);	/* made long ago, reused below */
	entry_used(dir, "boots", KEY_A, 31);
	entry_used(dir, "base", KEY_A, 29);
	path = cache_file(dir, "resolved", KEY_A, "config");	/* left by a killed run */
	CHECK(write_file_atomic(path, "x", 1) == 0);
	free(path);
	path = xasprintf("%s/resolved/%s", dir, KEY_A);
	long_ago[1] = long_ago[0];
	CHECK(utimensat(AT_FDCWD, path, long_ago, 0) == 0);
	free(path);
	path = cache_file(dir, "resolved", KEY_B, "config");	/* being written now */
	CHECK(write_file_atomic(path, "x", 1) == 0);
	free(path);
	path = xasprintf("%s/src/linux-source-6.1.190", dir);	/* working state */
	CHECK(mkdir_p(path) == 0);
	CHECK(utimensat(AT_FDCWD, path, long_ago, 0) == 0);

	CHECK(cache_reusable(&use, tree, KEY_B));
	CHECK(cache_prune(dir, time(NULL) - 30 * 24 * 3600, &pr) == 0);
	CHECK(pr.removed == 3 && pr.kept == 4);
	CHECK(pr.removed_bytes > 5 + 5 + 1);	/* images, a config, manifests */
	CHECK(!entry_exists(dir, old_tree, KEY_A));
	CHECK(!entry_exists(dir, "kernels/linux-source-6.1.190", ""));	/* emptied, gone */
	CHECK(entry_exists(dir, "kernels", ""));
	CHECK(!entry_exists(dir, "boots", KEY_A));
	CHECK(!entry_exists(dir, "resolved", KEY_A));
	CHECK(entry_exists(dir, "resolved", KEY_B));
	CHECK(cache_complete(dir, tree, KEY_A) && cache_complete(dir, tree, KEY_B));
	CHECK(cache_complete(dir, "base", KEY_A));
	CHECK(path_exists(path));
	free(path);
	/* nothing used in the last 0 days: everything goes, the kinds stay */
	CHECK(cache_prune(dir, time(NULL) + 1, &pr) == 0);
	CHECK(pr.removed == 4 && pr.kept == 0);
	CHECK(entry_exists(dir, "kernels", "") && entry_exists(dir, "resolved", ""));
	remove_tree(dir);
}
