/* stp_mem.c - fault-safe access to kernel and user memory, and the
 * probe-context services of tapset-api.h that need no transport.
 */
#include <linux/kallsyms.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/stacktrace.h>
#include <asm/unwind.h>

int _stp_kread(void *dst, unsigned long addr, size_t n)
{
	return copy_from_kernel_nofault(dst, (const void *)addr, n) ?
	       -EFAULT : 0;
}

/* Whether the running handler may take page faults on its user memory:
 * a uprobe's, run by the kernel in the probed task where it may sleep,
 * holding nothing but the preemption count that the probe prologue
 * (stp_probe_inline.h) took and the one each of its global locks took
 * (which _stp_ufault_begin lets go of first).  Any other probe, or a
 * uprobe handler in an unexpected state, reads without faulting.
 */
static struct context *_stp_uread_may_fault(void)
{
#ifdef CONFIG_PREEMPT_COUNT
	struct context *c = _stp_contexts[smp_processor_id()];
	int held;

	if (!c || (c->probe_type != STP_PROBE_UPROBE &&
		   c->probe_type != STP_PROBE_URETPROBE))
		return NULL;
	held = c->locks ? c->locks->n : 0;
	if (preempt_count() != PREEMPT_DISABLE_OFFSET * (1 + held) ||
	    irqs_disabled() || rcu_preempt_depth() || pagefault_disabled() ||
	    !current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	return c;
#else
	return NULL;
#endif
}

/* How often a handler that let go of its locks for a page fault tries to
 * take them back (each try spins MAXTRYLOCK x TRYLOCKDELAY us at most,
 * and the task may sleep between tries).
 */
#define STP_RELOCK_TRIES 10

/* A page that is not resident (never touched, swapped out, a file page
 * not mapped yet) is faulted in, which may sleep: with the handler's
 * global locks released, so that no other CPU waits for a sleeping
 * task, and with preemption on for that time but migration off, so that
 * this CPU's context and print buffer, which the handler holds, stay its
 * own (probes that hit on this CPU meanwhile find the context busy and
 * are skipped).  The globals may change while the task sleeps: the
 * handler is atomic up to the read and from it on, not across it
 * (doc/safety.md).
 */
static void _stp_ufault_begin(struct context *c)
{
	if (c->locks)
		c->locks->unlock();
	migrate_disable();
	preempt_enable();
}

/* False when the locks could not be had back: the handler then holds
 * none (c->locks is NULL, so its end releases nothing; c->locks_lost, so
 * no catch block runs) and ends with this error.
 */
static bool _stp_ufault_end(struct context *c)
{
	const struct stp_lockset *ls = c->locks;
	bool ok = !ls;
	int i;

	for (i = 0; !ok && i < STP_RELOCK_TRIES; i++) {
		ok = ls->lock();
		if (!ok)
			cond_resched();
	}
	preempt_disable();
	migrate_enable();
	if (!ok) {
		c->locks = NULL;
		c->locks_lost = true;
		_stp_error_at(c, "could not take the script's global locks "
			      "back after a page fault of user memory",
			      c->last_stmt);
	}
	return ok;
}

static int _stp_uread_fault(struct context *c, void *dst, unsigned long addr,
			    size_t n)
{
	unsigned long left;

	_stp_ufault_begin(c);
	left = copy_from_user(dst, (const void __user *)addr, n);
	if (!_stp_ufault_end(c))
		return -EFAULT;
	return left ? -EFAULT : 0;
}

int _stp_uread(void *dst, unsigned long addr, size_t n)
{
	struct context *c;

	if (likely(!copy_from_user_nofault(dst, (const void __user *)addr,
					   n)))
		return 0;
	c = _stp_uread_may_fault();
	if (!c || !access_ok((const void __user *)addr, n))
		return -EFAULT;
	return _stp_uread_fault(c, dst, addr, n);
}

/* Strings are copied a page-bounded chunk at a time: the kernel's own
 * strncpy_from_*_nofault helpers are not exported to modules.
 */
static long _stp_strncpy_nofault(char *dst, unsigned long addr, size_t n,
				 bool user)
{
	size_t done = 0;

	if (!n)
		return 0;
	while (done < n - 1) {
		size_t chunk = PAGE_SIZE - ((addr + done) & (PAGE_SIZE - 1));
		char *nul;
		int rc;

		if (chunk > n - 1 - done)
			chunk = n - 1 - done;
		rc = user ? _stp_uread(dst + done, addr + done, chunk) :
			    _stp_kread(dst + done, addr + done, chunk);
		if (rc) {
			dst[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + done, '\0', chunk);
		if (nul)
			return nul - dst;
		done += chunk;
	}
	dst[done] = '\0';
	return (long)done;
}

/* A "kernel" string below the user/kernel split is the user memory of
 * the current task, as kernel_string($filename) of a system call's
 * argument has always been read; everything else is kernel memory.
 */
long _stp_kstrncpy(char *dst, unsigned long addr, size_t n)
{
	return _stp_strncpy_nofault(dst, addr, n, addr < TASK_SIZE_MAX);
}

long _stp_ustrncpy(char *dst, unsigned long addr, size_t n)
{
	return _stp_strncpy_nofault(dst, addr, n, true);
}

/* Whether [addr, addr + n) may be handed to __put_kernel_nofault: a
 * user address faults under SMAP without looking for a fixup (an oops),
 * and a non-canonical one is a general protection fault that the fixup
 * reports as a bug (x86-64).  copy_from_kernel_nofault checks the same.
 */
static bool _stp_kwrite_allowed(unsigned long addr, size_t n)
{
	unsigned long last = addr + n - 1;
	u8 bits = boot_cpu_data.x86_virt_bits;

	if (!n || last < addr || addr < TASK_SIZE_MAX + PAGE_SIZE)
		return false;
	return !bits || (__is_canonical_address(addr, bits) &&
			 __is_canonical_address(last, bits));
}

/* copy_to_kernel_nofault is not exported either; the arch's inline
 * __put_kernel_nofault is.
 */
int _stp_kwrite(unsigned long addr, const void *src, size_t n)
{
	const unsigned char *p = src;
	size_t i;

	if (!_stp_kwrite_allowed(addr, n))
		return -EFAULT;
	pagefault_disable();
	for (i = 0; i < n; i++)
		__put_kernel_nofault((unsigned char *)addr + i, p + i,
				     unsigned char, fault);
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	return -EFAULT;
}

/* A uprobe's handler may fault the page in, as _stp_uread does: a
 * copy-on-write page of the program's data is only writable after a
 * fault.
 */
int _stp_uwrite(unsigned long addr, const void *src, size_t n)
{
	unsigned long left;
	struct context *c;

	if (likely(!copy_to_user_nofault((void __user *)addr, src, n)))
		return 0;
	c = _stp_uread_may_fault();
	if (!c || !access_ok((void __user *)addr, n))
		return -EFAULT;
	_stp_ufault_begin(c);
	left = copy_to_user((void __user *)addr, src, n);
	if (!_stp_ufault_end(c))
		return -EFAULT;
	return left ? -EFAULT : 0;
}

struct pt_regs *_stp_user_regs(struct context *c)
{
	if (c->uregs)
		return c->uregs;
	if (current->mm && !(current->flags & PF_KTHREAD))
		return task_pt_regs(current);
	return NULL;
}

unsigned long _stp_probe_pc(struct context *c, int user)
{
	struct pt_regs *regs = user ? _stp_user_regs(c) : c->regs;

	if (!regs || (!user && user_mode(regs)))
		return 0;
	return instruction_pointer(regs);
}

/* The kernel's own unwinder (ORC on our kernels), started from the
 * registers of the probe hit as perf does: the probed pc first, then
 * the return addresses outward, kretprobe trampolines already replaced.
 * Registers saved by hardware (an int3 kprobe) are walked from; partial
 * ones (ftrace-based kprobes) only give the stack pointer to start at.
 */
static int _stp_kstack_unwind(struct pt_regs *regs, unsigned long *pcs,
			      int max)
{
	struct unwind_state st;
	unsigned long a;
	int n = 0;

	if (max <= 0)
		return 0;
	pcs[n++] = instruction_pointer(regs);
	if (regs->flags & X86_EFLAGS_FIXED)
		unwind_start(&st, current, regs, NULL);
	else
		unwind_start(&st, current, NULL,
			     (unsigned long *)kernel_stack_pointer(regs));
	for (; !unwind_done(&st) && n < max; unwind_next_frame(&st)) {
		a = unwind_get_return_address(&st);
		if (!a)
			break;
		pcs[n++] = a;
	}
	return n;
}

int _stp_stack_unwind(struct context *c, int user, unsigned long *pcs,
		      int max)
{
	if (user)
		return _stp_ustack_unwind(c, pcs, max);
	if (!c->regs || user_mode(c->regs))
		return 0;
	return _stp_kstack_unwind(c->regs, pcs, max);
}

/* sprint_symbol() gives "name+0xoff/0xsize [module]". */
int _stp_sym_lookup(unsigned long addr, struct task_struct *task,
		    struct _stp_sym *sym)
{
	static DEFINE_PER_CPU(char[KSYM_SYMBOL_LEN], _stp_symbuf);
	char *buf, *plus, *slash, *mod;

	memset(sym, 0, sizeof(*sym));
	if (task)
		return _stp_usym_lookup(addr, task, sym);
	/* probe context: preemption is off, this CPU's buffer is ours */
	buf = *this_cpu_ptr(&_stp_symbuf);
	sprint_symbol(buf, addr);
	plus = strchr(buf, '+');
	if (!plus)
		return -ENOENT;
	*plus = '\0';
	sym->name = buf;
	slash = strchr(plus + 1, '/');
	if (slash) {
		*slash = '\0';
		if (kstrtoul(plus + 1, 16, &sym->offset))
			sym->offset = 0;
		mod = strchr(slash + 1, ' ');
		if (mod)
			*mod = '\0';
		if (kstrtoul(slash + 1, 16, &sym->size))
			sym->size = 0;
		sym->module = "kernel";
		if (mod && mod[1] == '[') {
			char *end = strchr(mod + 2, ']');

			if (end)
				*end = '\0';
			sym->module = mod + 2;
		}
	}
	return 0;
}

/* ---- pretty-printing of target values ($x$, $$parms) -------------- */

void _stp_pp_cat(char *buf, const char *s)
{
	strlcat(buf, s, MAXSTRINGLEN);
}

void _stp_pp_num(char *buf, int64_t v, int how)
{
	char t[32];

	if (how == 0)
		snprintf(t, sizeof(t), "%lld", (long long)v);
	else
		snprintf(t, sizeof(t), "0x%llx", (unsigned long long)v);
	strlcat(buf, t, MAXSTRINGLEN);
}

/* A string in double quotes with C escapes, written a piece at a time
 * into out of room bytes: the target's bytes are read in small chunks,
 * so that no MAXSTRINGLEN buffer sits on the kernel stack (MAXSTRINGLEN
 * may be a megabyte).  stop: the NUL was seen, or out is full.
 */
struct stp_pp_q {
	char *out;
	size_t room, used;
	bool stop;
};

#define STP_PP_CHUNK 64

static void _stp_pp_q_open(struct stp_pp_q *q, char *out, size_t room)
{
	q->out = out;
	q->room = room;
	q->used = 0;
	q->stop = room < 3;
	if (!q->stop)
		out[q->used++] = '"';
}

static void _stp_pp_q_put(struct stp_pp_q *q, const char *s, size_t len)
{
	static const char from[] = "\a\b\f\n\r\t\v\"\\";
	static const char to[] = "abfnrtv\"\\";
	char esc[5];
	size_t i, n;

	for (i = 0; i < len && !q->stop; i++) {
		unsigned char ch = s[i];
		const char *p = ch ? strchr(from, ch) : NULL;

		if (!ch) {
			q->stop = true;
			break;
		}
		if (p) {
			esc[0] = '\\';
			esc[1] = to[p - from];
			n = 2;
		} else if (ch < ' ' || ch > '~') {
			snprintf(esc, sizeof(esc), "\\%03o", ch);
			n = 4;
		} else {
			esc[0] = ch;
			n = 1;
		}
		if (q->used + n + 2 > q->room) {
			q->stop = true;
			break;
		}
		memcpy(q->out + q->used, esc, n);
		q->used += n;
	}
}

static void _stp_pp_q_close(struct stp_pp_q *q)
{
	if (q->room < 3)
		return;
	q->out[q->used++] = '"';
	q->out[q->used] = '\0';
}

/* A char array: at most n bytes at addr, quoted up to its NUL; all n
 * must be readable, else nothing is added.
 */
static int _stp_pp_arr(char *buf, unsigned long addr, size_t n, bool user)
{
	size_t len = strlen(buf), k;
	char chunk[STP_PP_CHUNK];
	struct stp_pp_q q;

	if (n > MAXSTRINGLEN - 1)
		n = MAXSTRINGLEN - 1;
	_stp_pp_q_open(&q, buf + len, MAXSTRINGLEN - len);
	for (; n; n -= k, addr += k) {
		k = min(n, sizeof(chunk));
		if (user ? _stp_uread(chunk, addr, k) :
			   _stp_kread(chunk, addr, k)) {
			buf[len] = '\0';
			return -EFAULT;
		}
		_stp_pp_q_put(&q, chunk, k);
	}
	_stp_pp_q_close(&q);
	return 0;
}

/* A char* member: the string (at most max - 1 bytes) quoted, or the
 * pointer when any of it is unreadable.
 */
static void _stp_pp_str(char *buf, unsigned long addr, size_t max,
			bool user)
{
	size_t len = strlen(buf), k;
	char chunk[STP_PP_CHUNK];
	unsigned long at = addr;
	struct stp_pp_q q;
	long got;

	if (max > MAXSTRINGLEN)
		max = MAXSTRINGLEN;
	if (!addr)
		goto pointer;
	_stp_pp_q_open(&q, buf + len, MAXSTRINGLEN - len);
	while (max > 1) {
		k = min(max, sizeof(chunk));
		got = user ? _stp_ustrncpy(chunk, at, k) :
			     _stp_kstrncpy(chunk, at, k);
		if (got < 0) {
			buf[len] = '\0';
			goto pointer;
		}
		_stp_pp_q_put(&q, chunk, got);
		if ((size_t)got < k - 1)
			break;
		at += got;
		max -= got;
	}
	_stp_pp_q_close(&q);
	return;
pointer:
	_stp_pp_num(buf, (int64_t)addr, 1);
}

int _stp_pp_karr(char *buf, unsigned long addr, size_t n)
{
	return _stp_pp_arr(buf, addr, n, false);
}

void _stp_pp_kstr(char *buf, unsigned long addr, size_t max)
{
	_stp_pp_str(buf, addr, max, false);
}

/* The same two for the user memory of current ($x$ in a uprobe). */
int _stp_pp_uarr(char *buf, unsigned long addr, size_t n)
{
	return _stp_pp_arr(buf, addr, n, true);
}

void _stp_pp_ustr(char *buf, unsigned long addr, size_t max)
{
	_stp_pp_str(buf, addr, max, true);
}
