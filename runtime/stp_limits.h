/* stp_limits.h - the script limits and their defaults.  Every one can
 * be overridden with stap -D NAME=VAL, which the translator passes to
 * the compiler before this header is read.
 *
 * The runtime's core (stp_core.c, STP_CORE) is one object for every
 * value of the limits below the first part: it is built without their
 * -D options (translator/kbuild.c passes them to the script's object
 * only) and reads their values from stp_script (stp_session.h), which
 * the script's object fills in with STP_SCRIPT_LIMITS.
 */
#ifndef STP_LIMITS_H
#define STP_LIMITS_H

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
/* Bytes of kernel stack the nested function calls of one handler may
 * use (stp_nesting.h); the translator keeps it within 256..8192.
 */
#ifndef MAXCALLSTACK
#define MAXCALLSTACK 4096
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10			/* microseconds */
#endif
#ifndef MAXURETPROBE_FRAMES
#define MAXURETPROBE_FRAMES 256		/* per .return probe with @entry */
#endif
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif
#ifndef STP_MAX_BUCKETS
#define STP_MAX_BUCKETS 128
#endif
#ifndef HIST_WIDTH
#define HIST_WIDTH 50
#endif
#ifndef STP_MAXBINARYARGS
#define STP_MAXBINARYARGS 127
#endif
#ifndef STP_PRINT_BUF_LEN
#define STP_PRINT_BUF_LEN 8192		/* per-CPU print buffer */
#endif
#ifndef STP_RELAY_SUBBUF_SIZE
#define STP_RELAY_SUBBUF_SIZE (256 * 1024)
#endif
#ifndef STP_RELAY_N_SUBBUFS
#define STP_RELAY_N_SUBBUFS 8
#endif

/* ---- The limits the core reads from stp_script ---------------------- */

#ifdef STP_CORE
#if defined(MAXACTION) || defined(MAXACTION_INTERRUPTIBLE) || \
    defined(INTERRUPTIBLE) || defined(MAXTRYLOCK) || \
    defined(MAXMAPENTRIES) || defined(MAXERRORS) || defined(MAXSKIPPED) || \
    defined(MINSTACKSPACE) || defined(HIST_ELISION) || \
    defined(STP_OVERLOAD_THRESHOLD) || defined(STP_OVERLOAD_INTERVAL) || \
    defined(STP_OVERLOAD_SAMPLE_MAX) || defined(STP_NO_OVERLOAD) || \
    defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
#error "a -D limit of the script's reached the core (translator/kbuild.c)"
#endif
#define STP_ACTION_BUDGET	(stp_script.action_budget)
#define MAXTRYLOCK		(stp_script.maxtrylock)
#define MAXMAPENTRIES		(stp_script.maxmapentries)
#define MAXERRORS		(stp_script.maxerrors)
#define MAXSKIPPED		(stp_script.maxskipped)
#define MINSTACKSPACE		(stp_script.minstackspace)
#define HIST_ELISION		(stp_script.hist_elision)
#define STP_OVERLOAD_ON		(stp_script.overload)
#define STP_OVERLOAD_THRESHOLD	(stp_script.overload_threshold)
#define STP_OVERLOAD_INTERVAL	(stp_script.overload_interval)
#define STP_OVERLOAD_SAMPLE_MAX	(stp_script.overload_sample_max)
#else
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
/* --suppress-time-limits (guru mode): a handler may run as long as it
 * takes, so the others wait for its locks as long as it takes too.
 */
#ifdef STAP_SUPPRESS_TIME_LIMITS_ENABLE
#undef MAXTRYLOCK
#define MAXTRYLOCK 0x7fffffff
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 100
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef MINSTACKSPACE
#define MINSTACKSPACE 1024
#endif
#ifndef INTERRUPTIBLE
#define INTERRUPTIBLE 1
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000LL	/* cycles ... */
#endif
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000LL	/* ... per this many */
#endif
/* A sampled run counts for the runs it stands for at no more than this
 * many cycles each: one that took longer (a virtual CPU the host did
 * not run, a lock waited for) counts its own time once.
 */
#ifndef STP_OVERLOAD_SAMPLE_MAX
#define STP_OVERLOAD_SAMPLE_MAX (STP_OVERLOAD_THRESHOLD / 500)
#endif
#ifndef HIST_ELISION
#define HIST_ELISION 2
#endif
/* the actions a handler may run */
#ifdef STAP_SUPPRESS_TIME_LIMITS_ENABLE
#define STP_ACTION_BUDGET	LONG_MAX
#else
#define STP_ACTION_BUDGET	(INTERRUPTIBLE ? MAXACTION_INTERRUPTIBLE : \
				 MAXACTION)
#endif
/* whether handlers count against the overload limit */
#if !defined(STP_NO_OVERLOAD) && !defined(STAP_SUPPRESS_TIME_LIMITS_ENABLE)
#define STP_OVERLOAD_ON		1
#else
#define STP_OVERLOAD_ON		0
#endif
/* stp_script's members from the values above (the generated module) */
#define STP_SCRIPT_LIMITS					\
	.action_budget = STP_ACTION_BUDGET,			\
	.maxtrylock = MAXTRYLOCK,				\
	.maxmapentries = MAXMAPENTRIES,				\
	.maxerrors = MAXERRORS,					\
	.maxskipped = MAXSKIPPED,				\
	.minstackspace = MINSTACKSPACE,				\
	.hist_elision = HIST_ELISION,				\
	.overload = STP_OVERLOAD_ON,				\
	.overload_threshold = STP_OVERLOAD_THRESHOLD,		\
	.overload_interval = STP_OVERLOAD_INTERVAL,		\
	.overload_sample_max = STP_OVERLOAD_SAMPLE_MAX
#endif

#endif
