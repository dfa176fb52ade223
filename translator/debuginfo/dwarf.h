/* dwarf.h - kernel types, functions, lines, inline instances and variable
 * locations from the DWARF of the kernel's -dbg package, through libdw.
 * Types and functions are offered through the ktype.h interface, spelled
 * exactly as the BTF source spells them; the rest is what only DWARF
 * knows and statement, .inline and $local probes need.
 */
#ifndef TAPIR_DEBUGINFO_DWARF_H
#define TAPIR_DEBUGINFO_DWARF_H

#include "debuginfo/ktype.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>

struct kdwarf;	/* opaque: libdw handles, the name index, the type cache */

/* Open /usr/lib/debug/boot/vmlinux-KVER.  Finding names needs an index
 * of the whole .debug_info, which takes about a second to build; it is
 * kept in CACHEDIR/dwarf/KVER.idx (cachedir may be NULL: no cache) and
 * rebuilt when the vmlinux build-id changes.  On failure returns NULL and, if
 * err is not NULL, a malloc'd message in *err for the caller to free().
 */
struct kdwarf *kdwarf_load(const char *kver, const char *cachedir,
			   char **err);

/* The same for module name (the kernel's name of it) from its
 * debuginfo file path, as kmod_debug_path() finds it; the index is kept
 * in CACHEDIR/dwarf/KVER/NAME.idx.  A module is a relocatable file: its
 * sections get addresses of libdw's choosing, which never leave this
 * file, since every place is reported as a symbol and an offset.
 */
struct kdwarf *kdwarf_load_module(const char *kver, const char *name,
				  const char *path, const char *cachedir,
				  char **err);
void kdwarf_free(struct kdwarf *d);

/* The ktype.h view; it lives as long as d. */
const struct ksrc *kdwarf_src(struct kdwarf *d);

/* Every out-of-line definition of the function name: static functions
 * that share a name in several files, as `stap -L` lists them (copies
 * with the same place and signature, such as clones, count once).  The
 * first is the one the func op returns.  Returns the number reported.
 */
int kdwarf_func_all(struct kdwarf *d, const char *name,
		    void (*cb)(const struct kfunc *f, void *arg), void *arg);

/* The same for the definitions of name that were inlined somewhere,
 * which kernel.function("name").inline probes, with or without an
 * out-of-line copy.
 */
int kdwarf_inline_all(struct kdwarf *d, const char *name,
		      void (*cb)(const struct kfunc *f, void *arg),
		      void *arg);

/* Statement probe places: for each out-of-line function matching the
 * glob func, each line in [line_lo, line_hi] of a file matching
 * file_glob (NULL: the function's own declaring file; a glob also
 * matches the trailing components of a path) that has code in the
 * function, the lowest is_stmt address of that line, reported as the
 * ELF symbol holding it and an offset from it (a ".cold" part gets its
 * own symbol).  Lines without code are not reported.  Returns the number
 * reported, or a negative errno.
 */
int kdwarf_lines(struct kdwarf *d, const char *func, const char *file_glob,
		 int line_lo, int line_hi,
		 void (*cb)(const char *func, const char *file, int line,
			    unsigned long offset, void *arg),
		 void *arg);

/* Every inlined instance of the functions matching glob, as the entry
 * pc of its DW_TAG_inlined_subroutine: the ELF symbol of the function it
 * was inlined into and the offset from it.  file:line is where the
 * inlined function is declared (what `stap -L ... .inline` prints), not
 * the call site.  Sorted by name, symbol, offset.  Returns the number
 * reported, or a negative errno.
 */
int kdwarf_inlines(struct kdwarf *d, const char *glob,
		   void (*cb)(const char *name, const char *caller_symbol,
			      unsigned long offset, const char *file,
			      int line, void *arg),
		   void *arg);

/* Where a variable is at one pc, in terms a kprobe handler can read. */
enum kloc_kind {
	KLOC_OPTIMIZED,		/* no location at this pc */
	KLOC_REG,		/* in register reg */
	KLOC_MEM,		/* in memory at reg + offset */
	KLOC_REG_VALUE,		/* the value is reg + offset itself */
	KLOC_STATIC,		/* in memory at symbol + offset */
	KLOC_CONST,		/* the value is value */
	KLOC_UNSUPPORTED,	/* why says what is in the way */
	KLOC_ENTRY,		/* reg at the entry of the function entered
				 * at symbol, + offset: the value, or with
				 * deref the address of it; why says why a
				 * probe here alone cannot read it */
};

struct kloc {
	enum kloc_kind kind;
	const char *reg;	/* pt_regs field: "di", "sp", "r12" */
	int dwreg;		/* its DWARF number */
	long offset;		/* KLOC_MEM, KLOC_REG_VALUE, KLOC_STATIC */
	const char *symbol;	/* KLOC_STATIC */
	int64_t value;		/* KLOC_CONST */
	const char *why;	/* KLOC_UNSUPPORTED: "multi-piece location" */
	bool deref;		/* KLOC_ENTRY: an address, not the value */
};

/* A variable of a probed function, kernel or user: a parameter or a
 * local in scope at the probe's address, where DWARF places it.
 */
struct fvar {
	const char *name;
	const struct ktype *type;
	struct kloc loc;
	bool is_param;
};

/* The parameters and locals in scope at func (an ELF symbol, or a DWARF
 * function name) + offset, innermost scope first, each scope in
 * declaration order, up to and including the innermost function (an
 * inlined instance counts as one).  A shadowed name comes twice: the
 * first is the one C would see.  Returns the number reported, -ENOENT
 * when func is unknown or has no DWARF scope at that offset.
 */
int kdwarf_vars_at(struct kdwarf *d, const char *func, unsigned long offset,
		   void (*cb)(const char *name, const struct ktype *type,
			      const struct kloc *loc, bool is_param,
			      void *arg),
		   void *arg);
/* kdwarf_vars_at at the entry of an inlined instance of inl: its own
 * scope, not that of a function inlined into it at the same address.
 */
int kdwarf_inline_vars_at(struct kdwarf *d, const char *func,
			  unsigned long offset, const char *inl,
			  void (*cb)(const char *name,
				     const struct ktype *type,
				     const struct kloc *loc, bool is_param,
				     void *arg),
			  void *arg);

/* An address as kprobes take it: an ELF symbol and an offset from it.
 * The kernel looks the symbol up by name, so a name that several
 * functions share (static functions of different files) does not say
 * which one.
 */
struct kplace {
	const char *sym;
	unsigned long offset;
	bool shared;		/* another function has the name too */
};

/* What the symbol table and DWARF say about one link-time address of
 * the kernel (as `nm vmlinux` prints it; KASLR moves the running one).
 */
struct kaddr {
	struct kplace at;	/* the address itself */
	uint64_t row;		/* start of the line-table row holding it,
				 * the address itself at a statement's
				 * start; 0 if no line describes it */
	const char *file;	/* that row's source file and line */
	int line;
	bool has_func;		/* a DWARF function holds the address: */
	struct kfunc func;	/* the out-of-line one, */
	struct kplace entry;	/* where it is entered, */
	bool has_inline;	/* and, if the address is in code inlined
				 * there, the innermost such instance: */
	const char *inline_name;
	struct kplace inline_entry;
};

/* Fill *out for addr.  0, or -ENOENT when no function symbol holds addr
 * (an address of data, or of the running kernel rather than vmlinux).
 */
int kdwarf_addr(struct kdwarf *d, uint64_t addr, struct kaddr *out);

/* The line table of the code at link-time [lo, hi) (hi 0: of the whole
 * file), for symline() and its kin: cb per address where a row starts,
 * in address order, with the row that holds it (of several at one
 * address, the last); line 0 where a sequence ends (no line from
 * there).  file is absolute in a program, relative to the tree in the
 * kernel and its modules; a row inlined from a header names the header.
 * In a module the addresses are those libdw gave its sections, as
 * kdwarf_funcs() reports the symbols'.  Returns the number reported.
 */
int kdwarf_line_rows(struct kdwarf *d, uint64_t lo, uint64_t hi,
		     void (*cb)(uint64_t addr, const char *file, int line,
				void *arg),
		     void *arg);

/* The link-time address and size of the function symbol name: 0, or
 * -ENOENT.
 */
int kdwarf_sym_range(struct kdwarf *d, const char *name, uint64_t *addr,
		     uint64_t *size);

/* cb per function symbol of the file with a size, by address: its
 * link-time address (in a module, the one libdw gave its section) and
 * size.  Returns the number reported.
 */
int kdwarf_funcs(struct kdwarf *d,
		 void (*cb)(const char *name, uint64_t addr, uint64_t size,
			    void *arg),
		 void *arg);

/* A C label (DW_TAG_label) with code, as .label("NAME") probes it. */
struct klabel {
	const char *func;	/* the out-of-line function holding it */
	const char *label;
	const char *file;	/* where it is declared */
	int line;
	uint64_t pc;		/* its address */
	struct kplace at;	/* the same as a symbol and an offset */
};

/* cb per label matching label_glob in the out-of-line functions
 * matching func_glob (and the blocks nested there), sorted by
 * function and address.  Labels the compiler dropped (no address) are
 * not reported.  Returns the number reported.
 */
int kdwarf_labels(struct kdwarf *d, const char *func_glob,
		  const char *label_glob,
		  void (*cb)(const struct klabel *l, void *arg), void *arg);

/* A call the compiler describes (DW_TAG_call_site): from a function to
 * a callee it names, returning to ret.
 */
struct kcallsite {
	const char *caller;	/* the out-of-line function calling */
	const char *callee;
	uint64_t ret_pc;	/* where the call returns */
	struct kplace ret;	/* the same as a symbol and an offset */
	bool tail;		/* a tail call (a jump): the callee returns
				 * where the caller would have */
};

/* cb per call site, in the out-of-line functions matching func_glob
 * (and the code inlined there), of a callee matching callee_glob;
 * sorted by caller, callee and return address.  Calls through a
 * pointer name no callee and are not reported.  Returns the number
 * reported.
 */
int kdwarf_callsites(struct kdwarf *d, const char *func_glob,
		     const char *callee_glob,
		     void (*cb)(const struct kcallsite *s, void *arg),
		     void *arg);

/* .callees(N) goes at most this deep, and one walk down finds at most
 * KDWARF_CALLEE_PATHS callers and callees on the way.
 */
#define KDWARF_CALLEE_DEPTH 8
#define KDWARF_CALLEE_PATHS 4096

/* One way down from a probed function to a callee: level 0 holds the
 * calls of the callee (const struct kcallsite *), level 1 the calls of
 * the function calling it, and so on up to the probed function's own.
 * On that way each level of the stack returns where one of its level's
 * calls returns.  A tail call adds no level: the callee returns where
 * its caller would have.
 */
struct kcallpath {
	int depth;
	struct vec levels[KDWARF_CALLEE_DEPTH];
};

/* The callees of the out-of-line functions matching func_glob (those
 * keep accepts, if keep is not NULL), the first level matching
 * callee_glob, down to depth levels of calls (1 to
 * KDWARF_CALLEE_DEPTH): cb per probed function and callee, in that
 * order, with every path (struct kcallpath *) down to it.  Tail calls
 * of a probed function itself are left out (where the callee returns
 * tells nothing then) and counted in *tails.  Returns the number
 * reported, or -1 when the walk finds more than KDWARF_CALLEE_PATHS.
 * Everything stays valid as long as d.
 */
int kdwarf_callees(struct kdwarf *d, const char *func_glob,
		   const char *callee_glob, int depth,
		   bool (*keep)(const char *caller, void *arg),
		   void (*cb)(const char *caller, const char *callee,
			      const struct vec *paths, void *arg),
		   void *arg, int *tails);

/* ---------------------------------------------- user-space programs */

/* A program or shared library at path (absolute), its DWARF from the
 * file or from separate debuginfo that libdwfl finds by build-id or
 * .gnu_debuglink (also under $SYSTEMTAP_DEBUGINFO_PATH).  Source paths
 * stay as the compiler recorded them, absolute.  Places are link-time
 * addresses ("pc"), which the caller turns into file offsets.  The name
 * index is kept in CACHEDIR/dwarf/user/BUILDID.idx (cachedir may be
 * NULL: no cache).  NULL with *err when there is no DWARF.
 */
struct kdwarf *kdwarf_load_elf(const char *path, const char *cachedir,
			       char **err);

/* The file the DWARF was read from (path itself, or the separate
 * debuginfo file).
 */
const char *kdwarf_debug_file(struct kdwarf *d);

/* Each out-of-line definition of name, at its entry pc, once per pc;
 * returns the number reported.
 */
int kdwarf_func_pcs(struct kdwarf *d, const char *name,
		    void (*cb)(const struct kfunc *f, uint64_t pc,
			       void *arg),
		    void *arg);

/* kdwarf_lines with the places as addresses and the DWARF name of the
 * function holding each.
 */
int kdwarf_lines_pc(struct kdwarf *d, const char *func,
		    const char *file_glob, int line_lo, int line_hi,
		    void (*cb)(const char *func, const char *file, int line,
			       uint64_t pc, void *arg),
		    void *arg);

/* kdwarf_inlines with each instance's entry as an address. */
int kdwarf_inline_pcs(struct kdwarf *d, const char *glob,
		      void (*cb)(const char *name, uint64_t pc,
				 const char *file, int line, void *arg),
		      void *arg);

/* The variable name defined at file scope (global or static) in the
 * compile unit whose name ends in cu (a file name, matched after a '/'
 * or whole; NULL: any unit, the first definition): its type and
 * link-time address.  0; -ENOENT when there is none; -ENOTSUP, with
 * *why set, for one whose location is not a plain address (a
 * thread-local variable).
 */
int kdwarf_global(struct kdwarf *d, const char *name, const char *cu,
		  const struct ktype **type, uint64_t *addr,
		  const char **why);

/* The link-time address of the kernel function name, for the runtime
 * to find it without looking the name up: 0, or -ENOENT when no
 * function or several have the name, or the kprobe blacklist
 * (NOKPROBE_SYMBOL) has it.
 */
int kdwarf_kprobe_addr(struct kdwarf *d, const char *name, uint64_t *addr);

/* The link-time address of the data symbol name: 0, or -ENOENT. */
int kdwarf_obj_addr(struct kdwarf *d, const char *name, uint64_t *addr);

/* kdwarf_vars_at for an address. */
int kdwarf_vars_at_pc(struct kdwarf *d, uint64_t pc,
		      void (*cb)(const char *name, const struct ktype *type,
				 const struct kloc *loc, bool is_param,
				 void *arg),
		      void *arg);
/* kdwarf_inline_vars_at for an address. */
int kdwarf_inline_vars_at_pc(struct kdwarf *d, uint64_t pc, const char *inl,
			     void (*cb)(const char *name,
					const struct ktype *type,
					const struct kloc *loc,
					bool is_param, void *arg),
			     void *arg);

#endif
