/* stp_netfilter.c - the registration of netfilter.hook probes, per
 * network namespace through a pernet_operations, so that a namespace
 * made while the session runs gets the hooks too.
 */

#include <linux/netfilter.h>
#include <net/net_namespace.h>

static struct nf_hook_ops *_stp_nf_ops;
static int _stp_nf_n;
static bool _stp_nf_registered;

static int _stp_nf_net_init(struct net *net)
{
	return nf_register_net_hooks(net, _stp_nf_ops, _stp_nf_n);
}

static void _stp_nf_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, _stp_nf_ops, _stp_nf_n);
}

static struct pernet_operations _stp_nf_pernet = {
	.init = _stp_nf_net_init,
	.exit = _stp_nf_net_exit,
};

int _stp_netfilter_register(struct nf_hook_ops *ops, int n)
{
	int rc;

	_stp_nf_ops = ops;
	_stp_nf_n = n;
	rc = register_pernet_subsys(&_stp_nf_pernet);
	if (rc) {
		_stp_ctl_printf(STP_MSG_ERROR, false, "ERROR: cannot register "
				"the netfilter hooks (%d)\n", rc);
		return rc;
	}
	_stp_nf_registered = true;
	return 0;
}

void _stp_netfilter_unregister(void)
{
	if (!_stp_nf_registered)
		return;
	unregister_pernet_subsys(&_stp_nf_pernet);
	_stp_nf_registered = false;
	/* the hook functions are the module's: none may still run */
	synchronize_net();
}
