/* stp_tracepoint.c - attaching the module's tracepoint callbacks. */

struct _stp_tp_lookup {
	struct stp_tracepoint *t;
	int n;
};

static void _stp_tp_match(struct tracepoint *tp, void *priv)
{
	struct _stp_tp_lookup *l = priv;
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->t[i].module && !l->t[i].tp &&
		    !strcmp(tp->name, l->t[i].name))
			l->t[i].tp = tp;
}

/* The table with tracepoints of modules.  The tracepoint module
 * notifier tells of each module with tracepoints as it comes and goes
 * (and, as it is registered and unregistered, of those loaded), under
 * the kernel's lock of its list of such modules: attaching and
 * detaching happen there, never while the module's tracepoints may go.
 */
static struct stp_tracepoint *_stp_tpm_table;
static int _stp_tpm_n;
static bool _stp_tpm_on;

static void _stp_tpm_coming(struct module *mod)
{
	struct stp_tracepoint *t = _stp_tpm_table;
	unsigned int k;
	int i, rc;

	for (k = 0; k < mod->num_tracepoints; k++) {
		struct tracepoint *tp =
			tracepoint_ptr_deref(&mod->tracepoints_ptrs[k]);

		for (i = 0; i < _stp_tpm_n; i++) {
			if (!t[i].module || t[i].registered ||
			    strcmp(t[i].module, mod->name) ||
			    strcmp(t[i].name, tp->name))
				continue;
			rc = tracepoint_probe_register(tp, t[i].fn, NULL);
			if (rc) {
				_stp_ctl_printf(STP_MSG_WARNING, false,
						"WARNING: cannot probe %s in "
						"module %s: registration "
						"failed (%d)\n", t[i].probe->pp,
						mod->name, rc);
				continue;
			}
			t[i].tp = tp;
			t[i].registered = true;
		}
	}
}

static void _stp_tpm_going(struct module *mod)
{
	struct stp_tracepoint *t = _stp_tpm_table;
	int i;

	for (i = 0; i < _stp_tpm_n; i++) {
		if (!t[i].module || !t[i].registered ||
		    strcmp(t[i].module, mod->name))
			continue;
		tracepoint_probe_unregister(t[i].tp, t[i].fn, NULL);
		t[i].registered = false;
		t[i].tp = NULL;
	}
}

static int _stp_tpm_notify(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	struct tp_module *tp_mod = data;

	if (val == MODULE_STATE_COMING)
		_stp_tpm_coming(tp_mod->mod);
	else if (val == MODULE_STATE_GOING)
		_stp_tpm_going(tp_mod->mod);
	return NOTIFY_OK;
}

static struct notifier_block _stp_tpm_nb = {
	.notifier_call = _stp_tpm_notify,
};

static int _stp_tpm_start(struct stp_tracepoint *t, int n)
{
	int i, rc;

	if (_stp_tpm_table)
		return -EBUSY;
	_stp_tpm_table = t;
	_stp_tpm_n = n;
	rc = register_tracepoint_module_notifier(&_stp_tpm_nb);
	if (rc) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot watch "
				"the modules' tracepoints (%d)\n", rc);
		_stp_tpm_table = NULL;
		return rc;
	}
	_stp_tpm_on = true;
	/* one whose module is not loaded waits for it: said once per
	 * module (a racing load may arm it meanwhile: a stale warning)
	 */
	for (i = 0; i < n; i++) {
		int j;

		if (!t[i].module || READ_ONCE(t[i].registered))
			continue;
		for (j = 0; j < i; j++)
			if (t[j].module && !READ_ONCE(t[j].registered) &&
			    !strcmp(t[j].module, t[i].module))
				break;
		if (j == i)
			_stp_ctl_printf(STP_MSG_WARNING, false, "WARNING: "
					"module %s is not loaded: its "
					"tracepoints are probed once it "
					"is (%s)\n", t[i].module,
					t[i].probe->pp);
	}
	return 0;
}

int _stp_tracepoints_register(struct stp_tracepoint *t, int n)
{
	struct _stp_tp_lookup l = { t, n };
	bool mods = false;
	int i, rc;

	for_each_kernel_tracepoint(_stp_tp_match, &l);
	for (i = 0; i < n; i++) {
		if (t[i].module) {
			mods = true;
			continue;
		}
		/* each attach may patch the kernel's text: a long table
		 * stops when staprun is told to (stp_session.h)
		 */
		if (_stp_start_interrupted()) {
			_stp_tracepoints_unregister(t, i);
			return -EINTR;
		}
		rc = t[i].tp ? tracepoint_probe_register(t[i].tp, t[i].fn,
							 NULL) : -ENOENT;
		if (!rc) {
			t[i].registered = true;
			continue;
		}
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot probe %s: "
				"%s (%d)\n", t[i].probe->pp, rc == -ENOENT ?
				"no such tracepoint in the running kernel" :
				"registration failed", rc);
		_stp_tracepoints_unregister(t, i);
		return rc;
	}
	if (mods) {
		rc = _stp_tpm_start(t, n);
		if (rc) {
			_stp_tracepoints_unregister(t, n);
			return rc;
		}
	}
	return 0;
}

void _stp_tracepoints_unregister(struct stp_tracepoint *t, int n)
{
	bool any = false;
	int i;

	if (_stp_tpm_on && _stp_tpm_table == t) {
		/* detaches every module's, as if each went */
		unregister_tracepoint_module_notifier(&_stp_tpm_nb);
		_stp_tpm_on = false;
		_stp_tpm_table = NULL;
		any = true;
	}
	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		tracepoint_probe_unregister(t[i].tp, t[i].fn, NULL);
		t[i].registered = false;
		any = true;
	}
	/* no callback may still be running when the module goes */
	if (any)
		tracepoint_synchronize_unregister();
}
