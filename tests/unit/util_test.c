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
