/* json: see json.h. A recursive-descent parser with a depth limit, so a hostile file cannot
 * exhaust the stack. */
#define _GNU_SOURCE
#include "json.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

struct parser {
	const char *s, *end;
	char *err;
	size_t errlen;
	int failed;
};

static int fail(struct parser *p, const char *what)
{
	if (!p->failed)
		snprintf(p->err, p->errlen, "%s", what);
	p->failed = 1;
	return -1;
}

static void skip_space(struct parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static int literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return fail(p, "unknown word (expected a value)");
	p->s += n;
	return 0;
}

static void utf8(struct strbuf *sb, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sb_add(sb, b, n);
}

static int hex4(struct parser *p, unsigned *out)
{
	*out = 0;
	if (p->end - p->s < 4)
		return fail(p, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *p->s++;

		*out <<= 4;
		if (c >= '0' && c <= '9')
			*out |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*out |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*out |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, "bad \\u escape");
	}
	return 0;
}

static int escape(struct parser *p, struct strbuf *sb)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	unsigned cp, low;

	if (p->s >= p->end)
		return fail(p, "unterminated string");
	if (*p->s != 'u') {
		k = strchr(from, *p->s);
		if (!k || !*p->s)
			return fail(p, "bad escape in string");
		sb_add(sb, &to[k - from], 1);
		p->s++;
		return 0;
	}
	p->s++;
	if (hex4(p, &cp))
		return -1;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u')
			return fail(p, "lone surrogate in \\u escape");
		p->s += 2;
		if (hex4(p, &low) || low < 0xdc00 || low > 0xdfff)
			return fail(p, "bad surrogate pair in \\u escape");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
	}
	utf8(sb, cp);
	return 0;
}

static int string(struct parser *p, char **out)
{
	struct strbuf sb = { 0 };

	p->s++;	/* the opening quote */
	sb_add(&sb, "", 0);
	while (p->s < p->end && *p->s != '"') {
		if ((unsigned char)*p->s < 0x20) {
			sb_free(&sb);
			return fail(p, "control character in string");
		}
		if (*p->s == '\\') {
			p->s++;
			if (escape(p, &sb)) {
				sb_free(&sb);
				return -1;
			}
			continue;
		}
		sb_add(&sb, p->s++, 1);
	}
	if (p->s >= p->end) {
		sb_free(&sb);
		return fail(p, "unterminated string");
	}
	p->s++;
	*out = sb.s;
	return 0;
}

static int number(struct parser *p, double *out)
{
	char buf[64], *end;
	size_t n = 0;

	while (p->s + n < p->end && n < sizeof(buf) - 1 && strchr("+-.0123456789eE", p->s[n]) &&
	       p->s[n])
		n++;
	memcpy(buf, p->s, n);
	buf[n] = 0;
	*out = strtod(buf, &end);
	if (n == 0 || *end)
		return fail(p, "bad number");
	p->s += n;
	return 0;
}

static int value(struct parser *p, struct json *j, int depth);

/* An array or an object: members separated by commas up to the closing bracket. */
static int members(struct parser *p, struct json *j, int depth)
{
	char close = j->type == JSON_ARRAY ? ']' : '}';
	int cap = 0;

	p->s++;
	skip_space(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		if (j->type == JSON_OBJECT) {
			skip_space(p);
			if (p->s >= p->end || *p->s != '"')
				return fail(p, "expected a string key");
			if (string(p, &key))
				return -1;
			skip_space(p);
			if (p->s >= p->end || *p->s != ':') {
				free(key);
				return fail(p, "expected ':' after a key");
			}
			p->s++;
		}
		if (j->n == cap) {
			cap = cap ? 2 * cap : 8;
			j->item = xrealloc(j->item, (size_t)cap * sizeof(*j->item));
			if (j->type == JSON_OBJECT)
				j->key = xrealloc(j->key, (size_t)cap * sizeof(*j->key));
		}
		memset(&j->item[j->n], 0, sizeof(*j->item));
		if (j->type == JSON_OBJECT)
			j->key[j->n] = key;
		j->n++;
		if (value(p, &j->item[j->n - 1], depth + 1))
			return -1;
		skip_space(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close) {
			p->s++;
			return 0;
		}
		return fail(p, j->type == JSON_ARRAY ? "expected ',' or ']'" : "expected ',' or '}'");
	}
}

static int value(struct parser *p, struct json *j, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return fail(p, "nested too deeply");
	skip_space(p);
	if (p->s >= p->end)
		return fail(p, "unexpected end of input");
	switch (*p->s) {
	case '{': j->type = JSON_OBJECT; return members(p, j, depth);
	case '[': j->type = JSON_ARRAY; return members(p, j, depth);
	case '"': j->type = JSON_STRING; return string(p, &j->string);
	case 't': j->type = JSON_BOOL; j->boolean = 1; return literal(p, "true");
	case 'f': j->type = JSON_BOOL; return literal(p, "false");
	case 'n': j->type = JSON_NULL; return literal(p, "null");
	default: j->type = JSON_NUMBER; return number(p, &j->number);
	}
}

/* Turns the parser's message into "line L, column C: message". */
static void locate(const char *text, const char *at, char *err, size_t errlen)
{
	int line = 1, col = 1;
	char what[256];

	for (const char *q = text; q < at; q++) {
		col++;
		if (*q == '\n') {
			line++;
			col = 1;
		}
	}
	snprintf(what, sizeof(what), "%s", err);
	snprintf(err, errlen, "line %d, column %d: %s", line, col, what);
}

int json_parse(const char *text, size_t len, struct json *out, char *err, size_t errlen)
{
	struct parser p = { .s = text, .end = text + len, .err = err, .errlen = errlen };

	*out = (struct json){ 0 };
	if (value(&p, out, 0) == 0) {
		skip_space(&p);
		if (p.s < p.end)
			fail(&p, "text after the value");
	}
	if (p.failed) {
		locate(text, p.s, err, errlen);
		json_free(out);
		return -1;
	}
	return 0;
}

void json_free(struct json *j)
{
	for (int i = 0; i < j->n; i++) {
		json_free(&j->item[i]);
		if (j->key)
			free(j->key[i]);
	}
	free(j->item);
	free(j->key);
	free(j->string);
	*j = (struct json){ 0 };
}

const struct json *json_get(const struct json *j, const char *key)
{
	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (int i = 0; i < j->n; i++)
		if (j->key[i] && !strcmp(j->key[i], key))
			return &j->item[i];
	return NULL;
}

const char *json_get_string(const struct json *j, const char *key)
{
	const struct json *v = json_get(j, key);

	return v && v->type == JSON_STRING ? v->string : NULL;
}

double json_get_number(const struct json *j, const char *key, double dflt)
{
	const struct json *v = json_get(j, key);

	return v && v->type == JSON_NUMBER ? v->number : dflt;
}

int json_get_bool(const struct json *j, const char *key)
{
	const struct json *v = json_get(j, key);

	return v && v->type == JSON_BOOL && v->boolean;
}
