/* cache: see cache.h. */
#define _GNU_SOURCE
#include "cache.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *entry_dir(const char *cache_dir, const char *kind, const char *key)
{
	return xasprintf("%s/%s/%s", cache_dir, kind, key);
}

char *cache_file(const char *cache_dir, const char *kind, const char *key, const char *file)
{
	char *dir = entry_dir(cache_dir, kind, key), *path = xasprintf("%s/%s", dir, file);

	mkdir_p(dir);
	free(dir);
	return path;
}

int cache_complete(const char *cache_dir, const char *kind, const char *key)
{
	char *dir = entry_dir(cache_dir, kind, key), *mark = xasprintf("%s/complete", dir);
	int ok = path_exists(mark);

	free(mark);
	free(dir);
	return ok;
}

int cache_finish(const char *cache_dir, const char *kind, const char *key)
{
	char *path = cache_file(cache_dir, kind, key, "complete");
	int rc = write_file_atomic(path, "1\n", 2);

	free(path);
	return rc;
}

void cache_key(char out[17], const char *const *parts)
{
	uint64_t h = HASH_INIT;

	for (int i = 0; parts[i]; i++)
		h = hash_bytes(h, parts[i], strlen(parts[i]) + 1);
	hash_hex(h, out);
}
