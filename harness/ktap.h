/* ktap: the parser for a guest's serial console. Pure: text in, results out, no I/O.
 *
 * The console holds kernel messages and the guest's KTAP (Documentation/dev-tools/ktap.rst)
 * interleaved, unless the guest has a channel of its own (ktap_parse_split). Unknown lines are ignored, a trailing '\r' is dropped, and so are kernel
 * timestamps in front of crash messages. What counts:
 *   "KTAP version 1"                       the start (a second one is an error)
 *   "1..N"                                 the plan
 *   "ok N name [# SKIP why]", "not ok N name [# directive]"
 *   "# text" after a "not ok"              that test's diagnostic (the first one)
 *   "# kcmp-matrix kernel: REL VERSION"    which kernel the guest booted
 *   "# kcmp-matrix observed: k=v ..."      what the guest saw: a state per observable name
 *   "# kcmp-matrix: guest started"         the guest runs: the kernel booted it (the guest
 *                                          drains this line to the console before its
 *                                          first call that could hang)
 *   "# kcmp-matrix: powering off"          the guest finished
 *   "Linux version ..."                    the kernel's banner
 *   a crash line                           the first one is kept (a line holding one of
 *                                          marks->crash: a panic, an oops, ...)
 *   a warning line                         the first one from the banner to the console's
 *                                          end is kept (one of marks->warning: WARNING:,
 *                                          BUG:, UBSAN:, ...; the guest's own lines never
 *                                          count)
 * Which lines are crashes and warnings is data (matrix/arches.conf), not code. The parser is
 * strict about plans: ktap_problem() names any way the results do not add up.
 */
#ifndef KCMPM_KTAP_H
#define KCMPM_KTAP_H

#include <stddef.h>

enum { KTAP_MAX_OBSERVED = 16 };

/* Substrings that make a kernel line a crash or a warning; NULL-terminated lists (NULL: none). */
struct console_marks {
	char **crash;
	char **warning;
};

struct ktap_test {
	int number;
	int ok;
	int skip;
	char *name;
	char *diag;	/* first diagnostic line after a failure, or NULL */
	char *skip_why;	/* with skip: the directive's text after "SKIP " */
};

struct ktap_log {
	int versions;		/* "KTAP version" lines seen */
	int plan;		/* N of "1..N", or -1 */
	int ntest;
	struct ktap_test *test;
	int out_of_order;	/* a result number was not the next one */
	char *kernel;		/* from "# kcmp-matrix kernel:" */
	char *banner;		/* the "Linux version" line */
	int nobserved;		/* the "observed" line's name=state words, in its order */
	char *observed_name[KTAP_MAX_OBSERVED];
	char *observed_state[KTAP_MAX_OBSERVED];
	char *crash;		/* first crash line */
	char *warning;		/* first warning line of the kernel's run */
	int started;		/* "# kcmp-matrix: guest started" seen */
	int split;		/* read from the guest's own channel (ktap_parse_split) */
	int powered_off;
};

/* Parses len bytes of console text (need not be NUL-terminated) that the kernel and the guest
 * share; marks (NULL: none) say which kernel lines are crashes and warnings. */
void ktap_parse(const char *text, size_t len, const struct console_marks *marks,
		struct ktap_log *log);
/* The same from two texts: the kernel's console, read for the kernel's lines only (banner,
 * crashes, warnings), and the guest's own channel, read for the guest's lines only (KTAP, its
 * diagnostics and the kcmp-matrix lines). A kernel line can then neither garble a guest line
 * nor pass for one. */
void ktap_parse_split(const char *console, size_t console_len, const char *guest,
		      size_t guest_len, const struct console_marks *marks, struct ktap_log *log);
void ktap_free(struct ktap_log *log);

/* Why the log is not a complete, well-formed KTAP run (writes into buf), or NULL if it is. */
const char *ktap_problem(const struct ktap_log *log, char *buf, size_t len);

/* The state the guest reported for an observable, or NULL when it did not. */
const char *ktap_observed(const struct ktap_log *log, const char *name);

/* The first failed test, or NULL. */
const struct ktap_test *ktap_first_failure(const struct ktap_log *log);

#endif
