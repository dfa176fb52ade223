/* sha256.h - SHA-256 (FIPS 180-4), for the keys of the module cache:
 * a module, the runtime's core object and the kernel API facts are
 * found again only when every input that went into them is the same.
 */
#ifndef TAPIR_SHA256_H
#define TAPIR_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX (2 * SHA256_LEN + 1)

struct sha256 {
	uint32_t h[8];
	uint64_t len;			/* bytes hashed so far */
	unsigned char buf[64];		/* the block being filled */
	size_t n;			/* bytes in buf */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, unsigned char out[SHA256_LEN]);
/* The digest so far in lower-case hex (c is left as it was). */
void sha256_hex(const struct sha256 *c, char out[SHA256_HEX]);

/* A field of a key: its length first, so that no two sequences of
 * fields hash the same bytes ("ab", "c" against "a", "bc").
 */
void sha256_field(struct sha256 *c, const void *data, size_t len);
void sha256_str(struct sha256 *c, const char *s);

#endif
