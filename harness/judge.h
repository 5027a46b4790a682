/* judge: a cell's verdict, decided here and nowhere else. Pure: no I/O.
 *
 * The judge takes all the evidence of a cell: the config layer (requested, predicted by the
 * rules, resolved by Kconfig), the build's outcome, and every boot of its kernel with what its
 * console said (observed by the guest). It returns the final status, the variant's known
 * failures applied, and whether the cell passed only on a retry (flaky).
 *
 * PASS needs: the right kernel booted, predicted == resolved for every symbol, observed ==
 * what the resolved config implies (for each of the rules' observables; a symbol resolved to m
 * needs a module the build made, c->modules), the guest's listed tests reported by count and
 * name (its own plan line is not enough), every one ok, a SKIP only where the prediction
 * implies it, and a kernel that neither crashed nor warned. A FAIL names each failed test.
 * Otherwise FAIL, with every diverging layer named in the reason. A config, build, boot or
 * timeout problem comes first and ends the judging, since later layers do not exist then;
 * only the config layer, which exists for every resolved cell, is still checked (and a
 * disagreement there is FAIL, naming the early status too).
 *
 * Boots: a crash (arches.conf's crash lines) on any boot is BOOT_FAIL and a kernel warning
 * (its warning lines) is KERNEL_WARN, whatever a later boot said: nothing a kernel did wrong
 * is retried away. A boot that timed out after the guest announced its start ("# kcmp-matrix:
 * guest started", drained to the console before its first call that could hang) is the
 * kernel's hang: TIMEOUT, never retried. Only a boot that timed out before the guest started,
 * with neither a crash nor a warning (the machine's fault: a loaded host under TCG, a stalled
 * firmware), may be retried (judge_boot_retryable); a cell whose last boot passed after such
 * boots is PASS, flaky, which the exit status does not count as a pass (cell_ok).
 *
 * Known failures (kernel-patch/<variant>/xfail) cover only what they declare: a build error
 * holding their text, their one guest test failing alone, or a kernel warning line holding
 * their text alone. Every declaration whose pattern matches the cell is tried; one that
 * describes its failure covers it. A covered cell that failed so is XFAIL, one that passed XPASS; any other
 * failure stays what it is. Never over a disagreement of rules and Kconfig.
 */
#ifndef KCMPM_JUDGE_H
#define KCMPM_JUDGE_H

#include "boot.h"
#include "ktap.h"
#include "plan.h"

/* One boot of a cell's kernel: how QEMU ended and what its console said. */
struct boot_attempt {
	struct boot_outcome outcome;
	struct ktap_log log;
};

struct judge_input {
	const struct matrix *m;
	const char *config_error;	/* non-NULL: Kconfig could not resolve the config */
	const char *build_error;	/* non-NULL: the kernel did not build */
	int build_timed_out;		/* with build_error: because its time limit ran out */
	int build_machine_fault;	/* with build_error: the machine's fault (ERROR) */
	const char *modules;		/* the modules the build made, as words ("": none) */
	int nattempt;			/* the boots of the kernel, first to last */
	const struct boot_attempt *attempt;
	double boot_timeout;		/* seconds each boot had */
	const char *kernel_id;		/* the tag the kernel was built with */
	const char *const *tests;	/* the guest's test list (guest_tests): the results must
					 * be exactly these, in order; NULL accepts any plan */
};

/* Fills c->status, c->reason, c->flaky and the observed fields (replacing, and freeing, what
 * an earlier judgement of the cell left there), and applies the variant's known failures.
 * c->predicted must be set, and c->resolved unless config_error is. */
void judge_cell(const struct judge_input *in, struct cell *c);

/* Did QEMU die by a signal the harness did not send (status 128 + the signal, the OOM
 * killer's 9), with neither a crash nor a warning on the console? The machine's fault: the
 * cell is ERROR, the boot is retried and never kept. */
int judge_boot_killed(const struct boot_attempt *a);

/* May the boot stage boot again after this attempt? Only when it timed out before the guest
 * started and its console shows neither a crash nor a warning, or QEMU was killed
 * (judge_boot_killed): the machine's fault, not the kernel's. */
int judge_boot_retryable(const struct boot_attempt *a);

/* A config-only run's verdict (nothing built or booted): CONFIG_OK when the rules' prediction
 * and the resolved config agree, else FAIL naming each symbol. */
void judge_config_only(const struct matrix *m, struct cell *c);

#endif
