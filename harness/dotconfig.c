/* dotconfig: see dotconfig.h. */
#define _GNU_SOURCE
#include "dotconfig.h"
#include "rules.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* If line (len bytes) is about CONFIG_<name>, returns 1 and sets the value and its length
 * (NULL for "is not set"). */
static int line_about(const char *line, size_t len, const char *name, const char **value,
		      size_t *vlen)
{
	size_t n = strlen(name);
	static const char notset[] = " is not set";

	if (len >= 9 + n && !strncmp(line, "CONFIG_", 7) && !strncmp(line + 7, name, n) &&
	    line[7 + n] == '=') {
		*value = line + 8 + n;
		*vlen = len - 8 - n;
		return 1;
	}
	if (len == 9 + n + sizeof(notset) - 1 && !strncmp(line, "# CONFIG_", 9) &&
	    !strncmp(line + 9, name, n) && !strncmp(line + 9 + n, notset, sizeof(notset) - 1)) {
		*value = NULL;
		*vlen = 0;
		return 1;
	}
	return 0;
}

char *dotconfig_get(const char *text, const char *name)
{
	char *found = NULL;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *v;
		size_t vlen;

		if (len && p[len - 1] == '\r')
			len--;
		if (line_about(p, len, name, &v, &vlen)) {
			free(found);	/* like Kconfig, the last line wins */
			if (!v) {
				found = xstrdup("n");
			} else {
				found = xmalloc(vlen + 1);
				memcpy(found, v, vlen);
				found[vlen] = 0;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return found;
}

char *dotconfig_set(const char *text, int n, const char *const *names, const char *values)
{
	struct strbuf sb = { 0 };

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int drop = 0;

		for (int i = 0; i < n && !drop; i++) {
			const char *v;
			size_t vlen;

			drop = line_about(p, len, names[i], &v, &vlen);
		}
		if (!drop) {
			sb_add(&sb, p, len);
			sb_add(&sb, "\n", 1);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	for (int i = 0; i < n; i++) {
		if (values[i] == VALUE_UNSET)
			continue;	/* no line: Kconfig's default decides */
		if (values[i] == 'y' || values[i] == 'm')
			sb_printf(&sb, "CONFIG_%s=%c\n", names[i], values[i]);
		else
			sb_printf(&sb, "# CONFIG_%s is not set\n", names[i]);
	}
	sb_add(&sb, "", 0);
	return sb.s;
}

char dotconfig_bool(const char *text, const char *name, int exists)
{
	char *v = dotconfig_get(text, name);
	char c;

	if (!v)
		return exists ? 'n' : 0;
	c = (!strcmp(v, "y") || !strcmp(v, "m") || !strcmp(v, "n")) ? v[0] : '?';
	free(v);
	return c;
}
