/* ksyms.h - the kernel's function symbols (ksyms.c): what can be probed
 * by name beyond the functions the type sources describe.
 */
#ifndef TAPIR_KSYMS_H
#define TAPIR_KSYMS_H

#include <stdbool.h>
#include <stddef.h>

struct ksyms;

/* The text symbols of kernel kver: /proc/kallsyms when it is the
 * running kernel, else the symbol table of its debuginfo vmlinux
 * (kmod_debug_vmlinux()), else the kallsyms tables inside
 * /boot/vmlinuz-KVER (the list cached under cachedir/ksyms when
 * cachedir is not NULL).  NULL with *err set when none is there.
 * TAPIR_KALLSYMS=FILE reads FILE in kallsyms format instead (tests).
 */
struct ksyms *ksyms_load(const char *kver, const char *cachedir, char **err);
/* Only the kallsyms tables of /boot/vmlinuz-KVER (tests). */
struct ksyms *ksyms_load_vmlinuz(const char *kver, const char *cachedir,
				 char **err);
void ksyms_free(struct ksyms *s);

bool ksyms_has(const struct ksyms *s, const char *name);
size_t ksyms_count(const struct ksyms *s);
const char *ksyms_source(const struct ksyms *s);

/* The compiler's clones of function name (name.isra.N,
 * name.constprop.N, name.part.N; not .cold): cb for each, in sorted
 * order, if cb is not NULL.  How many there are.
 */
size_t ksyms_clones(const struct ksyms *s, const char *name,
		    void (*cb)(const char *clone, void *arg), void *arg);

/* cb for each name matching glob, in sorted order. */
void ksyms_matching(const struct ksyms *s, const char *glob,
		    void (*cb)(const char *name, void *arg), void *arg);

#endif
