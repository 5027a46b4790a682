/* digest: SHA-256, from OpenSSL's libcrypto, the one hash of the harness: cache keys, kernel
 * tags, the identities of the guest, the tools, the resolver and the patch series, and the
 * manifests that check every cache entry before it is used. A standard cryptographic hash,
 * because the keys are meant to be shared between machines (CI caches, a nightly's shards),
 * as git, Nix and ccache address content. Keys and tags are its first 64 bits as 16 hex
 * digits: they name directories and kernels (KBUILD_BUILD_TIMESTAMP=kcmpm-<tag>), and 2^64
 * keeps two different inputs apart at this scale; a manifest keeps all 256 bits of each file.
 */
#ifndef KCMPM_DIGEST_H
#define KCMPM_DIGEST_H

#include <stddef.h>

struct digest {
	void *ctx;	/* libcrypto's EVP_MD_CTX */
};

/* Starts a digest; aborts the harness when libcrypto cannot (out of memory). */
void digest_init(struct digest *d);
void digest_add(struct digest *d, const void *data, size_t len);
/* Adds s with its NUL, so that ("ab", "c") and ("a", "bc") differ. */
void digest_add_string(struct digest *d, const char *s);
/* Ends the digest: its first 64 bits as 16 hex digits. */
void digest_tag(struct digest *d, char out[17]);
/* Ends the digest: all of it as 64 hex digits. */
void digest_hex(struct digest *d, char out[65]);
/* The tag of one buffer. */
void digest_tag_of(const void *data, size_t len, char out[17]);
/* The tag of a file's content (an unreadable file's: that of no bytes). */
void digest_tag_of_file(const char *path, char out[17]);

#endif
