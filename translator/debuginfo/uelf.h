/* uelf.h - a user-space ELF file (a program or a shared library) as
 * process probes see it: how its name resolves to a file, where its code
 * lies in that file (uprobes take file offsets), its function symbols
 * with C++ names demangled, the libraries it needs, its SDT notes and
 * PLT entries, and its DWARF, from the file itself or from separate
 * debuginfo.
 *
 * Everything a uelf hands out lives until uelf_free().
 */
#ifndef TAPIR_DEBUGINFO_UELF_H
#define TAPIR_DEBUGINFO_UELF_H

#include <stdbool.h>
#include <stdint.h>

struct uelf;	/* opaque: the ELF handle, tables, the arena */
struct kdwarf;

/* NAME as a shell finds a command: a name with a '/' is taken as it is,
 * a bare one is searched for in $PATH (an executable regular file) and,
 * failing that, in the library directories (process("libc.so.6")); a
 * "#!" script stands for its interpreter.  The result is the canonical
 * absolute path (symlinks resolved), for the caller to free(); NULL
 * with *err saying why.
 */
char *uelf_resolve(const char *name, char **err);

/* Open an ELF file (path as uelf_resolve() gives it).  NULL with *err
 * when it is not there or not an ELF program or library of this machine
 * (x86-64, or i386).
 */
struct uelf *uelf_open(const char *path, char **err);
void uelf_free(struct uelf *u);

const char *uelf_path(const struct uelf *u);
/* A shared library (ET_DYN without an interpreter), as opposed to a
 * program (ET_EXEC, or a PIE: ET_DYN with PT_INTERP).
 */
bool uelf_is_library(const struct uelf *u);
/* An i386 file (ELFCLASS32), which an x86-64 kernel runs and probes;
 * the DWARF variables of its functions are not read yet.
 */
bool uelf_is_32bit(const struct uelf *u);

/* The file offset of the byte at link-time address vaddr, through the
 * PT_LOAD program headers: what a uprobe is placed at.  0, or -ENOENT
 * when no segment with file contents holds vaddr.
 */
int uelf_offset(const struct uelf *u, uint64_t vaddr, uint64_t *off);

/* The file's DWARF, from the file or from separate debuginfo found by
 * build-id (/usr/lib/debug/.build-id/xx/rest.debug) or .gnu_debuglink
 * (next to the file, in .debug/ there, or under /usr/lib/debug), and
 * the directories of $SYSTEMTAP_DEBUGINFO_PATH first.  Loaded on first
 * use, its name index cached under cachedir (may be NULL); NULL when
 * there is none, with *why (if not NULL) saying why.
 */
struct kdwarf *uelf_dwarf(struct uelf *u, const char *cachedir,
			  const char **why);

/* A function symbol of .symtab or, in a stripped file, .dynsym. */
struct usym {
	const char *name;	/* C++ demangled, without parameters:
				 * "ns::Point::norm" */
	const char *linkage;	/* as the symbol table has it */
	uint64_t addr;		/* link-time address */
	uint64_t size;
	bool exported;		/* defined in .dynsym, not local */
};

/* The function called name (of several, a global one); NULL if none. */
const struct usym *uelf_func(const struct uelf *u, const char *name);
/* The function symbol holding addr, or NULL. */
const struct usym *uelf_func_at(const struct uelf *u, uint64_t addr);
/* cb per function whose name matches glob, in name order, each name
 * once; returns how many.
 */
int uelf_funcs_matching(const struct uelf *u, const char *glob,
			void (*cb)(const struct usym *s, void *arg),
			void *arg);
/* Whether the file has its full symbol table (.symtab), as opposed to
 * the exported functions of .dynsym alone.
 */
bool uelf_has_symtab(const struct uelf *u);

/* Whether the dynamic symbol table exports a function called name. */
bool uelf_exported(const struct uelf *u, const char *name);

/* The DT_NEEDED names, in order; returns how many. */
int uelf_needed(const struct uelf *u, const char *const **names);

/* The library name (a glob on DT_NEEDED names, or a plain file name) as
 * the dynamic linker of this program would load it: its DT_RUNPATH or
 * DT_RPATH ($ORIGIN expanded), $LD_LIBRARY_PATH, /etc/ld.so.conf and
 * the default directories.  A malloc'd canonical path, or NULL.
 */
char *uelf_find_library(const struct uelf *prog, const char *name);

/* One SDT marker of the .note.stapsdt notes (sys/sdt.h). */
struct usdt {
	const char *provider;
	const char *name;
	uint64_t pc;		/* link-time address of its nop */
	uint64_t sem;		/* its semaphore's address; 0: none */
	const char *args;	/* "-4@%edi 8@-16(%rbp)" */
};

/* cb per marker whose provider and name match the globs (provider may
 * be NULL: any), in note order; returns how many.
 */
int uelf_sdt(const struct uelf *u, const char *provider, const char *name,
	     void (*cb)(const struct usdt *m, void *arg), void *arg);

/* cb per PLT entry whose function name matches glob, with the entry's
 * address, in name order; returns how many.
 */
int uelf_plt(const struct uelf *u, const char *glob,
	     void (*cb)(const char *name, uint64_t addr, void *arg),
	     void *arg);

/* name without its C++ parameters and return type, or name itself when
 * it is not a mangled C++ name; lives as long as u.
 */
const char *uelf_demangle(struct uelf *u, const char *name);

#endif
