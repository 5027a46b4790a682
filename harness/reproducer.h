/* reproducer: cells/.../reproduce.sh, the cell again by hand: its final .config built with the
 * make commands the build stage recorded in the cell, then booted with the QEMU line the boot
 * stage recorded (both for the scratch directory PLAN_REPRO_DIR stands for). Written from the
 * cell's record alone. For a person to read and run; the harness never runs it.
 */
#ifndef KCMPM_REPRODUCER_H
#define KCMPM_REPRODUCER_H

#include "matrix.h"
#include "plan.h"

/* kernel_version: the cell's tree's (struct tree). */
void write_reproducer(const struct matrix *m, const struct cell *c, const char *kernel_version);

#endif
