/* libFuzzer target for the console parser: any bytes in, no crash, no leak, and the parser's
 * answers stay consistent with each other. Seeds: tests/data/*.log (real serial consoles). */
#include "ktap.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktap_log log;
	char buf[256];
	const char *problem;

	ktap_parse((const char *)data, size, &log);
	problem = ktap_problem(&log, buf, sizeof(buf));
	/* a log the parser calls complete has exactly the plan's results, in order */
	if (!problem && (log.plan != log.ntest || log.out_of_order || log.versions != 1))
		abort();
	for (int i = 0; i < log.ntest; i++)
		if (!log.test[i].name)
			abort();
	ktap_free(&log);
	return 0;
}
