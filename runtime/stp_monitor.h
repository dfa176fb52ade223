/* stp_monitor.h - stap --monitor: what a module built for the live view
 * keeps and shows.  Each probe counts its hits and the cycles they took;
 * debugfs/systemtap/MODULE/monitor reads as a text report (the probes,
 * the script's globals) and takes the commands pause, resume and reset.
 * Nothing of it runs in a module built without --monitor.
 */
#ifndef STP_MONITOR_H
#define STP_MONITOR_H

#include "stp_limits.h"

struct seq_file;
struct stp_probe;
struct stp_rwlock;

/* Set by the "pause" command: probes other than begin, end and error
 * return at once, uncounted.
 */
extern bool _stp_monitor_paused;

/* One hit of p that took cycles (probe context, no lock: atomics). */
void _stp_monitor_account(const struct stp_probe *p, u64 cycles);

/* Create and remove the monitor file (module init and exit, process
 * context); without --monitor they do nothing.  Removal waits for a
 * reader in the middle of a read.
 */
int _stp_monitor_init(void);
void _stp_monitor_exit(void);

/* What the generated stp_monitor_globals() and stp_monitor_reset() use:
 * a global's lock taken exclusively with interrupts off, so that no
 * probe on this CPU waits for it (bounded retries, not counted as a
 * skip); false when it was not had.
 */
bool _stp_monitor_lock(struct stp_rwlock *l, unsigned long *flags);
void _stp_monitor_unlock(struct stp_rwlock *l, unsigned long flags);
/* One line of the report per global: "global NAME VALUE"; an array's
 * value is its number of elements in brackets (its per-CPU parts
 * merged first by the caller, _stp_map_agg), a statistic's its @count
 * and @sum (_stp_stat_get).
 */
void _stp_monitor_long(struct seq_file *m, const char *name, long v);
void _stp_monitor_str(struct seq_file *m, const char *name, const char *s);
void _stp_monitor_array(struct seq_file *m, const char *name,
			unsigned int size);
void _stp_monitor_stat(struct seq_file *m, const char *name, s64 count,
		       s64 sum);
void _stp_monitor_busy(struct seq_file *m, const char *name);

#endif
