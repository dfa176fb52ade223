/* stp_main.c - module_init and module_exit of every tapir module: the
 * transport, probe contexts, print buffers and the script's globals come
 * up in that order at load; at unload nothing may still be running.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "stp_print.h"
#include "stp_probe.h"
#include "stp_session.h"
#include "stp_transport.h"
#include "stp_monitor.h"

/* Nothing is armed here: probes wait for staprun's START. */
static int __init _stp_module_init(void)
{
	int rc;

	rc = _stp_transport_init();
	if (rc)
		goto out;
	rc = _stp_context_init();
	if (rc)
		goto out_transport;
	rc = _stp_print_init();
	if (rc)
		goto out_context;
	rc = stp_globals_init();
	if (rc)
		goto out_print;
	rc = _stp_monitor_init();
	if (rc)
		goto out_globals;
	_stp_session_ready();
	return 0;

out_globals:
	stp_globals_free();
out_print:
	_stp_print_exit();
out_context:
	_stp_context_free();
out_transport:
	_stp_transport_close();
out:
	pr_err("%s: cannot initialise (%d)\n", module_name(THIS_MODULE), rc);
	return rc;
}

/* A module unloaded while running (staprun killed before it could stop
 * it) is stopped here like any other: end probes, flush, then teardown.
 */
static void __exit _stp_module_exit(void)
{
	_stp_monitor_exit();
	_stp_session_shutdown();
	stp_globals_free();
	_stp_print_exit();
	_stp_context_free();
	_stp_transport_close();
}

module_init(_stp_module_init);
module_exit(_stp_module_exit);
/* relay and debugfs are exported to GPL modules only. */
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tapir script module");
