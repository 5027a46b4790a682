/* digest: see digest.h. */
#include "digest.h"
#include "util.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void digest_init(struct digest *d)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		die("libcrypto cannot start a SHA-256 digest (out of memory?)");
	d->ctx = ctx;
}

void digest_add(struct digest *d, const void *data, size_t len)
{
	if (len && EVP_DigestUpdate(d->ctx, data, len) != 1)
		die("libcrypto's SHA-256 failed");
}

void digest_add_string(struct digest *d, const char *s)
{
	digest_add(d, s, strlen(s) + 1);
}

/* The whole digest as hex; n: how many of its bytes. */
static void finish(struct digest *d, char *out, unsigned n)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	if (EVP_DigestFinal_ex(d->ctx, md, &len) != 1 || len < n)
		die("libcrypto's SHA-256 failed");
	EVP_MD_CTX_free(d->ctx);
	d->ctx = NULL;
	for (unsigned i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

void digest_tag(struct digest *d, char out[17])
{
	finish(d, out, 8);
}

void digest_hex(struct digest *d, char out[65])
{
	finish(d, out, 32);
}

void digest_tag_of(const void *data, size_t len, char out[17])
{
	struct digest d;

	digest_init(&d);
	digest_add(&d, data, len);
	digest_tag(&d, out);
}

void digest_tag_of_file(const char *path, char out[17])
{
	size_t len = 0;
	char *text = read_file(path, &len);

	digest_tag_of(text ? text : "", text ? len : 0, out);
	free(text);
}
