/* stp_ftrace.c - entry probes of kernel functions through ftrace_ops
 * shared by the whole module (two: one saving the registers for the
 * handlers that read them, one not, for lean handlers): an ops's filter
 * holds its probed functions' fentry sites, set in one update, and the
 * callback finds the probes of the address it is called for by binary
 * search.  Probes ftrace cannot
 * carry stay kprobes (stp_kprobe.c).  Included by stp_kprobe.c.
 *
 * Which functions ftrace can carry is the kernel's own answer.  A probe
 * the translator anchored (its function's place from jiffies_64 in
 * vmlinux's symbol table, for a name only one function has and the
 * kprobe blacklist lacks) is taken at that address when kallsyms names
 * it so: an entry through ftrace if an fentry call or its NOP is at the
 * function's start or past its ENDBR (ftrace_set_filter_ips() takes
 * only an exact site of its records), else a kprobe registered by the
 * address.  Any other name is registered as a disabled kprobe, which
 * resolves it to the probed address (the fentry site, past an ENDBR)
 * and flags it KPROBE_FLAG_FTRACE when ftrace has a record there,
 * without arming anything; the lookups go in one batch unregistration.
 * An anchored probe costs one kallsyms address lookup instead of a
 * name lookup and a kprobe registration, twice over when it ends up a
 * kprobe: about 20 times less for thousands of functions
 * (bench/startup_many.sh).
 *
 * Unload: the ops live in the module's data, so ftrace treats them as
 * dynamic, and unregister_ftrace_function() returns only after every
 * CPU has left the ops's trampoline and callback (which runs with
 * preemption off): the table the callback reads is freed after that.
 *
 * Part of the core (stp_core.c includes stp_kprobe.c, which includes
 * this): the script's module only marks its entries .ftrace.
 */

#ifdef STAPCONF_FTRACE_FILTER_IPS
#ifndef STAP_USE_KPROBES
#define STP_FTRACE 1
#endif
#endif

/* Below this many entry probes, kprobes: a kprobe hit costs no more,
 * and removing a module's ftrace_ops waits for an RCU-tasks grace
 * period on a preemptible kernel (about a second under emulation on
 * PREEMPT_RT), which a handful of kprobes do not.  The shared ops pays
 * off with many probes: armed and disarmed in one code update each.
 * -D STP_FTRACE_MIN=1 puts even one probe on ftrace.
 */
#ifndef STP_FTRACE_MIN
#define STP_FTRACE_MIN 32
#endif

#ifdef STP_FTRACE
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

struct stp_fentry {
	unsigned long ip;		/* fentry site */
	struct stp_kprobe *k;
};

/* The two shared ops: sites with a probe whose handler reads registers
 * go through one that saves a pt_regs (FTRACE_OPS_FL_SAVE_REGS); sites
 * whose every probe is .noregs (a lean handler: integer arithmetic on
 * globals, no register, no call) through one that does not, which
 * costs a quarter of the other per hit (bench/README.md).  Each ops
 * has its table of entries, set before it is registered and freed
 * after it is unregistered: the callback reads it without a lock.
 */
struct stp_fset {
	struct ftrace_ops ops;
	struct stp_fentry *fe;
	int n;
	bool on;
};

static void notrace _stp_ftrace_cb(unsigned long ip, unsigned long pip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs);
static void notrace _stp_ftrace_cb_noregs(unsigned long ip,
					  unsigned long pip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs);

/* Neither FL_RCU nor FL_RECURSION, which would put ftrace's assist
 * function (a second recursion guard and the RCU check) in front of
 * every hit: the callbacks guard themselves, and run no probe where
 * RCU is not watching (idle, entry code), as a handler that takes the
 * probe context must not.
 */
static struct stp_fset _stp_fset_regs = {
	.ops = {
		.func = _stp_ftrace_cb,
		.flags = FTRACE_OPS_FL_SAVE_REGS,
	},
};

static struct stp_fset _stp_fset_noregs = {
	.ops = {
		.func = _stp_ftrace_cb_noregs,
	},
};

/* The first entry of ip in set, or set->n. */
static __always_inline int _stp_fentry_find(const struct stp_fset *set,
					    unsigned long ip)
{
	int lo = 0, hi = set->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (set->fe[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each probe of ip runs its kprobe pre-handler with the saved regs,
 * whose ip the handler itself sets to the probed address (kp->addr,
 * the fentry site) and puts back, as it does on a kprobe; a .noregs
 * probe's handler gets none (NULL, as a begin probe's; its sampled
 * full path reads none either).
 *
 * Context: preemption off (the recursion guard), interrupts as the
 * traced function had them, so an interrupt may come in the middle of
 * a handler on this CPU.  ftrace's guard lets one level of recursion in
 * the same context through (its transition bit), so a probed function
 * that the handler itself calls comes back here too.  Both are dropped
 * by the per-CPU count every function probe handler raises, as the
 * kernel drops a kprobe hit while a kprobe handler runs.
 */
static __always_inline void _stp_ftrace_run(const struct stp_fset *set,
					    unsigned long ip,
					    unsigned long pip,
					    struct pt_regs *regs)
{
	int bit, i;

	bit = ftrace_test_recursion_trylock(ip, pip);
	if (bit < 0)
		return;
	if (_stp_kprobe_busy_any() || unlikely(!rcu_is_watching()))
		goto out;
	for (i = _stp_fentry_find(set, ip);
	     i < set->n && set->fe[i].ip == ip; i++) {
		struct kprobe *kp = &set->fe[i].k->krp.kp;

		kp->pre_handler(kp, regs);
	}
out:
	ftrace_test_recursion_unlock(bit);
}

static void notrace _stp_ftrace_cb(unsigned long ip, unsigned long pip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (likely(regs))
		_stp_ftrace_run(&_stp_fset_regs, ip, pip, regs);
}

static void notrace _stp_ftrace_cb_noregs(unsigned long ip,
					  unsigned long pip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
	_stp_ftrace_run(&_stp_fset_noregs, ip, pip, NULL);
}

static int _stp_fentry_cmp(const void *a, const void *b)
{
	const struct stp_fentry *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Whether x86's fentry call is at addr: the 5-byte call ftrace
 * patches, a NOP while nothing traces the function.
 */
static bool _stp_fentry_insn(unsigned long addr)
{
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	u8 insn[5];

	if (copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn)))
		return false;
	return insn[0] == 0xe8 || !memcmp(insn, nop5, sizeof(insn));
}

/* The fentry site of an anchored probe.  Its address counts if
 * kallsyms names it symbol+0 (else the module is not of this build, or
 * another symbol shares the address), and is kept in k->found; the site
 * is the first instruction or the one after the 4-byte ENDBR (or the
 * NOP that sealed it).  0 without a site: ftrace has no record in a
 * function without an fentry call (notrace, an inline's copy).  buf
 * has KSYM_SYMBOL_LEN bytes.
 */
static unsigned long _stp_fentry_anchored(struct stp_kprobe *k, char *buf)
{
	unsigned long addr = (unsigned long)&jiffies_64 + k->anchor_off;
	size_t len = strlen(k->symbol);

	sprint_symbol(buf, addr);
	if (strncmp(buf, k->symbol, len) || strncmp(buf + len, "+0x0/", 5))
		return 0;
	k->found = addr;
	if (_stp_fentry_insn(addr))
		return addr;
	if (_stp_fentry_insn(addr + 4))
		return addr + 4;
	return 0;
}

/* Resolve the candidates: fe[i].ip is the fentry site of fe[i].k, or 0
 * when ftrace cannot carry it.
 */
static int _stp_ftrace_resolve(struct stp_fentry *fe, int n)
{
	struct kprobe *kps;
	struct kprobe **list;
	char *buf;
	int i, nl = 0, rc = 0;

	kps = kvcalloc(n, sizeof(*kps), GFP_KERNEL);
	list = kvcalloc(n, sizeof(*list), GFP_KERNEL);
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!kps || !list || !buf) {
		kvfree(kps);
		kvfree(list);
		kfree(buf);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (_stp_start_interrupted()) {
			rc = -EINTR;
			break;
		}
		if (fe[i].k->anchored) {
			fe[i].ip = _stp_fentry_anchored(fe[i].k, buf);
			if (fe[i].k->found)
				continue;
		}
		kps[i].symbol_name = fe[i].k->symbol;
		kps[i].flags = KPROBE_FLAG_DISABLED;
		if (register_kprobe(&kps[i]))
			continue;
		list[nl++] = &kps[i];
		if (kprobe_ftrace(&kps[i]))
			fe[i].ip = (unsigned long)kps[i].addr;
	}
	if (nl)
		unregister_kprobes(list, nl);
	kvfree(kps);
	kvfree(list);
	kfree(buf);
	return rc;
}

/* The filter of ops: in one call, or, when the kernel refuses an
 * address, in halves until the refused ones are found (their probes
 * stay kprobes).  The ops is not registered yet: no code changes here.
 */
static void _stp_ftrace_filter(struct ftrace_ops *ops, unsigned long *ips,
			       int n)
{
	int half;

	if (!n || !ftrace_set_filter_ips(ops, ips, n, 0, 0))
		return;
	if (n == 1) {
		ips[0] = 0;
		return;
	}
	half = n / 2;
	_stp_ftrace_filter(ops, ips, half);
	_stp_ftrace_filter(ops, ips + half, n - half);
}

/* The distinct sites of fe[0..n), sorted, filtered on set's ops;
 * entries whose site the kernel refused are dropped.  How many remain.
 */
static int _stp_ftrace_set(struct stp_fset *set, struct stp_fentry *fe,
			   int n)
{
	unsigned long *ips;
	unsigned long prev;
	int i, j, p, nips = 0;

	if (!n)
		return 0;
	ips = kvcalloc(n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return 0;
	for (i = 0; i < n; i++)
		if (!nips || ips[nips - 1] != fe[i].ip)
			ips[nips++] = fe[i].ip;
	_stp_ftrace_filter(&set->ops, ips, nips);
	/* ips[p] is the p-th distinct site of fe, 0 when refused */
	for (i = 0, j = 0, p = -1, prev = 0; i < n; i++) {
		if (fe[i].ip != prev) {
			prev = fe[i].ip;
			p++;
		}
		if (ips[p])
			fe[j++] = fe[i];
	}
	kvfree(ips);
	return j;
}

/* Arm set with fe[0..n) (a sorted table it now owns): its probes are
 * fentry from here on.  On failure the table is freed and its probes
 * stay kprobes.
 */
static void _stp_ftrace_arm(struct stp_fset *set, struct stp_fentry *fe,
			    int n)
{
	int i, rc;

	if (!n) {
		kvfree(fe);
		return;
	}
	n = _stp_ftrace_set(set, fe, n);
	if (!n) {
		ftrace_free_filter(&set->ops);
		kvfree(fe);
		return;
	}
	/* the pc the handler shows (addr(), backtraces), before the
	 * first hit
	 */
	for (i = 0; i < n; i++)
		fe[i].k->krp.kp.addr = (kprobe_opcode_t *)fe[i].ip;
	set->fe = fe;
	set->n = n;
	rc = register_ftrace_function(&set->ops);
	if (rc) {
		_stp_ctl_printf(STP_MSG_WARNING, false, "WARNING: ftrace "
				"refused the function probes (%d): they are "
				"kprobes instead\n", rc);
		ftrace_free_filter(&set->ops);
		kvfree(fe);
		set->fe = NULL;
		set->n = 0;
		return;
	}
	set->on = true;
	for (i = 0; i < n; i++)
		fe[i].k->fentry = true;
}

static void _stp_ftrace_disarm(struct stp_fset *set)
{
	if (set->on) {
		/* returns once no CPU can be in its callback */
		unregister_ftrace_function(&set->ops);
		ftrace_free_filter(&set->ops);
		set->on = false;
	}
	kvfree(set->fe);
	set->fe = NULL;
	set->n = 0;
}

static bool _stp_ftrace_candidate(const struct stp_kprobe *k)
{
	return k->ftrace && !k->ret && !k->offset && k->symbol &&
	       !_stp_kprobe_modlen(k);
}

/* Register every candidate of k[0..n) that ftrace can carry through
 * the shared ops and mark it fentry; the others are left for kprobes.
 * A site goes through the ops without registers when every probe there
 * is .noregs.  Only -EINTR (staprun told to stop) is an error: anything
 * else means kprobes.
 */
static int _stp_ftrace_register(struct stp_kprobe *k, int n)
{
	struct stp_fentry *fe, *lean;
	int i, j, m = 0, nlean = 0, rc;

	for (i = 0; i < n; i++)
		if (_stp_ftrace_candidate(&k[i]))
			m++;
	if (!m || m < STP_FTRACE_MIN)
		return 0;
	fe = kvcalloc(m, sizeof(*fe), GFP_KERNEL);
	lean = kvcalloc(m, sizeof(*lean), GFP_KERNEL);
	if (!fe || !lean) {
		kvfree(fe);
		kvfree(lean);
		return 0;
	}
	for (i = 0, m = 0; i < n; i++)
		if (_stp_ftrace_candidate(&k[i]))
			fe[m++].k = &k[i];
	rc = _stp_ftrace_resolve(fe, m);
	if (rc) {
		kvfree(fe);
		kvfree(lean);
		return rc == -EINTR ? rc : 0;
	}
	sort(fe, m, sizeof(*fe), _stp_fentry_cmp, NULL);
	for (i = 0; i < m && !fe[i].ip; i++)
		;
	memmove(fe, fe + i, (m - i) * sizeof(*fe));
	m -= i;
	/* move each site whose probes are all .noregs to lean */
	for (i = 0, j = 0; i < m; ) {
		int e = i;
		bool noregs = true;

		while (e < m && fe[e].ip == fe[i].ip)
			noregs &= fe[e++].k->noregs;
		while (i < e) {
			if (noregs)
				lean[nlean++] = fe[i++];
			else
				fe[j++] = fe[i++];
		}
	}
	_stp_ftrace_arm(&_stp_fset_regs, fe, j);
	_stp_ftrace_arm(&_stp_fset_noregs, lean, nlean);
	return 0;
}

static void _stp_ftrace_unregister(struct stp_kprobe *k, int n)
{
	int i;

	_stp_ftrace_disarm(&_stp_fset_regs);
	_stp_ftrace_disarm(&_stp_fset_noregs);
	for (i = 0; i < n; i++)
		k[i].fentry = false;
}

#else /* !STP_FTRACE */

static int _stp_ftrace_register(struct stp_kprobe *k, int n)
{
	return 0;
}

static void _stp_ftrace_unregister(struct stp_kprobe *k, int n)
{
}

#endif /* STP_FTRACE */
