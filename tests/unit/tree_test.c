/* Kernel tree helpers that need no tree: the version from a Makefile, and KSRC checks. */
#include "check.h"
#include "tree.h"

#include <stdlib.h>

TEST(tree_version_parsed_from_makefile)
{
	char *v = tree_version_from_makefile("# SPDX\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n"
					     "EXTRAVERSION =\nNAME = Curry Ramen\n");

	CHECK_STR(v, "6.1.192");
	free(v);
	v = tree_version_from_makefile("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n"
				       "EXTRAVERSION = -rc3\n");
	CHECK_STR(v, "6.12.0-rc3");
	free(v);
	CHECK(tree_version_from_makefile("all:\n\techo hi\n") == NULL);
}

TEST(tree_rejects_non_kernel_ksrc)
{
	struct tree t;
	char err[512] = "";

	CHECK(tree_from_path("tests", &t, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "KSRC 'tests' is not a kernel source tree");
	CHECK(tree_from_path("/nonexistent/linux", &t, err, sizeof(err)) == -1);
}
