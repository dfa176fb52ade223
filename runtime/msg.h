/* msg.h - the control protocol between a tapir module and staprun, and
 * the debugfs names both sides agree on.  Shared by the kernel runtime
 * and staprun: fixed-width fields only, no pointers, no padding.
 *
 * Layout: /sys/kernel/debug/systemtap/MODULE/.cmd is the control file
 * (one message per read() or write()); traceN, one per CPU, carry the
 * script's output (relay buffers, read with read()).
 *
 * A message is a struct stp_msg_hdr followed by len bytes of payload.
 * Handshake and life cycle:
 *   module  -> TRANSPORT{version, bulk, ...}   queued at module init
 *   staprun -> READY{version}                  after opening traceN
 *   staprun -> START{target pid, flags}
 *   module  -> START{rc}                       begin probes ran, rest armed
 *   module  -> WARNING/ERROR text, SYSTEM cmd, REQUEST_EXIT (exit() called)
 *   staprun -> EXIT                            SIGINT, -c exit, REQUEST_EXIT
 *   module  -> EXIT{errors, skipped, lost}     end probes ran, output flushed
 * Closing the control file without EXIT makes the module stop itself,
 * unless DETACH came first (staprun -L, SIGQUIT under -A): the session
 * goes on with its output kept in the relay buffers, the oldest
 * overwritten when they fill, until a staprun -A opens the file again;
 * the module then queues a new TRANSPORT ahead of what waits, and after
 * READY the session is attached again (no START: it runs already).
 */
#ifndef STP_MSG_H
#define STP_MSG_H

#include <linux/types.h>

/* Bumped on any incompatible change; both sides check it. */
#define STP_MSG_VERSION 1

#define STP_DEBUGFS_DIR "systemtap"	/* under the debugfs mount */
#define STP_CTL_NAME ".cmd"
#define STP_RELAY_NAME "trace"		/* trace0, trace1, ... */

/* The largest message, header included: a read() buffer this big always
 * gets a whole message.
 */
#define STP_MSG_MAX 2048

enum stp_msg_type {
	STP_MSG_TRANSPORT = 1,	/* m->s: struct stp_msg_transport */
	STP_MSG_READY = 2,	/* s->m: struct stp_msg_ready */
	STP_MSG_START = 3,	/* s->m: stp_msg_start, m->s: ..._start_rc */
	STP_MSG_EXIT = 4,	/* s->m: no payload; m->s: stp_msg_exit_rc */
	STP_MSG_REQUEST_EXIT = 5, /* m->s: no payload */
	STP_MSG_WARNING = 6,	/* m->s: text for stderr, "WARNING: ..." */
	STP_MSG_ERROR = 7,	/* m->s: text for stderr, "ERROR: ..." */
	STP_MSG_SYSTEM = 8,	/* m->s: a command for /bin/sh -c */
	STP_MSG_SWITCH_FILE = 9, /* m->s: no payload: open the next -o file */
	STP_MSG_DETACH = 10,	/* s->m: no payload: leave, the run goes on */
};

struct stp_msg_hdr {
	__u32 type;		/* enum stp_msg_type */
	__u32 len;		/* payload bytes that follow */
};

#define STP_MSG_PAYLOAD_MAX (STP_MSG_MAX - sizeof(struct stp_msg_hdr))

struct stp_msg_transport {
	__u32 version;		/* STP_MSG_VERSION of the module */
	__u32 bulk;		/* 1: one output file per CPU (stap -b) */
	__u32 ncpus;		/* traceN exist for some N < ncpus */
	__u32 subbuf_size;	/* relay buffer of each CPU: */
	__u32 n_subbufs;	/* n_subbufs of subbuf_size bytes */
	__u32 flags;		/* STP_TRANSPORT_*: 0 = plain text */
};

/* stap --json: the output is a stream of records (struct stp_json_rec,
 * the probe point, the bytes), which staprun turns into JSON lines.  The
 * FIELD bits say which optional fields each printf object carries.
 */
#define STP_TRANSPORT_JSON	(1u << 0)
#define STP_JSON_FIELD_PROBE	(1u << 1)
#define STP_JSON_FIELD_CPU	(1u << 2)
#define STP_JSON_FIELD_TIME	(1u << 3)

#define STP_JSON_MAGIC 0x4e534a54u	/* "TJSN" little-endian */

enum stp_json_kind {
	STP_JSON_TEXT = 0,	/* the script's printed text */
	STP_JSON_OBJECTS = 1,	/* lines that are JSON objects already */
};

/* One print buffer's worth, written to a relay buffer in one piece: a
 * record is never cut, it is kept or dropped whole.
 */
struct stp_json_rec {
	__u32 magic;		/* STP_JSON_MAGIC */
	__u16 kind;		/* enum stp_json_kind */
	__u16 pp_len;		/* bytes of probe point after the header */
	__u32 len;		/* bytes of output after the probe point */
	__u32 reserved;
	__u64 time_ns;		/* its first byte was printed (epoch ns) */
};

struct stp_msg_ready {
	__u32 version;		/* STP_MSG_VERSION of staprun */
	__u32 reserved;
};

struct stp_msg_start {
	__s32 target;		/* -x PID or the -c command, 0 = none */
	__u32 flags;		/* none defined yet: 0 */
};

struct stp_msg_start_rc {
	__s32 rc;		/* 0, or the -errno of stp_probes_start() */
	__u32 reserved;
};

struct stp_msg_exit_rc {
	__u32 errors;		/* script errors reported */
	__u32 skipped;		/* probe hits skipped */
	__u64 lost;		/* bytes of output that could not be kept */
	__u32 failed;		/* 1: the run ended in the error state */
	__u32 reserved;
};

#endif
