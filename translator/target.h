/* target.h - $target expressions: where the value starts (a register,
 * the stack, the return value, an address given to @cast) and the
 * member and index steps after it, checked against the type source in
 * pass 2 and turned into fault-safe reads in pass 3 (emit-target.c).
 */
#ifndef TAPIR_TARGET_H
#define TAPIR_TARGET_H

#include "debuginfo/ktype.h"
#include "provider.h"

enum tref_base {
	TRB_REG,	/* the value is in pt_regs field reg */
	TRB_MEM,	/* the value is in memory at regs->reg + sp_off */
	TRB_REGVAL,	/* the value is regs->reg + sp_off itself */
	TRB_CONSTV,	/* the value is the constant value */
	TRB_RETURN,	/* $return: regs->ax */
	TRB_CAST,	/* @cast(e->a, ...): the object at that address */
	TRB_LIST,	/* $$parms / $$vars / $$locals / $$return */
	TRB_ENTRY,	/* a value saved at function entry (.return) */
	TRB_TARG,	/* tracepoint argument argno: c->targs[argno] */
	TRB_STRING,	/* a constant string: $$name, $$system */
	TRB_PROCFS,	/* a procfs probe's $value (a string; value 1:
			 * a read probe's, which the script assigns) */
	TRB_VALUE,	/* an autocast: the script value e->a, a pointer */
	TRB_KSTATIC,	/* the value is in the kernel's memory at sp_off
			 * from jiffies_64 (a kernel @var) */
	TRB_KENTRY,	/* a register's value at a function's entry, kept
			 * in the struct stp_kentry named reg, + sp_off
			 * (in_mem: the address of the value) */
};

/* The steps from the base to the value: the state is either a value
 * (in a register, or already loaded) or an address of memory.
 */
enum tstep_kind {
	TS_LOAD,	/* address -> the pointer stored there */
	TS_DEREF,	/* pointer value -> address it points to */
	TS_ADD,		/* address += off */
	TS_INDEX,	/* address += index * size */
	TS_SHIFT,	/* value >>= off * 8 (a small struct in a register) */
};

struct tstep {
	enum tstep_kind kind;
	unsigned long off;		/* TS_ADD, TS_SHIFT; TS_INDEX: size */
	struct expr *index;		/* TS_INDEX */
};

struct tref {
	enum tref_base base;
	const char *reg;		/* TRB_REG: "di" ...; TRB_STRING */
	int argno;			/* TRB_TARG */
	bool writable;			/* TRB_TARG: a slot the probe's
					 * caller reads back (a netfilter
					 * $verdict) */
	bool sc_arg;			/* TRB_TARG: a system call's argument
					 * or return value, which a write
					 * changes in the task's registers */
	int64_t value;			/* TRB_CONSTV */
	long sp_off;			/* TRB_MEM */
	const struct ktype *type;	/* of the base */
	const struct ktype *final;	/* after the member/index steps */
	int nsteps;
	struct tstep *steps;
	bool in_mem;			/* final state is an address */
	unsigned int bit_off, bit_size;	/* final member is a bitfield */
	bool user;			/* user registers (c->uregs) and
					 * memory: a uprobe's target */
	/* TRB_LIST: one entry per name, each a complete tref */
	int nlist;
	const char **list_names;
	struct tref **list;
	/* TRB_ENTRY: slot in the entry data, the saved expression */
	int slot;
	struct expr *saved;
};

/* Where parameter i of f is at function entry by the x86-64 calling
 * convention: a register or a stack slot.  NULL, with *why saying so,
 * for what the convention does not let us find.
 */
struct tref *target_param(struct arena *a, const struct kfunc *f, int i,
			  const char **why);

/* Why the bound target e cannot be assigned (guru mode), or NULL when
 * it can: a register, memory, or $return, of integer, enum or pointer
 * type.
 */
const char *target_write_error(struct arena *a, const struct expr *e);

/* $$parms, $$vars, $$locals, $$return: the names of the lists. */
bool target_is_list(const char *name);

/* A TRB_LIST tref of room for max entries, attached to e; NULL after
 * reporting when e takes members, indexes or '&'.
 */
struct tref *target_list(struct prov_ctx *c, struct expr *e, int max);

/* Check e's member and index steps, the address-of and pretty-printing
 * against r->type; fill r->final and attach r to e.  0 or -1 (reported).
 */
int target_bind(struct prov_ctx *c, struct expr *e, struct tref *r);
/* @var("name[@file]"[, "kernel"]) from the kernel's DWARF, in any probe
 * that runs in the kernel (and in functions): 0, or -1 after reporting.
 */
int target_kernel_atvar(struct prov_ctx *c, struct expr *e);
/* A static variable of the kernel, at symbol + off in vmlinux (a
 * function's static local), read as @var reads globals; NULL, and why,
 * when it cannot be.
 */
struct tref *target_kernel_static(struct prov_ctx *c,
				  const struct ktype *type, const char *symbol,
				  long off, const char **why);

/* Resolve @cast(addr, "type"[, "module"]) anywhere: the type source of
 * the session's kernel, or of the modules named ("brd", "kernel:brd":
 * the first that has the type).  0 or -1 (reported).
 */
int target_resolve_cast(struct prov_ctx *c, struct expr *e);

/* Resolve an autocast, p->member on the script value p (e->a) that
 * holds a pointer of type ptr (KT_PTR), into user memory if user.
 * 0 or -1 (reported).
 */
int target_resolve_autocast(struct prov_ctx *c, struct expr *e,
			    const struct ktype *ptr, bool user);

/* The pointer type to t, made in the session's arena. */
const struct ktype *target_pointer_to(struct arena *a,
				      const struct ktype *t);

/* The kernel's type source for the session, loaded once; NULL after
 * reporting why at loc.
 */
const struct ksrc *target_kernel_types(struct prov_ctx *c, struct loc loc);

/* The kernel's DWARF when it is the type source, else NULL (and no
 * error: the caller says what needs it).
 */
struct kdwarf *target_kernel_dwarf(struct prov_ctx *c, struct loc loc);

/* The DWARF of module (the kernel's name) if pass 2 loaded it as the
 * module's type source, else NULL; loads nothing.
 */
struct kdwarf *target_module_dwarf_loaded(struct session *s,
					  const char *module);

/* Whether the kernel's type source will be its DWARF, decided without
 * loading anything: a point that needs DWARF and nothing else says so
 * before the BTF it cannot use is looked for.
 */
bool target_kernel_wants_dwarf(struct session *s);

/* The kernel's DWARF if pass 2 loaded it as the type source, else NULL;
 * loads nothing.
 */
struct kdwarf *target_kernel_dwarf_loaded(struct session *s);

/* Where link-time address addr of vmlinux is from jiffies_64, which
 * KASLR moves with it: the runtime finds addr at &jiffies_64 + *off.
 * 0, or -ENOENT when the debuginfo has no jiffies_64.
 */
int target_kernel_anchor_off(struct kdwarf *dw, uint64_t addr, int64_t *off);

/* The program or library at path (as uelf_resolve() gives it), opened
 * once per session for the process probes and @cast that name it;
 * NULL with *err (malloc'd) saying why.
 */
struct uelf;
struct uelf *target_user_object(struct session *s, const char *path,
				char **err);

/* Whether name is exported by the kernel (its Module.symvers). */
bool target_exported(struct prov_ctx *c, struct loc loc, const char *name);

/* The same for module (any spelling; NULL: the kernel itself). */
bool target_module_exported(struct prov_ctx *c, struct loc loc,
			    const char *module, const char *name);

/* Module module of the session's kernel ("snd-hda-intel" and
 * "snd_hda_intel" are one): whether it is installed (false after
 * reporting "no module" at loc); its type source, loaded once, DWARF
 * when its -dbg file is installed, else its BTF (NULL after reporting);
 * its DWARF when that is the source, else NULL (no error).
 */
bool target_module_exists(struct prov_ctx *c, struct loc loc,
			  const char *module);
const struct ksrc *target_module_types(struct prov_ctx *c, struct loc loc,
				       const char *module);
struct kdwarf *target_module_dwarf(struct prov_ctx *c, struct loc loc,
				   const char *module);

/* Whether the sources of module (the kernel's name of it) are loaded;
 * let them go: module("PATTERN") loads the sources of every module it
 * matches and keeps those of the modules with points, and of those
 * loaded before (their types may be in use).  A later use loads them
 * again.
 */
bool target_module_loaded(struct prov_ctx *c, const char *module);
void target_module_release(struct prov_ctx *c, const char *module);

/* The module's BTF (split on the kernel's), loaded once even when its
 * DWARF is the type source: the tracepoints' btf_trace_NAME typedefs
 * and __traceiter_NAME functions live there; NULL after reporting.
 */
struct kbtf *target_module_btf(struct prov_ctx *c, struct loc loc,
			       const char *module);

/* cb per symbol name of the module's file while it returns true;
 * 0, or -1 after reporting.
 */
int target_module_symbols(struct prov_ctx *c, struct loc loc,
			  const char *module,
			  bool (*cb)(const char *name, void *arg), void *arg);

/* The module ("kvm"; "vmlinux": the kernel) that exports name in
 * Module.symvers, or NULL.
 */
const char *target_symbol_owner(struct prov_ctx *c, struct loc loc,
				const char *name);

/* Whether the module's file defines a function symbol func: a function
 * that its types do not describe may still be probed by its symbol.
 */
bool target_module_has_func(struct prov_ctx *c, struct loc loc,
			    const char *module, const char *func);

/* cb per installed module whose kernel name matches glob, in strcmp
 * order; the number reported, or -1 after reporting.
 */
int target_modules_matching(struct prov_ctx *c, struct loc loc,
			    const char *glob,
			    void (*cb)(const char *name, void *arg),
			    void *arg);

/* The kernel's BTF itself (for tracepoint types), or NULL. */
struct kbtf *target_kernel_btf(struct prov_ctx *c, struct loc loc);

/* The tracepoint catalog of the session's kernel, loaded once. */
struct ktp_catalog *target_tracepoints(struct prov_ctx *c, struct loc loc);

/* Release what target_kernel_types() loaded. */
/* The kernel's function symbols (debuginfo/ksyms.h), for names without
 * a type record; NULL when there is no list for the target kernel.
 */
const struct ksyms *target_kernel_symbols(struct session *s);

/* A variable DWARF places at loc (debuginfo/dwarf.h), as a tref with no
 * steps; NULL and why when it is not there (optimized out...).
 */
struct kloc;
struct tref *target_of_loc(struct arena *a, const struct ktype *type,
			   const struct kloc *loc, const char **why);

void target_session_free(struct session *s);

/* " $name:type" for each of f's parameters, as stap -L prints them. */
void target_list_params(struct strbuf *sb, const struct kfunc *f);
/* The same for a probed function's variables (struct fvar *, DWARF's):
 * with at_entry, f's parameters first, then the locals.
 */
void target_list_vars(struct strbuf *sb, const struct kfunc *f,
		      bool at_entry, const struct vec *vars);

#endif
