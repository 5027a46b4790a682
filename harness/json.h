/* json: a small reader for the JSON this harness writes (results/matrix.json), so that merge
 * and diff can read finished runs back. Values become a tree of struct json; objects keep
 * their keys in order. Errors name the line and column.
 */
#ifndef KCMPM_JSON_H
#define KCMPM_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	int boolean;
	double number;
	char *string;		/* JSON_STRING, UTF-8, NUL-terminated (an embedded NUL ends it) */
	int n;			/* JSON_ARRAY and JSON_OBJECT: number of members */
	struct json *item;	/* the members */
	char **key;		/* JSON_OBJECT: the members' keys */
};

/* Parses one JSON document (surrounding white space allowed). Returns -1 with
 * "line L, column C: what" in err. */
int json_parse(const char *text, size_t len, struct json *out, char *err, size_t errlen);
void json_free(struct json *j);

/* The member called key of an object, or NULL (also when j is not an object). */
const struct json *json_get(const struct json *j, const char *key);
/* The string member key, or NULL when missing, null or not a string. */
const char *json_get_string(const struct json *j, const char *key);
/* The number member key, or dflt when missing or not a number. */
double json_get_number(const struct json *j, const char *key, double dflt);
/* The boolean member key: 1 for true, 0 otherwise. */
int json_get_bool(const struct json *j, const char *key);

#endif
