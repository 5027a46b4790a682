/* reproducer: cells/.../reproduce.sh, the cell again by hand: its final .config built with the
 * make commands the harness uses, booted with the same QEMU line. For a person to read and run;
 * the harness never runs it.
 */
#ifndef KCMPM_REPRODUCER_H
#define KCMPM_REPRODUCER_H

#include "stage.h"

void write_reproducer(const struct group *g, const struct cell *c);

#endif
