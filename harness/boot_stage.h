/* boot_stage: a cell's boots. boot_cell boots the cell's kernel in QEMU with the guest as
 * /init, or takes the boots from the cache (boots/<key>/: every attempt's outcome and
 * console), and hands them back for the judge (judge.h), which the orchestrator (run.c) asks
 * once per cell. A boot that timed out with no crash or warning is the machine's fault and is
 * retried, up to --boot-retries times; boots that ended in the machine's fault are never cached.
 */
#ifndef KCMPM_BOOT_STAGE_H
#define KCMPM_BOOT_STAGE_H

#include "judge.h"
#include "group.h"

enum { MAX_GUEST_ARGS = 1 + MAX_OBSERVABLES + MAX_GUEST_CONFIG + 1 + 1, MAX_BOOT_ATTEMPTS = 8 };

/* A cell's boots, first to last, with what the judge needs to read them. */
struct boots {
	int n;
	struct boot_attempt attempt[MAX_BOOT_ATTEMPTS];
	double timeout;		/* seconds each boot had */
	char kernel_id[64];	/* the tag the kernel was built with, as the guest is told it */
	char *repro_qemu;	/* the QEMU line that boots it by hand (reproducer.h) */
	int cached;		/* taken from the cache, not booted by this run */
	double seconds;		/* how long this run's boots took (0 when cached) */
};

/* Boots the cell's kernel (or takes its boots from the cache) into b (boots_free), with the
 * QEMU line that boots it by hand and how long they took. kernel NULL: it did not build; b
 * holds that line alone, and the cell's directory loses an earlier run's boots. Returns -1
 * with why in err when the harness cannot go on (b is then empty). */
int boot_cell(struct group *g, const struct cell *c, const char *kernel, struct boots *b,
	      char *err, size_t errlen);
void boots_free(struct boots *b);

#endif
