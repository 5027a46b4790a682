/* Loading the matrix description, and what a broken one says. */
#define _GNU_SOURCE
#include "check.h"
#include "matrix.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

TEST(matrix_loads_the_repository_data)
{
	struct matrix m;
	char err[512] = "";

	CHECK(matrix_load("matrix", "kernel-patch", &m, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(m.nsym == 5 && m.narch == 2 && m.nvariant >= 1);
	CHECK_STR(m.sym[1], "KCMP");
	CHECK_STR(m.arch[matrix_arch_index(&m, "arm64")].cross_compile, "aarch64-linux-gnu-");
	CHECK_STR(m.arch[matrix_arch_index(&m, "x86_64")].cross_compile, "");
	matrix_free(&m);
}

/* A scratch matrix dir with the given arches.conf; returns the load error. */
static const char *load_with_arches(const char *arches)
{
	static char err[512];
	char dir[] = "/tmp/kcmpm-matrix-XXXXXX";
	struct matrix m;
	char *p;

	err[0] = 0;
	CHECK(mkdtemp(dir) != NULL);
	p = xasprintf("%s/rules", dir);
	mkdir_p(p);
	free(p);
	p = xasprintf("%s/matrix.conf", dir);
	{
		static const char conf[] = "format 1\nsymbols EXPERT KCMP CHECKPOINT_RESTORE DRM "
					   "EPOLL\narches x86_64\nvariants v3\n";

		write_file_atomic(p, conf, sizeof(conf) - 1);
	}
	free(p);
	p = xasprintf("%s/arches.conf", dir);
	write_file_atomic(p, arches, strlen(arches));
	free(p);
	p = xasprintf("%s/rules/v3.rules", dir);
	copy_file("matrix/rules/v3.rules", p);
	free(p);
	if (matrix_load(dir, NULL, &m, err, sizeof(err)) == 0) {
		matrix_free(&m);
		snprintf(err, sizeof(err), "(loaded)");
	}
	remove_tree(dir);
	return err;
}

TEST(matrix_arches_errors)
{
	CHECK_CONTAINS(load_with_arches("arch x86_64\n"), "expected 'format 1'");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tkernel-arch x86_64\n"),
		       "arch 'x86_64' has no 'cross-compile' line");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tboot-timeout soon\n"),
		       "arches.conf:3: boot-timeout must be a positive number");
	CHECK_CONTAINS(load_with_arches("format 1\narch x86_64\n\tcolour blue\n"),
		       "arches.conf:3: unknown arch attribute 'colour'");
	CHECK_CONTAINS(load_with_arches("format 1\nmachine x86_64\n"),
		       "arches.conf:2: expected 'arch NAME'");
}
