/* boot_stage: a cell's boots, and its verdict. boot_cell boots the cell's kernel in QEMU with
 * the guest as /init, or takes the boots from the cache (boots/<key>/: every attempt's
 * outcome and console), and has the judge (judge.h) give the cell its status from them. A boot
 * that timed out with no crash or warning is the machine's noise and is retried, up to
 * --boot-retries times; boots that ended in noise are never cached.
 */
#ifndef KCMPM_BOOT_STAGE_H
#define KCMPM_BOOT_STAGE_H

#include "stage.h"

enum { MAX_GUEST_ARGS = 1 + MAX_OBSERVABLES + MAX_GUEST_CONFIG + 1 + 1, MAX_BOOT_ATTEMPTS = 8 };

/* Records in the cell the QEMU line that boots its kernel by hand, built as
 * build_record_by_hand says (reproducer.h). */
void boot_record_by_hand(const struct group *g, struct cell *c);
/* Removes what an earlier run's boots of the cell left in its directory (the consoles, the
 * guest channel's logs, qemu.cmd): a cell whose kernel did not build this time was not
 * booted, and must not show another run's boot as its own. */
void boot_forget_cell(const char *dir);
/* Boots the cell's kernel (or takes its boots from the cache) and judges the cell. Returns -1
 * with why in err when the harness cannot go on. */
int boot_cell(struct group *g, struct cell *c, const char *kernel, char *err, size_t errlen);

#endif
