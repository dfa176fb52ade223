/* stp_string.c - the string operations of generated code: assignment,
 * concatenation and number-to-text, always bounded by MAXSTRINGLEN and
 * always NUL-terminated, safe in any context.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include "kshim-print.h"
#endif
#include "stp_string.h"

char *_stp_strcpy(char *dst, const char *src)
{
	size_t n = strnlen(src, MAXSTRINGLEN - 1);

	memmove(dst, src, n);
	dst[n] = '\0';
	return dst;
}

/* b goes to its place first: when dst is b (s = "x" . s) its text moves
 * up before a's text lands on it, and when dst is a, a stays put.
 */
char *_stp_strcat(char *dst, const char *a, const char *b)
{
	size_t la = strnlen(a, MAXSTRINGLEN - 1);
	size_t lb = strnlen(b, MAXSTRINGLEN - 1 - la);

	memmove(dst + la, b, lb);
	if (dst != a)
		memmove(dst, a, la);
	dst[la + lb] = '\0';
	return dst;
}

/* Built backwards from the end of tmp; cut like any string should
 * MAXSTRINGLEN be set below 21.
 */
char *_stp_lltoa(char *dst, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char *p = tmp + sizeof(tmp);
	size_t n;

	do {
		*--p = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	n = tmp + sizeof(tmp) - p;
	if (n > MAXSTRINGLEN - 1)
		n = MAXSTRINGLEN - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return dst;
}
