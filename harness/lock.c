/* lock: see lock.h. */
#define _GNU_SOURCE
#include "lock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

/* How long a run waits for another that holds its cache or results: longer than a whole cold
 * matrix on a slow machine, short enough that a nightly stuck behind a hung run says so. */
enum { LOCK_WAIT_SECONDS = 6 * 3600 };

void lock_dir(const char *dir)
{
	char *path = xasprintf("%s/.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), waited = 0;

	if (fd < 0)
		die("cannot open lock file '%s':", path);
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			die("cannot lock '%s':", path);
		if (waited == 0)
			warn("another kcmp-matrix run is using '%s'; waiting for it to finish (at most "
			     "%d s)", dir, LOCK_WAIT_SECONDS);
		if (waited >= LOCK_WAIT_SECONDS)
			die("another kcmp-matrix run has held '%s' for %d s; giving up (stop that run, "
			    "or run again once it is done)", dir, waited);
		sleep(1);
		waited++;
	}
	free(path);	/* fd stays open: it holds the lock */
}

void lock_existing_cache(const char *command, const char *cache_dir)
{
	static const char *const kinds[] = { "kernels", "boots", "base", "resolved" };
	int found = 0;

	if (!path_exists(cache_dir))
		die("%s: no cache at '%s'; give --cache DIR", command, cache_dir);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !found; i++) {
		char *path = xasprintf("%s/%s", cache_dir, kinds[i]);

		found = path_exists(path);
		free(path);
	}
	if (!found)
		die("%s: '%s' is no kcmp-matrix cache (it has no kernels/, boots/, base/ or "
		    "resolved/); give --cache DIR of one", command, cache_dir);
	lock_dir(cache_dir);
}
