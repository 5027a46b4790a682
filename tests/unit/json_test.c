/* The JSON reader: what matrix.json holds, escapes, and errors with their position. */
#include "check.h"
#include "json.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int parse(const char *text, struct json *j, char *err)
{
	return json_parse(text, strlen(text), j, err, 256);
}

TEST(json_values_and_lookup)
{
	struct json j;
	char err[256] = "";
	const char *text = " {\"a\": \"x\\ty\\u00e9\\ud83d\\ude00\", \"n\": -1.5e2, \"t\": true,\n"
			   "  \"z\": null, \"list\": [1, {\"k\": []}, \"s\"], \"o\": {}}\n";

	CHECK(parse(text, &j, err) == 0);
	CHECK(j.type == JSON_OBJECT && j.n == 6);
	CHECK_STR(json_get_string(&j, "a"), "x\ty\xc3\xa9\xf0\x9f\x98\x80");
	CHECK(json_get_number(&j, "n", 0) == -150);
	CHECK(json_get_bool(&j, "t") == 1);
	CHECK(json_get(&j, "z") && json_get(&j, "z")->type == JSON_NULL);
	CHECK(json_get_string(&j, "z") == NULL);	/* null is not a string */
	CHECK(json_get(&j, "list")->n == 3 && json_get(&j, "list")->item[1].type == JSON_OBJECT);
	CHECK(json_get(&j, "missing") == NULL && json_get_number(&j, "missing", 7) == 7);
	json_free(&j);
}

TEST(json_errors_name_line_and_column)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ "{\"a\": 1,\n  \"b\" 2}", "line 2, column 7: expected ':' after a key" },
		{ "[1, 2", "line 1, column 6: expected ',' or ']'" },
		{ "\"abc", "unterminated string" },
		{ "\"\\q\"", "bad escape in string" },
		{ "\"\\ud800x\"", "lone surrogate" },
		{ "tru", "unknown word" },
		{ "{} x", "text after the value" },
		{ "", "unexpected end of input" },
		{ "\"a\nb\"", "control character in string" },
		{ "-", "bad number" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct json j;
		char err[256] = "";

		CHECK(parse(bad[i].text, &j, err) == -1);
		CHECK_CONTAINS(err, bad[i].message);
	}
}

TEST(json_refuses_deep_nesting)
{
	char text[400];
	struct json j;
	char err[256] = "";

	memset(text, '[', 200);
	memset(text + 200, ']', 200);
	CHECK(json_parse(text, sizeof(text), &j, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "nested too deeply");
	CHECK(json_parse(text + 140, 120, &j, err, sizeof(err)) == 0);	/* 60 deep is fine */
	json_free(&j);
}
