/* matrix: what the matrix is, loaded from the data under matrix/.
 *
 *   matrix/matrix.conf       the kernel trees, symbols, arches, variants, base fragments, build
 *                            order, and where the question's other files are: its guest test
 *                            (guest), patch series (patches), arch and host facts
 *                            (arches-file, host-file) and base fragments (base-dir), each
 *                            relative to the folder; a question is such a folder
 *   matrix/arches.conf       per-arch build and boot facts (format described in that file)
 *   matrix/host.conf         the programs and headers building a kernel needs on this machine
 *   matrix/base/<name>.config  base fragments (common, then one per arch)
 *   matrix/rules/<variant>.rules  each variant's Kconfig rules (see rules.h)
 *   kernel-patch/<variant>/  each variant's patch series (see README.md there)
 */
#ifndef KCMPM_MATRIX_H
#define KCMPM_MATRIX_H

#include "matrix_model.h"
#include "matrix_values.h"

#include <stddef.h>

/* Loads matrix.conf, arches.conf, host.conf and every variant's rules from dir, and each
 * variant's xfail file from patch_root/<variant>/ (NULL: matrix.conf's patches folder, or none).
 * Returns -1 with a "file:line: what" message in err. */
int matrix_load(const char *dir, const char *patch_root, struct matrix *m, char *err,
		size_t errlen);
void matrix_free(struct matrix *m);

/* Adds the named flavour's fragments to the base and records it as the one in use. Returns -1
 * with a message (naming the flavours there are) when matrix.conf declares no such flavour. */
int matrix_use_flavour(struct matrix *m, const char *name, char *err, size_t errlen);

#endif
