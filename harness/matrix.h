/* matrix: what the matrix is, loaded from the data under matrix/.
 *
 *   matrix/matrix.conf       the symbols, arches, variants, base fragments and build order
 *   matrix/arches.conf       per-arch build and boot facts (format described in that file)
 *   matrix/base/<name>.config  base fragments (common, then one per arch)
 *   matrix/rules/<variant>.rules  each variant's Kconfig rules (see rules.h)
 *   kernel-patch/<variant>/  each variant's patch series (see README.md there)
 */
#ifndef KCMPM_MATRIX_H
#define KCMPM_MATRIX_H

#include "rules.h"

#include <stddef.h>

struct arch {
	char *name;
	char *kernel_arch;	/* ARCH= */
	char *cross_compile;	/* CROSS_COMPILE=, "" for native */
	char *make_target;
	char *image;		/* path of the image inside the build directory */
	char **qemu;		/* QEMU program and fixed arguments, NULL-terminated */
	char *console;
	char **append;		/* extra kernel command line words, NULL-terminated */
	double boot_timeout;
	char **packages;	/* NULL-terminated */
};

struct variant {
	char *name;
	char *rules_path;
	struct rules rules;
};

struct matrix {
	int nsym;
	char *sym[MAX_SYMBOLS + 1];	/* NULL-terminated */
	int narch;
	struct arch *arch;
	int nvariant;
	struct variant *variant;
	char **base;			/* base fragment names, NULL-terminated */
	int build_order[MAX_SYMBOLS];	/* symbol indices, slowest-changing first */
};

/* Loads matrix.conf, arches.conf and every variant's rules from dir. Returns -1 with a
 * "file:line: what" message in err. */
int matrix_load(const char *dir, struct matrix *m, char *err, size_t errlen);
void matrix_free(struct matrix *m);

int matrix_arch_index(const struct matrix *m, const char *name);
int matrix_variant_index(const struct matrix *m, const char *name);
int matrix_symbol_index(const struct matrix *m, const char *name);

#endif
