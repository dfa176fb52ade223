/* stp_vsprintf.h - private to stp_vsprintf.c and stp_print.c: the sink
 * the formatter writes through, so that one formatter serves both a
 * bounded string (sprintf) and a print buffer that drains when full.
 */
#ifndef STP_VSPRINTF_H
#define STP_VSPRINTF_H

#include "stp_limits.h"

struct stp_out {
	char *buf;
	size_t size;		/* capacity of buf */
	size_t pos;		/* bytes stored in buf */
	size_t total;		/* bytes produced, stored or dropped */
	/* Empties a full buf (sets pos to 0); without it the excess is
	 * only counted.
	 */
	void (*drain)(struct stp_out *o);
	unsigned long fault_addr;	/* first unreadable byte of %m/%M */
	bool fault_user;		/* ... in user memory ('#') */
};

static void stp_out_init(struct stp_out *o, char *buf, size_t size,
			 void (*drain)(struct stp_out *o));
static void stp_out_write(struct stp_out *o, const char *s, size_t n);

/* Format into o.  Returns 0, or -EFAULT when a %m/%M read failed: the
 * formatting stopped there and o->fault_addr says where.
 */
static int stp_format(struct stp_out *o, const char *fmt, va_list ap);

#endif
