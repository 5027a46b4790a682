/* arches: matrix/arches.conf, the per-arch build and boot facts (its format is described in
 * that file): compiler, image, QEMU line, console, timeouts, packages, the guest's channel
 * and the console lines that are a crash or a warning. A QEMU line may add only the machine
 * and how fast it runs (qemu_refused): the harness composes the rest itself (boot.c).
 */
#ifndef KCMPM_ARCHES_H
#define KCMPM_ARCHES_H

#include "matrix.h"

#include <stddef.h>

/* Loads the arches named in wanted (matrix.conf's arches line, in its order) from path into
 * m->arch. Returns -1 with a "file:line: what" message in err. */
int arches_load(const char *path, struct matrix *m, char **wanted, char *err, size_t errlen);

#endif
