/* stp_limits.h - the script limits and their defaults.  Every one can
 * be overridden with stap -D NAME=VAL, which the translator passes to
 * the compiler before this header is read.
 */
#ifndef STP_LIMITS_H
#define STP_LIMITS_H

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
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
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10			/* microseconds */
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
#ifndef MAXURETPROBE_FRAMES
#define MAXURETPROBE_FRAMES 256		/* per .return probe with @entry */
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
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif
#ifndef STP_MAX_BUCKETS
#define STP_MAX_BUCKETS 128
#endif
#ifndef HIST_ELISION
#define HIST_ELISION 2
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

#endif
