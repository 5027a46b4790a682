/* The worktree: one path whose variant files take each variant's content in turn, by new
 * files (never writing through the hard links it shares with the pristine tree), rewriting
 * only what differs. */
#define _GNU_SOURCE
#include "check.h"
#include "util.h"
#include "worktree.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel), *parent = xstrdup(path);

	*strrchr(parent, '/') = 0;
	mkdir_p(parent);
	CHECK(write_file_atomic(path, text, strlen(text)) == 0);
	free(parent);
	free(path);
}

/* Does dir/rel hold exactly want? */
static int holds(const char *dir, const char *rel, const char *want)
{
	char *path = xasprintf("%s/%s", dir, rel), *text = read_file(path, NULL);
	int same = text && !strcmp(text, want);

	free(text);
	free(path);
	return same;
}

static ino_t inode(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);
	struct stat st;
	ino_t ino = stat(path, &st) == 0 ? st.st_ino : 0;

	free(path);
	return ino;
}

TEST(worktree_switches_variant_files_by_content)
{
	char top[] = "/tmp/kcmpm-worktree-XXXXXX", err[512] = "";
	char *pristine, *variant, *cache;
	char *files[] = { "init/Kconfig", "fs/eventpoll.c", NULL };
	struct tree t = { .tag = "tree", .identity = "fixed" };
	struct worktree w;

	CHECK(mkdtemp(top) != NULL);
	pristine = xasprintf("%s/pristine", top);
	variant = xasprintf("%s/variant", top);
	cache = xasprintf("%s/cache", top);
	put(pristine, "init/Kconfig", "config KCMP\n");
	put(pristine, "fs/eventpoll.c", "kcmp helper under KCMP\n");
	put(pristine, "kernel/fork.c", "untouched\n");
	put(variant, "init/Kconfig", "config CHECKPOINT_RESTORE\n");
	put(variant, "fs/eventpoll.c", "kcmp helper under KCMP\n");	/* same as pristine */
	t.path = pristine;

	CHECK(worktree_prepare(&w, cache, &t, "x86_64", files, err, sizeof(err)) == 0);
	CHECK(w.current == NULL);
	CHECK(inode(w.path, "kernel/fork.c") == inode(pristine, "kernel/fork.c"));	/* a hard link */
	CHECK(worktree_switch(&w, variant, "pre 1234", err, sizeof(err)) == 0);
	CHECK(holds(w.path, "init/Kconfig", "config CHECKPOINT_RESTORE\n"));
	CHECK(holds(pristine, "init/Kconfig", "config KCMP\n"));	/* not written through */
	/* equal content is left alone: still the pristine file's inode */
	CHECK(inode(w.path, "fs/eventpoll.c") == inode(pristine, "fs/eventpoll.c"));
	CHECK(holds(w.path, ".kcmpm-variant", "pre 1234"));
	CHECK(worktree_switch(&w, pristine, "v3 5678", err, sizeof(err)) == 0);
	CHECK(holds(w.path, "init/Kconfig", "config KCMP\n"));
	worktree_free(&w);

	/* a switch cut off before its marker was written is redone in full */
	CHECK(worktree_prepare(&w, cache, &t, "x86_64", NULL, err, sizeof(err)) == 0);
	CHECK_STR(w.current, "v3 5678");
	CHECK(w.files[0] && w.files[1] && !w.files[2]);	/* the files were remembered */
	put(w.path, "init/Kconfig", "half-switched\n");
	{
		char *marker = xasprintf("%s/.kcmpm-variant", w.path);

		unlink(marker);
		free(marker);
		free(w.current);
		w.current = NULL;
	}
	CHECK(worktree_switch(&w, pristine, "v3 5678", err, sizeof(err)) == 0);
	CHECK(holds(w.path, "init/Kconfig", "config KCMP\n"));
	worktree_free(&w);
	remove_tree(top);
	free(pristine);
	free(variant);
	free(cache);
}
