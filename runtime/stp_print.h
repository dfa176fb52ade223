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
 */
int _stp_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int _stp_snprintf(char *buf, size_t size, const char *fmt, ...);

/* Append to this CPU's print buffer (probe context). */
void _stp_printf(const char *fmt, ...);
void _stp_vprintf(const char *fmt, va_list ap);
void _stp_print(const char *s);
void _stp_print_n(const char *s, size_t n);
void _stp_print_char(char c);
/* Hand the buffer to the transport. */
void _stp_print_flush(void);

/* Init/exit only. */
int _stp_print_init(void);
void _stp_print_exit(void);

#endif
