/* Kernel tree helpers that need no tree: the version from a Makefile, and KSRC checks. */
#define _GNU_SOURCE
#include "check.h"
#include "tree.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

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

/* A matrix symbol's values come from its Kconfig type, read from the tree: the entry's type
 * line, from the first definition that has one. */
TEST(tree_reads_symbol_types)
{
	char dir[] = "/tmp/kcmpm-kconfig-XXXXXX", type[5], *path;
	static const char *const names[] = { "DRM", "KCMP", "EPOLL", "NOPE", "LATE" };
	static const char kconfig[] =
		"menuconfig DRM\n\ttristate \"Direct Rendering Manager\"\n\tselect KCMP\n\n"
		"config KCMP\n\tbool \"Enable kcmp() system call\" if EXPERT\n\n"
		"config EPOLL\n\tdef_bool y\n"
		"config LATE\n\tdepends on DRM\n"
		"config DRM_KMS_HELPER\n\ttristate\n";
	static const char more[] = "config LATE\n\tdef_tristate m\n";

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/Kconfig", dir);
	write_file_atomic(path, kconfig, strlen(kconfig));
	free(path);
	path = xasprintf("%s/sub/Kconfig.more", dir);
	mkdir_p(path);
	remove_tree(path);
	write_file_atomic(path, more, strlen(more));
	free(path);
	tree_find_symbols(dir, 5, names, type);
	CHECK(type[0] == 't' && type[1] == 'b' && type[2] == 'b' && type[3] == 0 && type[4] == 't');
	remove_tree(dir);
}
