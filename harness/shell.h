/* shell: make shell. Boots one cell's kernel (built by the run just before) in QEMU with a
 * static busybox as /bin/sh and the kernel told rdinit=/bin/sh, so the console is an
 * interactive shell on the terminal. The harness replaces itself with QEMU; leaving the shell
 * (exit) panics the kernel, which with panic=-1 and -no-reboot ends QEMU.
 */
#ifndef KCMPM_SHELL_H
#define KCMPM_SHELL_H

#include "plan.h"
#include "run.h"
#include "tree.h"

/* Returns only on failure: 2 with a message printed. busybox: a static busybox for the cell's
 * arch, or NULL for /bin/busybox on a native arch. */
int shell_boot(const struct run_opts *o, const struct matrix *m, const struct tree *t,
	       const struct cell *c, const char *busybox);

#endif
