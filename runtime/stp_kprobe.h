/* stp_kprobe.h - kernel function probes: kprobes and kretprobes that
 * the generated module describes in a table, registered by symbol name.
 */
#ifndef STP_KPROBE_H
#define STP_KPROBE_H

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>

/* The module fills in the handlers: krp.kp.pre_handler for an entry
 * probe, krp.handler (and krp.entry_handler when values are saved at
 * entry) for a return probe.
 */
struct stp_kprobe {
	struct kretprobe krp;		/* krp.kp alone for entry probes */
	const struct stp_probe *probe;
	const char *symbol;		/* "vfs_read", "ext4:ext4_foo" */
	unsigned long offset;		/* from symbol: a statement probe */
	unsigned long addr;		/* no symbol: an absolute address
					 * (guru mode's .absolute) */
	long anchor_off;		/* .anchored: where symbol is, from
					 * jiffies_64, as linked (vmlinux's
					 * symbol table) */
	unsigned long found;		/* anchored, and kallsyms has symbol
					 * there: registered by address */
	size_t data_size;		/* .return: size of the saved values */
	int maxactive;			/* .return: 0 = the kernel's default */
	bool ret;			/* a kretprobe */
	bool ftrace;			/* an entry probe ftrace may carry
					 * (stp_ftrace.c) */
	bool fentry;			/* carried by the shared ftrace_ops */
	bool noregs;			/* its handler reads no register: an
					 * ftrace entry may run it without
					 * saving them (stp_ftrace.c) */
	bool anchored;			/* anchor_off is known */
	bool must;			/* failing to register is an error */
	bool registered;
	bool pending;			/* on a module not loaded: waits */
};

/* The probe an entry callback shared by several probes runs for: its
 * own row's, found from the kprobe the kernel or stp_ftrace.c passes.
 */
static __always_inline const struct stp_probe *
stp_kprobe_probe(const struct kprobe *kp)
{
	return container_of(kp, struct stp_kprobe, krp.kp)->probe;
}

/* A row of a module's stp_kprobes for an entry probe on symbol sym
 * with callback cb, for probe i of its stp_probes; STP_KP_AT adds where
 * sym is from jiffies_64 as linked, STP_KP_OFF an offset into sym (a
 * statement, an inline copy).  fl: STP_KP_FTRACE (ftrace may carry
 * it), STP_KP_NOREGS (its handler reads no register), both as
 * STP_KP_LEAN; STP_KP_MUST (failing to register is an error).
 */
#define STP_KP_FTRACE	1
#define STP_KP_NOREGS	2
#define STP_KP_LEAN	(STP_KP_FTRACE | STP_KP_NOREGS)
#define STP_KP_MUST	4
#define STP_KP_ROW(sym, i, cb, fl)					\
	.symbol = sym, .probe = &stp_probes[i],				\
	.krp.kp.pre_handler = cb,					\
	.ftrace = ((fl) & STP_KP_FTRACE) != 0,				\
	.noregs = ((fl) & STP_KP_NOREGS) != 0,				\
	.must = ((fl) & STP_KP_MUST) != 0
#define STP_KP(sym, i, cb, fl)		{ STP_KP_ROW(sym, i, cb, fl) }
#define STP_KP_AT(sym, i, cb, fl, at)					\
	{ STP_KP_ROW(sym, i, cb, fl), .anchor_off = at, .anchored = true }
#define STP_KP_OFF(sym, off, i, cb, fl)					\
	{ STP_KP_ROW(sym, i, cb, fl), .offset = off }

/* Register every probe of the table.  A probe that must be there and
 * cannot be is an error: everything registered so far is undone and
 * the errno returned.  Others are skipped, but one on a module that is
 * not loaded ("mod:sym") is registered when the module loads; if none
 * registers or waits at all, that is an error too.  Probes on modules
 * follow their module: unregistered when it is removed, registered
 * again when it comes back.  Entry probes marked .ftrace that the
 * kernel's ftrace can carry are registered through one shared
 * ftrace_ops instead (stp_ftrace.c), unless STAP_USE_KPROBES is
 * defined.
 */
/* A return address a .callee probe accepts at one level of the stack
 * (0: where the callee returns, 1: where its caller returns, ...), as
 * symbol + offset; hash is the FNV-1a of the symbol.
 */
struct stp_kcall {
	const char *symbol;
	unsigned long offset;
	int level;
	u32 hash;
};

/* One way down from the probed function to the callee: n places, in
 * the order of their levels, depth levels.  Each level of the stack
 * must return to one of the places of its level.
 */
struct stp_kpath {
	const struct stp_kcall *calls;
	int n;
	int depth;
};

/* The deepest path a check unwinds (.callees(N) of the translator). */
#define STP_KCALLEE_DEPTH 8

/* Whether the function entered at regs (a probe at its entry) was
 * called along one of the n paths, none deeper than depth: a .callee
 * probe's filter.
 */
bool _stp_kcalled_via(struct pt_regs *regs, const struct stp_kpath *paths,
		      int n, int depth);

/* Nonzero while this CPU runs one of the module's function probe
 * handlers (an entry through a kprobe or the ftrace callback, a
 * kretprobe's entry or return): an entry hit then is dropped, as the
 * kernel drops a kprobe hit while a kprobe handler runs.  The kernel's
 * own check (kprobe_running()) knows nothing of the ftrace callback, so
 * a kprobe (a function ftrace cannot carry) hit from an interrupt in
 * the callback's handler, or called by it, would reach its handler and
 * find the probe context busy: a skipped probe.  Handlers run with
 * preemption off; an interrupt that comes in between leaves the count
 * as it found it.
 */
DECLARE_PER_CPU(int, _stp_kprobe_busy);

static __always_inline void _stp_kprobe_busy_inc(void)
{
	__this_cpu_inc(_stp_kprobe_busy);
	barrier();
}

/* An entry probe's handler (a kprobe's or the ftrace callback's):
 * false when it interrupts another of the module's function probes on
 * this CPU, and must drop the hit.  _stp_kprobe_busy_dec() after it
 * either way.
 */
static __always_inline bool _stp_kprobe_enter(void)
{
	bool first = __this_cpu_inc_return(_stp_kprobe_busy) == 1;

	barrier();
	return first;
}

/* Nonzero inside one of the module's function probes on this CPU. */
static __always_inline int _stp_kprobe_busy_any(void)
{
	return __this_cpu_read(_stp_kprobe_busy) != 0;
}

static __always_inline void _stp_kprobe_busy_dec(void)
{
	barrier();
	__this_cpu_dec(_stp_kprobe_busy);
}

int _stp_kprobes_register(struct stp_kprobe *k, int n);
void _stp_kprobes_unregister(struct stp_kprobe *k, int n);

#endif
