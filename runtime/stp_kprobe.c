/* stp_kprobe.c - registration of the module's kprobes and kretprobes
 * (entry probes through the shared ftrace_ops of stp_ftrace.c where
 * ftrace can carry them), and the handlers that run their probes; an
 * optional probe on a module that is not loaded waits for it (a module
 * notifier registers it when the module comes, and unregisters it when
 * the module goes).
 */

#include <linux/sched/signal.h>

/* "ext4:ext4_foo": the length of the module part, 0 for the kernel's. */
static size_t _stp_kprobe_modlen(const struct stp_kprobe *k)
{
	const char *colon = k->symbol ? strchr(k->symbol, ':') : NULL;

	return colon ? colon - k->symbol : 0;
}

DEFINE_PER_CPU(int, _stp_kprobe_busy);

#include "stp_ftrace.c"

static const char *_stp_kprobe_why(int rc)
{
	switch (rc) {
	case -ENOENT:
		return "no such symbol in the running kernel";
	case -EINVAL:
		return "the kernel does not allow probing it (kprobe "
		       "blacklist, notrace or not a function entry)";
	case -EILSEQ:
		return "not on an instruction boundary";
	case -EBUSY:
		return "already in use by another probe mechanism";
	default:
		return "registration failed";
	}
}

/* The translator found the symbol in the module's file: when the
 * kernel does not know it, the module is not loaded (or it was an init
 * function, gone once the module is).
 */
static void _stp_kprobe_error(const struct stp_kprobe *k, int rc)
{
	size_t n = _stp_kprobe_modlen(k);

	if (rc == -ENOENT && n)
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe "
				"%s: module %.*s is not loaded, or has no "
				"symbol %s (%d)\n", k->probe->pp, (int)n,
				k->symbol, k->symbol + n + 1, rc);
	else if (rc == -ENOENT && !k->symbol)
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe "
				"%s: no function of the running kernel is "
				"there (%d)\n", k->probe->pp, rc);
	else
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe "
				"%s: %s (%d)\n", k->probe->pp,
				_stp_kprobe_why(rc), rc);
}

static int _stp_kprobe_register_one(struct stp_kprobe *k)
{
	/* the module set the handlers; the kernel's own fields are reset
	 * for a registration after an earlier one
	 */
	k->krp.kp.symbol_name = k->found ? NULL : k->symbol;
	k->krp.kp.offset = k->offset;
	if (k->found)		/* no name lookup (stp_ftrace.c) */
		k->krp.kp.addr = (kprobe_opcode_t *)k->found;
	else
		k->krp.kp.addr = k->symbol ? NULL :
				 (kprobe_opcode_t *)k->addr;
	k->krp.kp.flags = 0;
	if (!k->ret)
		return register_kprobe(&k->krp.kp);
	k->krp.data_size = k->data_size;
	if (k->maxactive)
		k->krp.maxactive = k->maxactive;
	return register_kretprobe(&k->krp);
}

static void _stp_kprobe_unregister_one(struct stp_kprobe *k)
{
	if (!k->registered)
		return;
	if (k->ret)
		unregister_kretprobe(&k->krp);
	else
		unregister_kprobe(&k->krp.kp);
	k->registered = false;
}

/* ------------------------------------------- probes waiting for modules */

/* One table per module (the translator emits one): what the notifier
 * works on, under the mutex, from start until the notifier is gone.
 */
static struct stp_kprobe *_stp_kp_table;
static int _stp_kp_count;
static DEFINE_MUTEX(_stp_kp_mutex);

static bool _stp_kprobe_of(const struct stp_kprobe *k, const char *mod)
{
	size_t n = _stp_kprobe_modlen(k);

	return n && strlen(mod) == n && !strncmp(k->symbol, mod, n);
}

static int _stp_kprobe_module_event(struct notifier_block *nb,
				    unsigned long state, void *data)
{
	struct module *mod = data;
	struct stp_kprobe *k;
	int i, rc;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&_stp_kp_mutex);
	for (i = 0; i < _stp_kp_count; i++) {
		k = &_stp_kp_table[i];
		if (!_stp_kprobe_of(k, mod->name))
			continue;
		if (state == MODULE_STATE_GOING && k->registered) {
			_stp_kprobe_unregister_one(k);
			k->pending = true;
		} else if (state == MODULE_STATE_COMING && k->pending) {
			rc = _stp_kprobe_register_one(k);
			k->registered = !rc;
			k->pending = rc != 0;
			if (rc)
				_stp_ctl_printf(STP_MSG_WARNING, false,
						"WARNING: cannot probe %s in "
						"module %s as it loads: %s "
						"(%d)\n", k->probe->pp,
						mod->name, _stp_kprobe_why(rc),
						rc);
		}
	}
	mutex_unlock(&_stp_kp_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block _stp_kprobe_module_nb = {
	.notifier_call = _stp_kprobe_module_event,
};
static bool _stp_kprobe_module_nb_on;

/* ----------------------------------------------------------- the table */

static int _stp_kprobe_register_table(struct stp_kprobe *k, int n)
{
	int i, rc, ok = 0, pending = 0, first_rc = 0;

	for (i = 0; i < n; i++) {
		/* START runs in staprun's write(): a staprun told to
		 * stop meanwhile would only have the whole table
		 * unregistered again, so a long registration stops here
		 * (its caller undoes what is registered).
		 */
		if (_stp_start_interrupted())
			return -EINTR;
		if (k[i].fentry) {
			ok++;
			continue;
		}
		rc = _stp_kprobe_register_one(&k[i]);
		if (!rc) {
			k[i].registered = true;
			ok++;
			continue;
		}
		if (k[i].must) {
			_stp_kprobe_error(&k[i], rc);
			return rc;
		}
		/* optional, on a module that is not loaded: later */
		if (rc == -ENOENT && _stp_kprobe_modlen(&k[i])) {
			k[i].pending = true;
			pending++;
			continue;
		}
		if (!first_rc)
			first_rc = rc;
	}
	if (n && !ok && !pending) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: none of the %d "
				"function probes could be registered: %s (%d)\n",
				n, _stp_kprobe_why(first_rc), first_rc);
		return first_rc;
	}
	return 0;
}

/* With probes on modules, the notifier comes first: a module that
 * loads while the table is registered is either found by it or, once
 * the table is whole, registered by the notifier.
 */
static int _stp_kprobe_watch_modules(struct stp_kprobe *k, int n)
{
	int i, rc;

	for (i = 0; i < n && !_stp_kprobe_modlen(&k[i]); i++)
		;
	if (i == n)
		return 0;
	mutex_lock(&_stp_kp_mutex);
	_stp_kp_table = k;
	_stp_kp_count = n;
	mutex_unlock(&_stp_kp_mutex);
	rc = register_module_notifier(&_stp_kprobe_module_nb);
	if (rc) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot follow "
				"module loads for the module probes (%d)\n",
				rc);
		return rc;
	}
	_stp_kprobe_module_nb_on = true;
	return 0;
}

#ifdef STAP_CALLEE_MATCHALL
/* -DSTAP_CALLEE_MATCHALL: a .callee probe runs on every call. */
bool _stp_kcalled_via(struct pt_regs *regs, const struct stp_kpath *paths,
		      int n, int depth)
{
	return true;
}
#else
static u32 _stp_kcall_hash(const char *s)
{
	u32 h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* Where the first depth frames return: ra[0] the probed function's own
 * return.  At a function's entry the return address is on top of the
 * stack (kprobes by int3 and by ftrace both give the stack pointer of
 * the entry); a return probe on the same function may have put its
 * trampoline there, and deeper levels need the unwinder anyway, which
 * knows the real addresses.  Returns the number of levels known.
 */
static int _stp_kcall_returns(struct pt_regs *regs, unsigned long *ra,
			      int depth)
{
	unsigned long pcs[STP_KCALLEE_DEPTH + 1];
	struct _stp_sym sym;
	int i, n;

	if (depth == 1 &&
	    !copy_from_kernel_nofault(ra, (void *)kernel_stack_pointer(regs),
				      sizeof(*ra)) &&
	    !_stp_sym_lookup(ra[0], NULL, &sym) && sym.name &&
	    !strstr(sym.name, "trampoline"))
		return 1;
	n = _stp_kstack_unwind(regs, pcs, depth + 1);
	for (i = 1; i < n; i++)
		ra[i - 1] = pcs[i];
	return n > 0 ? n - 1 : 0;
}

/* Whether path p matches the levels' names (by hash) and offsets. */
static bool _stp_kpath_hashes(const struct stp_kpath *p, const u32 *h,
			      const unsigned long *off, const bool *known)
{
	int i, l = 0;
	bool hit = false;

	for (i = 0; i < p->n; i++) {
		const struct stp_kcall *c = &p->calls[i];

		if (c->level != l) {
			if (!hit)
				return false;
			l = c->level;
			hit = false;
		}
		if (known[l] && c->hash == h[l] && c->offset == off[l])
			hit = true;
	}
	return hit;
}

/* The same by name: a hash match is checked for real. */
static bool _stp_kpath_names(const struct stp_kpath *p,
			     const unsigned long *ra)
{
	struct _stp_sym sym;
	int i, l = -1;
	bool hit = true;

	for (i = 0; i < p->n; i++) {
		const struct stp_kcall *c = &p->calls[i];

		if (c->level != l) {
			if (!hit)
				return false;
			l = c->level;
			hit = false;
			if (_stp_sym_lookup(ra[l], NULL, &sym) || !sym.name)
				return false;
		}
		if (!hit && c->offset == sym.offset &&
		    !strcmp(c->symbol, sym.name))
			hit = true;
	}
	return hit;
}

bool _stp_kcalled_via(struct pt_regs *regs, const struct stp_kpath *paths,
		      int n, int depth)
{
	unsigned long ra[STP_KCALLEE_DEPTH], off[STP_KCALLEE_DEPTH];
	bool known[STP_KCALLEE_DEPTH];
	u32 h[STP_KCALLEE_DEPTH];
	struct _stp_sym sym;
	int i, levels;

	if (depth < 1 || depth > STP_KCALLEE_DEPTH)
		return false;
	levels = _stp_kcall_returns(regs, ra, depth);
	for (i = 0; i < levels; i++) {
		known[i] = !_stp_sym_lookup(ra[i], NULL, &sym) && sym.name;
		h[i] = known[i] ? _stp_kcall_hash(sym.name) : 0;
		off[i] = known[i] ? sym.offset : 0;
	}
	for (i = 0; i < n; i++)
		if (paths[i].depth <= levels &&
		    _stp_kpath_hashes(&paths[i], h, off, known) &&
		    _stp_kpath_names(&paths[i], ra))
			return true;
	return false;
}
#endif

int _stp_kprobes_register(struct stp_kprobe *k, int n)
{
	int rc = _stp_kprobe_watch_modules(k, n);

	rc = rc ?: _stp_ftrace_register(k, n);
	if (!rc) {
		mutex_lock(&_stp_kp_mutex);
		rc = _stp_kprobe_register_table(k, n);
		mutex_unlock(&_stp_kp_mutex);
	}
	if (rc)
		_stp_kprobes_unregister(k, n);
	return rc;
}

/* In batches: each unregistration waits for an RCU grace period, and
 * the batch calls wait once for all of their probes.
 */
void _stp_kprobes_unregister(struct stp_kprobe *k, int n)
{
	struct kprobe **kps;
	struct kretprobe **krps;
	int i, nk = 0, nr = 0;

	_stp_ftrace_unregister(k, n);
	/* no notifier runs once this returns */
	if (_stp_kprobe_module_nb_on) {
		unregister_module_notifier(&_stp_kprobe_module_nb);
		_stp_kprobe_module_nb_on = false;
	}
	mutex_lock(&_stp_kp_mutex);
	_stp_kp_table = NULL;
	_stp_kp_count = 0;
	mutex_unlock(&_stp_kp_mutex);
	for (i = 0; i < n; i++)
		k[i].pending = false;
	kps = kcalloc(n ? n : 1, sizeof(*kps), GFP_KERNEL);
	krps = kcalloc(n ? n : 1, sizeof(*krps), GFP_KERNEL);
	if (!kps || !krps) {
		kfree(kps);
		kfree(krps);
		for (i = 0; i < n; i++)
			_stp_kprobe_unregister_one(&k[i]);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!k[i].registered)
			continue;
		if (k[i].ret)
			krps[nr++] = &k[i].krp;
		else
			kps[nk++] = &k[i].krp.kp;
		k[i].registered = false;
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(krps, nr);
	kfree(kps);
	kfree(krps);
}
