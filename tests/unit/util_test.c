/* util: the file writes every result goes through. */
#define _GNU_SOURCE
#include "check.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A temporary name planted before the write (a symlink to another file, as another user could
 * make in a shared results directory) is not followed: the other file stays as it was and the
 * result is a regular file of its own. */
TEST(write_file_atomic_follows_no_planted_temporary)
{
	char dir[] = "/tmp/kcmpm-util-XXXXXX";
	char *victim, *path, *tmp, *text;
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	victim = xasprintf("%s/victim", dir);
	path = xasprintf("%s/matrix.md", dir);
	tmp = xasprintf("%s.tmp.%ld", path, (long)gettid());
	CHECK(write_file_atomic(victim, "mine\n", 5) == 0);
	CHECK(symlink(victim, tmp) == 0);
	CHECK(write_file_atomic(path, "table\n", 6) == 0);
	text = read_file(victim, NULL);
	CHECK_STR(text, "mine\n");
	free(text);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	text = read_file(path, NULL);
	CHECK_STR(text, "table\n");
	free(text);
	CHECK(access(tmp, F_OK) != 0);
	remove_tree(dir);
	free(tmp);
	free(path);
	free(victim);
}

/* A set of files is replaced as one: a failure while writing them leaves the old set whole and
 * no temporary behind; a good write leaves the new set and no mark. */
TEST(write_files_as_one_replaces_the_whole_set_or_nothing)
{
	char dir[] = "/tmp/kcmpm-util-XXXXXX";
	const char *names[] = { "a.md", "b.json", "c.tsv" };
	char *old[] = { "old a\n", "old b\n", "old c\n" };
	char *new[] = { "new a\n", "new b\n", "new c\n" };
	char *blocker, *mark, *text;

	CHECK(mkdtemp(dir) != NULL);
	mark = xasprintf("%s/.mark", dir);
	CHECK(write_files_as_one(dir, names, old, 3, ".mark") == 0);
	CHECK(access(mark, F_OK) != 0);
	/* the third file's temporary cannot be made (a directory holds its name): nothing of the
	 * new set is renamed, the mark was never made */
	blocker = xasprintf("%s/c.tsv.tmp.%ld", dir, (long)gettid());
	CHECK(mkdir(blocker, 0755) == 0);
	CHECK(write_files_as_one(dir, names, new, 3, ".mark") == -1);
	for (int i = 0; i < 3; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]), *tmp;

		text = read_file(path, NULL);
		CHECK_STR(text, old[i]);
		free(text);
		tmp = xasprintf("%s.tmp.%ld", path, (long)gettid());
		CHECK(i == 2 || access(tmp, F_OK) != 0);
		free(tmp);
		free(path);
	}
	CHECK(access(mark, F_OK) != 0);
	CHECK(rmdir(blocker) == 0);
	CHECK(write_files_as_one(dir, names, new, 3, ".mark") == 0);
	for (int i = 0; i < 3; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		text = read_file(path, NULL);
		CHECK_STR(text, new[i]);
		free(text);
		free(path);
	}
	CHECK(access(mark, F_OK) != 0);
	remove_tree(dir);
	free(blocker);
	free(mark);
}

/* A path as a URL's path: what RFC 3986 allows there stays, the rest is percent-encoded. */
TEST(url_path_escape_encodes_what_a_url_path_cannot_hold)
{
	char *e = url_path_escape("/tmp/a b/100%#x?y/EXPERT=n,KCMP=y/caf\xc3\xa9~");

	CHECK_STR(e, "/tmp/a%20b/100%25%23x%3Fy/EXPERT=n,KCMP=y/caf%C3%A9~");
	free(e);
}
