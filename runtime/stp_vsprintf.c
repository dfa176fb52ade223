/* stp_vsprintf.c - the formatter behind printf/sprintf: the script
 * language's directives with the established tool's exact output (see
 * stp_print.h), written through a struct stp_out sink.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#else
#include "kshim-print.h"
#endif
#include "stp_vsprintf.h"

/* Flags of one directive. */
#define STP_F_LEFT	0x01	/* '-' */
#define STP_F_PLUS	0x02	/* '+' */
#define STP_F_SPACE	0x04	/* ' ' */
#define STP_F_ALT	0x08	/* '#' */
#define STP_F_ZERO	0x10	/* '0' */
#define STP_F_SIGNED	0x20	/* d, i */
#define STP_F_UPPER	0x40	/* X */

/* Widths and precisions are cut to this, which bounds the work of one
 * directive; the established tool cuts them to its buffer size too.
 */
#define STP_FMT_MAX	STP_PRINT_BUF_LEN

/* %s stops here when no precision is given, should a string be longer
 * than any script string can be.
 */
#define STP_FMT_STRMAX	(MAXSTRINGLEN > STP_PRINT_BUF_LEN ? \
			 MAXSTRINGLEN : STP_PRINT_BUF_LEN)

/* Bytes of memory %m/%M copy per fault-safe read. */
#define STP_FMT_CHUNK	32

struct stp_spec {
	unsigned int flags;
	int width;		/* -1: none given */
	int prec;		/* -1: none given */
	int base;
};

static const char stp_lower_digits[] = "0123456789abcdef";
static const char stp_upper_digits[] = "0123456789ABCDEF";

static void stp_out_init(struct stp_out *o, char *buf, size_t size,
			 void (*drain)(struct stp_out *o))
{
	o->buf = buf;
	o->size = size;
	o->pos = 0;
	o->total = 0;
	o->drain = drain;
	o->fault_addr = 0;
	o->fault_user = false;
}

/* Room for at least one byte, draining if the sink can; 0 when the
 * rest of the output is to be dropped.
 */
static size_t stp_out_room(struct stp_out *o)
{
	if (o->pos >= o->size && o->drain)
		o->drain(o);
	return o->pos < o->size ? o->size - o->pos : 0;
}

static void stp_out_write(struct stp_out *o, const char *s, size_t n)
{
	o->total += n;
	while (n) {
		size_t room = stp_out_room(o);
		size_t k = n < room ? n : room;

		if (!k)
			return;
		memcpy(o->buf + o->pos, s, k);
		o->pos += k;
		s += k;
		n -= k;
	}
}

static void stp_out_pad(struct stp_out *o, char c, int n)
{
	if (n <= 0)
		return;
	o->total += n;
	while (n) {
		size_t room = stp_out_room(o);
		size_t k = (size_t)n < room ? (size_t)n : room;

		if (!k)
			return;
		memset(o->buf + o->pos, c, k);
		o->pos += k;
		n -= k;
	}
}

static void stp_out_char(struct stp_out *o, char c)
{
	stp_out_write(o, &c, 1);
}

/* An integer directive: [spaces][sign][0x|0][zeros][digits][spaces].
 * Unlike C, '#' gives the prefix even for 0 ("0x0", "00"), and '0'
 * pads even when a precision is given.
 */
static void stp_fmt_number(struct stp_out *o, uint64_t num,
			   const struct stp_spec *sp)
{
	const char *dig = sp->flags & STP_F_UPPER ? stp_upper_digits :
						    stp_lower_digits;
	char tmp[24], sign = 0;
	const char *prefix = "";
	int nd = 0, ndig, plen, pad;

	if (sp->flags & STP_F_SIGNED) {
		if ((int64_t)num < 0) {
			sign = '-';
			num = 0 - num;
		} else if (sp->flags & STP_F_PLUS) {
			sign = '+';
		} else if (sp->flags & STP_F_SPACE) {
			sign = ' ';
		}
	}
	if ((sp->flags & STP_F_ALT) && sp->base == 16)
		prefix = sp->flags & STP_F_UPPER ? "0X" : "0x";
	else if ((sp->flags & STP_F_ALT) && sp->base == 8)
		prefix = "0";
	do {
		tmp[nd++] = dig[num % sp->base];
		num /= sp->base;
	} while (num);

	ndig = sp->prec > nd ? sp->prec : nd;
	plen = (int)strlen(prefix);
	pad = sp->width - ndig - plen - (sign ? 1 : 0);
	if (!(sp->flags & (STP_F_LEFT | STP_F_ZERO)))
		stp_out_pad(o, ' ', pad);
	if (sign)
		stp_out_char(o, sign);
	stp_out_write(o, prefix, plen);
	if ((sp->flags & (STP_F_LEFT | STP_F_ZERO)) == STP_F_ZERO)
		stp_out_pad(o, '0', pad);
	stp_out_pad(o, '0', ndig - nd);
	while (nd)
		stp_out_char(o, tmp[--nd]);
	if (sp->flags & STP_F_LEFT)
		stp_out_pad(o, ' ', pad);
}

/* The C escape for c, or 0 when it has none. */
static char stp_char_escape(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '\'': return '\'';
	case '\\': return '\\';
	}
	return 0;
}

/* %c, and %#c: printable ASCII as is, the rest as \n-style escapes or
 * three octal digits (so %#c of 0 is \000).  The quote and backslash
 * are escaped; '0' pads with spaces.
 */
static void stp_fmt_char(struct stp_out *o, unsigned char c,
			 const struct stp_spec *sp)
{
	char text[4];
	int n = 0;

	if (!(sp->flags & STP_F_ALT) ||
	    (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')) {
		text[n++] = c;
	} else {
		text[n++] = '\\';
		if (stp_char_escape(c)) {
			text[n++] = stp_char_escape(c);
		} else {
			text[n++] = '0' + (c >> 6);
			text[n++] = '0' + ((c >> 3) & 7);
			text[n++] = '0' + (c & 7);
		}
	}
	if (!(sp->flags & STP_F_LEFT))
		stp_out_pad(o, ' ', sp->width - n);
	stp_out_write(o, text, n);
	if (sp->flags & STP_F_LEFT)
		stp_out_pad(o, ' ', sp->width - n);
}

/* %s: the precision caps the length; '0' pads with spaces (and, unlike
 * the established tool, writes no NUL after the text).
 */
static void stp_fmt_string(struct stp_out *o, const char *s,
			   const struct stp_spec *sp)
{
	size_t len;

	if ((unsigned long)s < PAGE_SIZE)
		s = "<NULL>";
	len = strnlen(s, sp->prec >= 0 ? (size_t)sp->prec : STP_FMT_STRMAX);
	if (!(sp->flags & STP_F_LEFT))
		stp_out_pad(o, ' ', sp->width - (int)len);
	stp_out_write(o, s, len);
	if (sp->flags & STP_F_LEFT)
		stp_out_pad(o, ' ', sp->width - (int)len);
}

/* %b: the integer's low 1, 2, 4 or 8 bytes in native order, the size
 * taken from the precision, else from the width, else 8; the width pads
 * with NUL bytes.
 */
static int stp_binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

static void stp_fmt_binary(struct stp_out *o, int64_t v,
			   const struct stp_spec *sp)
{
	union {
		int8_t b1;
		int16_t b2;
		int32_t b4;
		int64_t b8;
		char raw[8];
	} u;
	int size = stp_binary_size(sp->prec);
	int width = sp->width;

	if (width < 0)
		width = size;
	if (size < 0)
		size = stp_binary_size(width) > 0 ? width : 8;
	switch (size) {
	case 1: u.b1 = (int8_t)v; break;
	case 2: u.b2 = (int16_t)v; break;
	case 4: u.b4 = (int32_t)v; break;
	default: u.b8 = v; break;
	}
	if (!(sp->flags & STP_F_LEFT))
		stp_out_pad(o, '\0', width - size);
	stp_out_write(o, u.raw, size);
	if (sp->flags & STP_F_LEFT)
		stp_out_pad(o, '\0', width - size);
}

/* Fault-safe copy of n bytes of kernel or (current's) user memory. */
static int stp_fmt_read(void *dst, unsigned long addr, size_t n, bool user)
{
	long rc;

	if (user)
		rc = copy_from_user_nofault(dst, (const void __user *)addr, n);
	else
		rc = copy_from_kernel_nofault(dst, (const void *)addr, n);
	return rc ? -EFAULT : 0;
}

/* A chunk failed: find its first unreadable byte for the message. */
static int stp_fmt_fault(struct stp_out *o, unsigned long addr, size_t n,
			 bool user)
{
	unsigned char c;
	size_t i;

	for (i = 0; i < n; i++)
		if (stp_fmt_read(&c, addr + i, 1, user))
			break;
	o->fault_addr = i < n ? addr + i : addr;
	o->fault_user = user;
	return -EFAULT;
}

static void stp_out_hex(struct stp_out *o, const unsigned char *p, size_t n)
{
	char hex[2 * STP_FMT_CHUNK];
	size_t i;

	for (i = 0; i < n; i++) {
		hex[2 * i] = stp_lower_digits[p[i] >> 4];
		hex[2 * i + 1] = stp_lower_digits[p[i] & 15];
	}
	stp_out_write(o, hex, 2 * n);
}

/* %m / %M: precision bytes (default 1) at addr, raw or as hex pairs;
 * '#' reads user memory.  A fault stops the formatting.
 */
static int stp_fmt_memory(struct stp_out *o, unsigned long addr,
			  const struct stp_spec *sp, bool hex)
{
	unsigned char chunk[STP_FMT_CHUNK];
	bool user = sp->flags & STP_F_ALT;
	int len = sp->prec > 0 ? sp->prec : 1;
	int shown = hex ? 2 * len : len;

	if (!(sp->flags & STP_F_LEFT))
		stp_out_pad(o, ' ', sp->width - shown);
	while (len > 0) {
		size_t n = len < STP_FMT_CHUNK ? len : STP_FMT_CHUNK;

		if (stp_fmt_read(chunk, addr, n, user))
			return stp_fmt_fault(o, addr, n, user);
		if (hex)
			stp_out_hex(o, chunk, n);
		else
			stp_out_write(o, (const char *)chunk, n);
		addr += n;
		len -= n;
	}
	if (sp->flags & STP_F_LEFT)
		stp_out_pad(o, ' ', sp->width - shown);
	return 0;
}

/* Digits of a width or precision, saturating at STP_FMT_MAX. */
static int stp_fmt_atoi(const char **fmt)
{
	int n = 0;

	while (**fmt >= '0' && **fmt <= '9') {
		if (n < STP_FMT_MAX)
			n = n * 10 + (**fmt - '0');
		(*fmt)++;
	}
	return n < STP_FMT_MAX ? n : STP_FMT_MAX;
}

static int stp_fmt_clamp(int64_t v)
{
	return v < 0 ? 0 : v > STP_FMT_MAX ? STP_FMT_MAX : (int)v;
}

/* spec := flag* [digits | '*'] ['.' [digits | '*']] [h | l | ll | L]
 * Leaves *fmt on the conversion character.  A negative '*' width or
 * precision, or a '.' alone, means 0: script formats clamp what they
 * are given, as the established tool's compiled formats do.
 * '0' is a flag only right after the '%': after another flag it starts
 * the width, as the established tool reads one flag and then a width
 * ("%#010x" of 255 is "      0xff", "%-05d" of 42 is "42   ").  Further
 * flags ("%#-10x") have their C meaning.
 */
static void stp_fmt_spec(const char **fmt, struct stp_spec *sp, va_list *ap)
{
	const char *f = *fmt;

	sp->flags = 0;
	for (;; f++) {
		if (*f == '-')
			sp->flags |= STP_F_LEFT;
		else if (*f == '+')
			sp->flags |= STP_F_PLUS;
		else if (*f == ' ')
			sp->flags |= STP_F_SPACE;
		else if (*f == '#')
			sp->flags |= STP_F_ALT;
		else if (*f == '0' && f == *fmt)
			sp->flags |= STP_F_ZERO;
		else
			break;
	}
	sp->width = -1;
	if (*f >= '0' && *f <= '9') {
		sp->width = stp_fmt_atoi(&f);
	} else if (*f == '*') {
		f++;
		sp->width = stp_fmt_clamp(va_arg(*ap, int64_t));
	}
	sp->prec = -1;
	if (*f == '.') {
		f++;
		if (*f >= '0' && *f <= '9') {
			sp->prec = stp_fmt_atoi(&f);
		} else if (*f == '*') {
			f++;
			sp->prec = stp_fmt_clamp(va_arg(*ap, int64_t));
		} else {
			sp->prec = 0;
		}
	}
	if (*f == 'h' || *f == 'L')
		f++;
	else if (*f == 'l' && *++f == 'l')
		f++;
	*fmt = f;
}

/* One directive, fmt on its conversion character.  Every integer
 * argument is an int64_t, whatever the length modifier says.
 */
static int stp_fmt_directive(struct stp_out *o, char conv,
			     struct stp_spec *sp, va_list *ap)
{
	sp->base = 10;
	switch (conv) {
	case 'd':
	case 'i':
		sp->flags |= STP_F_SIGNED;
		break;
	case 'u':
		break;
	case 'o':
		sp->base = 8;
		break;
	case 'X':
		sp->flags |= STP_F_UPPER;
		sp->base = 16;
		break;
	case 'x':
		sp->base = 16;
		break;
	case 'p':
		sp->flags |= STP_F_ALT;
		sp->base = 16;
		break;
	case 'c':
		stp_fmt_char(o, (unsigned char)va_arg(*ap, int64_t), sp);
		return 0;
	case 's':
		stp_fmt_string(o, va_arg(*ap, const char *), sp);
		return 0;
	case 'b':
		stp_fmt_binary(o, va_arg(*ap, int64_t), sp);
		return 0;
	case 'm':
	case 'M':
		return stp_fmt_memory(o, (unsigned long)va_arg(*ap, int64_t),
				      sp, conv == 'M');
	}
	stp_fmt_number(o, (uint64_t)va_arg(*ap, int64_t), sp);
	return 0;
}

static int stp_format(struct stp_out *o, const char *fmt, va_list ap)
{
	struct stp_spec sp;
	va_list aq;
	int rc = 0;

	/* A va_list may be an array type: work on a copy so its address
	 * can be passed down.
	 */
	va_copy(aq, ap);
	while (*fmt && !rc) {
		const char *lit = fmt;

		while (*fmt && *fmt != '%')
			fmt++;
		stp_out_write(o, lit, fmt - lit);
		if (!*fmt)
			break;
		fmt++;
		stp_fmt_spec(&fmt, &sp, &aq);
		switch (*fmt) {
		case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
		case 'p': case 'c': case 's': case 'b': case 'm': case 'M':
			rc = stp_fmt_directive(o, *fmt++, &sp, &aq);
			break;
		case '%':
			stp_out_char(o, *fmt++);
			break;
		case '\0':
			/* A lone '%' at the end is printed as is. */
			stp_out_char(o, '%');
			break;
		default:
			/* Not a conversion: print '%' and the character, as
			 * the established tool does.
			 */
			stp_out_char(o, '%');
			stp_out_char(o, *fmt++);
			break;
		}
	}
	va_end(aq);
	return rc;
}
