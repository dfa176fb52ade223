/* btf.h - kernel type information from BTF, for kernels that need not be
 * running: function signatures and struct members as SystemTap spells
 * them, which kernel probes need for $var checks and `stap -L` output.
 *
 * BTF is used rather than DWARF because every Debian kernel ships it
 * inside the image itself, while DWARF needs a separate -dbg package of
 * several hundred megabytes that is rarely installed.
 */
#ifndef TAPIR_DEBUGINFO_BTF_H
#define TAPIR_DEBUGINFO_BTF_H

#include <stdbool.h>
#include <stddef.h>

#include "debuginfo/ktype.h"

struct kbtf;	/* opaque: the parsed BTF and an arena for type strings */

/* Enough for any kernel function: the x86-64 ABI passes at most six in
 * registers, and the widest vmlinux functions have about a dozen.
 */
#define KBTF_MAX_PARAMS 16

/* A function's signature.  Every string belongs to the kbtf it came from
 * and stays valid until kbtf_free(); the caller frees nothing.
 */
struct kbtf_func {
	int nparams;			/* not counting a trailing "..." */
	bool variadic;
	const char *param_names[KBTF_MAX_PARAMS];	/* "" if unnamed */
	const char *param_types[KBTF_MAX_PARAMS];	/* "struct file*" */
	const char *ret_type;		/* "ssize_t", "void" */
};

/* A struct or union member; type is owned as in struct kbtf_func. */
struct kbtf_member {
	unsigned long offset;		/* bytes from the start of the type */
	const char *type;
	bool bitfield;
	unsigned int bit_offset;	/* bits past offset, if bitfield */
	unsigned int bit_size;		/* width in bits, if bitfield */
};

/* Load the BTF of kernel release kver.  The running kernel's comes from
 * /sys/kernel/btf/vmlinux; any other is extracted once from
 * /boot/vmlinuz-KVER and kept as raw BTF in CACHEDIR/btf/KVER.btf.
 * On failure returns NULL and, if err is not NULL, sets *err to a
 * malloc'd message the caller must free().
 */
struct kbtf *kbtf_load(const char *kver, const char *cachedir, char **err);
void kbtf_free(struct kbtf *b);

/* Load the BTF of module name (the kernel's name of it, as "brd") of
 * release kver, whose file is path (as kmod_list_path() gives it): the .BTF
 * section of the .ko, which is split BTF on top of the kernel's, so
 * base must be the kernel's kbtf and outlive the result.  The running
 * kernel's loaded modules come from /sys/kernel/btf/NAME; otherwise the
 * section is read once, decompressed if need be, and kept raw in
 * CACHEDIR/btf/KVER/NAME.btf.  The functions of the result are the
 * module's own; its types are its own, then the kernel's.  NULL and
 * *err as kbtf_load().
 */
struct kbtf *kbtf_load_module(struct kbtf *base, const char *kver,
			      const char *name, const char *path,
			      const char *cachedir, char **err);

/* The signature of the function called name: 0, -ENOENT if BTF has no
 * such function, or -E2BIG if it has more than KBTF_MAX_PARAMS.
 */
int kbtf_func(struct kbtf *b, const char *name, struct kbtf_func *out);

/* Call cb once per function whose name matches glob, in strcmp order
 * (a name BTF lists twice, as static functions may be, is reported
 * once).  Returns the number of names reported.
 */
int kbtf_funcs_matching(struct kbtf *b, const char *glob,
			void (*cb)(const char *name, void *arg), void *arg);

/* Member member of type ("struct file", "union foo", or a typedef of a
 * struct or union), looking through anonymous struct and union members
 * as C does: 0, or -ENOENT if either name is unknown.
 */
int kbtf_member(struct kbtf *b, const char *type, const char *member,
		struct kbtf_member *out);

/* The BTF as a type source (ktype.h): valid until kbtf_free(). */
const struct ksrc *kbtf_src(struct kbtf *b);

/* The argument types of tracepoint name, from its btf_trace_NAME
 * typedef (the leading void *data left out); names are "" (BTF does
 * not record them).  0 or -ENOENT.
 */
int kbtf_tracepoint(struct kbtf *b, const char *name, struct kfunc *out);

struct kmod_decomp;

/* The vmlinux ELF in /boot/vmlinuz-KVER, decompressed (no symbol table,
 * but .BTF and the kallsyms tables).
 */
struct vmlinuz {
	char *path;			/* /boot/vmlinuz-KVER */
	char *data;			/* the decompressed payload */
	size_t len, off;		/* its size; where it starts in path */
	const struct kmod_decomp *decomp;
	int status;			/* the decompressor's exit status */
};

/* 0, or -1 with *err set. */
int vmlinuz_unpack(const char *kver, struct vmlinuz *v, char **err);
/* *err for a payload without what: a decompressor failure, or none. */
void vmlinuz_lacks(const struct vmlinuz *v, const char *what, char **err);
void vmlinuz_release(struct vmlinuz *v);

#endif
