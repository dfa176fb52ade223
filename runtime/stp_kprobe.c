/* stp_kprobe.c - registration of the module's kprobes and kretprobes,
 * and the handlers that run their probes.
 */

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

static int _stp_kprobe_register_one(struct stp_kprobe *k)
{
	/* the module set the handlers; the kernel's own fields are reset
	 * for a registration after an earlier one
	 */
	k->krp.kp.symbol_name = k->symbol;
	k->krp.kp.offset = k->offset;
	k->krp.kp.addr = NULL;
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

int _stp_kprobes_register(struct stp_kprobe *k, int n)
{
	int i, rc, ok = 0, first_rc = 0;

	for (i = 0; i < n; i++) {
		rc = _stp_kprobe_register_one(&k[i]);
		if (!rc) {
			k[i].registered = true;
			ok++;
			continue;
		}
		if (!first_rc)
			first_rc = rc;
		if (!k[i].must)
			continue;
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe %s: "
				"%s (%d)\n", k[i].probe->pp,
				_stp_kprobe_why(rc), rc);
		_stp_kprobes_unregister(k, i);
		return rc;
	}
	if (n && !ok) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: none of the %d "
				"function probes could be registered: %s (%d)\n",
				n, _stp_kprobe_why(first_rc), first_rc);
		return first_rc;
	}
	return 0;
}

/* In batches: each unregistration waits for an RCU grace period, and
 * the batch calls wait once for all of their probes.
 */
void _stp_kprobes_unregister(struct stp_kprobe *k, int n)
{
	struct kprobe **kps;
	struct kretprobe **krps;
	int i, nk = 0, nr = 0;

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
