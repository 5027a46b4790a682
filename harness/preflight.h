/* preflight: before any build, checks that this machine has everything the run needs, so that
 * a missing package is found in seconds, not after an hour of another arch's kernels:
 *
 *   - each program and header in matrix/host.conf (make, flex, bison, libelf's gelf.h, ...);
 *   - each kernel tree of the run: unpacked in the cache already, or its tarball there to
 *     unpack (a missing one names its package, and how to run without that tree);
 *   - for each arch of the run: its compiler compiles and statically links the guest (the real
 *     one, which the run then boots) and its QEMU sets up the arch's machine.
 *
 * Each problem is printed as one line naming the package that brings what is missing; then
 * preflight fails with one line naming them all. When every check passes, each arch's tools
 * are ready for the run: its packed guest and the hashes that key its kernels and boots.
 */
#ifndef KCMPM_PREFLIGHT_H
#define KCMPM_PREFLIGHT_H

#include "arch_tools.h"
#include "matrix.h"
#include "run.h"

#include <stddef.h>

struct preflight_req {
	const struct run_opts *o;
	const struct matrix *m;
	const int *tree_used;		/* tree_used[t]: the run has cells of tree t */
	const int *arch_used;		/* arch_used[a]: the run has cells on arch a */
};

/* Runs every check; fills tools[a] for each arch used. Returns -1 with the summary line in err
 * (the problems themselves were printed) and nothing left to free. */
int preflight(const struct preflight_req *r, struct arch_tools *tools, char *err, size_t errlen);

#endif
