/* stp_print.h - the script's output: printf-style formatting with the
 * script language's directives, and a per-CPU print buffer that a probe
 * fills and hands to the transport when it ends (or sooner when full:
 * output is never truncated).
 */
#ifndef STP_PRINT_H
#define STP_PRINT_H

#include "stp_limits.h"

/* Script formats: %[flag][width|*][.prec|.*][l]conv, one flag of
 * "0+- #", conv of d i u o x X c s p b m M %.  Integer arguments are
 * always int64_t (a '*' width/precision too), %s takes const char *,
 * %m/%M take an int64_t address (kernel memory, user memory with '#').
 * Returns the length the full output would have (like vsnprintf); the
 * buffer always ends in NUL when size > 0.
 *
 * Output follows the established tool, not C: %#x and %p print "0x0"
 * for 0, %#o prints "00"; '0' still pads when a precision is given; d
 * and i alone take '+' and ' '; %c with '#' gives C escapes or \ooo;
 * %s, %c, %m and %M pad with spaces only (and %05s writes no NUL);
 * %b pads with NUL bytes; anything not a conversion prints as is.
 *
 * %m/%M read memory through the fault-safe copies.  When a read faults
 * the call's output is dropped (sprintf gives "" and returns 0) and
 * the fault is kept for _stp_print_fault.
 */
int _stp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int _stp_snprintf(char *buf, size_t size, const char *fmt, ...);

/* After a printf or sprintf whose format has %m or %M, in the same
 * probe handler: -EFAULT when one of its reads faulted, with *addr the
 * first unreadable byte and *user 1 for user memory ('#'), so the
 * caller can raise "kernel read fault at 0x..."; 0 when all was read.
 * It describes the last formatting call on this CPU.
 */
int _stp_print_fault(unsigned long *addr, int *user);

/* Append to this CPU's print buffer (probe context: preemption is
 * disabled and one handler at a time runs on a CPU).  A piece that does
 * not fit in the room left is preceded by a flush; output larger than
 * the buffer goes to the transport in buffer-sized parts, so none is
 * ever lost here.  A faulting %m/%M drops that printf's output, save
 * parts already flushed because it was larger than the buffer.
 */
void _stp_printf(const char *fmt, ...);
void _stp_vprintf(const char *fmt, va_list ap);
void _stp_print(const char *s);
void _stp_print_n(const char *s, size_t n);
void _stp_print_char(char c);
/* Hand the buffer to the transport (at the end of every handler). */
void _stp_print_flush(void);

#ifdef STP_JSON
#include "msg.h"

/* stap --json (doc/json.md): what follows on this CPU is the script's
 * text (STP_JSON_TEXT) or lines that are JSON objects already
 * (STP_JSON_OBJECTS, the end-of-run print and histograms); what the
 * buffer holds goes out first, as what it was.
 */
void _stp_print_kind(int kind);
/* s as a JSON string, quotes included (runtime/stp_json.h). */
void _stp_print_json_str(const char *s);
#endif

/* Init/exit only.  Until _stp_print_init succeeds the print functions
 * print nothing.  _stp_print_exit flushes what any CPU still holds, so
 * it goes before _stp_transport_close.
 */
int _stp_print_init(void);
void _stp_print_exit(void);

#endif
