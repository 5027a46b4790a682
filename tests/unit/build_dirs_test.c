/* Build directories split by the heavy symbols: their names, and how a new one starts (taking
 * over the pre-split directory, or seeded with a copy of the last one), never from nothing
 * unless there is nothing to start from. */
#define _GNU_SOURCE
#include "build_dirs.h"
#include "check.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	CHECK(m.nsplit == 2);
	resolved[matrix_symbol_index(&m, "CHECKPOINT_RESTORE")] = 'y';
	resolved[matrix_symbol_index(&m, "EPOLL")] = 0;	/* no such symbol: n */
	resolved[matrix_symbol_index(&m, "DRM")] = 'm';	/* not a split symbol */
	key = build_dirs_key(&m, resolved);
	CHECK_STR(key, "CHECKPOINT_RESTORE-y.EPOLL-n");
	free(key);
	m.nsplit = 0;
	key = build_dirs_key(&m, resolved);
	CHECK_STR(key, "all");
	free(key);
	matrix_free(&m);
}

TEST(build_dirs_take_over_the_old_directory_then_seed_from_the_last)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", err[512] = "", *a, *b, *text;
	struct build_dirs d;
	char *old;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "linux-source-6.1", "x86_64");
	old = xasprintf("%s/build/linux-source-6.1/x86_64", root);
	fake_build_dir(old, "OLD\n");
	/* the first directory used is the pre-split one, renamed */
	a = build_dirs_use(&d, "CHECKPOINT_RESTORE-n.EPOLL-y", err, sizeof(err));
	CHECK(a && !path_exists(old));
	text = a ? file_in(a, "kernel/kcmp.o") : NULL;
	CHECK_STR(text, "OLD\n");
	free(text);
	fake_build_dir(a, "A\n");
	/* the next is a copy of the last used, not of the old one */
	b = build_dirs_use(&d, "CHECKPOINT_RESTORE-y.EPOLL-y", err, sizeof(err));
	CHECK(b != NULL);
	text = b ? file_in(b, "kernel/kcmp.o") : NULL;
	CHECK_STR(text, "A\n");
	free(text);
	/* a copy: writing one does not write the other */
	fake_build_dir(b, "B\n");
	text = file_in(a, "kernel/kcmp.o");
	CHECK_STR(text, "A\n");
	free(text);
	free(a);
	free(b);
	build_dirs_free(&d);
	/* a new run seeds from the sibling built most recently */
	build_dirs_init(&d, root, "linux-source-6.1", "x86_64");
	a = build_dirs_use(&d, "CHECKPOINT_RESTORE-n.EPOLL-n", err, sizeof(err));
	text = a ? file_in(a, "kernel/kcmp.o") : NULL;
	CHECK_STR(text, "B\n");
	free(text);
	free(a);
	/* --force all removes every one of them */
	build_dirs_remove_all(&d);
	a = xasprintf("%s/build/linux-source-6.1", root);
	text = xasprintf("%s/x86_64.CHECKPOINT_RESTORE-n.EPOLL-y", a);
	CHECK(!path_exists(text));
	free(text);
	free(a);
	build_dirs_free(&d);
	free(old);
	remove_tree(root);
}

/* With nothing built yet anywhere, a directory starts empty (Kbuild's first build), and a
 * leftover that was never built in (an interrupted copy) is not taken for one. */
TEST(build_dirs_start_empty_with_nothing_to_seed_from)
{
	char root[] = "/tmp/kcmpm-dirs-XXXXXX", err[512] = "", *a, *junk, *seeding;
	struct build_dirs d;

	CHECK(mkdtemp(root) != NULL);
	build_dirs_init(&d, root, "t", "arm64");
	junk = xasprintf("%s/build/t/arm64.all/stale", root);
	seeding = xasprintf("%s/build/t/arm64.other.seeding", root);
	CHECK(mkdir_p(junk) == 0);
	fake_build_dir(seeding, "HALF\n");
	a = build_dirs_use(&d, "all", err, sizeof(err));
	CHECK(a != NULL);
	CHECK(!path_exists(junk));
	CHECK(a && !path_exists(a));	/* build.c makes it, Kbuild fills it */
	free(a);
	free(junk);
	free(seeding);
	build_dirs_free(&d);
	remove_tree(root);
}
