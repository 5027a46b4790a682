/* conf_file: the line format shared by every file under matrix/.
 *
 * A file is a list of lines; '#' starts a comment ("\#" is a '#' of the line); blank lines are
 * skipped. Each line is split
 * into whitespace-separated words. A line that starts with whitespace is "indented": it belongs
 * to the block opened by the last unindented line (as in Kconfig). The first non-comment line
 * of every file must be "format 1", so a future format can be told apart.
 *
 * This module only splits; each owner (matrix.c, rules.c) gives the words meaning and reports
 * errors as "path:line: what is wrong".
 */
#ifndef KCMPM_CONF_FILE_H
#define KCMPM_CONF_FILE_H

#include <stddef.h>

struct conf_line {
	int lineno;
	int indented;
	int nword;
	char **word;
	char *text;		/* the line without its comment, for owners that parse expressions */
	size_t *offset;		/* offset[i]: where word[i] starts in text */
};

struct conf_file {
	char *path;
	int nline;
	struct conf_line *line;
};

/* Loads and splits path; checks the format line. Returns -1 with a message in err. */
int conf_load(const char *path, struct conf_file *cf, char *err, size_t errlen);
/* A file's whole text (caller frees), or NULL with why in err: unreadable, or a NUL byte in it
 * (which would end the text early: the rest silently dropped), naming its line. */
char *conf_read_text(const char *path, char *err, size_t errlen);
/* Same, from text in memory (path is used in messages only). */
int conf_parse(const char *path, const char *text, struct conf_file *cf, char *err, size_t errlen);
void conf_free(struct conf_file *cf);
/* The rest of a line's text from word i on. */
const char *conf_rest(const struct conf_line *l, int i);
/* Copies words[from..] of a line into a NULL-terminated vector (free_strings). */
char **conf_words(const struct conf_line *l, int from);

#endif
