/* Build directories split by the heavy symbols: their names; every one is built at the one
 * build path (x86's objtool would rebuild everything at another); a new one starts as the one
 * last built in (its copy waiting for its own key), never from nothing unless there is nothing
 * to start from. */
#define _GNU_SOURCE
#include "build_dirs.h"
#include "check.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A directory that looks built in: the mark build.c writes, a .config and one object. */
static void fake_build_dir(const char *dir, const char *config)
{
	char *mark = xasprintf("%s/.kcmpm-srctree", dir), *cfg = xasprintf("%s/.config", dir);
	char *obj = xasprintf("%s/kernel/kcmp.o", dir), *sub = xasprintf("%s/kernel", dir);

	CHECK(mkdir_p(sub) == 0);
	CHECK(write_file_atomic(mark, "/src", 4) == 0);
	CHECK(write_file_atomic(cfg, config, strlen(config)) == 0);
	CHECK(write_file_atomic(obj, config, strlen(config)) == 0);
	free(mark);
	free(cfg);
	free(obj);
	free(sub);
}

static char *file_in(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel), *text = read_file(path, NULL);

	free(path);
	return text;
}

TEST(build_dirs_key_names_the_split_symbols_values)
{
	struct matrix m;
	char err[512] = "", resolved[MAX_SYMBOLS] = { 0 }, *key;

	CHECK(matrix_load("matrix", NULL, &m, err, sizeof(err)) == 0);
	CHECK(m.nsplit == 3);
	resolved[matrix_symbol_index(&m, "CHECKPOINT_RESTORE")] = 'y';
	resolved[matrix_symbol_index(&m, "EPOLL")] = 0;	/* no such symbol: n */
	resolved[matrix_symbol_index(&m, "DRM")] = 'm';
	resolved[matrix_symbol_index(&m, "KCMP")] = 'y';	/* not a split symbol */
	key = build_dirs_key(&m, resolved);
	CHECK_STR(key, "CHECKPOINT_RESTORE-y.EPOLL-n.DRM-m");
	free(key);
	CHECK(matrix_use_flavour(&m, "debug", err, sizeof(err)) == 0);
	key = build_dirs_key(&m, resolved);	/* a flavour's kernels build apart */
	CHECK_STR(key, "flavour-debug.CHECKPOINT_RESTORE-y.EPOLL-n.DRM-m");
	free(key);
	m.nsplit = 0;
	key = build_dirs_key(&m, resolved);
	CHECK_STR(key, "flavour-debug.all");
	free(key);
	m.flavour_in_use = NULL;
	key = build_dirs_key(&m, resolved);
	CHECK_STR(key, "all");
	free(key);
	matrix_free(&m);
}

/* Uses key's directory; checks it is at the build path and holds what want says. */
static void use_expecting(struct build_dirs *d, const char *key, const char *want)
{
	char err[512] = "", *dir = build_dirs_use(d, key, err, sizeof(err));
	char *text = dir ? file_in(dir, "kernel/kcmp.o") : NULL;
	char *held = dir ? file_in(dir, ".kcmpm-dir-key") : NULL;

	if (!dir)
		printf("# %s: %s\n", key, err);
	CHECK(dir && !strcmp(dir, d->base));
	CHECK_STR(text, want);
	CHECK_STR(held, key);
	free(held);
	free(text);
	free(dir);
}

static char *waiting_file(const struct build_dirs *d, const char *key, const char *rel)
{
	char *dir = xasprintf("%s.%s", d->base, key), *text = file_in(dir, rel);

	free(dir);
	return text;
}

/* Checks a file of key's waiting directory. */
static void expect_waiting(const struct build_dirs *d, const char *key, const char *rel,
			   const char *want)
{
	char *text = waiting_file(d, key, rel);

	CHECK_STR(text, want);
	free(text);
}

TEST(build_dirs_build_every_key_at_one_path)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", *text;
	struct build_dirs d;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "linux-source-6.1", "x86_64");
	/* the one directory of the layout before the split, holding no key, goes on for the
	 * first key */
	fake_build_dir(d.base, "OLD\n");
	use_expecting(&d, "CR-n", "OLD\n");
	fake_build_dir(d.base, "A\n");
	/* a new key goes on from the one at the build path (the only one, so the nearest); a
	 * copy of that one waits for its key */
	use_expecting(&d, "CR-y", "A\n");
	expect_waiting(&d, "CR-n", "kernel/kcmp.o", "A\n");
	expect_waiting(&d, "CR-n", ".kcmpm-dir-key", "CR-n");
	/* a copy: building in one does not write the other */
	fake_build_dir(d.base, "B\n");
	expect_waiting(&d, "CR-n", "kernel/kcmp.o", "A\n");
	/* a key used before comes back to the build path as it was left, and the one there
	 * waits in its place */
	use_expecting(&d, "CR-n", "A\n");
	expect_waiting(&d, "CR-y", "kernel/kcmp.o", "B\n");
	use_expecting(&d, "CR-n", "A\n");
	build_dirs_free(&d);
	/* a new run finds them as the last one left them */
	build_dirs_init(&d, root, "linux-source-6.1", "x86_64");
	use_expecting(&d, "CR-y", "B\n");
	/* --force all removes every one of them */
	build_dirs_remove_all(&d);
	CHECK(!path_exists(d.base));
	text = xasprintf("%s.CR-n", d.base);
	CHECK(!path_exists(text));
	free(text);
	build_dirs_free(&d);
	remove_tree(root);
}

/* With nothing at the build path, the waiting directory built in most recently is copied
 * there; with nothing built yet anywhere, a directory starts empty (Kbuild's first build).
 * Leftovers never built in (an interrupted copy) are not taken for one. */
TEST(build_dirs_start_from_the_newest_or_from_nothing)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", *junk, *seeding, *text;
	struct build_dirs d;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "t", "arm64");
	junk = xasprintf("%s/stale", d.base);
	seeding = xasprintf("%s.other.seeding", d.base);
	CHECK(mkdir_p(junk) == 0);
	fake_build_dir(seeding, "HALF\n");
	{
		char err[512] = "", *a = build_dirs_use(&d, "all", err, sizeof(err));

		CHECK(a && !strcmp(a, d.base));
		CHECK(!path_exists(junk));
		text = a ? file_in(a, "kernel/kcmp.o") : NULL;
		CHECK(text == NULL);	/* build.c fills it, Kbuild builds it */
		free(a);
	}
	/* an interrupted swap (nothing at the build path): the newest waiting one is copied */
	remove_tree(d.base);
	for (int k = 1; k <= 2; k++) {
		char *dir = xasprintf("%s.S-%d", d.base, k), *config = xasprintf("%s/.config", dir);
		struct timespec when[2] = { { .tv_sec = 1000 * k }, { .tv_sec = 1000 * k } };

		fake_build_dir(dir, k == 1 ? "ONE\n" : "TWO\n");
		CHECK(utimensat(AT_FDCWD, config, when, 0) == 0);
		free(config);
		free(dir);
	}
	use_expecting(&d, "S-3", "TWO\n");
	expect_waiting(&d, "S-2", "kernel/kcmp.o", "TWO\n");
	free(junk);
	free(seeding);
	build_dirs_free(&d);
	remove_tree(root);
}

/* After matrix.conf's build-split line changes, a cache's waiting directories of the old line
 * seed the new layout's first directory. They stay (another matrix of questions/ may share
 * the cache and build them) until --force all. */
TEST(build_dirs_of_an_older_split_seed_the_new_layout)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", *old, *text;
	struct build_dirs d;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "t", "x86_64");
	old = xasprintf("%s.CHECKPOINT_RESTORE-n.EPOLL-y", d.base);
	fake_build_dir(old, "OLD\n");
	use_expecting(&d, "CHECKPOINT_RESTORE-n.EPOLL-y.DRM-n", "OLD\n");
	fake_build_dir(d.base, "NEW\n");
	use_expecting(&d, "CHECKPOINT_RESTORE-n.EPOLL-y.DRM-y", "NEW\n");
	expect_waiting(&d, "CHECKPOINT_RESTORE-n.EPOLL-y.DRM-n", ".kcmpm-dir-key", "CHECKPOINT_RESTORE-n.EPOLL-y.DRM-n");
	text = file_in(old, "kernel/kcmp.o");
	CHECK_STR(text, "OLD\n");
	free(text);
	free(old);
	build_dirs_free(&d);
	remove_tree(root);
}

/* A key used for the first time starts from the nearest directory there is: the one at the
 * build path differs in both heavy symbols, a waiting one only in the last (the lightest), so
 * the waiting one is copied in and the one at the build path waits for its key. */
TEST(build_dirs_start_from_the_nearest)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", err[512];
	struct build_dirs d;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "t", "x86_64");
	free(build_dirs_use(&d, "A-n.B-n.C-m", err, sizeof(err)));
	fake_build_dir(d.base, "NNM\n");
	use_expecting(&d, "A-y.B-y.C-n", "NNM\n");
	fake_build_dir(d.base, "YYN\n");
	use_expecting(&d, "A-n.B-n.C-y", "NNM\n");
	expect_waiting(&d, "A-y.B-y.C-n", "kernel/kcmp.o", "YYN\n");
	expect_waiting(&d, "A-n.B-n.C-m", "kernel/kcmp.o", "NNM\n");
	/* one difference in the lightest symbol is nearer than two in the heavier ones */
	fake_build_dir(d.base, "NNY\n");
	use_expecting(&d, "A-y.B-y.C-y", "YYN\n");
	build_dirs_free(&d);
	remove_tree(root);
}

/* Another flavour's directory is farther than any split symbol, both ways: a debug key starts
 * from the plain one only when nothing of its own flavour waits, and a plain key never starts
 * from a debug directory of the same split values while a plain one waits. */
TEST(build_dirs_of_another_flavour_are_the_farthest)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", err[512];
	struct build_dirs d;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "t", "x86_64");
	free(build_dirs_use(&d, "A-n.B-n", err, sizeof(err)));
	fake_build_dir(d.base, "NN\n");
	use_expecting(&d, "A-y.B-y", "NN\n");
	fake_build_dir(d.base, "YY\n");
	use_expecting(&d, "flavour-debug.A-n.B-n", "YY\n");	/* the one at the path */
	fake_build_dir(d.base, "dNN\n");
	use_expecting(&d, "flavour-debug.A-y.B-y", "dNN\n");	/* its own flavour's */
	fake_build_dir(d.base, "dYY\n");
	use_expecting(&d, "A-n.B-y", "NN\n");	/* a plain one, though two debug ones are nearer */
	expect_waiting(&d, "flavour-debug.A-y.B-y", "kernel/kcmp.o", "dYY\n");
	build_dirs_free(&d);
	remove_tree(root);
}
