/* A variant's series and patches: nothing in them may reach outside its folder or the tree. */
#define _GNU_SOURCE
#include "check.h"
#include "util.h"
#include "variant.h"

#include <stdlib.h>
#include <string.h>

/* A series entry is a patch inside the patches folder: a sibling variant's (../pre/...) is,
 * an absolute name or one that climbs out of it is not. */
TEST(variant_series_stays_in_its_folder)
{
	char root[] = "/tmp/kcmpm-series-XXXXXX", err[512] = "", *dir, *series, **list;

	CHECK(mkdtemp(root) != NULL);
	dir = xasprintf("%s/v3", root);
	mkdir_p(dir);
	series = xasprintf("%s/series", dir);
	CHECK(write_file_atomic(series, "../pre/0001-a.patch\n0002-b.patch # fine\n..x.patch\n",
				50) == 0);
	list = variant_series(dir, root, err, sizeof(err));
	CHECK(list && list[0] && list[1] && list[2] && !list[3]);
	free_strings(list);
	CHECK(write_file_atomic(series, "0001-a.patch\n../../../etc/passwd\n", 33) == 0);
	CHECK(variant_series(dir, root, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "'../../../etc/passwd' is not a patch inside the patches folder");
	CHECK(write_file_atomic(series, "/etc/passwd\n", 12) == 0);
	CHECK(variant_series(dir, root, err, sizeof(err)) == NULL);
	CHECK_CONTAINS(err, "'/etc/passwd' is not a patch inside");
	remove_tree(root);
	free(series);
	free(dir);
}

/* A patched file name is checked as patch -p1 reads it, on both its --- and +++ lines. */
TEST(variant_patch_names_stay_in_the_tree)
{
	char *out;

	CHECK(variant_name_outside_tree("--- a/kernel/kcmp.c\n+++ b/kernel/kcmp.c\n@@ -1 +1 @@\n") ==
	      NULL);
	CHECK(variant_name_outside_tree("--- /dev/null\n+++ b/new..file.c\n") == NULL);
	out = variant_name_outside_tree("--- a/kernel/kcmp.c\n+++ b/../../etc/cron.d/x\n");
	CHECK_STR(out, "b/../../etc/cron.d/x");
	free(out);
	out = variant_name_outside_tree("--- a//etc/passwd\t2021-01-01\n+++ b/x\n");
	CHECK_STR(out, "a//etc/passwd");
	free(out);
	out = variant_name_outside_tree("+++ b/kernel/..\n");
	CHECK_STR(out, "b/kernel/..");
	free(out);
	/* a context diff's old name, which patch may take */
	out = variant_name_outside_tree("*** a/../../etc/passwd\n--- b/x\n***************\n");
	CHECK_STR(out, "a/../../etc/passwd");
	free(out);
}

/* The series takes unified diffs, and says so of a context diff or of text that is no diff. */
TEST(variant_patches_must_be_unified_diffs)
{
	char *why;

	CHECK(variant_not_unified("--- a/kernel/kcmp.c\n+++ b/kernel/kcmp.c\n@@ -1 +1 @@\n") == NULL);
	why = variant_not_unified("*** a/kernel/kcmp.c\n--- b/kernel/kcmp.c\n***************\n"
				  "*** 1 ****\n--- 1 ----\n");
	CHECK_STR(why, "a context diff (its '***************' hunks)");
	free(why);
	why = variant_not_unified("Subject: no diff here\n");
	CHECK_STR(why, "no unified diff (no '+++ ' file header)");
	free(why);
}
