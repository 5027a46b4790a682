/* libFuzzer target for the console parser: any bytes in, no crash, no leak, and the parser's
 * answers stay consistent with each other. Seeds: tests/data/*.log (real serial consoles). */
#include "ktap.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *crash_lines[] = { "Kernel panic", "Oops", NULL };
static char *warning_lines[] = { "WARNING:", "BUG:", NULL };
static const struct console_marks marks = { crash_lines, warning_lines };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_log log;
	char buf[256];
	const char *problem;

	ktap_parse((const char *)data, size, &marks, &log);
	problem = ktap_problem(&log, buf, sizeof(buf));
	/* a log the parser calls complete has exactly the plan's results, in order */
	if (!problem && (log.plan != log.ntest || log.out_of_order || log.versions != 1))
		abort();
	for (int i = 0; i < log.ntest; i++)
		if (!log.test[i].name || (log.test[i].skip && !log.test[i].skip_why))
			abort();
	/* a warning is a kernel line of the kernel's run: after its banner */
	if (log.warning && !log.banner)
		abort();
	ktap_free(&log);
	return 0;
}
