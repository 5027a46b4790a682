/* judge: a cell's verdict from its four layers. Pure: no I/O.
 *
 *   requested  the combination            predicted  the rules applied to the request
 *   resolved   the final .config          observed   what the guest saw
 *
 * PASS needs: the right kernel booted, predicted == resolved for every symbol, observed ==
 * what the resolved config implies (for each of the rules' observables; a symbol resolved to m
 * needs a module the build made, c->modules), the guest's listed tests reported by count and
 * name (its own plan line is not enough), and every one ok; a FAIL names each failed test.
 * Otherwise FAIL, with every diverging layer named in the reason. A build, boot or timeout
 * problem comes first and ends the judging, since later layers do not exist then; only the
 * config layer, which exists for every resolved cell, is still checked (and a disagreement
 * there is FAIL, naming the early status too).
 */
#ifndef KCMPM_JUDGE_H
#define KCMPM_JUDGE_H

#include "boot.h"
#include "ktap.h"
#include "plan.h"

struct judge_input {
	const struct matrix *m;
	const char *build_error;	/* non-NULL: the kernel did not build */
	int build_timed_out;		/* with build_error: because its time limit ran out */
	const struct boot_outcome *boot;
	const struct ktap_log *log;
	const char *kernel_id;		/* the tag the kernel was built with */
	const char *const *tests;	/* the guest's test list (guest_tests): the results must
					 * be exactly these, in order; NULL accepts any plan */
};

/* Fills c->status, c->reason and the observed fields (replacing, and freeing, what an earlier
 * judgement of the cell left there). c->predicted and c->resolved must be
 * set. */
void judge_cell(const struct judge_input *in, struct cell *c);

/* Applies the variant's known failures (kernel-patch/<variant>/xfail) to a judged cell: a
 * declared cell that failed becomes XFAIL, one that passed XPASS. Matched on the resolved
 * values, or the requested ones when the config never resolved; never over a disagreement of
 * rules and Kconfig. */
void judge_known_failures(const struct matrix *m, struct cell *c);

/* A config-only run's verdict (nothing built or booted): CONFIG_OK when the rules' prediction
 * and the resolved config agree, else FAIL naming each symbol. */
void judge_config_only(const struct matrix *m, struct cell *c);

#endif
