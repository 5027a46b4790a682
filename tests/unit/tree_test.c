/* Kernel tree helpers that need no tree: the version from a Makefile, and KSRC checks. */
#define _GNU_SOURCE
#include "check.h"
#include "tree.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	tree_find_symbols(dir, NULL, 5, names, type);
	CHECK(type[0] == 't' && type[1] == 'b' && type[2] == 'b' && type[3] == 0 && type[4] == 't');
	remove_tree(dir);
}

static void put_text(const char *path, const char *text)
{
	CHECK(write_file_atomic(path, text, strlen(text)) == 0);
}

/* A tree that never changes in place is scanned once per identity: its answer is kept beside it
 * and used while the identity is the same and it names every symbol asked for. */
TEST(tree_symbol_scan_is_kept_per_identity)
{
	char dir[] = "/tmp/kcmpm-kconfig-XXXXXX", type[2], *path, *memo;
	static const char *const names[] = { "KCMP", "NOPE" };
	static const char *const more_names[] = { "KCMP", "EPOLL" };

	CHECK(mkdtemp(dir) != NULL);
	path = xasprintf("%s/Kconfig", dir);
	memo = xasprintf("%s.symbols", dir);
	put_text(path, "config KCMP\n\tbool\n");
	tree_find_symbols(dir, "tarball 1", 2, names, type);
	CHECK(type[0] == 'b' && type[1] == 0 && path_exists(memo));
	/* changed behind the memo's back: the same identity still answers from the memo... */
	put_text(path, "config KCMP\n\ttristate\nconfig EPOLL\n\tbool\n");
	tree_find_symbols(dir, "tarball 1", 2, names, type);
	CHECK(type[0] == 'b' && type[1] == 0);
	/* ...a new identity, a name the memo lacks, or no identity scan again */
	tree_find_symbols(dir, "tarball 2", 2, names, type);
	CHECK(type[0] == 't');
	put_text(path, "config KCMP\n\tbool\nconfig EPOLL\n\tbool\n");
	tree_find_symbols(dir, "tarball 2", 2, more_names, type);
	CHECK(type[0] == 'b' && type[1] == 'b');
	put_text(path, "config KCMP\n\ttristate\n");
	tree_find_symbols(dir, NULL, 2, names, type);
	CHECK(type[0] == 't');
	unlink(memo);
	free(memo);
	free(path);
	remove_tree(dir);
}

/* A tiny kernel-shaped tarball at tarball whose Makefile says SUBLEVEL sublevel. */
static void make_tarball(const char *dir, const char *tarball, int sublevel)
{
	static const char *const files[] = { "Kconfig", "scripts/kconfig/Makefile", "init/Kconfig" };
	char *top = xasprintf("%s/linux-source-9.9", dir), *mk = xasprintf("%s/Makefile", top);
	char *text = xasprintf("VERSION = 9\nPATCHLEVEL = 9\nSUBLEVEL = %d\n", sublevel);
	char *cmd = xasprintf("tar -C %s -cJf %s linux-source-9.9", dir, tarball);

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = xasprintf("%s/%s", top, files[i]), *slash = strrchr(p, '/');

		*slash = 0;
		CHECK(mkdir_p(p) == 0);
		*slash = '/';
		CHECK(write_file_atomic(p, "", 0) == 0);
		free(p);
	}
	CHECK(write_file_atomic(mk, text, strlen(text)) == 0);
	CHECK(system(cmd) == 0);
	remove_tree(top);
	free(cmd);
	free(text);
	free(mk);
	free(top);
}

/* A new Debian point release replaces the tarball under the same name: the unpacked tree and
 * the directories made from it go, the new one is unpacked, and its identity (which keys its
 * kernels) is another. The same tarball again changes nothing. */
TEST(tree_unpacks_again_when_the_tarball_changes)
{
	char dir[] = "/tmp/kcmpm-tarball-XXXXXX", err[1024] = "";
	char *tarball, *cache, *build, *marker;
	struct tree first, again, next;

	CHECK(mkdtemp(dir) != NULL);
	tarball = xasprintf("%s/linux-source-9.9.tar.xz", dir);
	cache = xasprintf("%s/cache", dir);
	build = xasprintf("%s/build/linux-source-9.9/x86_64", cache);
	make_tarball(dir, tarball, 1);
	CHECK(tree_from_tarball(tarball, "linux-source-9.9", cache, &first, err, sizeof(err)) == 0);
	CHECK_STR(first.version, "9.9.1");
	CHECK(mkdir_p(build) == 0);
	marker = xasprintf("%s/unchanged", first.path);
	CHECK(write_file_atomic(marker, "", 0) == 0);
	CHECK(tree_from_tarball(tarball, "linux-source-9.9", cache, &again, err, sizeof(err)) == 0);
	CHECK_STR(again.identity, first.identity);
	CHECK(path_exists(marker) && path_exists(build));	/* not unpacked again */
	sleep(1);	/* a new mtime, as a new package gives */
	make_tarball(dir, tarball, 2);
	CHECK(tree_from_tarball(tarball, "linux-source-9.9", cache, &next, err, sizeof(err)) == 0);
	CHECK_STR(next.version, "9.9.2");
	CHECK(strcmp(next.identity, first.identity) != 0);
	CHECK(!path_exists(marker) && !path_exists(build));
	tree_free(&first);
	tree_free(&again);
	tree_free(&next);
	remove_tree(dir);
	free(marker);
	free(build);
	free(cache);
	free(tarball);
}

/* An unpack a killed run left is removed by the next run's clean-up, whether or not that run
 * unpacks anything; the finished tree beside it stays. */
TEST(tree_stale_unpacks_go_without_an_unpack)
{
	char dir[] = "/tmp/kcmpm-unpacks-XXXXXX";
	char *stale, *kept, *log;

	CHECK(mkdtemp(dir) != NULL);
	stale = xasprintf("%s/src/.unpack.4242/linux-source-9.9", dir);
	kept = xasprintf("%s/src/linux-source-9.9", dir);
	log = xasprintf("%s/src/.unpack.log", dir);
	CHECK(mkdir_p(stale) == 0 && mkdir_p(kept) == 0 && write_file_atomic(log, "", 0) == 0);
	CHECK(tree_remove_stale_unpacks(dir) == 1);
	*strrchr(stale, '/') = 0;
	CHECK(!path_exists(stale) && path_exists(kept) && path_exists(log));
	CHECK(tree_remove_stale_unpacks(dir) == 0);
	remove_tree(dir);
	free(log);
	free(kept);
	free(stale);
}
