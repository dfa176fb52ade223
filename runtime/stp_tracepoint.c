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
		if (!l->t[i].tp && !strcmp(tp->name, l->t[i].name))
			l->t[i].tp = tp;
}

int _stp_tracepoints_register(struct stp_tracepoint *t, int n)
{
	struct _stp_tp_lookup l = { t, n };
	int i, rc;

	for_each_kernel_tracepoint(_stp_tp_match, &l);
	for (i = 0; i < n; i++) {
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
	return 0;
}

void _stp_tracepoints_unregister(struct stp_tracepoint *t, int n)
{
	bool any = false;
	int i;

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
