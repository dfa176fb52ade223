/* kmod.h - the loadable modules of an installed kernel release: where
 * NAME.ko is, its twin in the -dbg package, and its bytes; and the
 * compressed files (modules, the bzImage payload) that only the system's
 * xz/zstd/gzip tools unpack.
 */
#ifndef TAPIR_DEBUGINFO_KMOD_H
#define TAPIR_DEBUGINFO_KMOD_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's own name of a module, in place: '-' becomes '_'
 * ("snd-hda-intel" is loaded as snd_hda_intel).
 */
void kmod_canon(char *name);

/* The installed modules of one release, listed once (opaque). */
struct kmod_list;

/* The modules of release kver under /lib/modules/KVER, from modules.dep,
 * or from a walk of the tree when there is none.  NULL with a malloc'd
 * message in *err (if err is not NULL) when neither can be read.
 */
struct kmod_list *kmod_list_load(const char *kver, char **err);
void kmod_list_free(struct kmod_list *l);

/* The file of module name (any spelling) in l, or NULL; it lives as
 * long as l.
 */
const char *kmod_list_path(const struct kmod_list *l, const char *name);

/* cb once per module of l whose kernel name matches glob ('-' in it
 * counts as '_'), in strcmp order.  Returns the number reported.
 */
int kmod_list_match(const struct kmod_list *l, const char *glob,
		    void (*cb)(const char *name, void *arg), void *arg);

/* Kernel debuginfo is looked for under each root of
 * $SYSTEMTAP_DEBUGINFO_PATH (colon-separated; a '+' or '-' before an
 * element is ignored; only absolute elements count), in order, or
 * under /usr/lib/debug when it is unset or empty.  A root may also be
 * the top of an unpacked -dbg package, with usr/lib/debug below it.
 */

/* The kernel's vmlinux with DWARF, ROOT/boot/vmlinux-KVER or
 * ROOT/lib/modules/KVER/vmlinux: malloc'd, or NULL.
 */
char *kmod_debug_vmlinux(const char *kver);

/* The DWARF twin of the module file path (as kmod_list_path() gave it),
 * ROOT/lib/modules/KVER/..../NAME.ko (the -dbg package) or NAME.ko.debug:
 * malloc'd, or NULL.
 */
char *kmod_debug_path(const char *kver, const char *path);

/* The whole module file, decompressed if it is .ko.xz, .ko.zst or
 * .ko.gz: malloc'd, its length in *len; NULL and *err on failure.
 */
char *kmod_read(const char *path, size_t *len, char **err);

/* Whether the ELF image defines a function symbol called name. */
bool kmod_elf_has_func(char *img, size_t len, const char *name);

/* cb per named symbol of the ELF image's symbol table while it returns
 * true.
 */
void kmod_elf_symbols(char *img, size_t len,
		      bool (*cb)(const char *name, void *arg), void *arg);

/* A compression and the tool that undoes it. */
struct kmod_decomp {
	const char *name;		/* "xz" */
	const unsigned char *magic;
	size_t magic_len;
	const char *const *argv;	/* decompress stdin to stdout */
	bool weak_magic;		/* short enough to occur by chance */
};

/* The compression whose magic starts p, or NULL. */
const struct kmod_decomp *kmod_decomp_at(const unsigned char *p,
					 size_t left);

/* Run d's tool on the file path from byte off on and read all of its
 * output into a malloc'd buffer.  Its exit status goes to *status (127:
 * it could not run); the output is for the caller to judge, since the
 * bzImage's trailer makes zstd and gzip complain about healthy images.
 * NULL and *err when the tool cannot be started.
 */
char *kmod_decompress(const char *path, size_t off,
		      const struct kmod_decomp *d, size_t *outlen,
		      int *status, char **err);

#endif
