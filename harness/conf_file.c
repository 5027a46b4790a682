/* conf_file: see conf_file.h. */
#define _GNU_SOURCE
#include "conf_file.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void split_line(struct conf_line *l, const char *start, size_t len)
{
	char *text = xmalloc(len + 1), *hash;

	memcpy(text, start, len);
	text[len] = 0;
	/* a comment starts at the first '#' that no backslash escapes; "\#" is a '#' */
	for (hash = strchr(text, '#'); hash && hash > text && hash[-1] == '\\';
	     hash = strchr(hash, '#'))
		memmove(hash - 1, hash, strlen(hash) + 1);	/* the '#' stays, at hash - 1 */
	if (hash)
		*hash = 0;
	l->text = text;
	l->indented = len > 0 && (start[0] == ' ' || start[0] == '\t');
	l->nword = 0;
	l->word = NULL;
	l->offset = NULL;
	for (char *p = text; *p;) {
		char *w;

		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		l->word = xrealloc(l->word, sizeof(*l->word) * (size_t)(l->nword + 1));
		l->offset = xrealloc(l->offset, sizeof(*l->offset) * (size_t)(l->nword + 1));
		l->word[l->nword] = xmalloc((size_t)(p - w) + 1);
		memcpy(l->word[l->nword], w, (size_t)(p - w));
		l->word[l->nword][p - w] = 0;
		l->offset[l->nword] = (size_t)(w - text);
		l->nword++;
	}
}

static void free_line(struct conf_line *l)
{
	for (int i = 0; i < l->nword; i++)
		free(l->word[i]);
	free(l->word);
	free(l->offset);
	free(l->text);
}

int conf_parse(const char *path, const char *text, struct conf_file *cf, char *err, size_t errlen)
{
	int lineno = 0;

	*cf = (struct conf_file){ .path = xstrdup(path) };
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct conf_line l;

		lineno++;
		if (len && p[len - 1] == '\r')
			len--;
		split_line(&l, p, len);
		p += len + (nl ? (p[len] == '\r' ? 2 : 1) : 0);
		if (l.nword == 0) {
			free_line(&l);
			continue;
		}
		l.lineno = lineno;
		cf->line = xrealloc(cf->line, sizeof(*cf->line) * (size_t)(cf->nline + 1));
		cf->line[cf->nline++] = l;
	}
	if (cf->nline == 0 || cf->line[0].indented || cf->line[0].nword != 2 ||
	    strcmp(cf->line[0].word[0], "format") || strcmp(cf->line[0].word[1], "1")) {
		snprintf(err, errlen, "%s:%d: expected 'format 1' as the first line; this file is "
			 "not a kcmp-matrix format 1 file", path, cf->nline ? cf->line[0].lineno : 1);
		conf_free(cf);
		return -1;
	}
	return 0;
}

char *conf_read_text(const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = read_file(path, &len), *nul;

	if (!text) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	/* a NUL would end the text early and the rest would be silently ignored */
	nul = memchr(text, 0, len);
	if (nul) {
		int line = 1;

		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		snprintf(err, errlen, "%s:%d: a NUL byte in a text file; write the file again as "
			 "plain text", path, line);
		free(text);
		return NULL;
	}
	return text;
}

int conf_load(const char *path, struct conf_file *cf, char *err, size_t errlen)
{
	char *text = conf_read_text(path, err, errlen);
	int r;

	if (!text)
		return -1;
	r = conf_parse(path, text, cf, err, errlen);
	free(text);
	return r;
}

void conf_free(struct conf_file *cf)
{
	for (int i = 0; i < cf->nline; i++)
		free_line(&cf->line[i]);
	free(cf->line);
	free(cf->path);
	*cf = (struct conf_file){ 0 };
}

const char *conf_rest(const struct conf_line *l, int i)
{
	return i < l->nword ? l->text + l->offset[i] : "";
}

char **conf_words(const struct conf_line *l, int from)
{
	char **v = xcalloc((size_t)(l->nword - from + 1), sizeof(*v));

	for (int i = from; i < l->nword; i++)
		v[i - from] = xstrdup(l->word[i]);
	return v;
}
