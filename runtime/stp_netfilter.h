/* stp_netfilter.h - netfilter.hook probes: one nf_hook_ops per probe,
 * registered in every network namespace, the ones that exist at START
 * and the ones made while the session runs, until its stop.
 */
#ifndef STP_NETFILTER_H
#define STP_NETFILTER_H

struct nf_hook_ops;

/* Register the n hooks of ops in every namespace; 0, or an error after
 * undoing what was registered.
 */
int _stp_netfilter_register(struct nf_hook_ops *ops, int n);
/* Unregister them everywhere and wait until no hook function runs. */
void _stp_netfilter_unregister(void);

#endif
