/* kbuild.h - pass 4: building the module with the kernel's kbuild, the
 * compile probes for kernel API differences, and the module cache.
 */
#ifndef TAPIR_KBUILD_H
#define TAPIR_KBUILD_H

#include "session.h"

/* Build csrc as NAME.ko in a directory under tmpdir; *ko is its path. */
int kbuild_module(struct session *s, const char *name, const char *csrc,
		  const char *tmpdir, const char **ko);
/* The cache key of a module (the SHA-256 of the C text and of every
 * other input, in hex) and the cache itself.
 */
const char *kbuild_hash(struct session *s, const char *csrc);
const char *kbuild_cached(struct session *s, const char *hash);
const char *kbuild_cache_store(struct session *s, const char *hash,
			       const char *ko);
const char *kbuild_cache_dir(struct session *s);
bool kbuild_copy(const char *from, const char *to);

#endif
